// ssids/device_memory.hpp — test hooks on the library's GPU (device) allocations: every cudaMalloc,
// stream-ordered allocation and cuBLAS handle the library makes goes through one place that a test can
// make fail (as if the GPU were out of memory), and that counts the allocations still held.
// In a build without CUDA the hooks exist and count nothing.
#pragma once

namespace ssids {

/// Test hook: make the (k+1)-th device allocation from now fail (k >= 0) with Error(allocation);
/// k < 0 disables injection. The failure happens once, then injection is off again.
void inject_device_allocation_failure(long k) noexcept;
/// Number of device allocations the library has made (for tests sweeping k).
long device_allocation_count() noexcept;
/// Device allocations made by the library and not yet released (leak checks in tests).
long device_allocations_live() noexcept;

namespace detail {
/// Called before each device allocation: counts it, and returns true when it must fail (injected).
bool device_allocation_fails() noexcept;
void device_allocation_made() noexcept;      ///< one more live device allocation
void device_allocation_released() noexcept;  ///< one fewer
}  // namespace detail

}  // namespace ssids
