// capi_inform.cpp — SPRAL-definition statistics for spral_ssids_inform (see capi_inform.hpp).
#include "capi/capi_inform.hpp"

#include <algorithm>

#include "analyse/symbolic.hpp"
#include "factor/numeric.hpp"

namespace ssids {
namespace capi {

int empty_columns(const Analysis& an) {
  if (an.empty()) return 0;
  const detail::Symbolic& s = an.symbolic();
  int count = 0;
  for (index_t v = 0; v < s.nsup; ++v)
    if (s.ncol(v) == 1 && s.nrow(v) == 1 && s.child_ptr[v] == s.child_ptr[v + 1] && s.amap_ptr[v] == s.amap_ptr[v + 1])
      ++count;
  return count;
}

void analyse_statistics(const Analysis& an, int excluded, spral_ssids_inform& out) {
  const detail::Symbolic& s = an.symbolic();
  const int columns = s.n - excluded;  // columns in SPRAL's tree
  out.matrix_rank = columns;
  if (columns == 0) {  // SPRAL builds no tree at all
    out.num_sup = out.maxdepth = out.maxfront = out.maxsupernode = 0;
    out.num_factor = out.num_flops = 0;
    return;
  }
  out.num_sup = s.nsup - excluded;
  out.maxdepth = s.num_levels;
  out.maxfront = s.maxfront;
  out.maxsupernode = s.maxsupernode;
  out.num_factor = s.num_factor - excluded;
  out.num_flops = s.num_flops + columns;  // (m + 1)^2 = m^2 + 2m + 1 for every column in the tree
}

void factor_statistics(const AKeep& ak, const Factors& f, const Inform& inf, spral_ssids_inform& out) {
  out.matrix_dup = ak.stats.matrix_dup;
  out.matrix_outrange = ak.stats.matrix_outrange;
  out.matrix_missing_diag = ak.stats.matrix_missing_diag;
  out.num_sup = ak.stats.num_sup;
  out.maxdepth = ak.stats.maxdepth;
  const int columns = ak.n - ak.excluded;
  if (columns == 0) return;  // no tree: SPRAL reports the rank 0 and nothing else
  out.matrix_rank = inf.matrix_rank;
  out.num_neg = inf.num_neg;
  out.num_two = inf.num_two;
  out.num_delay = inf.num_delay;
  out.maxfront = inf.maxfront;
  out.num_factor = inf.num_factor - ak.excluded;
  out.num_flops = inf.num_flops + ak.n - ak.excluded;  // every column is eliminated once
  int maxsupernode = 0;
  for (const detail::NodeFactor& nd : f.numeric().nodes) maxsupernode = std::max(maxsupernode, int(nd.nelim));
  out.maxsupernode = maxsupernode;
}

void inform_from_error(const Error& e, spral_ssids_inform& out) {
  out.flag = e.code();
  if (e.code() == flag::cuda) out.cuda_error = e.status();
  if (e.code() == flag::cublas) out.cublas_error = e.status();
}

}  // namespace capi
}  // namespace ssids
