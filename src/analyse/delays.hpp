// delays.hpp — the delayed pivots an order of an indefinite matrix is likely to cost, predicted from the
// structure (the matching ordering compares its candidates by it).
//
// A variable i whose scaled diagonal is tiny ("needy", ordering_matching.cpp) cannot be a 1x1 pivot as it comes
// (all scaled entries are at most 1). It can be eliminated in its node when
//   * the columns eliminated before it give its diagonal an update large enough for the threshold test: the
//     estimate sum over earlier neighbours j of a_ij^2 / |a_jj| (for a multiplier row of a KKT matrix, the
//     Schur complement entry a H^-1 a^T) is at least u = 0.01 times its largest entry still to come, or
//   * a neighbour j fully summed in the same front after it holds at least half that largest entry: a 2x2
//     pivot with j (the pivot search pairs a column with the largest entry of its fully summed block).
// Otherwise it is delayed to the parent node, where the same test is made with the parent's own columns
// counted as eliminated before it (they are, delayed columns come last) and the other delayed variables as
// 2x2 partners. Scaled values throughout (the matching scaling).
// Every move up one node counts as one delay (Inform::num_delay counts the same way); a delayed column adds a
// row and a column to every front it passes through. This ignores numerical cancellation and the threshold
// test of other variables, so it is a prediction, not a bound (bench/NOTES.md compares it with the delays the
// factorization meets: right in order of magnitude for plain orders, too many for compressed ones, which only
// makes the choice of ordering_matching.cpp more cautious about leaving the plain order).
#pragma once
#include "analyse/pattern.hpp"
#include "analyse/supernodes.hpp"

namespace ssids {
namespace detail {

struct DelayPrediction {
  double nnz = 0.0, flops = 0.0;  ///< nnz(L) and flops with the predicted delays
  offset_t delays = 0;            ///< predicted delays (column moves up one node)
};

/// `perm` postordered (perm[k] = variable at position k), `part` its supernodes (find_supernodes on its tree),
/// `colcount` its column counts, `needy[v]` for the variables that cannot be 1x1 pivots as they come.
/// `weight[e]` (aligned with g.adj) = |s_v a_vu s_u| for the edge e = (v, u), `diag[v]` = |s_v a_vv s_v| (the
/// matching scaling s).
DelayPrediction predict_delays(const Graph& g, const Vector<index_t>& perm, const Partition& part,
                               const Vector<index_t>& colcount, const Vector<char>& needy,
                               const Vector<float>& weight, const Vector<float>& diag);

}  // namespace detail
}  // namespace ssids
