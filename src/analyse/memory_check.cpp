// memory_check.cpp — available host memory and the check of a prediction against it (see memory_check.hpp).
#include "analyse/memory_check.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ssids/error.hpp"

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace ssids {
namespace detail {

namespace {

std::atomic<std::int64_t> test_available{-1};

/// The first integer in a file ("max" and unreadable files: -1).
std::int64_t read_number(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  long long v = -1;
  if (std::fscanf(f, "%lld", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

/// A "Key: value kB" line of a /proc file, in bytes (-1 when absent).
std::int64_t read_kb_field(const char* path, const char* key) {
  FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  char line[256];
  std::int64_t v = -1;
  const size_t len = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, len) == 0 && line[len] == ':') {
      v = std::strtoll(line + len + 1, nullptr, 10) * 1024;
      break;
    }
  std::fclose(f);
  return v;
}

std::string mib(std::int64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB (%lld bytes)", static_cast<double>(bytes) / 1048576.0,
                static_cast<long long>(bytes));
  return buf;
}

}  // namespace

std::int64_t available_host_bytes() {
  const std::int64_t t = test_available.load();
  if (t >= 0) return t;
  std::int64_t best = -1;
  auto take = [&best](std::int64_t v) {
    if (v >= 0) best = best < 0 ? v : std::min(best, v);
  };
#if defined(__linux__)
  take(read_kb_field("/proc/meminfo", "MemAvailable"));
  const std::int64_t max2 = read_number("/sys/fs/cgroup/memory.max"), cur2 = read_number("/sys/fs/cgroup/memory.current");
  if (max2 >= 0 && cur2 >= 0) take(std::max<std::int64_t>(0, max2 - cur2));
  const std::int64_t max1 = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                     cur1 = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  if (max1 >= 0 && cur1 >= 0 && max1 < (std::int64_t{1} << 60)) take(std::max<std::int64_t>(0, max1 - cur1));
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    const std::int64_t used = read_kb_field("/proc/self/status", "VmSize");
    take(std::max<std::int64_t>(0, static_cast<std::int64_t>(rl.rlim_cur) - std::max<std::int64_t>(used, 0)));
  }
#endif
  return best;
}

void check_host_memory(std::int64_t predicted, const char* what) {
  static const bool enabled = [] {
    const char* e = std::getenv("SSIDS_MEMORY_CHECK");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  if (!enabled && test_available.load() < 0) return;
  // the last reading and when it was taken (steady clock, ns); concurrent callers at worst read the files again
  static std::atomic<std::int64_t> last_reading{-1}, last_time{0};
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count();
  const std::int64_t reading = last_reading.load(std::memory_order_relaxed);
  if (test_available.load() < 0 && reading >= 0 && predicted <= reading / kMemoryReadingMargin &&
      now - last_time.load(std::memory_order_relaxed) < static_cast<std::int64_t>(kMemoryReadingSeconds * 1e9))
    return;
  const std::int64_t available = available_host_bytes();
  if (test_available.load() < 0) {
    last_reading.store(available, std::memory_order_relaxed);
    last_time.store(now, std::memory_order_relaxed);
  }
  if (available < 0 || predicted <= available) return;
  throw Error(flag::allocation, std::string(what) + " needs about " + mib(predicted) +
                                    " of host memory (predicted), more than the " + mib(available) +
                                    " available; nothing was allocated");
}

void set_available_host_bytes_for_testing(std::int64_t bytes) { test_available.store(bytes); }

}  // namespace detail
}  // namespace ssids
