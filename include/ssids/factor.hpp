// ssids/factor.hpp — numerical factorization, solve, enquire and alter.
//
// Factors refer to the Analysis they were made from (they keep it alive). solve() is const.
// Right-hand sides are column-major with leading dimension ldx >= n and are overwritten by the solution.
#pragma once
#include <memory>

#include "ssids/analyse.hpp"

namespace ssids {

namespace detail {
struct NumericFactors;
}

class Factors {
 public:
  Factors() = default;
  explicit Factors(std::shared_ptr<const detail::NumericFactors> f) : f_(std::move(f)) {}
  bool empty() const noexcept { return !f_; }
  index_t n() const;
  Mode mode() const;
  Backend backend() const;  ///< the backend that computed the factors

  /// True when the factors live on the GPU (GPU backend): solve() then runs on the GPU.
  bool on_device() const;

  /// Solve in place for nrhs right-hand sides x (n x nrhs, leading dimension ldx, host memory).
  /// Each column gets bitwise the answer a single-column solve would give. `where`: automatic solves
  /// where the factors are (GPU factors on the GPU); cpu forces the CPU sweeps (copying L to the host
  /// once); gpu requires GPU factors.
  /// Throws Error: bad_ldx (ldx < n or nrhs < 1), bad_job, call_sequence (empty factors), missing_data,
  /// no_cuda (where == gpu without GPU factors), cuda/allocation (GPU failures).
  void solve(SolveJob job, int nrhs, double* x, offset_t ldx, Inform& inform,
             Backend where = Backend::automatic) const;

  /// GPU factors only: solve in place for right-hand sides already in GPU memory (device pointer dx,
  /// n x nrhs, leading dimension ldx), queued on `stream` (a cudaStream_t passed as void*; nullptr = the
  /// default stream). Returns once the work is queued; synchronize the stream before reading dx.
  /// Throws Error: as solve(), and no_cuda when the factors are not on the GPU.
  void solve_device(SolveJob job, int nrhs, double* dx, offset_t ldx, void* stream, Inform& inform) const;

  /// Pivot order and D (indefinite mode). piv_order[i] (size n): |piv_order[i]| - 1 is the 0-based position
  /// at which variable i was eliminated; negative for both variables of a 2x2 pivot (SPRAL's convention
  /// with 1-based positions). d (size 2n, optional): d[2k] = D_kk, d[2k+1] = D_{k+1,k}, by pivot position.
  void enquire_indef(index_t* piv_order, double* d) const;
  /// Diagonal of L (posdef mode), by pivot position.
  void enquire_posdef(double* diag) const;
  /// Overwrite D (same layout as enquire_indef) keeping the pivot order (indefinite mode).
  void alter(const double* d);

  const detail::NumericFactors& numeric() const { return *f_; }

 private:
  std::shared_ptr<detail::NumericFactors> mutable_ptr();
  std::shared_ptr<const detail::NumericFactors> f_;
};

/// Factorize the matrix with the pattern analysed in `analysis` and values `val` (same positions as the
/// arrays given to analyse). With options.backend == Backend::gpu, `val` may also point to device memory (as
/// cuDSS takes its values; the factorization then copies them on the device, after waiting for all work queued
/// on that device, so values written by any stream are complete); with the other backends it must be host
/// memory. `scale` (size n, optional, Scaling::user only): the factorization is of S A S.
/// Throws Error: call_sequence (empty analysis), missing_values, nan_inf, singular (action == false),
/// not_posdef, allocation, no_cuda. Warnings (singular) in inform.flag.
Factors factor(const Analysis& analysis, const double* val, Mode mode, const Options& options, Inform& inform,
               const double* scale = nullptr);

}  // namespace ssids
