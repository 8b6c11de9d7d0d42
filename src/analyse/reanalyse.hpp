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
/// predicted to cause in it, it costs at most 5% more flops than when it was chosen.
/// Process-wide; the environment variable SSIDS_MATCHING_REUSE=exact|keep sets the starting value.
enum class MatchingReuse { exact, keep_compatible };
void set_matching_reuse(MatchingReuse policy);
MatchingReuse matching_reuse();

/// What a re-analysis reused.
enum class ReuseKind {
  none,             ///< analysed afresh (other pattern or options, or no previous analysis)
  whole,            ///< the previous analysis as it is
  same_pairs,       ///< matching ordering, same pairs: the previous analysis with the new scaling
  kept_order,       ///< matching ordering, other pairs, previous order kept (MatchingReuse::keep_compatible)
  plain_candidate,  ///< matching ordering, other pairs: the compressed candidate ordered again
};

/// ssids::reanalyse, also telling what was reused (when kind is not null).
Analysis reanalyse_kind(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                        const index_t* order, ReuseKind* kind);

}  // namespace detail
}  // namespace ssids
