// compute.cpp — dispatch of the computed scalings for factor() (see scaling.hpp). The matrix is rebuilt
// from the analysis' amap (cleaned entries, duplicates summed) and the caller's values; 0-based.
#include <string>

#include "scaling/scaling.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

Vector<double> compute_scaling(const Symbolic& s, const double* val, Scaling which, ScalingInfo& info) {
  info = ScalingInfo{};
  if (which == Scaling::from_ordering) {
    if (s.n > 0 && s.matching_scale.size() != static_cast<size_t>(s.n))
      throw Error(flag::bad_scaling, "Scaling::from_ordering needs an analysis with Ordering::matching");
    info.matched = s.n;  // analyse has already reported a structurally singular matrix (warning 6)
    return s.matching_scale;
  }
  if (which != Scaling::matching && which != Scaling::auction && which != Scaling::equilibrate)
    throw Error(flag::bad_input, "unknown scaling " + std::to_string(static_cast<int>(which)));
  FullSymmetric a = full_from_symbolic(s, val);
  switch (which) {
    case Scaling::matching: return matching_scaling(a, info);
    case Scaling::auction: return auction_scaling(a, info);
    default: return equilibration_scaling(a, info);
  }
}

}  // namespace detail
}  // namespace ssids
