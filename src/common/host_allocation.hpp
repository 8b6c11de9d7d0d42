// host_allocation.hpp — the one translation of a failed host allocation (std::bad_alloc from
// ssids::Allocator or the standard library) into the library's error: Error(flag::allocation), -50.
#pragma once
#include <string>

#include "ssids/error.hpp"

namespace ssids {
namespace detail {

[[noreturn]] inline void throw_host_allocation_failed(const char* where) {
  throw Error(flag::allocation, std::string("host allocation failed in ") + where);
}

}  // namespace detail
}  // namespace ssids
