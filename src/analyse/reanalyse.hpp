// reanalyse.hpp — re-analysis of a pattern analysed before: the hash used to find it, the exact check that it
// is the same input, and what can be reused (see reanalyse.cpp).
#pragma once
#include <cstdint>

#include "ssids/analyse.hpp"
#include "ssids/csc.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

struct Symbolic;
struct AnalysisShape;

/// Hash over n, ptr and row (made 0-based), and the options that shape the analysis (ordering, nemin,
/// amalgamation_zeros, the user order). Reads each array once: O(n + nnz). A filter: same_input decides.
std::uint64_t pattern_hash(const CscView& a, const Options& options, const index_t* order);

/// The shaping options as analyse applies them (AnalysisShape, symbolic.hpp).
AnalysisShape analysis_shape(const Options& options);

/// True when analysing `a` with `options` (and `order`) would give the analysis `s` apart from what the values
/// decide (the matching ordering): same shaping options and user order, and every entry of the caller's arrays
/// lands where it did (reanalyse.cpp). `a` must have passed check_arguments. O(n + nnz).
bool same_input(const Symbolic& s, const CscView& a, const Options& options, const index_t* order);

/// The analysis statistics of `s` into `inform` (input counts, tree, predictions); flag and times untouched.
void copy_analysis_statistics(const Symbolic& s, Inform& inform);
/// inform.flag and message as analyse sets them for `s` (input warnings, structurally singular).
void set_analysis_flag(const Symbolic& s, Inform& inform);

/// How the matching ordering reuses a previous analysis of the same pattern whose pairs differ:
/// exact: only the plain candidate is reused, the result is what analyse gives;
/// keep_compatible (default): the previous analysis is also kept while, with the delays the new values are
/// predicted to cause in it, it costs at most 25% more flops than when it was chosen and the excess flops
/// summed over the re-analyses that kept it stay below the estimated cost of ordering again (reanalyse.cpp).
/// Process-wide; the environment variable SSIDS_MATCHING_REUSE=exact|keep sets the starting value.
enum class MatchingReuse { exact, keep_compatible };
void set_matching_reuse(MatchingReuse policy);
MatchingReuse matching_reuse();

/// keep_compatible: a re-analysis keeps the order only while it is predicted to cost at most this fraction
/// more than when the order was chosen (beyond it a new order pays back within a few factorizations).
constexpr double kKeepSlack = 0.25;
/// keep_compatible: what ordering again is estimated to cost, in factorization flops per edge of the graph
/// (entries of g.adj); the kept re-analyses' summed excess flops may not exceed it. Measured on the
/// interior-point sequence at n = 50 000 (bench/NOTES.md): ordering again cost 4-10 factorizations (CPU), and
/// the actual extra factor time was about 3.4 times the predicted extra flops, which puts the break-even at
/// 1 900-4 400 predicted flops per edge.
constexpr double kReorderFlopsPerEdge = 2500.0;
/// keep_compatible's rule: an order chosen at `chosen_flops` (predicted, with delays) for which the new values
/// predict `now_flops` is kept when now_flops <= (1 + kKeepSlack) chosen_flops and kept_excess (the excess
/// of the earlier re-analyses that kept it) plus this one's, `excess` = max(0, now_flops - chosen_flops), is at
/// most kReorderFlopsPerEdge * edges (entries of the graph's adjacency).
bool keep_order(double chosen_flops, double now_flops, double kept_excess, offset_t edges, double& excess);

/// What a re-analysis reused.
enum class ReuseKind {
  none,             ///< analysed afresh (other pattern or options, or no previous analysis)
  whole,            ///< the previous analysis as it is
  same_pairs,       ///< matching ordering, same pairs: the previous analysis with the new scaling
  kept_order,       ///< matching ordering, other pairs, previous order kept (MatchingReuse::keep_compatible)
  plain_candidate,  ///< matching ordering, other pairs: the compressed candidate ordered again
};

/// ssids::reanalyse, also telling what was reused (when kind is not null). `may_update_previous`: the caller
/// gives up `previous` (it will not be read again through any other reference), so when `previous` holds the only
/// reference to its analysis, a result that differs from it only in the matching scaling (ReuseKind::same_pairs,
/// kept_order) is that analysis updated in place rather than a copy.
Analysis reanalyse_kind(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                        const index_t* order, ReuseKind* kind, bool may_update_previous = false);

}  // namespace detail
}  // namespace ssids
