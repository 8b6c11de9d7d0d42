// factor_gpu_stub.cpp — the GPU entry points of a build without CUDA.
#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

bool gpu_available(std::string* why) {
  if (why) *why = "built without CUDA";
  return false;
}

void factor_multifrontal_gpu(const Symbolic&, const double*, const double*, Mode, const Options&, NumericFactors&,
                             Inform&) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU backend is not available");
}

}  // namespace detail
}  // namespace ssids
