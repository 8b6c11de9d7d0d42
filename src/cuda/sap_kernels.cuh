// sap_kernels.cuh — launchers of the SaP GPU kernels (sap_kernels.cu). Preconditioner kernels are templates
// over the storage precision T (double, or float for mixed precision); the Krylov vectors are double.
// Every launcher checks its launch (check_launch) and works on the given stream; none synchronizes.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ssids/types.hpp"

namespace ssids {
namespace sap {
namespace detail {
namespace gpu {

/// Device view of a GpuLayout (sap_gpu.hpp): all pointers are device pointers.
struct Parts {
  int p = 0;                        ///< partitions
  index_t m = 0;                    ///< coupling width (0 = no interfaces)
  index_t kmax = 0;                 ///< max half-bandwidth over the partitions
  index_t nmax = 0;                 ///< max partition size
  const index_t* begin = nullptr;   ///< p + 1
  const index_t* kb = nullptr;      ///< p
  const long long* offset = nullptr;  ///< p + 1 (band of partition i; couplings start at offset[p])
  long long coupling = 0;           ///< host copy of offset[p]
};

// --- preconditioner set-up ----------------------------------------------------------------------------
/// vals[slot[e]] = (T)(val[e] * rs[row] * cs[col[e]]) for every CSR entry with slot >= 0 (rs, cs may be null).
template <class T>
void assemble_csr(index_t n, const offset_t* ptr, const index_t* col, const double* val, const long long* slot,
                  const double* rs, const double* cs, T* vals, cudaStream_t s);
/// Partition bands and coupling blocks from a dense band (n x n, half-bandwidth k, band storage) whose
/// partitions all have half-bandwidth k.
template <class T>
void assemble_band(const Parts& P, index_t n, index_t k, const double* band, T* vals, cudaStream_t s);
/// maxabs[i] = max |a| over partition i's band storage (slots outside the block are zero).
template <class T>
void band_max(const Parts& P, const T* vals, double* maxabs, cudaStream_t s);
/// In-place LU without pivoting, with boosting (band.hpp's band_lu), of partitions first .. p-1.
/// reverse: factor the reversed band array instead, which is the UL factorization (band_ul) of the block.
/// boosted: device counter incremented by the number of boosted pivots.
template <class T>
void band_lu(const Parts& P, T* vals, const double* maxabs, double eps, bool reverse, int first, int* boosted,
             cudaStream_t s);
/// Spike tips of every interface i (m > 0): V_i^(b) from the LU of block i (fac, not reversed), or W_i^(t)
/// from the reversed LU (= UL) of block i+1 (fac = the reversed copy). rhs/out: the coupling block B_i or C_i
/// / V_i or W_i, dense m x m column-major at rhs + 2 i m^2 (the caller offsets the base). work: (p-1) m^2.
template <class T>
void spike_tips(const Parts& P, const T* fac, bool top_from_ul, const T* rhs, T* out, T* work, cudaStream_t s);
/// R_i = I - W_i V_i and its LU with partial pivoting (dense_lu of band.hpp), per interface.
/// V, W, R: (p-1) blocks of m^2 at stride m^2; piv: (p-1) m.
template <class T>
void reduced_systems(const Parts& P, const T* V, const T* W, T* R, int* piv, double boost, int* zeros, cudaStream_t s);

// --- preconditioner application -------------------------------------------------------------------------
/// t[prow[i]] = (T)(rs[i] r[i]) (prow, rs may be null).
template <class T>
void permute_in(index_t n, const index_t* prow, const double* rs, const double* r, T* t, cudaStream_t s);
/// z[j] = cs[j] (double) u[pcol[j]] (pcol, cs may be null).
template <class T>
void permute_out(index_t n, const index_t* pcol, const double* cs, const T* u, double* z, cudaStream_t s);
/// x := A_i^{-1} x on every partition (band_lu_solve), in place.
template <class T>
void band_solve(const Parts& P, const T* vals, T* x, cudaStream_t s);
/// SaP-C step 2 (Eq. (9b), (9c)): from g = D^{-1} r, per interface xt = R^{-1}(g_{i+1}^t - W g_i^b),
/// xb = g_i^b - V xt. xt, xb: (p-1) m each.
template <class T>
void interface_solve(const Parts& P, const T* V, const T* W, const T* R, const int* piv, const T* g, T* xt, T* xb,
                     cudaStream_t s);
/// SaP-C step 3 right-hand side: w -= B_i xt_i on the last m rows of block i and C_i xb_i on the first m
/// rows of block i+1 (couplings at vals + P.coupling).
template <class T>
void interface_correct(const Parts& P, const T* vals, const T* xt, const T* xb, T* w, cudaStream_t s);
/// dl, d, du (n each) of the block-diagonal tridiagonal matrix when every partition has half-bandwidth 1.
template <class T>
void extract_tridiagonal(const Parts& P, index_t n, const T* vals, double* dl, double* d, double* du, cudaStream_t s);
template <class T>
void copy_vector(index_t n, const T* x, T* y, cudaStream_t s);

// --- Krylov vectors (double) ------------------------------------------------------------------------------
constexpr int kDotBlocks = 256;
/// partial[kDotBlocks] then out[0] = x . y (deterministic: fixed grid and reduction tree).
void dot(index_t n, const double* x, const double* y, double* partial, double* out, cudaStream_t s);
/// z = a x + b y + c z with zero-coefficient terms skipped (krylov.hpp's contract).
void combine(index_t n, double a, const double* x, double b, const double* y, double c, double* z, cudaStream_t s);
/// y = A x, A in CSR.
void csr_matvec(index_t n, const offset_t* ptr, const index_t* col, const double* val, const double* x, double* y,
                cudaStream_t s);
/// y = A x, A dense banded (band storage, half-bandwidth k).
void band_matvec(index_t n, index_t k, const double* band, const double* x, double* y, cudaStream_t s);
/// flags[0] += non-finite slots, flags[1] += nonzero slots outside the n x n matrix (flags zeroed by the caller).
void check_band(index_t n, index_t k, const double* band, int* flags, cudaStream_t s);
/// The benchmarks' banded test matrix (sap_gpu.hpp), one thread per row.
void generate_band(index_t n, index_t k, double d, std::uint64_t seed, double* band, cudaStream_t s);

}  // namespace gpu
}  // namespace detail
}  // namespace sap
}  // namespace ssids
