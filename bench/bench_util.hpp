// bench_util.hpp — the timing helpers the benchmarks share: a wall clock and the median of repeated timings.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace ssids_bench {

/// Seconds on std::chrono::steady_clock.
inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Median of t (0 when empty; the mean of the two middle values for an even count).
inline double median(std::vector<double> t) {
  if (t.empty()) return 0.0;
  std::sort(t.begin(), t.end());
  const size_t m = t.size() / 2;
  return t.size() % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
}

}  // namespace ssids_bench
