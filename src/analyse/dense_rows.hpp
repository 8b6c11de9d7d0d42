// dense_rows.hpp — rows far denser than the rest are kept out of the graph that is ordered and eliminated last.
//
// A row with a nonzero in most columns (a linking constraint of an optimization problem, a global unknown)
// is adjacent to every separator METIS could find and to every element AMD forms: it slows both down (METIS's
// coarsening carries its adjacency through every level) and gains nothing, since eliminating it before the
// rows it couples fills their whole clique. Its right place is at the end. Dense means a degree (adjacency
// entries in the graph of A + A^T) above dense_degree(n) (common/dense.hpp). Those rows are removed from the
// graph, the rest is ordered as it would have been, and the dense rows follow in increasing degree (ties:
// increasing number). All of it is linear in the size of the graph: no step forms the square of a dense row.
#pragma once
#include "analyse/pattern.hpp"
#include "common/dense.hpp"

namespace ssids {
namespace detail {

/// The dense vertices of g (increasing degree, then number); empty when there are none.
Vector<index_t> dense_vertices(const Graph& g);

/// Adjacency entries of g without its dense vertices: the size of the graph the orderings see.
offset_t sparse_part_edges(const Graph& g);

/// Order of g: `order` applied to g without its dense vertices (and their edges; vertex weights carried), then
/// the dense vertices. Without dense vertices, exactly order(g, vwgt).
Vector<index_t> order_dense_last(const Graph& g, const index_t* vwgt,
                                 Vector<index_t> (*order)(const Graph& g, const index_t* vwgt));

}  // namespace detail
}  // namespace ssids
