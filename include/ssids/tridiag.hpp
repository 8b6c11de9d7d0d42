// ssids/tridiag.hpp — tridiagonal systems (many right-hand sides) and the quasi-tridiagonal splitting
// iteration A = T + S (Li, Yang & Li, "A hybrid parallel solving algorithm on GPU for quasi-tridiagonal
// systems of linear equations", IEEE TPDS 2016).
//
// T = tridiag(dl, d, du) of order n: row i reads dl[i] x[i-1] + d[i] x[i] + du[i] x[i+1] = b[i];
// dl[0] and du[n-1] are ignored (treated as zero). No pivoting: the target is diagonally dominant T.
// A pivot p is "tiny" when !(|p| > pivot_tolerance * max_i(|dl[i]| + |d[i]| + |du[i]|)); factor() then
// throws Error(flag::singular) naming the pivot — a zero or tiny pivot never turns silently into NaN.
//
// Backends:
//  - thomas:  LU without pivoting (the Thomas algorithm), the CPU reference;
//  - pcr_cpu: partitioned cyclic reduction on the CPU, the "CPU twin" of pcr_gpu: the same operations in
//             the same order (no FMA contraction on either side), so pcr_cpu and pcr_gpu agree bitwise
//             for the same block_rows;
//  - pcr_gpu: partitioned cyclic reduction on the GPU (CUDA). Each block of `block_rows` rows is reduced
//             by one thread block in shared memory; the coefficient reduction (cyclic-reduction multipliers,
//             spikes, reduced system) is computed once by factor() and reused by every solve.
// Errors: Error(bad_n) for n < 1, Error(bad_input) for a bad block_rows, Error(bad_ldx) for bad nrhs/ldb,
// Error(singular) for a tiny pivot, Error(no_cuda) for pcr_gpu without CUDA or device, Error(allocation)
// (host or device memory) / Error(cuda) from the device.
#pragma once
#include <memory>
#include <vector>

#include "ssids/csc.hpp"
#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {
struct TridiagFactors;
}

namespace tridiag {

enum class Backend { thomas = 0, pcr_cpu = 1, pcr_gpu = 2 };

struct Options {
  /// Rows per block of the partitioned cyclic reduction: a power of two in [4, 512]. pcr_cpu and
  /// pcr_gpu agree bitwise only for equal block_rows.
  int block_rows = 512;
  /// Relative threshold of the tiny-pivot test (see the top of this header).
  double pivot_tolerance = 1e-14;
};

/// A factorized (Thomas) or reduced (PCR) tridiagonal matrix; cheap to copy (shared, immutable).
class Solver {
 public:
  Solver() = default;
  /// Factor / reduce T from host arrays dl, d, du (each of size n). Synchronous.
  static Solver factor(index_t n, const double* dl, const double* d, const double* du, Backend backend,
                       const Options& options = {});
  /// pcr_gpu with the coefficients in device memory (each of size n), work queued on `stream` (a
  /// cudaStream_t as void*, nullptr = default stream); returns after the pivot check (synchronizes it).
  static Solver factor_device(index_t n, const double* dl, const double* d, const double* du, void* stream,
                              const Options& options = {});

  /// Solve T X = B in place: b is n x nrhs, column-major, leading dimension ldb >= n, in host memory
  /// (for pcr_gpu copied to the device and back; returns when done). Each column is solved independently.
  void solve(int nrhs, double* b, offset_t ldb) const;
  /// pcr_gpu only: b in device memory, queued on `stream` (nullptr = default stream); returns once queued.
  void solve_device(int nrhs, double* b, offset_t ldb, void* stream) const;

  index_t size() const;
  Backend backend() const;
  const Options& options() const;
  bool empty() const { return !f_; }
  const detail::TridiagFactors& factors() const { return *f_; }

 private:
  std::shared_ptr<const detail::TridiagFactors> f_;
};

/// ONE right-hand side of a matrix used once, on the GPU, nothing kept (as fast as cuSPARSE's gtsv2_nopivot,
/// bench/NOTES.md): the rows are cut into chunks of 8,
/// one thread per chunk eliminates its interior (Thomas, three right-hand sides in registers: the solution and
/// the two spikes) and writes the chunk's two reduced rows; the reduced system (a quarter of the order) is
/// treated the same way until it has one or two rows; then each level is swept back up, recomputing each
/// chunk instead of storing it. No barriers, O(n / 4) scratch. dl, d, du, b are device arrays of size n; b is
/// overwritten with x. Work is queued on `stream` (a cudaStream_t as void*, nullptr = default stream); the call
/// synchronizes once (the pivot check, made after the fact on each level's smallest pivot) before x is written, so that on
/// Error(singular) b is unchanged. Uses options.pivot_tolerance (not block_rows). Bitwise equal to its CPU twin
/// (detail::chunk_solve_cpu), not to factor + solve (a different elimination order).
void solve_once_device(index_t n, const double* dl, const double* d, const double* du, double* b, void* stream,
                       const Options& options = {});

/// Scaled backward error max_k ||T x_k - b_k||_inf / (||T||_inf ||x_k||_inf + ||b_k||_inf).
double backward_error(index_t n, const double* dl, const double* d, const double* du, int nrhs, const double* x,
                      offset_t ldx, const double* b, offset_t ldb);

// ---- quasi-tridiagonal systems: A = T + S ----

/// The tridiagonal part of a square CSR matrix A and the rest S (CSR, same order, explicit zeros dropped).
struct Splitting {
  index_t n = 0;
  Vector<double> dl, d, du;      ///< size n each; dl[0] = du[n-1] = 0
  CsrMatrix s;                    ///< A - T
};
/// Split A (square, 0-based CSR, duplicates summed) into T + S. Throws Error(bad_n) when A is not square.
Splitting split(const CsrMatrix& a);

enum class SplittingStatus {
  converged = 0,       ///< beta_m <= tolerance * ||x^m||_inf
  not_converging = 1,  ///< beta not finite, or beta_m >= beta_{m-1} for stall_iterations iterations in a row
  iteration_limit = 2  ///< max_iterations reached first
};
const char* status_name(SplittingStatus s) noexcept;

struct SplittingOptions {
  double tolerance = 1e-10;  ///< relative step tolerance (the paper stops at beta = 0 and reports 1e-7)
  int max_iterations = 1000;
  int stall_iterations = 5;  ///< consecutive non-decreasing steps that mean divergence (rho(T^-1 S) >= 1)
};

struct SplittingResult {
  SplittingStatus status = SplittingStatus::iteration_limit;
  int iterations = 0;        ///< m: number of tridiagonal solves made
  double step_norm = 0;      ///< beta_m = ||x^m - x^{m-1}||_inf
  double solution_norm = 0;  ///< ||x^m||_inf
};

/// The splitting iteration of the paper (Algorithm 2 with an exact tridiagonal solve):
/// x^0 = 0, T x^m = b - S x^{m-1}, beta_m = ||x^m - x^{m-1}||_inf, stop when beta_m <= tolerance ||x^m||_inf.
/// `t` holds T's factors (its backend decides where the iteration runs: thomas / pcr_cpu on the CPU, pcr_gpu
/// on the GPU with S, b and the iterates resident there and only beta and ||x|| read back each iteration).
/// b and x are host arrays of size n; x receives the last iterate whatever the status.
SplittingResult splitting_solve(const Solver& t, const CsrMatrix& s, const double* b, double* x,
                                const SplittingOptions& options = {});

}  // namespace tridiag
}  // namespace ssids
