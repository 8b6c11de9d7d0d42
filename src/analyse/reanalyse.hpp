// reanalyse.hpp — cheap re-analysis: a hash of everything an analysis depends on apart from the values.
#pragma once
#include <cstdint>

#include "ssids/csc.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// FNV-1a hash over n, the base, ptr (made 0-based), row, and the options that shape the analysis
/// (ordering, nemin, and the user order). Reads each array once: O(n + nnz).
std::uint64_t pattern_hash(const CscView& a, const Options& options, const index_t* order);

}  // namespace detail
}  // namespace ssids
