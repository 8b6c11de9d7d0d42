// nested_dissection.hpp — METIS nested dissection that uses every thread of the task team, with orders that do
// not depend on the number of threads.
//
// METIS_NodeND orders a graph by recursive bisection: a vertex separator splits it, the two parts are ordered
// (recursively) and the separator is numbered last. The parts are independent, so the top levels of that
// recursion are done here, as tasks: METIS_ComputeVertexSeparator (the bisection METIS_NodeND uses at every
// level) splits every subgraph above `leaf` vertices, and each part at or below it is ordered by one
// METIS_NodeND call. Which subgraphs are split depends only on the graph, never on the threads, and every METIS
// call is reproducible on any thread (metis_random.hpp), so the order is bitwise the same for any thread count.
// Before splitting, vertices with identical closed neighbourhoods are merged into one weighted vertex when that
// removes at least 15% of them (METIS_NodeND's own compression, which separators would otherwise not see).
// Conventions: 0-based; perm[k] = vertex at position k.
#pragma once
#include "analyse/pattern.hpp"

namespace ssids {
namespace detail {

/// Graphs with at most this many vertices are ordered by one METIS_NodeND call.
constexpr index_t kNdLeafVertices = 32768;

/// Nested dissection order of g with optional vertex weights (size n, >= 1). Spreads its METIS calls over the
/// current task team (tasks.hpp); a graph of at most `leaf` vertices, or without edges, gets exactly
/// metis_order's result. Throws Error like metis_order.
Vector<index_t> nested_dissection_order(const Graph& g, const index_t* vwgt = nullptr, index_t leaf = kNdLeafVertices);

}  // namespace detail
}  // namespace ssids
