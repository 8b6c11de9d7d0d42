// validate.hpp — argument checks and cleaning of the caller's lower-triangle CSC pattern (analyse step 1).
// Input: a CscView with base 0 or 1 (ptr and row share the base). Output: the 0-based Graph of A + A^T.
#pragma once
#include <string>

#include "analyse/pattern.hpp"

namespace ssids {
namespace detail {

/// Throws Error(bad_n / missing_data / bad_input / bad_ptr) for malformed arguments. Reads ptr only.
void check_arguments(const CscView& a);

/// Scans every entry once: counts out-of-range, upper-triangle and duplicate entries and columns without a
/// diagonal, and returns the graph of A + A^T (diagonal dropped). Throws Error(all_out_of_range) when
/// nnz_in > 0 and no entry is in range. Call check_arguments first.
/// An input that is already a clean lower triangle (sorted rows, all in range) of at least kCleanSplitEntries
/// entries is read by two tasks (inside a task team; the same graph on any number of threads).
Graph clean_pattern(const CscView& a, InputCheck& check);
constexpr offset_t kCleanSplitEntries = offset_t(1) << 18;

/// SPRAL's warning value for the counts (0, 1..5) and a message describing them.
int input_warning(const InputCheck& check, std::string& message);

}  // namespace detail
}  // namespace ssids
