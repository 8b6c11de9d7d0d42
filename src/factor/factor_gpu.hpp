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

/// The level-scheduled GPU solve on GPU-resident factors (f.device set). x: n x nrhs, leading dimension ldx,
/// in host memory (copied in and out; returns when done) or, when x_on_device, in device memory (queued on
/// `stream`, a cudaStream_t, nullptr for the default stream; returns once queued).
void solve_gpu(const NumericFactors& f, SolveJob job, int nrhs, double* x, offset_t ldx, bool x_on_device,
               void* stream);

/// Copies L from the device into `host` (resized; the layout of NumericFactors::lblock).
void device_copy_l(const DeviceFactors& df, Vector<double>& host);

/// D and D^{-1} of f (host) uploaded for the GPU solve (after alter()).
std::shared_ptr<DeviceDiag> upload_device_diag(const NumericFactors& f);

}  // namespace detail
}  // namespace ssids
