// cuda_check.hpp — CUDA error checking and a small RAII device buffer (included by .cu files only).
// Every CUDA call goes through check_cuda(); an allocation failure becomes Error(allocation), any other
// failure Error(cuda) with the CUDA message. Nothing exits or aborts.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ssids/device_memory.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

inline void check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky-free error so the library stays usable
  std::string msg = std::string(what) + ": " + cudaGetErrorString(e);
  if (e == cudaErrorMemoryAllocation) throw Error(flag::allocation, "GPU out of memory in " + msg);
  throw Error(flag::cuda, msg, static_cast<int>(e));
}

/// Checks the launch just made (configuration errors) without synchronizing.
inline void check_launch(const char* kernel) { check_cuda(cudaGetLastError(), kernel); }

/// Every device allocation of the library: counted, and failing on demand (ssids/device_memory.hpp).
inline void device_malloc(void** p, std::size_t bytes, const char* what) {
  if (device_allocation_fails())
    throw Error(flag::allocation, std::string("GPU out of memory in ") + what + " (injected failure)");
  check_cuda(cudaMalloc(p, bytes ? bytes : 1), what);
  device_allocation_made();
}
inline void device_free(void* p) noexcept {
  if (!p) return;
  cudaFree(p);
  device_allocation_released();
}
/// The library's stream-ordered memory pool on a device (created on first use, never destroyed: its memory goes
/// with the process). CUDA's default pool keeps nothing across a synchronization (release threshold 0), so a
/// solve that allocates its work space and is waited for would map that memory again every time (~0.1 ms of a
/// small problem's solve); this one keeps up to device_pool_keep_bytes.
constexpr std::uint64_t device_pool_keep_bytes = std::uint64_t(256) << 20;
inline cudaMemPool_t device_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<int>(pools.size()) <= device) pools.resize(static_cast<std::size_t>(device) + 1, nullptr);
  if (!pools[device]) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    check_cuda(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    std::uint64_t keep = device_pool_keep_bytes;
    check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
    pools[device] = pool;
  }
  return pools[device];
}

/// Stream-ordered device memory from the library's pool on the current device (device_pool), counted and failing
/// on demand like device_malloc.
inline void device_malloc_async(void** p, std::size_t bytes, cudaStream_t s, const char* what) {
  if (device_allocation_fails())
    throw Error(flag::allocation, std::string("GPU out of memory in ") + what + " (injected failure)");
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaMallocFromPoolAsync(p, bytes ? bytes : 1, device_pool(device), s), what);
  device_allocation_made();
}
inline void device_free_async(void* p, cudaStream_t s) noexcept {
  if (!p) return;
  cudaFreeAsync(p, s);
  device_allocation_released();
}

/// A non-blocking CUDA stream owned by its scope.
class Stream {
 public:
  Stream() { check_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { check_cuda(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t s_ = nullptr;
};

/// Device blocks given back by buffers that no longer need them, for buffers of later factorizations of the same
/// analysis: a small problem's factorization then allocates and frees nothing (a cudaMalloc costs ~6 us, a
/// cudaFree ~5 us and a device synchronization, about ten of each per factorization). Whoever gives blocks back
/// must have synchronized the device with their last use. Bounded (max_bytes in all, blocks above it are freed);
/// frees what it holds when destroyed.
class DeviceBlockCache {
 public:
  explicit DeviceBlockCache(std::size_t max_bytes) : max_bytes_(max_bytes) { cudaGetDevice(&device_); }
  ~DeviceBlockCache() {
    for (const auto& b : blocks_) device_free(b.second);
  }
  DeviceBlockCache(const DeviceBlockCache&) = delete;
  DeviceBlockCache& operator=(const DeviceBlockCache&) = delete;
  /// A block of at least `bytes` and at most twice that (the smallest held), or nullptr; `got` its size.
  void* take(std::size_t bytes, std::size_t& got) {
    if (!on_device()) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = blocks_.lower_bound(bytes);
    if (it == blocks_.end() || it->first > 2 * bytes + 4096) return nullptr;
    got = it->first;
    void* p = it->second;
    held_ -= got;
    blocks_.erase(it);
    return p;
  }
  /// Keeps p (of `bytes`) if it fits the bound, else frees it.
  void put(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (held_ + bytes <= max_bytes_ && on_device()) {
        blocks_.emplace(bytes, p);
        held_ += bytes;
        return;
      }
    }
    device_free(p);
  }

 private:
  bool on_device() const noexcept {
    int d = -1;
    return cudaGetDevice(&d) == cudaSuccess && d == device_;
  }
  std::mutex mutex_;
  std::multimap<std::size_t, void*> blocks_;
  std::size_t held_ = 0, max_bytes_;
  int device_ = 0;
};

/// Device array of T that grows on demand (contents are not preserved by grow()). With a block cache
/// (use_cache), its memory comes from the cache when it holds a fitting block and goes back to it on release.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void use_cache(std::shared_ptr<DeviceBlockCache> c) noexcept { cache_ = std::move(c); }
  bool cached() const noexcept { return static_cast<bool>(cache_); }
  void release() noexcept {
    if (cache_) cache_->put(p_, cap_ * sizeof(T));
    else device_free(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  /// Ensure room for n elements; reallocates (discarding contents) when larger than the capacity.
  void reserve_discard(std::size_t n) {
    if (n <= cap_) return;
    release();
    if (cache_) {
      std::size_t got = 0;
      if (void* p = cache_->take(n * sizeof(T), got)) {
        p_ = static_cast<T*>(p);
        cap_ = got / sizeof(T);
        return;
      }
    }
    device_malloc(reinterpret_cast<void**>(&p_), n * sizeof(T), "cudaMalloc");
    cap_ = n;
  }
  /// Ensure room for n elements keeping the first `keep` elements.
  void reserve_keep(std::size_t n, std::size_t keep, cudaStream_t s) {
    if (n <= cap_) return;
    T* q = nullptr;
    device_malloc(reinterpret_cast<void**>(&q), n * sizeof(T), "cudaMalloc");
    if (p_ && keep) {
      cudaError_t e = cudaMemcpyAsync(q, p_, keep * sizeof(T), cudaMemcpyDeviceToDevice, s);
      if (e == cudaSuccess) e = cudaStreamSynchronize(s);
      if (e != cudaSuccess) {
        device_free(q);
        check_cuda(e, "cudaMemcpyAsync (grow)");
      }
    }
    release();
    p_ = q;
    cap_ = n;
  }
  /// Copies n elements from the host (stream-ordered); a buffer that must grow grows by at least half, so that
  /// task arrays uploaded level after level are not reallocated (cudaFree synchronizes the device) every time.
  void upload(const T* host, std::size_t n, cudaStream_t s) {
    reserve_discard(cap_ > 0 && n > cap_ ? std::max(n, cap_ + cap_ / 2) : n);
    if (n) check_cuda(cudaMemcpyAsync(p_, host, n * sizeof(T), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync H2D");
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(cap_, o.cap_);
    std::swap(cache_, o.cache_);
  }
  T* get() const noexcept { return p_; }
  std::size_t capacity() const noexcept { return cap_; }

 private:
  T* p_ = nullptr;
  std::size_t cap_ = 0;
  std::shared_ptr<DeviceBlockCache> cache_;
};

/// Page-locked host array of T that grows on demand (contents are not preserved): copies between it and the
/// device run at full bandwidth without the driver's staging through its own buffers, as pageable memory needs.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  void reserve_discard(std::size_t n) {
    if (n <= cap_) return;
    if (p_) cudaFreeHost(p_);
    p_ = nullptr;
    cap_ = 0;
    check_cuda(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMallocHost");
    cap_ = n;
  }
  T* get() const noexcept { return p_; }

 private:
  T* p_ = nullptr;
  std::size_t cap_ = 0;
};

}  // namespace detail
}  // namespace ssids
