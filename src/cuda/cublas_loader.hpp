// cublas_loader.hpp — the few cuBLAS functions the GPU factorization calls, loaded on first use.
// libcublas (with libcublasLt, over 500 MB of code) is opened with dlopen the first time a factorization needs
// a cuBLAS handle, not when the library is loaded: a program that only factorizes on the CPU neither maps it
// nor pays for its relocations (about 0.1 s and 200 MB of resident memory per process).
#pragma once
#include <cublas_v2.h>

namespace ssids {
namespace detail {

struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t*);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double*,
                          const double*, int, const double*, int, const double*, double*, int);
};

/// The functions, loaded once (thread-safe). Throws Error(flag::cublas) naming the library when it cannot be
/// opened or lacks a function.
const CublasApi& cublas();

}  // namespace detail
}  // namespace ssids
