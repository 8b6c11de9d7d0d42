// support_small.hpp — the small-front phase of the GPU factorization run by its CPU twin on the host
// (factor/small_front_plan.hpp, factor/gpu_twins.hpp's twin_small_fronts), with the same plan and the same
// retries on deferral as the GPU driver, and the factors it gives when every node is small.
#pragma once
#include <vector>

#include "analyse/symbolic.hpp"
#include "factor/numeric.hpp"
#include "factor/small_front_plan.hpp"
#include "ssids/factor.hpp"

namespace ssids_test {

struct SmallPhase {
  ssids::detail::gpu::SmallFrontPlan plan;
  ssids::detail::gpu::SmallFrontNeeds needs;
  std::vector<ssids::detail::gpu::SmallResult> res;  ///< by node
  std::vector<double> l, d, cb;
  std::vector<int> rows;
  int tries = 0;  ///< runs of the whole phase (1 when nothing was deferred)
};

/// Runs the small phase of `sym` on the host (values val, optional scale by variable, u and small from options;
/// the plan's launches grouped as `grouping` says; needs: what earlier factorizations taught the plan, none if null).
SmallPhase run_small_phase_twin(const ssids::detail::Symbolic& sym, const double* val, const double* scale,
                                ssids::Mode mode, const ssids::Options& options,
                                ssids::detail::gpu::LaunchGrouping grouping = ssids::detail::gpu::LaunchGrouping::estimated,
                                const ssids::detail::gpu::SmallFrontNeeds* needs = nullptr);

/// The factors (host layout, as the CPU path's) when every node is small and done; scale as given to
/// run_small_phase_twin. Posdef mode: L D^{1/2}, as the GPU driver leaves it.
ssids::Factors small_phase_factors(const std::shared_ptr<const ssids::detail::Symbolic>& sym, const SmallPhase& ph,
                                   const double* scale, ssids::Mode mode);

}  // namespace ssids_test
