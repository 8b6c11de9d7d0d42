// etree.cpp — elimination tree (Liu 1990), postorder, and column counts (Gilbert, Ng & Peyton 1994).
//
// Conventions: 0-based pivot positions; for position k the matrix column is variable perm[k]; the
// entries of column k of the lower triangle of P A P^T are the neighbours u of perm[k] with invp[u] > k.
// Every routine runs in O(nnz(A) alpha(n)) time, never touching the entries of L.
#include "analyse/etree.hpp"

namespace ssids {
namespace detail {

Vector<index_t> elimination_tree(const Graph& g, const Vector<index_t>& perm, const Vector<index_t>& invp) {
  // Liu, "The role of elimination trees in sparse factorization", SIAM J. Matrix Anal. Appl. 11 (1990):
  // process rows k = 0..n-1; every entry (k, i) with i < k links the root of i's current subtree to k.
  // `anc` holds a path-compressed shortcut to a (not necessarily immediate) ancestor.
  const index_t n = g.n;
  Vector<index_t> parent(static_cast<size_t>(n), -1), anc(static_cast<size_t>(n), -1);
  for (index_t k = 0; k < n; ++k) {
    const index_t v = perm[k];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
      index_t i = invp[g.adj[e]];
      if (i >= k) continue;
      // climb from i to the root of its subtree, pointing every visited node at k
      while (anc[i] != -1 && anc[i] != k) {
        const index_t next = anc[i];
        anc[i] = k;
        i = next;
      }
      if (anc[i] == -1) {
        anc[i] = k;
        parent[i] = k;
      }
    }
  }
  return parent;
}

Vector<index_t> tree_postorder(const Vector<index_t>& parent) {
  const index_t n = static_cast<index_t>(parent.size());
  // child lists as singly linked lists; inserting in decreasing order leaves them increasing
  Vector<index_t> head(static_cast<size_t>(n), -1), next(static_cast<size_t>(n), -1);
  for (index_t v = n - 1; v >= 0; --v) {
    const index_t p = parent[v];
    if (p == -1) continue;
    next[v] = head[p];
    head[p] = v;
  }
  Vector<index_t> post(static_cast<size_t>(n)), stack(static_cast<size_t>(n));
  index_t t = 0;
  for (index_t r = 0; r < n; ++r) {
    if (parent[r] != -1) continue;
    // iterative depth-first search: a node is emitted once all its children have been
    index_t top = 0;
    stack[top++] = r;
    while (top > 0) {
      const index_t v = stack[top - 1];
      const index_t c = head[v];
      if (c == -1) {
        post[t++] = v;
        --top;
      } else {
        head[v] = next[c];  // consume the child
        stack[top++] = c;
      }
    }
  }
  return post;
}

Vector<index_t> column_counts(const Graph& g, const Vector<index_t>& perm, const Vector<index_t>& invp,
                              const Vector<index_t>& parent) {
  // Gilbert, Ng & Peyton, "An efficient algorithm to compute row and column counts for sparse Cholesky
  // factorization", SIAM J. Matrix Anal. Appl. 15 (1994). colcount[j] is the number of row subtrees T(i)
  // (the nodes j with L(i,j) != 0, a subtree of the etree rooted at i) that contain j. Each T(i) is
  // represented by weights summed over subtrees: +1 at each of its leaves, -1 at the least common ancestor
  // of consecutive leaves (in postorder) and -1 at parent(i). Then colcount[j] = sum of weights in subtree(j).
  // The leaves of T(i) are i itself when i is an etree leaf, else the columns j < i with A(i,j) != 0 whose
  // subtree holds no earlier such column (GNP's "skeleton" test: first[j] > previous neighbour of i).
  // LCAs are found with Tarjan's offline disjoint-set method since columns are visited in postorder.
  const index_t n = g.n;
  Vector<index_t> first(static_cast<size_t>(n)), weight(static_cast<size_t>(n), 0);
  for (index_t j = 0; j < n; ++j) first[j] = j;
  for (index_t j = 0; j < n; ++j)
    if (parent[j] != -1 && first[j] < first[parent[j]]) first[parent[j]] = first[j];
  for (index_t j = 0; j < n; ++j) {
    if (first[j] == j) weight[j] = 1;       // etree leaf: T(j) = {j}
    if (parent[j] != -1) --weight[parent[j]];  // the -1 at parent(i) of T(i), i = j
  }
  Vector<index_t> prev_nbr(static_cast<size_t>(n), -1), prev_leaf(static_cast<size_t>(n), -1);
  Vector<index_t> set(static_cast<size_t>(n));  // disjoint-set forest, path compression
  for (index_t j = 0; j < n; ++j) set[j] = j;
  for (index_t j = 0; j < n; ++j) {
    const index_t v = perm[j];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
      const index_t i = invp[g.adj[e]];
      if (i <= j) continue;
      if (prev_nbr[i] < first[j]) {
        // j is a leaf of T(i)
        ++weight[j];
        const index_t pl = prev_leaf[i];
        if (pl != -1) {
          // q = LCA(pl, j): the representative of pl's set (nodes < j have been merged into their parents)
          index_t q = pl;
          while (set[q] != q) q = set[q];
          for (index_t x = pl; set[x] != q && x != q;) {  // compress the path
            const index_t nx = set[x];
            set[x] = q;
            x = nx;
          }
          --weight[q];
        }
        prev_leaf[i] = j;
      }
      prev_nbr[i] = j;
    }
    if (parent[j] != -1) set[j] = parent[j];
  }
  // accumulate weights over subtrees (children precede parents)
  for (index_t j = 0; j < n; ++j)
    if (parent[j] != -1) weight[parent[j]] += weight[j];
  return weight;
}

}  // namespace detail
}  // namespace ssids
