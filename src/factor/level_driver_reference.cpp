// level_driver_reference.cpp — the level driver run with the reference kernels over a whole analysis
// (factor_levels_reference, see level_kernels_reference.hpp).
#include <cmath>

#include "factor/factor_tables.hpp"
#include "factor/front_targets.hpp"
#include "factor/level_driver.hpp"
#include "factor/level_kernels_reference.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {
namespace gpu {

template class LevelDriver<ReferenceLevelKernels>;

void factor_levels_reference(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform, ReferenceRunStats* stats,
                             const SmallPhaseOutput* small) {
  const bool posdef = mode == Mode::posdef;
  // the analysis' maps in the layout the kernels read (as factor_gpu.cu uploads them)
  Vector<long long> rptr(sym.rptr.begin(), sym.rptr.end()), tptr, srcs;
  Vector<ATarget> targets;
  build_front_targets(sym, tptr, srcs, targets);
  LevelInputs in;
  in.maps.perm = sym.perm.data();
  in.maps.sptr = sym.sptr.data();
  in.maps.rlist = sym.rlist.data();
  in.maps.cmap = sym.cmap.data();
  in.maps.rptr = rptr.data();
  in.maps.tptr = tptr.data();
  in.maps.srcs = srcs.data();
  in.maps.targets = targets.data();
  in.val = val;
  in.scale = scale;
  in.prm.u = posdef ? 0.0 : std::min(0.5, std::max(0.0, options.u));
  in.prm.small = options.small;
  in.prm.posdef = posdef ? 1 : 0;
  in.cpu_block_size = options.cpu_block_size;
  in.preallocate = true;  // the prepared contribution updates are exercised as on a device with room to spare

  ReferenceLevelKernels k;
  LevelWork<ReferenceLevelKernels> work;
  HostBuffer<double> L, D;
  HostBuffer<int> rows;
  Vector<GpuNodeInfo> info(static_cast<size_t>(sym.nsup));
  LevelStores<ReferenceLevelKernels> stores{L, rows, D, info};
  Vector<unsigned char> by_small(static_cast<size_t>(sym.nsup), 0);
  long long small_nodes = 0;
  if (small) {  // the small phase's nodes and stores, as factor_multifrontal_gpu continues after it
    const SmallFrontPlan& pl = *small->plan;
    small_nodes = take_small_results(sym, pl, small->res, info, by_small);
    L.upload(small->l, static_cast<size_t>(pl.l_size), k.main);
    rows.upload(small->rows, static_cast<size_t>(pl.rows_size), k.main);
    D.upload(small->d, static_cast<size_t>(pl.d_size), k.main);
    stores.l_used = pl.l_size;
    stores.rows_used = pl.rows_size;
    stores.d_used = pl.d_size;
    in.cb_pool = small->cb_pool;
  }
  in.by_small = by_small.data();
  LevelDriver<ReferenceLevelKernels> driver(k, &sym, in, work, stores);
  driver.run();
  if (stats) {
    stats->window_steps = driver.times.steps;
    stats->roots_finished = driver.roots_finished;
    stats->small_nodes = small_nodes;
  }

  out.n = sym.n;
  out.mode = mode;
  out.pivot_var.resize(sym.n);
  const GpuFactorCounts counts = fill_host_tables(sym.n, info, rows.get(), D.get(), posdef, out);
  if (counts.eliminated != sym.n)
    throw Error(flag::unknown, "internal error: the reference level driver did not eliminate every column");
  for (index_t s = 0; s < sym.nsup; ++s) {  // L per node (host layout of the CPU path)
    const GpuNodeInfo& ni = info[s];
    NodeFactor& nd = out.nodes[s];
    nd.l.assign(L.get() + ni.l_off, L.get() + ni.l_off + static_cast<long long>(ni.m) * ni.nelim);
    if (posdef)  // L D L^T with D > 0 -> the Cholesky factor L D^{1/2}
      for (int j = 0; j < ni.nelim; ++j) {
        const double sd = std::sqrt(D.get()[ni.d_off + 2 * j]);
        for (int i = j; i < ni.m; ++i) nd.l[i + static_cast<long long>(j) * ni.m] *= sd;
      }
  }
  inform.num_delay = counts.num_delay;
  inform.maxfront = counts.maxfront;
  inform.num_factor = counts.num_factor;
  inform.num_flops = counts.num_flops;
  inform.num_two = posdef ? 0 : counts.num_two;
  inform.num_neg = posdef ? 0 : counts.num_neg;
  inform.num_pos = posdef ? sym.n : counts.num_pos;
  inform.num_zero = posdef ? 0 : counts.num_zero;
  inform.matrix_rank = sym.n - inform.num_zero;
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
