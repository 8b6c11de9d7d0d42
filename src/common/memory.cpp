// memory.cpp — host allocation with a failure-injection hook and the recycling of large blocks (see
// ssids/memory.hpp).
//
// Recycling: a block of kMinRecycled .. kMaxRecycled bytes is allocated in a size class (the size rounded up
// to one of 8 steps per power of two, at most 12.5% more), and when it is freed it is kept for the next
// allocation of its class while the kept blocks stay within kMaxKept bytes in all. The C library returns such
// blocks to the system on free (mmap, heap trimming), so that a sequence of calls of the same sizes (the
// re-analyses and factorizations of an interior-point method) would fault every page in again, which costs
// more than the work that fills it. Off under AddressSanitizer, whose checks of freed memory it would hide. The
// environment variable SSIDS_RECYCLE_MIB (read once) changes the bound on what is kept; 0 turns recycling off.
#include "ssids/memory.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace ssids {
namespace {
std::atomic<long> g_fail_after{-1};
std::atomic<long> g_count{0};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycle = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kRecycle = false;
#else
constexpr bool kRecycle = true;
#endif
#else
constexpr bool kRecycle = true;
#endif

constexpr int kMinLog2 = 17, kMaxLog2 = 25;  // blocks of 128 KiB up to 32 MiB are recycled
constexpr std::size_t kMinRecycled = std::size_t(1) << kMinLog2, kMaxRecycled = std::size_t(1) << kMaxLog2;
constexpr std::size_t kMaxKept = std::size_t(64) << 20;  // bytes kept for reuse, over every class (default)
constexpr int kClasses = (kMaxLog2 - kMinLog2 + 1) * 8;

/// The class of a block of `bytes` (kMinRecycled <= bytes <= kMaxRecycled) and the size it is allocated with.
int size_class(std::size_t bytes, std::size_t& class_bytes) {
  int k = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes));  // 2^k <= bytes < 2^(k+1)
  std::size_t step = std::size_t(1) << (k - 3);
  std::size_t q = (bytes + step - 1) / step;  // 8 .. 16 steps
  if (q == 16) {
    ++k;
    step <<= 1;
    q = 8;
  }
  class_bytes = q * step;
  return (k - kMinLog2) * 8 + static_cast<int>(q - 8);
}

struct Recycler {
  std::mutex mutex;
  std::vector<void*> free[kClasses];
  std::size_t kept = 0;
  std::size_t max_kept = kMaxKept;
  Recycler() {
    if (const char* e = std::getenv("SSIDS_RECYCLE_MIB")) {
      char* end = nullptr;
      const long long mib = std::strtoll(e, &end, 10);
      if (end != e && mib >= 0) max_kept = static_cast<std::size_t>(mib) << 20;
    }
  }
};
/// Never destroyed: blocks may be freed by static destructors after this file's statics would be gone.
Recycler& recycler() {
  static Recycler* r = new Recycler;
  return *r;
}

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
  if (kRecycle && bytes >= kMinRecycled && bytes <= kMaxRecycled) {
    std::size_t class_bytes = 0;
    const int c = size_class(bytes, class_bytes);
    Recycler& r = recycler();
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      if (!r.free[c].empty()) {
        void* p = r.free[c].back();
        r.free[c].pop_back();
        r.kept -= class_bytes;
        return p;
      }
    }
    bytes = class_bytes;
  }
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void deallocate_bytes(void* p, std::size_t bytes) noexcept {
  if (kRecycle && p && bytes >= kMinRecycled && bytes <= kMaxRecycled) {
    std::size_t class_bytes = 0;
    const int c = size_class(bytes, class_bytes);
    Recycler& r = recycler();
    try {
      std::lock_guard<std::mutex> lock(r.mutex);
      if (r.kept + class_bytes <= r.max_kept) {
        r.free[c].push_back(p);
        r.kept += class_bytes;
        return;
      }
    } catch (...) {  // (a failed lock or push: freed as usual)
    }
  }
  std::free(p);
}
}  // namespace detail
}  // namespace ssids
