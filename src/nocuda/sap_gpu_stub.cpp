// sap_gpu_stub.cpp — the GPU side of the SaP solver in a build without CUDA.
#include "sap/sap_gpu.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace sap {
namespace detail {

bool sap_gpu_available() { return false; }

std::unique_ptr<GpuSap> make_gpu_sap(bool) {
  throw Error(flag::no_cuda, "SaP GPU backend requested but ssids was built without CUDA");
}

void generate_banded_band_device(index_t, index_t, double, std::uint64_t, double*) {
  throw Error(flag::no_cuda, "built without CUDA: no device to generate the band on");
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
