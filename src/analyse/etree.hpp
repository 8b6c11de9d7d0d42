// etree.hpp — elimination tree, postorder and column counts of L (analyse step 3a).
// All indices are pivot positions of the order given by perm/invp (0-based); the pattern is the Graph of
// A + A^T over the original variables. parent[k] = -1 for a root.
#pragma once
#include "analyse/pattern.hpp"

namespace ssids {
namespace detail {

/// Elimination tree of P A P^T (perm[k] = variable at position k, invp its inverse).
Vector<index_t> elimination_tree(const Graph& g, const Vector<index_t>& perm, const Vector<index_t>& invp);

/// A postorder of the forest: post[t] = node visited t-th. Children are visited in increasing order,
/// roots in increasing order, so the result is deterministic.
Vector<index_t> tree_postorder(const Vector<index_t>& parent);

/// Column counts of L (diagonal included) for an order whose elimination tree `parent` is postordered
/// (every node's subtree is the contiguous range ending at the node).
Vector<index_t> column_counts(const Graph& g, const Vector<index_t>& perm, const Vector<index_t>& invp,
                              const Vector<index_t>& parent);

}  // namespace detail
}  // namespace ssids
