// tridiag_stub.cpp — the GPU entry points of ssids::tridiag in a build without CUDA.
#include "ssids/error.hpp"
#include "tridiag/tridiag_internal.hpp"

namespace ssids {
namespace detail {

std::shared_ptr<PcrDevice> pcr_gpu_factor(index_t, const double*, const double*, const double*, bool, void*,
                                          const tridiag::Options&) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU tridiagonal solver is not available");
}

void pcr_gpu_solve(const PcrDevice&, int, double*, offset_t, bool, void*) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU tridiagonal solver is not available");
}

void pcr_gpu_solve_once(index_t, const double*, const double*, const double*, double*, void*, const tridiag::Options&) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU tridiagonal solver is not available");
}

tridiag::SplittingResult pcr_gpu_splitting(const PcrDevice&, const CsrMatrix&, const double*, double*,
                                           const tridiag::SplittingOptions&) {
  throw Error(flag::no_cuda, "built without CUDA: the GPU splitting iteration is not available");
}

}  // namespace detail
}  // namespace ssids
