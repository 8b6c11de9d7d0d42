// PLACEHOLDER — replaced by the real matching.
#include "common/matching.hpp"
#include "ssids/error.hpp"
namespace ssids { namespace detail {
MatchingResult max_product_matching(index_t, const offset_t*, const index_t*, const double*) {
  throw Error(flag::unimplemented, "matching not implemented yet");
}
}}  // namespace ssids::detail
