// tridiag_kernels.cuh — kernels of the GPU partitioned cyclic reduction and the splitting iteration
// (included by tridiag_kernels.cu only). The per-block arithmetic is src/tridiag/pcr_core.hpp, shared with the
// CPU twin.
#pragma once
#include <cuda_runtime.h>

#include "ssids/types.hpp"

namespace ssids {
namespace detail {
namespace pcr_gpu {

/// max_i |dl[i]| + |d[i]| + |du[i]| over rows, one block per partial; NaN-propagating. out: gridDim.x partials.
__global__ void norm_partial_kernel(long long n, const double* dl, const double* d, const double* du, double* out);
/// out[0] = max of n partials (one block), out[1] = max of the n partials at in + stride (when two != 0).
__global__ void max_final_kernel(int n, const double* in, int two, double* out);
/// One thread block per block of rows of a level: coefficient reduction in shared memory (7 * bsz doubles),
/// pivot test (atomicMin of the first tiny row into *bad), spikes, reduced (next-level) coefficients.
__global__ void factor_level_kernel(long long nl, int bsz, double* a, double* b, double* c, double* tr, double* tl,
                                    double* v, double* w, double* na, double* nb, double* nc, double thr,
                                    unsigned long long* bad);
/// Factor the final 1x1 / 2x2 system into t[4]; *bad = index of a tiny pivot.
__global__ void tiny_factor_kernel(int r, const double* a, const double* b, const double* c, double thr, double* t,
                                   unsigned long long* bad);
/// Per block of rows and right-hand side (blockIdx.y): y = T_int^-1 d_int in shared memory (bsz doubles) and the
/// reduced right-hand side.
__global__ void solve_down_kernel(long long nl, int bsz, const double* a, const double* b, const double* c,
                                  const double* tr, const double* tl, double* d, long long ldd, double* nd,
                                  long long ldnd);
__global__ void tiny_solve_kernel(int r, const double* t, double* d, long long ldd, int nrhs);
/// x_i of every row of a level from the reduced solution (blockIdx.y: right-hand side).
__global__ void solve_up_kernel(long long nl, int bsz, const double* v, const double* w, double* d, long long ldd,
                                const double* nx, long long ldnx);
/// r = b - S x, each row summed in CSR order.
__global__ void residual_kernel(long long n, const offset_t* ptr, const index_t* col, const double* val,
                                const double* b, const double* x, double* r);
/// Per block: partial max |xn - xo| and max |xn| into out[blockIdx.x] and out[gridDim.x + blockIdx.x].
__global__ void step_norm_partial_kernel(long long n, const double* xn, const double* xo, double* out);

}  // namespace pcr_gpu
}  // namespace detail
}  // namespace ssids
