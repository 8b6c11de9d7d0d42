// dense_internal.hpp — internals of the CPU dense kernels (dense_ldlt.cpp, dense_cholesky.cpp,
// dense_update.cpp), exposed for their tests and for later kernels that want the same tiled update.
//
// Storage as in dense_ldlt.hpp: column-major, leading dimensions given, lower triangle only.
//
// Threading policy of the dense kernels (run_tasks below): BLAS is only ever called single-threaded,
// because OpenBLAS' multithreaded routines do not give the same bits as its single-threaded ones
// (measured: a threaded dsyrk/dgemm outside a parallel region differed from the same call made inside
// one). Parallelism comes from our own fixed tiles instead, run as OpenMP tasks.
#pragma once
#include <omp.h>

#include "factor/dense_ldlt.hpp"

namespace ssids {
namespace detail {

/// What ldlt_threshold_partial did beyond its documented outputs (for tests and diagnostics).
struct DenseLdltTrace {
  int num_relaxed = 0;  ///< pivots accepted by the relaxed (u = 0) root pass: their |l_ij| is not bounded by 1/u
  int num_forced = 0;   ///< root columns that failed even the relaxed pass and were forced (see dense_ldlt.cpp)
  int num_widen = 0;    ///< times a candidate window was widened after making no progress
  int num_flush = 0;    ///< BLAS-3 updates of the columns right of the current block
};

/// ldlt_threshold_partial (same contract), also reporting `trace` (out; reset on entry).
int ldlt_threshold_partial_traced(int m, int p, double* a, int lda, int* perm, double* d,
                                  const DenseLdltOptions& options, DenseLdltStats& stats, DenseLdltTrace& trace);

/// While alive, makes BLAS calls from this task single-threaded: outside an active parallel region the
/// OpenMP build of OpenBLAS uses omp_get_max_threads() threads, so that ICV (which belongs to the
/// calling task only) is set to 1 and restored on exit. Inside an active region it does nothing
/// (OpenBLAS is single-threaded there already).
class SerialBlasScope {
 public:
  SerialBlasScope() : saved_(omp_in_parallel() ? 0 : omp_get_max_threads()) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~SerialBlasScope() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  SerialBlasScope(const SerialBlasScope&) = delete;
  SerialBlasScope& operator=(const SerialBlasScope&) = delete;

 private:
  int saved_;
};

/// Runs f(0), ..., f(n-1), which must be independent, each with single-threaded BLAS:
///  * inside an active parallel region: as tasks of a taskgroup (the caller is typically one thread of
///    a parallel loop over fronts; idle threads of that region pick the tasks up);
///  * outside one, with more than one thread available and `work` (flops, a hint) large enough to pay
///    for starting threads (about a millisecond of dgemm): in a parallel region of our own, as tasks;
///  * otherwise in a loop.
/// Which thread runs f(t) never changes what f(t) computes, so results do not depend on the policy.
constexpr double parallel_region_min_flops = 5e7;
template <class F>
void run_tasks(int n, double work, const F& f) {
  if (n <= 0) return;
  if (n > 1 && omp_in_parallel()) {
#pragma omp taskgroup
    {
      for (int t = 0; t < n; ++t) {
#pragma omp task firstprivate(t) shared(f)
        {
          SerialBlasScope serial;
          f(t);
        }
      }
    }
  } else if (n > 1 && work >= parallel_region_min_flops && omp_get_max_threads() > 1) {
#pragma omp parallel
#pragma omp single
    {
      for (int t = 0; t < n; ++t) {
#pragma omp task firstprivate(t) shared(f)
        {
          SerialBlasScope serial;
          f(t);
        }
      }
    }
  } else {
    SerialBlasScope serial;
    for (int t = 0; t < n; ++t) f(t);
  }
}

/// X <- X L^{-T} for X (nrow x b, ldx) and L (b x b lower, ldl): the off-diagonal block of a Cholesky
/// panel. Split into fixed row tiles run through run_tasks (rows are independent).
void trsm_right_lower_trans(int nrow, int b, const double* l, int ldl, double* x, int ldx);

/// Symmetric rank-k update of a lower trapezoid, C -= L W^T:
///   for every column c in [0, ncol) and row i in [c, nrow):  C(i, c) -= sum_{t < k} L(i, t) * W(c, t).
/// in     nrow, ncol : nrow >= ncol >= 0.
/// in     k          : inner dimension; nothing is done when k <= 0.
/// in     l, ldl     : L, nrow x k (ldl >= nrow).
/// in     w, ldw     : W, ncol x k (ldw >= ncol); w == nullptr means W = L (Cholesky: dsyrk on the diagonal).
/// in/out c, ldc     : C, nrow x ncol; only entries on or below the diagonal are read or written.
/// The work is split into tiles whose boundaries depend only on nrow and ncol, run through run_tasks.
/// Every entry of C is produced by the same single-threaded BLAS call whatever the threads, so results
/// are bitwise independent of the number of threads.
void lower_update(int nrow, int ncol, int k, const double* l, int ldl, const double* w, int ldw, double* c, int ldc);

}  // namespace detail
}  // namespace ssids
