// factor_gpu.hpp — the GPU multifrontal factorization (CUDA), callable from plain C++.
// In a build without CUDA these functions exist and report that the GPU is unavailable.
#pragma once
#include <string>
#include <utility>

#include "analyse/symbolic.hpp"
#include "factor/numeric.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// True when this build has CUDA and a device is present. `why` (optional) receives the reason when not.
bool gpu_available(std::string* why = nullptr);

/// True when p points to memory of a CUDA device (or managed memory); false for host memory and without CUDA.
bool is_device_pointer(const void* p);

/// Waits for every piece of work queued on the device that holds p (cudaDeviceSynchronize): values in device
/// memory may be written by work on any of the caller's streams, which the factorization's own streams do not
/// follow (a pageable cudaMemcpy to the device, for one, may return before its transfer ends).
void wait_for_device_values(const void* p);

/// Copies n doubles from device (or managed) memory at d to h (resized to n).
void copy_device_values(const double* d, offset_t n, Vector<double>& h);

/// Factorize on the GPU, level by level (Hogg, Ovtchinnikov & Scott 2016, §3): same contract as
/// factor_multifrontal_cpu. The factors are copied back into `out` (host layout shared with the CPU path).
/// Throws Error(no_cuda) without CUDA/device, Error(cuda) with the CUDA message on a CUDA failure,
/// Error(allocation) when device memory runs out, Error(not_posdef) in posdef mode. check_values: the values are
/// checked on the device after their upload (values_check.hpp), Error(nan_inf) naming the first one that is NaN
/// or Inf; otherwise the caller has checked them. values_on_device: val is in device memory (is_device_pointer),
/// and all work queued on its device has ended (wait_for_device_values).
void factor_multifrontal_gpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform, bool check_values,
                             bool values_on_device);

/// The bounds above which a piece of a contribution update is a plain cublasDgemm on a side stream (rows and
/// columns at least min_dim, at least work multiply-adds); for tests that exercise those calls on small
/// problems. Returns the previous bounds. Not thread-safe: set it while no GPU factorization runs.
std::pair<int, double> set_gpu_plain_gemm_bounds(int min_dim, double work);

/// Whether a level's contribution updates are prepared during its dense phase (the default) or built after it
/// as with delays; for tests that compare the two. Returns the previous setting. Not thread-safe.
bool set_gpu_prepared_updates(bool on);

/// Whether the small fronts at the bottom of the tree are factorized by the small-front kernel (the default) or
/// by the level loop like the others; for tests and benchmarks that compare the two. Returns the previous
/// setting. Not thread-safe.
bool set_gpu_small_fronts(bool on);

/// Whether the level loop's updates run on the tensor-core kernel with plain cublasDgemm pieces (the default) or
/// all on the update kernel whose CPU twin gives the same bits, so that the factors equal the reference level
/// driver's (factor/level_kernels_reference.hpp); for tests. Returns the previous setting. Not thread-safe.
bool set_gpu_tensor_core_updates(bool on);

/// The level-scheduled GPU solve on GPU-resident factors (f.device set). x: n x nrhs, leading dimension ldx,
/// in host memory (copied in and out; returns when done) or, when x_on_device, in device memory (queued on
/// `stream`, a cudaStream_t, nullptr for the default stream; returns once queued).
void solve_gpu(const NumericFactors& f, SolveJob job, int nrhs, double* x, offset_t ldx, bool x_on_device,
               void* stream);

/// Largest node, in row blocks of 64 rows, that the GPU solve does as one task per sweep (a "compact"
/// node; see src/cuda/solve_kernels.cuh), for the solve plans built from now on; clamped to
/// [0, solve_compact_blocks], 0 turns compact tasks off. Both give bitwise the same solutions (the tests
/// compare them) and the benchmarks time both. Returns the previous value. Process-wide: set it before
/// factorizing, not while another thread factorizes.
int set_solve_compact_blocks(int blocks);
/// Row blocks after a node's pivots that one forward task of the GPU solve takes (a "row group"), for the
/// solve plans built from now on; clamped to [1, solve_row_group], 1 gives one task per row block. Bitwise the
/// same solutions either way; returns the previous value; process-wide, like set_solve_compact_blocks.
int set_solve_row_group(int blocks);
/// Tasks of the forward and the backward sweep in the solve plan of GPU-resident factors ({0, 0} if none).
std::pair<int, int> solve_task_counts(const NumericFactors& f);

/// Copies L from the device into `host` (resized; the layout of NumericFactors::lblock).
void device_copy_l(const DeviceFactors& df, Vector<double>& host);

/// Test hooks: the device copies of D and D^{-1} of GPU-resident factors, copied to the host (empty in
/// positive-definite mode); and whether two GPU factorizations share one solve plan.
void device_diag_copy(const NumericFactors& f, Vector<double>& d, Vector<double>& dinv);
bool share_solve_plan(const NumericFactors& a, const NumericFactors& b);

/// D and D^{-1} of f (host) uploaded for the GPU solve (after alter()).
std::shared_ptr<DeviceDiag> upload_device_diag(const NumericFactors& f);

}  // namespace detail
}  // namespace ssids
