// gpu_warmup.hpp — the CUDA context created ahead of the first GPU factorization, beside an analysis
// (implemented in cuda/factor_gpu.cu; a build without CUDA starts nothing). Kept apart from factor_gpu.hpp so that
// the analysis can start it without depending on the factorization.
#pragma once
#include <memory>

namespace ssids {
namespace detail {

/// Once per process: initializes CUDA and, when exactly one device is visible, creates its context, all on a
/// thread of its own, so that an analysis for the GPU backend hides that cost (a large part of the first
/// factorization's setup) behind its ordering. Returns a handle whose destruction waits for that thread (null
/// when it was started before); keep it with the analysis, and call wait_gpu_warmup before the factorization's
/// own CUDA work. with_cublas: cuBLAS is opened and initialized there too (over 500 MB of code, about 0.1 s);
/// for problems large enough that their biggest fronts will probably go to cuBLAS.
std::shared_ptr<void> start_gpu_warmup(bool with_cublas);
/// Waits for the thread of start_gpu_warmup's handle (null: nothing to wait for).
void wait_gpu_warmup(const std::shared_ptr<void>& handle);

}  // namespace detail
}  // namespace ssids
