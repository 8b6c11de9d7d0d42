// sap_gpu.hpp — the GPU side of the SaP solver (Li, Serban, Negrut 2015 §3: assembly of the banded
// partitions, LU/UL of all partitions at once, spike tips, reduced systems, preconditioner sweeps, SpMV and
// the Krylov vector operations, all on the device; the host sees only scalars).
//
// The host plans (reorderings, drop-off, partitions: sap.cpp and spike.cpp) and hands over a GpuLayout:
// where every value of the preconditioner lives in ONE flat device array,
//   [band of partition 0 | band of partition 1 | ... | B_0 C_0 | B_1 C_1 | ...]
// partition i in the band storage of band.hpp (half-bandwidth kb[i], its own n_i columns), interface i's
// coupling blocks B_i, C_i dense m x m column-major (spike.hpp). The third-stage local orders are folded into
// the row/column permutations, so the device works in fully permuted coordinates.
//
// The implementation is src/cuda/sap_gpu.cu (+ src/cuda/sap_kernels.cu); a build without CUDA links
// src/nocuda/sap_gpu_stub.cpp, whose factory throws Error(no_cuda).
#pragma once
#include <cstdint>
#include <memory>

#include "sap/krylov.hpp"
#include "sap/spike.hpp"
#include "ssids/csc.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace sap {
namespace detail {

struct GpuLayout {
  index_t n = 0, k = 0, m = 0;  ///< order, half-bandwidth K, coupling width (K for SaP-C with P > 1, else 0)
  int p = 0;                     ///< partitions
  Vector<index_t> begin;         ///< p + 1 row offsets
  Vector<index_t> kb;            ///< p half-bandwidths
  Vector<std::int64_t> offset;   ///< p + 1: band of partition i at offset[i]; couplings start at offset[p]
  std::int64_t coupling(int i) const { return offset[p] + 2 * static_cast<std::int64_t>(i) * m * m; }  ///< B_i; C_i follows
  std::int64_t total() const { return offset.empty() ? 0 : coupling(p > 1 ? p - 1 : 0); }
  std::int64_t band_total() const { return offset.empty() ? 0 : offset[p]; }
};

/// The layout of a planned preconditioner (after plan() and any set_block_order()).
GpuLayout gpu_layout(const BandedPreconditioner& prec);
/// Slot of entry (r, c) of the reordered matrix (before the third stage's local orders, as in
/// BandedPreconditioner::add) in the flat value array, or -1 when the preconditioner drops it.
std::int64_t gpu_slot(const BandedPreconditioner& prec, const GpuLayout& layout, index_t r, index_t c);

/// The device state of one SaP solver: matrix, preconditioner, Krylov workspace, stream.
class GpuSap {
 public:
  virtual ~GpuSap() = default;
  /// Sparse A (CSR in the caller's coordinates): uploads the pattern, the slot of every entry, the final
  /// permutations (prow[i] = preconditioner row of row i, pcol[j] = preconditioner column of column j, empty =
  /// identity) and the scalings (empty = 1). Then values as in update_values().
  virtual void setup_sparse(const CsrMatrix& a, const Vector<std::int64_t>& slot, const Vector<index_t>& prow,
                            const Vector<index_t>& pcol, const Vector<double>& rs, const Vector<double>& cs,
                            const GpuLayout& layout) = 0;
  /// New values on the uploaded pattern (host array of nnz values).
  virtual void update_values(const double* val) = 0;
  /// Dense banded A (n x n, half-bandwidth k, band storage of sap.hpp) from host or device memory.
  virtual void setup_banded(index_t n, index_t k, const double* band, bool band_on_device, const GpuLayout& layout) = 0;
  /// Assemble the preconditioner from the resident matrix and factor it (LU of every partition, for SaP-C the
  /// UL, spike tips and reduced systems). Fills boosted counts and times.
  virtual SpikeStats factor(double boost_epsilon) = 0;
  /// Krylov solve on the device; b, x device pointers (x: initial guess on entry when use_initial_guess).
  virtual KrylovResult solve_device(const double* b, double* x, const KrylovSettings& s, bool use_initial_guess) = 0;
  /// Host-array conveniences (copies in and out).
  virtual KrylovResult solve_host(const double* b, double* x, const KrylovSettings& s, bool use_initial_guess) = 0;
  virtual void apply_preconditioner(const double* r, double* z) = 0;
  virtual void multiply(const double* x, double* y) = 0;
  virtual std::int64_t device_bytes() const = 0;
  virtual double time_upload() const = 0;  ///< seconds spent moving A to the device in the last setup/update
};

/// single_precision: the preconditioner's storage and sweeps in float (mixed precision).
/// Throws Error(no_cuda) without CUDA or without a usable device.
std::unique_ptr<GpuSap> make_gpu_sap(bool single_precision);
/// True when the GPU backend can run here.
bool sap_gpu_available();

/// Dense banded test matrix of the GPU benchmarks, identical on host and device: a(i, j) for i != j is a
/// hash-based uniform value in [-1, 1) of (seed, i, j); a(i, i) = d * sum_{j != i} |a(i, j)| summed in
/// ascending j. Band storage of sap.hpp (slots outside the matrix zero).
void generate_banded_band(index_t n, index_t k, double d, std::uint64_t seed, double* band);
/// The same on the device (band: device array of n (2k+1) doubles). Synchronous.
void generate_banded_band_device(index_t n, index_t k, double d, std::uint64_t seed, double* device_band);

}  // namespace detail
}  // namespace sap
}  // namespace ssids
