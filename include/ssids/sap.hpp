// ssids/sap.hpp — SaP ("split and parallelize") solver for NONSYMMETRIC sparse or dense banded systems
// A x = b: a banded, partitioned LU preconditioner (SaP-D decoupled / SaP-C coupled, truncated SPIKE)
// inside a right-preconditioned Krylov method. Li, Serban, Negrut 2015, "Analysis of a splitting approach
// for the parallel solution of linear systems on GPU cards" (§2 method, §3 implementation details).
//
// Pipeline of setup() for a sparse matrix (§2.2):
//   1. diagonal boosting (DB): row permutation Q maximizing prod |a_{q(j) j}| (maximum-product matching),
//      optionally with the matching's row/column scalings R, C (unit diagonal, |off-diagonals| <= 1);
//   2. Cuthill–McKee (CM) on the symmetrized pattern of Q R A C, several start nodes, smallest half-bandwidth
//      kept (never worse than the natural order); drop-off: the smallest half-bandwidth K whose band keeps
//      at least (1 - drop) of the squared Frobenius norm, capped by max_bandwidth;
//   3. P partitions of sizes as equal as possible (§3.1), each >= 2K (else P is reduced); optional
//      third-stage CM inside each partition block (SaP-D only), giving per-partition bandwidths K_i;
//   4. LU without pivoting of each diagonal block with pivot boosting; for SaP-C also the truncated spike
//      tips V_i^(b), W_{i+1}^(t) (via UL of the next block, or a full LU solve) and the reduced K x K
//      systems R̄_i = I - W_{i+1}^(t) V_i^(b) of §2.1, Eq. (9).
// Entries outside the band are dropped from the preconditioner only; the Krylov method uses the full A.
//
// Conventions: 0-based indices; the sparse input is a square ssids::CsrMatrix (sorted columns, no
// duplicates); the dense banded input is column-major band storage with leading dimension 2K+1:
//   a(i, j) = band[(K + i - j) + j * (2K + 1)] for |i - j| <= K
// (column j holds a(j-K..j+K, j) top to bottom; the diagonal is row K; positions outside the matrix must
// be zero). setup() copies what it needs: the caller's arrays need not outlive the call.
// Errors are thrown as ssids::Error; non-convergence is a status value in SapInform, not an exception.
// Memory: before anything of the preconditioner is allocated, setup() predicts its bytes (bands, coupling
// blocks, spikes, reduced systems, the UL work copies) and refuses with Error(allocation) naming the bytes
// and a half-bandwidth that would fit when the prediction exceeds SapOptions::max_memory.
#pragma once
#include <cstdint>
#include <memory>

#include "ssids/csc.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace sap {

/// Preconditioner variant (§2.1.1).
enum class Variant {
  decoupled = 0,  ///< SaP-D: block-diagonal solve, x ≈ g = D^{-1} b
  coupled = 1,    ///< SaP-C: truncated SPIKE, the reduced systems of Eq. (9) couple neighbouring blocks
};

/// Outer Krylov method; all are right-preconditioned except CG (split-free PCG, needs SPD A and M).
enum class Krylov {
  bicgstab2 = 0,  ///< BiCGStab(2) (Sleijpen–Fokkema), the paper's default
  bicgstab = 1,   ///< BiCGStab (van der Vorst)
  gmres = 2,      ///< restarted GMRES(m)
  cg = 3,         ///< preconditioned conjugate gradient (SPD only)
};

/// Outcome of solve(); a value, not an exception.
enum class Status {
  converged = 0,        ///< ||b - A x||_2 <= max(rtol ||b||_2, atol) (recomputed, not recursive)
  iteration_limit = 1,  ///< max_iterations reached; x is the best iterate seen
  breakdown = 2,        ///< a Krylov scalar vanished (rho, gamma, <r~, v>, omega ...); x is the best iterate
  nan = 3,              ///< a NaN/Inf appeared in the iteration; x is the best finite iterate
};

const char* status_name(Status s) noexcept;
const char* variant_name(Variant v) noexcept;
const char* krylov_name(Krylov k) noexcept;

struct SapOptions {
  Backend backend = Backend::cpu;     ///< cpu; gpu (Error(no_cuda) without CUDA, Error(cuda) without a device);
                                      ///< automatic = gpu when a device is present, cpu otherwise
  bool mixed_precision = false;       ///< GPU only: the preconditioner (factors, spikes, sweeps) in single precision
                                      ///< inside the double-precision Krylov iteration (Error(bad_input) on the CPU)
  int partitions = 16;                ///< P requested (>= 1); reduced so that every block has >= 2K rows
  Variant variant = Variant::decoupled;  ///< the paper found SaP-D the faster choice on most systems (§4.3.1)
  double drop = 0.0;                  ///< fraction of the squared Frobenius norm that drop-off may discard, [0, 1)
  index_t max_bandwidth = -1;         ///< cap on K after drop-off; < 0 = no cap
  bool db = true;                     ///< diagonal boosting row permutation (sparse input only)
  bool db_scaling = true;             ///< also apply the matching scalings R, C (needs db)
  bool third_stage = false;           ///< per-partition CM (SaP-D only; ignored for SaP-C, see inform)
  bool use_ul = true;                 ///< SaP-C: spike tops W^(t) from a UL factorization (§2.1) instead of a full LU solve
  int cm_starts = 6;                  ///< CM start nodes tried per connected component (pseudo-peripheral search)
  double boost_epsilon = 1e-8;        ///< pivots with |p| < eps * max|A_i| become sign(p) eps max|A_i| (§2.2)
  Krylov krylov = Krylov::bicgstab2;
  double rtol = 1e-6;                 ///< relative tolerance on ||b - A x||_2 / ||b||_2
  double atol = 0.0;                  ///< absolute tolerance on ||b - A x||_2
  int max_iterations = 100;           ///< in the units of SapInform::iterations (one full BiCGStab(2) iteration = 1)
  int restart = 50;                   ///< GMRES restart length m
  bool use_initial_guess = false;     ///< solve(): x on entry is the initial guess (else x0 = 0)
  std::int64_t max_memory = 0;        ///< bytes the preconditioner may take (checked against the prediction before
                                      ///< allocating); 0 = half of the machine's physical memory; < 0 = no limit
};

/// The automatic limit of SapOptions::max_memory = 0: half of the physical memory (bytes).
std::int64_t default_memory_limit() noexcept;

struct SapInform {
  // sizes
  index_t n = 0;
  std::int64_t nnz = 0;               ///< entries of A
  int partitions = 0;                 ///< P actually used
  // half-bandwidths after each stage (-1 where a stage did not run)
  index_t k_input = 0;                ///< of A as given
  index_t k_db = -1;                  ///< of Q A after diagonal boosting
  index_t k_cm = -1;                  ///< after Cuthill–McKee (symmetric permutation)
  index_t bandwidth = 0;              ///< K of the preconditioner after drop-off / cap (coupling width of SaP-C)
  index_t k_max_partition = 0;        ///< max_i K_i after the third stage (= bandwidth without it)
  double dropped_fraction = 0.0;      ///< squared-Frobenius fraction of (scaled, permuted) A not in the preconditioner
  double db_log_product = 0.0;        ///< sum_j log|a_{q(j) j}| of the DB permutation (unscaled A)
  bool third_stage_applied = false;
  int boosted_pivots = 0;             ///< pivots replaced by pivot boosting in the block LUs
  int boosted_pivots_ul = 0;          ///< ... in the UL factorizations (SaP-C with use_ul)
  std::int64_t preconditioner_bytes = 0;  ///< predicted bytes of the preconditioner (checked against memory_limit)
  std::int64_t memory_limit = 0;      ///< the limit in bytes it was checked against (-1: none)
  index_t largest_partition = 0;      ///< rows of the largest partition
  bool dense_preconditioner = false;  ///< the band of the largest partition holds at least half of its dense
                                      ///< n_i x n_i block (2 K_i + 1 >= n_i / 2): its LU is dense work
  // solve
  Status status = Status::converged;
  double iterations = 0.0;            ///< Krylov iterations; BiCGStab(2) counts quarters (preconditioner applications / 4,
                                      ///< exits after 1, 3, 4 applications: .25, .75, 1), BiCGStab halves, GMRES/CG whole
  std::int64_t preconditioner_applications = 0;  ///< inside the Krylov iterations (+1 per restart/exit to form x)
  double residual_norm = 0.0;         ///< ||b - A x||_2, recomputed from the returned x
  double relative_residual = 0.0;     ///< residual_norm / ||b||_2 (residual_norm when b = 0)
  // times (seconds)
  double time_setup = 0.0, time_solve = 0.0;
  double time_db = 0.0, time_cm = 0.0, time_drop = 0.0, time_third_stage = 0.0, time_assemble = 0.0;
  double time_lu = 0.0;               ///< block LU factorizations (T_LU)
  double time_spikes = 0.0;           ///< SaP-C: UL, spike tips, reduced systems (T_BC + T_SPK + T_LUrdcd)
  // GPU backend
  Backend backend = Backend::cpu;     ///< where setup() ran (automatic resolved)
  double time_upload = 0.0;           ///< host -> device transfer of A (or of the band) inside time_setup
  std::int64_t device_bytes = 0;      ///< device memory held by the solver after setup
};

class Solver {
 public:
  Solver();
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Reorder and factor a sparse square matrix (copied). Throws Error(bad_input) on malformed input,
  /// Error(nan_inf) on non-finite values, Error(singular) when A is structurally singular (no perfect
  /// matching: every matrix with this pattern is singular), Error(no_cuda) for Backend::gpu.
  void setup(const CsrMatrix& a, const SapOptions& options, SapInform& inform);
  /// Dense banded entry point: N x N with half-bandwidth K in the band storage described above (copied).
  /// No reordering, no drop-off (drop/max_bandwidth/db/third_stage are ignored).
  void setup_banded(index_t n, index_t k, const double* band, const SapOptions& options, SapInform& inform);
  /// New values on the same pattern as the last setup(): keeps the DB/CM/third-stage permutations, the
  /// DB scalings and K, reassembles and refactors. Error(bad_input) when the pattern differs, Error(call_sequence)
  /// before setup().
  void update(const CsrMatrix& a, SapInform& inform);
  /// Same for the banded entry point.
  void update_banded(const double* band, SapInform& inform);

  /// GPU backend only: the dense band (same storage as setup_banded) already lives in device memory; it is
  /// copied device-to-device, nothing crosses the bus. Error(bad_input) for a CPU backend.
  void setup_banded_device(index_t n, index_t k, const double* device_band, const SapOptions& options,
                           SapInform& inform);

  /// Solve A x = b (b, x of size n). x on entry is the initial guess when options.use_initial_guess. Fills the
  /// solve part of inform. Many right-hand sides may reuse one setup. Thread-compatible (const).
  Status solve(const double* b, double* x, SapInform& inform) const;
  /// GPU backend only: b and x are device pointers (n doubles each); the whole Krylov iteration runs on the
  /// GPU and only scalars come back to the host. Synchronous (returns when x is final).
  Status solve_device(const double* device_b, double* device_x, SapInform& inform) const;
  /// z = M^{-1} r in the coordinates of A (permutations and scalings included).
  void apply_preconditioner(const double* r, double* z) const;
  /// y = A x with the matrix of the last setup/update.
  void multiply(const double* x, double* y) const;

  index_t n() const;
  bool ready() const;
  /// Backend of the last setup (cpu before any).
  Backend backend() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-shot convenience: setup + solve.
Status solve(const CsrMatrix& a, const double* b, double* x, const SapOptions& options, SapInform& inform);

}  // namespace sap
}  // namespace ssids
