// ordering.hpp — fill-reducing orderings for the analyse phase (step 2).
// Works on the 0-based Graph of A + A^T; returns perm with perm[k] = variable eliminated at position k.
#pragma once
#include "analyse/pattern.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// Ordering::metis (METIS_NodeND), natural (identity) or user (`user_order[i] - base` = position of
/// variable i, validated: Error(bad_order) if not a permutation, Error(missing_data) if null).
/// matching and amd throw Error(unimplemented).
Vector<index_t> fill_reducing_order(const Graph& g, Ordering ordering, const index_t* user_order, int base);

/// invp[perm[k]] = k.
Vector<index_t> inverse_permutation(const Vector<index_t>& perm);

}  // namespace detail
}  // namespace ssids
