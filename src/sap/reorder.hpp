// reorder.hpp — the reorderings of the SaP sparse path (Li, Serban, Negrut 2015 §2.2, §2.2.1, §3.2, §3.3):
// diagonal boosting (DB, maximum-product matching, with the matching's scalings), Cuthill–McKee (CM) on a
// symmetrized pattern with several pseudo-peripheral start nodes, and the drop-off bandwidth choice.
//
// Conventions: 0-based. A permutation "order" lists nodes by new position (order[new] = old); its inverse
// "position" maps old -> new. Graphs are symmetric adjacency lists without self loops.
#pragma once
#include "ssids/csc.hpp"
#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace sap {
namespace detail {

/// Symmetric adjacency structure; adj of node v = adj[ptr[v] .. ptr[v+1]), sorted by (degree, index) so
/// that CM visits neighbours in ascending degree without re-sorting (§3.3, CM-S1).
struct Graph {
  index_t n = 0;
  Vector<offset_t> ptr;
  Vector<index_t> adj;
  index_t degree(index_t v) const { return static_cast<index_t>(ptr[v + 1] - ptr[v]); }
};

/// Pattern of B + B^T without the diagonal, B(row_map[i], j) = a(i, j) for the CSR matrix a
/// (row_map null: identity). Explicit zeros count as entries.
Graph graph_of_csr(const CsrMatrix& a, const index_t* row_map);
/// Pattern of the symmetrized pairs (i[t], j[t]), t < m, on n nodes (duplicates and diagonal ignored).
Graph graph_of_pairs(index_t n, offset_t m, const index_t* i, const index_t* j);

/// Half-bandwidth max |position[u] - position[v]| over the edges (position null: identity).
index_t graph_bandwidth(const Graph& g, const index_t* position);

/// Cuthill–McKee ordering (order[new] = old) of each connected component from up to `starts` start nodes
/// per component (min degree, then repeatedly the min-degree unused node of the last BFS level: a
/// pseudo-peripheral search, §3.3 CM-S2); per component the order with the smallest bandwidth is kept.
/// When the result is not better than the natural order the identity is returned, so the half-bandwidth
/// never increases. *bandwidth receives the half-bandwidth of the returned order.
Vector<index_t> cuthill_mckee(const Graph& g, int starts, index_t* bandwidth);

/// Diagonal boosting (§2.2.1, §3.2): row permutation from the maximum-product matching of A.
struct DbResult {
  Vector<index_t> order;       ///< new row r holds old row order[r] (so (QA)(j, j) = a(order[j], j))
  Vector<double> row_scale;    ///< r_i (1 when scaling is off), for OLD row i
  Vector<double> col_scale;    ///< c_j (1 when scaling is off)
  double log_product = 0.0;    ///< sum_j log |a(order[j], j)| (unscaled)
};
/// Throws Error(singular) with the matching cardinality when A is structurally singular.
DbResult diagonal_boosting(const CsrMatrix& a, bool scaling);

/// Drop-off (§2.2): the smallest K such that sum_{d <= K} mass[d] >= (1 - drop) * sum_d mass[d], where
/// mass[d] = sum of a_ij^2 over |i - j| = d (size n). drop <= 0 gives the largest d with a structural entry
/// (struct_max). *kept_fraction receives the kept share of the mass (1 when the total is 0).
index_t drop_bandwidth(const double* mass, index_t n, index_t struct_max, double drop, double* kept_fraction);

}  // namespace detail
}  // namespace sap
}  // namespace ssids
