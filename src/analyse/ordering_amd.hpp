// ordering_amd.hpp — Ordering::amd: approximate minimum degree (Amestoy, Davis & Duff, SIAM J. Matrix Anal.
// Appl. 17(4), 1996), written for this library.
// Input: the 0-based Graph of A + A^T (no self loops, no duplicates). Output: perm[k] = variable eliminated
// at position k (a permutation of 0..n-1).
#pragma once
#include "analyse/pattern.hpp"

namespace ssids {
namespace detail {

/// Approximate minimum degree ordering of g. `vwgt` (optional, size n, entries >= 1): initial supervariable
/// sizes, i.e. vertex v stands for vwgt[v] variables (used to order compressed graphs); degrees are weighted.
Vector<index_t> amd_order(const Graph& g, const index_t* vwgt = nullptr);

}  // namespace detail
}  // namespace ssids
