// factor_gpu.hpp — the GPU multifrontal factorization (CUDA), callable from plain C++.
// In a build without CUDA these functions exist and report that the GPU is unavailable.
#pragma once
#include <string>

#include "analyse/symbolic.hpp"
#include "factor/numeric.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// True when this build has CUDA and a device is present. `why` (optional) receives the reason when not.
bool gpu_available(std::string* why = nullptr);

/// Factorize on the GPU, level by level (Hogg, Ovtchinnikov & Scott 2016, §3): same contract as
/// factor_multifrontal_cpu. The factors are copied back into `out` (host layout shared with the CPU path).
/// Throws Error(no_cuda) without CUDA/device, Error(cuda) with the CUDA message on a CUDA failure,
/// Error(allocation) when device memory runs out, Error(not_posdef) in posdef mode.
void factor_multifrontal_gpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform);

}  // namespace detail
}  // namespace ssids
