// values_check.cpp — see values_check.hpp.
#include "factor/values_check.hpp"

#include <cmath>
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
  // the sequential pass settles the usual case; the amap order reads val at scattered positions (several times
  // slower), so it runs only to name the entry
  bool all_finite = true;
  for (offset_t k = 0; k < sym.nnz_in; ++k) all_finite &= std::isfinite(val[k]);
  if (!all_finite) throw_first_nonfinite(sym, val);
}

}  // namespace detail
}  // namespace ssids
