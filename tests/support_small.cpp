// support_small.cpp — see support_small.hpp.
#include "support_small.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "factor/factor_tables.hpp"
#include "factor/front_targets.hpp"
#include "factor/gpu_twins.hpp"

namespace ssids_test {

using namespace ssids::detail;

SmallPhase run_small_phase_twin(const Symbolic& sym, const double* val, const double* scale, ssids::Mode mode,
                                const ssids::Options& options, gpu::LaunchGrouping grouping,
                                const gpu::SmallFrontNeeds* needs) {
  const bool posdef = mode == ssids::Mode::posdef;
  SmallPhase ph;
  ssids::Vector<long long> tptr, srcs;
  ssids::Vector<gpu::ATarget> targets;
  build_front_targets(sym, tptr, srcs, targets);
  std::vector<long long> rptr(sym.rptr.begin(), sym.rptr.end());
  ph.res.assign(sym.nsup, gpu::SmallResult{0, 0, 0, 0, -1});
  if (needs) ph.needs = *needs;
  for (;;) {
    ++ph.tries;
    ph.plan = gpu::plan_small_fronts(sym, posdef, options.cpu_block_size, ph.needs, grouping);
    ph.l.assign(ph.plan.l_size + 1, 0.0);
    ph.d.assign(ph.plan.d_size + 1, 0.0);
    ph.cb.assign(ph.plan.cb_size + 1, 0.0);
    ph.rows.assign(ph.plan.rows_size + 1, -1);
    gpu::SmallFrontArgs a{};
    a.slots = ph.plan.slots.data();
    a.res = ph.res.data();
    a.sptr = sym.sptr.data();
    a.rlist = sym.rlist.data();
    a.perm = sym.perm.data();
    a.cmap = sym.cmap.data();
    a.child_ptr = sym.child_ptr.data();
    a.child_list = sym.child_list.data();
    a.rptr = rptr.data();
    a.tptr = tptr.data();
    a.srcs = srcs.data();
    a.targets = targets.data();
    a.val = val;
    a.scale = scale;
    a.lstore = ph.l.data();
    a.rows_store = ph.rows.data();
    a.dstore = ph.d.data();
    a.cb_pool = ph.cb.data();
    a.u = posdef ? 0.0 : std::min(0.5, std::max(0.0, options.u));
    a.small = options.small;
    a.ib = ph.plan.ib;
    a.posdef = posdef ? 1 : 0;
    for (int L = 0; L < ph.plan.launches(); ++L) {
      a.nodes = ph.plan.nodes.data() + ph.plan.launch_ptr[L];
      gpu::twin_small_fronts(a, ph.plan.launch_ptr[L + 1] - ph.plan.launch_ptr[L], ph.plan.launch_m_cap[L],
                             ph.plan.launch_fast_bytes[L]);
    }
    // as the driver: until nothing is deferred (the third deferral of a node hands it to the level loop)
    if (!gpu::learn_small_front_needs(sym, ph.plan, ph.res.data(), ph.needs, ph.tries) || ph.tries > 5) break;
  }
  return ph;
}

ssids::Factors small_phase_factors(const std::shared_ptr<const Symbolic>& sym, const SmallPhase& ph,
                                   const double* scale, ssids::Mode mode) {
  const bool posdef = mode == ssids::Mode::posdef;
  ssids::Vector<GpuNodeInfo> info(sym->nsup);
  ssids::Vector<unsigned char> by_small(sym->nsup, 0);
  if (gpu::take_small_results(*sym, ph.plan, ph.res.data(), info, by_small) != sym->nsup)
    throw std::runtime_error("node not done by the small phase");
  auto nf = std::make_shared<NumericFactors>();
  nf->symbolic = sym;
  nf->mode = mode;
  nf->n = sym->n;
  nf->pivot_var.resize(sym->n);
  if (scale) nf->scale.assign(scale, scale + sym->n);
  const GpuFactorCounts c = fill_host_tables(sym->n, info, ph.rows.data(), ph.d.data(), posdef, *nf);
  if (c.eliminated != sym->n) throw std::runtime_error("the small phase did not eliminate every column");
  for (int s = 0; s < sym->nsup; ++s) {
    const GpuNodeInfo& ni = info[s];
    NodeFactor& nd = nf->nodes[s];
    nd.l.assign(ph.l.begin() + ni.l_off, ph.l.begin() + ni.l_off + static_cast<long long>(ni.m) * ni.nelim);
    if (posdef)  // L D^{1/2}
      for (int j = 0; j < ni.nelim; ++j) {
        const double sd = std::sqrt(ph.d[ni.d_off + 2 * j]);
        for (int i = j; i < ni.m; ++i) nd.l[i + static_cast<long long>(j) * ni.m] *= sd;
      }
  }
  return ssids::Factors(nf);
}

}  // namespace ssids_test
