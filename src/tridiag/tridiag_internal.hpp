// tridiag_internal.hpp — the factors behind ssids::tridiag::Solver and the GPU entry points (CUDA in
// src/cuda/tridiag_kernels.cu; src/nocuda/tridiag_stub.cpp throws Error(no_cuda) in a build without CUDA).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ssids/memory.hpp"
#include "ssids/tridiag.hpp"

namespace ssids {
namespace detail {

/// One level of the CPU twin (see pcr_core.hpp). a, b, c: the level's coefficients, where the interior rows of
/// every block are overwritten by their final cyclic-reduction coefficients (rows s and e keep theirs);
/// tr, tl: the reduction multipliers; v, w: the spikes (interior rows).
struct PcrLevel {
  long long n = 0;
  Vector<double> a, b, c, tr, tl, v, w;
};

struct PcrDevice;  // defined in tridiag_kernels.cu

struct TridiagFactors {
  tridiag::Backend backend = tridiag::Backend::thomas;
  index_t n = 0;
  tridiag::Options options;
  // thomas: row i of L U: dl[i], piv[i]; U's superdiagonal w[i] = du[i] / piv[i]
  Vector<double> dl, piv, w;
  // pcr_cpu
  Vector<PcrLevel> levels;
  int tiny_r = 0;
  double tiny[4] = {0, 0, 0, 0};
  // pcr_gpu
  std::shared_ptr<PcrDevice> dev;
};

/// max_i |dl[i]| + |d[i]| + |du[i]| (dl[0], du[n-1] ignored): the scale of the tiny-pivot test.
double tridiag_norm(index_t n, const double* dl, const double* d, const double* du);
/// The message of a tiny pivot at row `row` of level `level` (level 0 = T itself).
std::string tiny_pivot_message(const char* where, int level, long long row);
/// Number of levels of the partitioned reduction of order n with blocks of bsz rows, and their orders.
std::vector<long long> pcr_level_sizes(long long n, int bsz);

// ---- GPU (CUDA) ----
/// Reduce T on the device. dl, d, du: host arrays, or device arrays when on_device. Synchronous.
std::shared_ptr<PcrDevice> pcr_gpu_factor(index_t n, const double* dl, const double* d, const double* du,
                                          bool on_device, void* stream, const tridiag::Options& options);
/// Solve in place; b in host memory (copied; synchronous) or device memory (queued on stream).
void pcr_gpu_solve(const PcrDevice& f, int nrhs, double* b, offset_t ldb, bool on_device, void* stream);
/// The one-shot solve's CPU twin (host arrays; b overwritten with x; same bits as pcr_gpu_solve_once).
void chunk_solve_cpu(index_t n, const double* dl, const double* d, const double* du, double* b,
                     const tridiag::Options& options);
/// One right-hand side, one shot (tridiag/chunk_core.hpp; device arrays; b overwritten with x). Synchronizes once.
void pcr_gpu_solve_once(index_t n, const double* dl, const double* d, const double* du, double* b, void* stream,
                        const tridiag::Options& options);
/// The splitting iteration on the device.
tridiag::SplittingResult pcr_gpu_splitting(const PcrDevice& f, const CsrMatrix& s, const double* b, double* x,
                                           const tridiag::SplittingOptions& options);

/// The status update of the splitting iteration shared by the CPU and GPU loops: returns true when it stops.
bool splitting_step_done(double beta, double xnorm, int m, double& beta_prev, int& stalls,
                         const tridiag::SplittingOptions& options, tridiag::SplittingResult& r);

}  // namespace detail
}  // namespace ssids
