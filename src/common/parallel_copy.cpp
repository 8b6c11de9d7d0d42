// parallel_copy.cpp — see parallel_copy.hpp.
#include "common/parallel_copy.hpp"

#include <algorithm>
#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ssids {
namespace detail {

void parallel_copy(double* dst, const double* src, std::size_t n, int max_threads, std::size_t min_piece) {
  if (n == 0) return;
#ifdef _OPENMP
  if (max_threads <= 0) max_threads = omp_get_max_threads();
#endif
  max_threads = std::min(max_threads, parallel_copy_max_threads);
  const std::size_t by_size = std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_piece));
  const int threads = static_cast<int>(std::min<std::size_t>(by_size, static_cast<std::size_t>(std::max(1, max_threads))));
  if (threads <= 1) {
    std::memcpy(dst, src, n * sizeof(double));
    return;
  }
  // piece t: [n * t / threads, n * (t + 1) / threads), so the pieces cover [0, n) whatever the team's size
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    std::memcpy(dst + lo, src + lo, (hi - lo) * sizeof(double));
  }
}

}  // namespace detail
}  // namespace ssids
