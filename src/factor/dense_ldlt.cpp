// PLACEHOLDER — replaced by the real dense kernels.
#include "factor/dense_ldlt.hpp"
#include "ssids/error.hpp"
namespace ssids { namespace detail {
int ldlt_threshold_partial(int, int, double*, int, int*, double*, const DenseLdltOptions&, DenseLdltStats&) {
  throw Error(flag::unimplemented, "dense LDLT not implemented yet");
}
int cholesky_partial(int, int, double*, int, int) { throw Error(flag::unimplemented, "dense Cholesky not implemented yet"); }
}}  // namespace ssids::detail
