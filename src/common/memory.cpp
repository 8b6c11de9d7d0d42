// memory.cpp — host allocation with a failure-injection hook (see ssids/memory.hpp).
#include "ssids/memory.hpp"

#include <atomic>
#include <cstdlib>

namespace ssids {
namespace {
std::atomic<long> g_fail_after{-1};
std::atomic<long> g_count{0};
}  // namespace

void inject_host_allocation_failure(long k) noexcept { g_fail_after.store(k); }
long host_allocation_count() noexcept { return g_count.load(); }

namespace detail {
void* allocate_bytes(std::size_t bytes) {
  g_count.fetch_add(1, std::memory_order_relaxed);
  long k = g_fail_after.load(std::memory_order_relaxed);
  if (k >= 0) {
    // the injected failure happens once, then injection is off again
    if (g_fail_after.compare_exchange_strong(k, k - 1) && k == 0) throw std::bad_alloc();
  }
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (!p) throw std::bad_alloc();
  return p;
}
void deallocate_bytes(void* p, std::size_t) noexcept { std::free(p); }
}  // namespace detail
}  // namespace ssids
