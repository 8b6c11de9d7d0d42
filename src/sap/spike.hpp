// spike.hpp — the partitioned banded preconditioner of SaP (Li, Serban, Negrut 2015 §2.1, §2.1.1, §3.1):
// P diagonal blocks A_i (LU without pivoting, pivot boosting), and for the coupled variant the truncated
// spike tips and reduced systems of Eq. (9), applied as Eq. (10).
//
// Works in the coordinates of the reordered matrix (after DB/CM); callers map vectors in and out.
// Storage: block i covers rows/columns [begin_i, begin_i + n_i), band storage of band.hpp with its own
// half-bandwidth k_i (= K unless the third stage reduced it) and an optional local order
// (order[new local] = old local). Coupling blocks of interface i (between blocks i and i+1) are dense
// m x m column-major (m = K):
//   B_i(r, c) = A(begin_{i+1} - m + r, begin_{i+1} + c)   (last m rows of block i, first m columns of i+1)
//   C_i(r, c) = A(begin_{i+1} + r, begin_{i+1} - m + c)   (first m rows of block i+1, last m columns of i)
#pragma once
#include <cstdint>
#include <vector>

#include "ssids/memory.hpp"
#include "ssids/sap.hpp"

namespace ssids {
namespace sap {
namespace detail {

struct SpikeStats {
  int boosted = 0, boosted_ul = 0;
  double time_lu = 0.0, time_spikes = 0.0;
  double time_assemble = 0.0;  ///< GPU path only (the CPU path times assembly in sap.cpp)
};

class BandedPreconditioner {
 public:
  /// Partition n rows into P blocks of sizes floor(n/P) or floor(n/P)+1 (§3.1), with P reduced until every
  /// block has >= 2K rows (K > 0). Coupled storage only for Variant::coupled and P > 1 and K > 0.
  void plan(index_t n, index_t k, int partitions, Variant variant);
  int partitions() const { return static_cast<int>(begin_.size()) - 1; }
  index_t bandwidth() const { return k_; }
  index_t block_begin(int i) const { return begin_[i]; }
  index_t block_size(int i) const { return begin_[i + 1] - begin_[i]; }
  index_t block_bandwidth(int i) const { return kb_[i]; }
  int block_of(index_t row) const { return part_of_[row]; }
  /// Position of local row/column t of block i after the third stage's local order (t without one).
  index_t local_position(int i, index_t t) const { return position_[i].empty() ? t : position_[i][t]; }
  /// Coupling width m (K for SaP-C with P > 1, else 0).
  index_t coupling_width() const { return m_; }
  /// Third stage: local order (order[new] = old, size n_i) and the half-bandwidth k_i it achieves. Only
  /// before allocate(); not for the coupled variant.
  void set_block_order(int i, Vector<index_t> order, index_t k_i);
  /// Allocate zeroed storage for the values.
  void allocate();
  /// Place a value at (r, c) of the reordered matrix. Returns false (and stores nothing) when the entry is
  /// outside the preconditioner (|r - c| > K, outside the block after the third stage, or a coupling entry
  /// of the decoupled variant). Safe to call concurrently for distinct (r, c).
  bool add(index_t r, index_t c, double v);
  /// Factor the blocks (and for SaP-C the spike tips and reduced systems). boost_epsilon: see SapOptions.
  SpikeStats factor(double boost_epsilon, bool use_ul);
  /// z = M^{-1} r (size n each, may not alias).
  void apply(const double* r, double* z) const;
  /// Bytes held by the factors.
  std::int64_t bytes() const;
  /// Bytes the factorization will hold and use after plan() (and set_block_order), before allocate():
  /// bands, coupling blocks, spike tips, reduced systems and pivots, plus the UL work copies that up to
  /// `threads` blocks hold at once (SaP-C with use_ul).
  std::int64_t predicted_bytes(bool use_ul, int threads) const;

 private:
  index_t n_ = 0, k_ = 0, m_ = 0;  // m_: coupling width (K for SaP-C, 0 otherwise)
  Variant variant_ = Variant::decoupled;
  Vector<index_t> begin_;           // size P + 1
  Vector<index_t> kb_;              // k_i
  Vector<int> part_of_;             // block of each row
  Vector<Vector<double>> band_;                        // per block
  Vector<Vector<index_t>> order_, position_;           // per block, empty = identity
  Vector<Vector<double>> cb_, cc_, v_, w_, rbar_;      // per interface
  Vector<Vector<index_t>> piv_;
};

}  // namespace detail
}  // namespace sap
}  // namespace ssids
