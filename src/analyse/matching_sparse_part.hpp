// matching_sparse_part.hpp — the matching ordering's values side on a matrix with dense rows, without them.
//
// The orderings keep dense rows (dense_rows.hpp) out of the graph they order and eliminate them last; this
// keeps them out of the values side too. The weighted matching, its scaling and the 2x2 pairs are computed on
// the sparse part (the rows and columns that are not dense); each dense index d then gets the largest scale
// that keeps every scaled entry of its row at most 1: s_d = 1 / max_j |a_dj| s_j over the sparse j, lowered
// where a dense-dense entry (or d's diagonal) asks for it, the dense indices taken in the order in which they
// are eliminated. So the scaling stays valid on every entry (|s_i a_ij s_j| <= 1, a matched entry of every
// sparse row at 1), dense indices are never in a pair, and the dense rows' entries are read only three times:
// to skip them while the sparse part is gathered, for their scales, and for the scaled magnitudes along the
// graph (delays.hpp). The matching's cardinality (the structural rank) is still that of the whole matrix:
// the dense columns are added to the sparse part's perfect matching by depth-first augmenting paths on the
// pattern (MC21, Duff 1981), which end at once on the matrices this is for.
//
// It applies to the inputs analyse likes best (a lower triangle with increasing rows in every column, all in
// range, no duplicates), whose graph's adjacency follows the input's entries, with at most half of the rows
// dense; on any other input, and where the sparse part is structurally singular, its duals drift
// (matching_scaling's fallback), a dense entry is an explicit zero or the dense columns cannot all be
// matched, matching_pairs uses the matching of the whole matrix instead (matching_pairs_of_values), which
// handles those cases exactly.
#pragma once
#include "analyse/ordering_matching.hpp"

namespace ssids {
namespace detail {

/// Whether a is a lower triangle with strictly increasing rows in every column, all in range, and finite
/// values: the inputs matching_pairs_sparse_part takes. With `degree_dense` it also requires a dense vertex
/// (dense_degree), counted from a alone (for such an input its graph's degrees, clean_pattern, are the same).
bool sparse_part_input(const CscView& a, bool degree_dense);

/// matching_pairs (ordering_matching.hpp) of a with the dense vertices `dense` of its graph g (dense_vertices,
/// not empty), on the sparse part (see above). Returns false, with `out` unspecified, where it does not apply
/// (see above; sparse_part_input(a, false) is checked here).
bool matching_pairs_sparse_part(const Graph& g, const CscView& a, const Vector<index_t>& dense, MatchingPairs& out,
                                AnalyseProfile* profile = nullptr);

}  // namespace detail
}  // namespace ssids
