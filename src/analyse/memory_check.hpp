// memory_check.hpp — predicted memory against what the machine can give, checked before the big allocations.
//
// A process that asks for more memory than the machine has is not told so by malloc on Linux (memory is
// overcommitted): it is killed later, when the pages are touched. analyse and factor therefore compare what
// they predict they will need with what is available and fail with Error(flag::allocation), the predicted bytes
// in the message, instead. Available = the smallest of MemAvailable (/proc/meminfo), the cgroup's limit minus
// its usage (v2: memory.max, memory.current; v1: memory.limit_in_bytes, memory.usage_in_bytes) and the address
// space limit (RLIMIT_AS) minus the address space in use; when none of them can be read nothing is checked.
// SSIDS_MEMORY_CHECK=0 in the environment turns the check off.
#pragma once
#include <cstdint>

namespace ssids {
namespace detail {

/// Bytes the process can still allocate and touch, or -1 when unknown.
std::int64_t available_host_bytes();

/// Throws Error(flag::allocation) when `predicted` bytes exceed what is available; `what` names the phase and
/// the data ("analyse: the assembly tree's maps"). Reading the files costs about 0.1 ms, as much as a small
/// factorization's setup, so a reading younger than kMemoryReadingSeconds is used again for a prediction of at
/// most 1/kMemoryReadingMargin of it (a sequence of factorizations of one size reads the files about once a
/// second); anything larger is checked against a fresh reading.
void check_host_memory(std::int64_t predicted, const char* what);
constexpr double kMemoryReadingSeconds = 1.0;
constexpr std::int64_t kMemoryReadingMargin = 4;

/// Tests: pretend that `bytes` are available (< 0: read the machine again).
void set_available_host_bytes_for_testing(std::int64_t bytes);

}  // namespace detail
}  // namespace ssids
