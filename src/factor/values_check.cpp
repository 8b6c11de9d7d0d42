// values_check.cpp — see values_check.hpp.
#include "factor/values_check.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "ssids/error.hpp"

namespace ssids {
namespace detail {

void throw_first_nonfinite(const Symbolic& sym, const double* val) {
  for (const AEntry& e : sym.amap)
    if (!std::isfinite(val[e.src]))
      throw Error(flag::nan_inf, "value at position " + std::to_string(e.src) + " (0-based) is NaN or Inf");
}

void check_values_finite(const Symbolic& sym, const double* val) {
  // The sequential pass settles the usual case; the amap order reads val at scattered positions (several times
  // slower), so it runs only to name the entry. A double is NaN or Inf exactly when its exponent bits are all
  // ones: the test reads each value's high 32 bits and ORs the answers, a loop the compiler vectorizes (a loop
  // over std::isfinite is not, and costs about 4x as much).
  std::uint32_t bad = 0;
  for (offset_t k = 0; k < sym.nnz_in; ++k) {
    std::uint64_t bits;
    std::memcpy(&bits, val + k, sizeof bits);
    const std::uint32_t high = static_cast<std::uint32_t>(bits >> 32);
    bad |= static_cast<std::uint32_t>((high & 0x7ff00000u) == 0x7ff00000u);
  }
  if (bad) throw_first_nonfinite(sym, val);
}

}  // namespace detail
}  // namespace ssids
