// reanalyse.hpp — cheap re-analysis: a hash of everything an analysis depends on apart from the values.
#pragma once
#include <cstdint>

#include "ssids/csc.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// FNV-1a hash over n, the base, ptr (made 0-based), row, and the options that shape the analysis
/// (ordering, nemin, and the user order). Reads each array once: O(n + nnz).
std::uint64_t pattern_hash(const CscView& a, const Options& options, const index_t* order);

struct Symbolic;
/// The analysis statistics of `s` into `inform` (input counts, tree, predictions); flag and times untouched.
void copy_analysis_statistics(const Symbolic& s, Inform& inform);

}  // namespace detail
}  // namespace ssids
