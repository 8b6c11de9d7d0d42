// profile.hpp — wall-clock times of the phases of one analyse (bench/bench_analyse, Options::print_level).
// A phase is named by a string literal; a phase that runs more than once (the two METIS calls of the
// matching ordering are separate phases, but a phase inside a loop is not) accumulates its time.
#pragma once
#include <chrono>
#include <cstring>
#include <vector>

#include "ssids/analyse.hpp"

namespace ssids {
namespace detail {

struct AnalyseProfile {
  struct Phase {
    const char* name;
    double seconds;
  };
  std::vector<Phase> phases;  ///< in the order they first ran
  void add(const char* name, double seconds) {
    for (Phase& p : phases)
      if (std::strcmp(p.name, name) == 0) {
        p.seconds += seconds;
        return;
      }
    phases.push_back(Phase{name, seconds});
  }
  double get(const char* name) const {
    for (const Phase& p : phases)
      if (std::strcmp(p.name, name) == 0) return p.seconds;
    return 0.0;
  }
};

/// Times consecutive phases into a profile; does nothing (not even read the clock) without one.
class PhaseTimer {
 public:
  explicit PhaseTimer(AnalyseProfile* p) : p_(p) {
    if (p_) t_ = std::chrono::steady_clock::now();
  }
  /// Ends the phase that began at the previous lap (or at construction) and names it.
  void lap(const char* name) {
    if (!p_) return;
    const auto now = std::chrono::steady_clock::now();
    p_->add(name, std::chrono::duration<double>(now - t_).count());
    t_ = now;
  }

 private:
  AnalyseProfile* p_;
  std::chrono::steady_clock::time_point t_;
};

struct OrderingHint;
/// ssids::analyse with its phase times added to `profile` (may be null: plain analyse); `hint`: what a
/// re-analysis of the same pattern already knows (ordering.hpp; the result is the same without it).
Analysis analyse_profiled(const CscView& a, const Options& options, Inform& inform, const index_t* order,
                          AnalyseProfile* profile, const OrderingHint* hint = nullptr);

}  // namespace detail
}  // namespace ssids
