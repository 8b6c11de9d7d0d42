// ordering_matching.hpp — Ordering::matching: matching-based compressed ordering for indefinite matrices
// (Duff & Pralet, SIAM J. Matrix Anal. Appl. 27, 2005; Hogg & Scott, ACM TOMS 40(1), 2013, §3).
// Input: the 0-based Graph of A + A^T and the caller's lower triangle WITH values (base 0/1, as given to
// analyse). Output: perm[k] = variable at pivot position k, with the two variables of every 2x2 candidate
// pair consecutive, and the symmetrized matching scaling (Scaling::from_ordering).
#pragma once
#include <functional>
#include <limits>
#include "analyse/delays.hpp"
#include "analyse/pattern.hpp"
#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "scaling/scaling.hpp"

namespace ssids {
namespace detail {

/// Step 1, what the values decide: the symmetrized matching scaling and the 2x2 candidate pairs.
struct MatchingPairs {
  Vector<double> scale;     ///< n, symmetrized MC64 scaling (see scaling/scaling.hpp)
  Vector<index_t> partner;  ///< n: the other variable of i's pair, or -1
  Vector<char> needy;       ///< n: scaled |a_ii| below 0.01 (no 1x1 pivot as it comes)
  Vector<float> weight;     ///< along g.adj: scaled |a_vu| (delay predictions, delays.hpp)
  Vector<float> diag;       ///< n: scaled |a_vv|
  index_t pairs = 0;        ///< number of pairs
  index_t matched = 0;      ///< cardinality of the matching
  bool structurally_singular = false;
};

using OrderFn = Vector<index_t> (*)(const Graph& g, const index_t* vwgt);

/// The fill-reducing orderings the candidates are ordered with. `thorough` (METIS in analyse) always;
/// `cheap` (AMD in analyse; may be null) first, on inputs of at most kCheapOrderMaxVariables variables, where
/// `thorough` then runs only when the cheap plain order predicts more than kCheapOrderFlopsPerEdge flops per
/// edge of the graph without its dense rows (dense_rows.hpp), and only for the candidates the cheap orders' predictions leave in question (the
/// winner, or both when it is close); each candidate keeps whichever of its orders predicts fewer flops.
/// When the cheap plain order predicts at least cheap_flops_limit flops, both candidates take the thorough
/// orders whatever they predict: the GPU factorization (which a factorization of that size gets) runs a
/// launch per level of the assembly tree, and the cheap (minimum degree) orders' trees are far taller than
/// nested dissection's, which costs small problems more than the cheap ordering saves (bench/NOTES.md).
struct CandidateOrderings {
  CandidateOrderings(OrderFn thorough_order, OrderFn cheap_order = nullptr,  // NOLINT: implicit on purpose
                     double cheap_flops_limit_ = std::numeric_limits<double>::infinity())
      : thorough(thorough_order), cheap(cheap_order), cheap_flops_limit(cheap_flops_limit_) {}
  OrderFn thorough;
  OrderFn cheap;
  double cheap_flops_limit;
};

/// Above this many variables the cheap ordering is not tried: it runs on one thread per candidate while
/// nested dissection spreads over the team, and where its predictions leave the choice open (the kkt-qp
/// problems) its time is an overhead, +12-15% on a fresh analysis at n = 50 000 (bench/NOTES.md).
constexpr index_t kCheapOrderMaxVariables = 100000;
/// Up to this many flops per graph edge predicted by the cheap plain order the cheap orders are kept without
/// the thorough ordering: below it AMD's orders never predicted more flops than METIS's on the shared
/// matrices, above it METIS's predicted up to 3x fewer (bench/NOTES.md). Pattern only, like the plain order.
constexpr double kCheapOrderFlopsPerEdge = 400.0;

struct MatchingOrder {
  Vector<index_t> perm;        ///< n
  Vector<double> scale;        ///< n, symmetrized MC64 scaling (see scaling/scaling.hpp)
  Vector<index_t> partner;     ///< n: the other variable of i's 2x2 candidate pair, or -1
  /// n: the pairs the compressed candidate was built from (= partner when it was chosen; kept when the
  /// plain order won, for a later analysis of the same pattern to compare its own pairs with)
  Vector<index_t> candidate_partner;
  index_t matched = 0;         ///< cardinality of the matching
  index_t num_pairs = 0;       ///< 2x2 candidate pairs kept (0 when the plain order was chosen)
  bool structurally_singular = false;
  /// true: perm orders the compressed graph (pairs adjacent); false: the plain order of g was cheaper.
  bool compressed = false;
  /// Predicted flops and nnz(L) (no delays) of both candidate orders; the compressed ones are 0 when there
  /// were no pairs.
  double predicted_flops_compressed = 0.0, predicted_flops_plain = 0.0;
  double predicted_nnz_compressed = 0.0, predicted_nnz_plain = 0.0;
  /// The same with the delays each candidate is predicted to cause (delays.hpp): the choice compares these.
  DelayPrediction delayed_compressed, delayed_plain;
  /// perm is postordered, parent its elimination tree and colcount the column counts of L (analyse takes
  /// them as they are).
  Vector<index_t> parent, colcount;
  PlainCandidate plain;  ///< the plain candidate's orders (whether chosen or not)
  bool thorough = false;  ///< some candidate was ordered by CandidateOrderings::thorough
};

struct AnalyseProfile;

/// Step 1 (see matching_order). Throws Error(missing_values) when a has entries but a.val is null,
/// Error(nan_inf) for NaN/Inf values.
/// g: the graph of a (clean_pattern), along whose adjacency the scaled magnitudes are given.
MatchingPairs matching_pairs(const Graph& g, const CscView& a, AnalyseProfile* profile = nullptr);
/// matching_pairs in two parts: what needs the values alone (everything but weight and diag; `f` receives
/// the full matrix), which can run before or beside the graph's construction, then the scaled magnitudes
/// along g's adjacency.
MatchingPairs matching_pairs_of_values(const CscView& a, FullSymmetric& f, AnalyseProfile* profile = nullptr);
void add_scaled_weights(const Graph& g, const FullSymmetric& f, MatchingPairs& mp);
/// matching_pairs_of_values from the full matrix f = full_from_view(a); `costs`: f's matching weights
/// computed beforehand (MatchingCosts, all columns filled), or null.
MatchingPairs matching_pairs_of_full(const FullSymmetric& f, MatchingCosts* costs = nullptr,
                                     AnalyseProfile* profile = nullptr);
/// matching_pairs_of_full in two steps: the matching m of f and its scaling (scale, matched,
/// structurally_singular), then the pairs split from m (needy, partner, pairs); `diag`: |a_jj| (0 where f
/// has no diagonal entry).
MatchingPairs matching_scaling_of_full(const FullSymmetric& f, MatchingResult& m, MatchingCosts* costs = nullptr,
                                       AnalyseProfile* profile = nullptr);
void add_pairs(const Vector<double>& diag, const MatchingResult& m, MatchingPairs& mp);

/// What add_scaled_weights reads of f, gathered along g's adjacency: edge[e] = |a_vu| for the edge e = (v, u)
/// and diag[v] = |a_vv| (0 where f has no entry). It does not depend on the scaling, so it can be gathered
/// beside the matching.
struct EdgeMagnitudes {
  Vector<double> edge, diag;
};
EdgeMagnitudes edge_magnitudes(const Graph& g, const FullSymmetric& f);
/// add_scaled_weights from the gathered magnitudes: the same weights, bit for bit.
void add_scaled_weights(const Graph& g, const EdgeMagnitudes& m, MatchingPairs& mp);

/// Steps 1 to 3, step 1 by `pairs_of_values` (matching_pairs, or pairs computed before), which runs as a task
/// beside the plain candidate's orderings (they need the pattern only). With `plain` (the plain candidate's
/// orders from an earlier analysis of the same pattern), g is ordered again only by an ordering missing there:
/// the result equals the one computed without it, and does not depend on the number of threads.
MatchingOrder order_matching(const Graph& g, const std::function<MatchingPairs()>& pairs_of_values,
                             const CandidateOrderings& orderings, double compressed_slack, const AmalgamationRule& rule,
                             AnalyseProfile* profile, const PlainCandidate* plain = nullptr);

/// Maximum-product matching of the full symmetric matrix; its cycles (and, when structurally singular, its
/// open chains) are split into pairs (i, m(i)) so that every variable with a small scaled diagonal (< 0.01)
/// gets a partner where possible and no two variables with good diagonals are paired; each pair becomes one
/// vertex (weight 2, union of the neighbours) of a compressed graph ordered by `orderings` (see
/// CandidateOrderings), and the order is expanded pair by pair. g itself is ordered too (the plain candidate);
/// the compressed order is kept only while its predicted flops and nnz(L) exceed the plain order's by at most
/// the fraction compressed_slack (infinity: always), else the plain order is returned without pairs
/// (compressed = false); the predictions amalgamate by `rule`, as analyse will. The scaling is the matching's
/// in both cases. The plain candidate is ordered beside the matching, the two candidates' thorough orderings
/// side by side (tasks, tasks.hpp) when a task team has threads to spare; the result is the same either way.
/// The choice of cheap or thorough order depends on the pattern (plain candidate) and the pairs (compressed
/// candidate) only. = order_matching(g, matching_pairs(g, a), ...).
MatchingOrder matching_order(const Graph& g, const CscView& a, const CandidateOrderings& orderings,
                             double compressed_slack = 0.2, const AmalgamationRule& rule = AmalgamationRule{},
                             AnalyseProfile* profile = nullptr);

}  // namespace detail
}  // namespace ssids
