// ordering_matching.hpp — Ordering::matching: matching-based compressed ordering for indefinite matrices
// (Duff & Pralet, SIAM J. Matrix Anal. Appl. 27, 2005; Hogg & Scott, ACM TOMS 40(1), 2013, §3).
// Input: the 0-based Graph of A + A^T and the caller's lower triangle WITH values (base 0/1, as given to
// analyse). Output: perm[k] = variable at pivot position k, with the two variables of every 2x2 candidate
// pair consecutive, and the symmetrized matching scaling (Scaling::from_ordering).
#pragma once
#include "analyse/pattern.hpp"
#include "analyse/supernodes.hpp"

namespace ssids {
namespace detail {

struct MatchingOrder {
  Vector<index_t> perm;        ///< n
  Vector<double> scale;        ///< n, symmetrized MC64 scaling (see scaling/scaling.hpp)
  Vector<index_t> partner;     ///< n: the other variable of i's 2x2 candidate pair, or -1
  index_t matched = 0;         ///< cardinality of the matching
  index_t num_pairs = 0;       ///< 2x2 candidate pairs kept (0 when the plain order was chosen)
  bool structurally_singular = false;
  /// true: perm orders the compressed graph (pairs adjacent); false: the plain order of g was cheaper.
  bool compressed = false;
  /// Predicted flops (no delays, default amalgamation) of both candidate orders; 0 when there were no pairs.
  double predicted_flops_compressed = 0.0, predicted_flops_plain = 0.0;
  /// When both candidates were predicted: perm is postordered, parent its elimination tree and colcount the
  /// column counts of L (analyse takes them as they are); empty otherwise.
  Vector<index_t> parent, colcount;
};

/// Maximum-product matching of the full symmetric matrix; its cycles (and, when structurally singular, its
/// open chains) are split into pairs (i, m(i)) so that every variable with a small scaled diagonal (< 0.01)
/// gets a partner where possible and no two variables with good diagonals are paired; each pair becomes one
/// vertex (weight 2, union of the neighbours) of a compressed graph ordered by `order_compressed` (METIS in
/// analyse), and the order is expanded pair by pair. g itself is ordered too (`order_compressed(g, nullptr)`);
/// the compressed order is kept only while its predicted flops and nnz(L) exceed the plain order's by at most
/// the fraction compressed_slack (infinity: always), else the plain order is returned without pairs
/// (compressed = false); the predictions amalgamate by `rule`, as analyse will. The scaling is the matching's
/// in both cases. The two candidates are ordered and predicted as two tasks (tasks.hpp), side by side when a
/// task team has threads to spare; the result is the same either way.
/// Throws Error(missing_values) when a has entries but a.val is null, Error(nan_inf) for NaN/Inf values.
struct AnalyseProfile;
MatchingOrder matching_order(const Graph& g, const CscView& a,
                             Vector<index_t> (*order_compressed)(const Graph& cg, const index_t* vwgt),
                             double compressed_slack = 0.2, const AmalgamationRule& rule = AmalgamationRule{},
                             AnalyseProfile* profile = nullptr);

}  // namespace detail
}  // namespace ssids
