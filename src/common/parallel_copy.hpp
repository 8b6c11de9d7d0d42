// parallel_copy.hpp — a large host copy spread over OpenMP threads.
#pragma once
#include <cstddef>

namespace ssids {
namespace detail {

/// Beyond a few cores a copy is bound by the memory system, not by the cores.
constexpr int parallel_copy_max_threads = 8;

/// Copies n doubles from src to dst (non-overlapping) in contiguous pieces, one per thread of a team of at
/// most max_threads (0 or less: OpenMP's default team size) and at most parallel_copy_max_threads, each piece
/// at least min_piece doubles. One core's copy bandwidth is a fraction of the memory system's, so a copy of
/// megabytes into a pinned buffer on its way to the device goes faster on several cores. Smaller copies stay
/// on the calling thread (a team costs tens of microseconds to wake).
void parallel_copy(double* dst, const double* src, std::size_t n, int max_threads,
                   std::size_t min_piece = std::size_t(1) << 15);

}  // namespace detail
}  // namespace ssids
