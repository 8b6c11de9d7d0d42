// tasks.hpp — the fork-join helpers of the analyse phase (OpenMP tasks).
// Results never depend on the number of threads: a task computes what it would compute alone, into memory of
// its own, and every join happens at a fixed point of the program.
#pragma once
#include <omp.h>

#include <exception>
#include <utility>

#include "ssids/types.hpp"

namespace ssids {
namespace detail {

/// Below this many variables an analyse runs on the calling thread alone: its METIS calls take a millisecond
/// or two, and waking a team of threads can cost more on a busy machine (up to 8 ms, a scheduler time slice,
/// measured on the loaded 2-core sandbox with OpenMP's default wait policy, bench/NOTES.md).
constexpr index_t kParallelMinVariables = 5000;

/// Threads a step of an analyse uses: Options::num_threads, or OpenMP's default when that is 0; one when
/// the step has fewer than `min_n` variables (kParallelMinVariables unless the step has no tasks below a
/// larger size).
inline int analyse_threads(int num_threads, index_t n, index_t min_n = kParallelMinVariables) {
  if (n < min_n) return 1;
  return num_threads > 0 ? num_threads : omp_get_max_threads();
}

/// Runs body() on one thread of a team of `threads` so that the tasks it creates spread over the team;
/// directly when threads <= 1 or when already inside a parallel region (the tasks then join that team).
/// An exception thrown by body() is rethrown here.
template <class F>
void in_task_team(int threads, F&& body) {
  if (threads <= 1 || omp_in_parallel()) {
    body();
    return;
  }
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
#pragma omp single
  {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

/// Runs a() as a task and b() on the calling thread, then waits for a(); the first exception (a's before
/// b's) is rethrown after both have finished.
template <class A, class B>
void fork_join(A&& a, B&& b) {
  std::exception_ptr ea, eb;
#pragma omp task shared(ea, a) default(none)
  {
    try {
      a();
    } catch (...) {
      ea = std::current_exception();
    }
  }
  try {
    b();
  } catch (...) {
    eb = std::current_exception();
  }
#pragma omp taskwait
  if (ea) std::rethrow_exception(ea);
  if (eb) std::rethrow_exception(eb);
}

}  // namespace detail
}  // namespace ssids
