// ordering.hpp — fill-reducing orderings for the analyse phase (step 2).
// Works on the 0-based Graph of A + A^T; returns perm with perm[k] = variable eliminated at position k.
#pragma once
#include <memory>

#include "analyse/pattern.hpp"
#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// Ordering::metis (nested_dissection.hpp: METIS, spread over the current task team) and Ordering::amd with the
/// dense rows numbered last (dense_rows.hpp), natural (identity), amd (ordering_amd.hpp) or user (`user_order[i] - base`
/// = position of variable i, validated: Error(bad_order) if not a permutation, Error(missing_data) if null).
/// matching needs the values: Error(missing_values) here, use compute_ordering.
Vector<index_t> fill_reducing_order(const Graph& g, Ordering ordering, const index_t* user_order, int base);

/// What an ordering produces: perm, and for Ordering::matching its scaling and structural information.
struct OrderingResult {
  Vector<index_t> perm;
  Vector<double> matching_scale;       ///< Ordering::matching only (see symbolic.hpp)
  bool structurally_singular = false;  ///< Ordering::matching only
  index_t matched = 0;                 ///< Ordering::matching only: matching cardinality
  /// When filled (the matching ordering predicted its candidates): perm is postordered, parent is its
  /// elimination tree and colcount the column counts of L, ready for the supernodes.
  Vector<index_t> parent, colcount;
  std::shared_ptr<const MatchingChoice> matching_choice;  ///< Ordering::matching only
};

struct MatchingPairs;
/// What a re-analysis of a pattern already analysed knows (reanalyse.cpp): the matching ordering's pairs for
/// the new values (computed already), and the previous analysis' choice, whose plain candidate is reused.
struct OrderingHint {
  MatchingPairs* pairs = nullptr;
  const MatchingChoice* previous = nullptr;
};
/// Every ordering (options.ordering), with access to the caller's arrays `a` (the values are read by
/// Ordering::matching only: Error(missing_values) when absent, Error(nan_inf) when not finite), on
/// analyse_threads(options.num_threads, ...) threads; the result does not depend on their number.
/// Phase times go to `profile` when given (profile.hpp).
struct AnalyseProfile;
OrderingResult compute_ordering(const Graph& g, const CscView& a, const Options& options, const index_t* user_order,
                                AnalyseProfile* profile = nullptr, const OrderingHint* hint = nullptr);

struct CandidateOrderings;
/// The orderings of Ordering::matching's candidates (ordering_matching.hpp): METIS by tasks as the thorough
/// one, AMD as the cheap one, both with the dense rows numbered last. With `options`, as the factorization
/// they are for will run: no cheap ordering for Backend::gpu, and with Backend::automatic the cheap orders only
/// below its GPU threshold (Options::min_gpu_work predicted flops); without, as for the CPU.
CandidateOrderings matching_candidate_orderings(const Options* options = nullptr);

/// METIS_NodeND on g with optional vertex weights (size n); the identity for graphs without edges.
Vector<index_t> metis_order(const Graph& g, const index_t* vwgt = nullptr);

/// invp[perm[k]] = k.
Vector<index_t> inverse_permutation(const Vector<index_t>& perm);

}  // namespace detail
}  // namespace ssids
