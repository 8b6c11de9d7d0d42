// ssids/memory.hpp — the single place through which the library allocates host memory.
// Every container inside the library is ssids::Vector<T>; its allocator calls allocate_bytes(),
// which a test can make fail after k allocations (failure injection). Blocks of 128 KiB to 32 MiB are allocated
// in size classes (at most 12.5% larger than asked) and, when freed, kept for the next allocation of their class,
// at most 64 MiB in all, process-wide (src/common/memory.cpp): the C library would return them to the system and
// a sequence of calls of one size would fault every page in again. SSIDS_RECYCLE_MIB=N (environment, read once)
// changes the 64 MiB; 0 turns this off.
#pragma once
#include <cstddef>
#include <new>
#include <vector>

namespace ssids {

namespace detail {
void* allocate_bytes(std::size_t bytes);            ///< throws std::bad_alloc on failure
void deallocate_bytes(void* p, std::size_t bytes) noexcept;
}  // namespace detail

/// Test hook: make the (k+1)-th host allocation from now fail (k >= 0); k < 0 disables injection.
void inject_host_allocation_failure(long k) noexcept;
/// Number of host allocations the library has made (for tests sweeping k).
long host_allocation_count() noexcept;

template <class T>
struct Allocator {
  using value_type = T;
  Allocator() noexcept = default;
  template <class U>
  Allocator(const Allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(detail::allocate_bytes(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { detail::deallocate_bytes(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const Allocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const Allocator<U>&) const noexcept { return false; }
};

template <class T>
using Vector = std::vector<T, Allocator<T>>;

}  // namespace ssids
