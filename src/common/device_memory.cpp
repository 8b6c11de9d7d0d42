// device_memory.cpp — the counters and the failure-injection hook of device allocations
// (see ssids/device_memory.hpp). Plain C++: the CUDA code calls these before and after allocating.
#include "ssids/device_memory.hpp"

#include <atomic>

namespace ssids {
namespace {
std::atomic<long> g_fail_after{-1};
std::atomic<long> g_count{0};
std::atomic<long> g_live{0};
}  // namespace

void inject_device_allocation_failure(long k) noexcept { g_fail_after.store(k); }
long device_allocation_count() noexcept { return g_count.load(); }
long device_allocations_live() noexcept { return g_live.load(); }

namespace detail {
bool device_allocation_fails() noexcept {
  g_count.fetch_add(1, std::memory_order_relaxed);
  long k = g_fail_after.load(std::memory_order_relaxed);
  return k >= 0 && g_fail_after.compare_exchange_strong(k, k - 1) && k == 0;
}
void device_allocation_made() noexcept { g_live.fetch_add(1, std::memory_order_relaxed); }
void device_allocation_released() noexcept { g_live.fetch_sub(1, std::memory_order_relaxed); }
}  // namespace detail
}  // namespace ssids
