// dense.hpp — what "dense" means for a row or column of a sparse matrix, in one place: the orderings keep dense
// rows out of the graph they order (analyse/dense_rows.hpp) and the weighted matching matches dense rows and
// columns after the rest (common/matching.hpp).
#pragma once
#include <algorithm>
#include <cmath>

#include "ssids/types.hpp"

namespace ssids {
namespace detail {

/// The degree above which a row or column of an n x n matrix (a vertex of an n-vertex graph) is dense:
/// max(16, 10 sqrt(n)), the rule AMD applies by default (Amestoy, Davis & Duff, "Algorithm 837: AMD",
/// ACM TOMS 30(3), 2004).
inline double dense_degree(index_t n) { return std::max(16.0, 10.0 * std::sqrt(static_cast<double>(n))); }

}  // namespace detail
}  // namespace ssids
