// numeric.hpp — the internal result of factor: L and D node by node, in a layout shared by the CPU
// and GPU paths (the GPU copies its factors into this layout on request).
//
// Conventions (0-based):
//  * Node s of the assembly tree eliminated nelim columns. Its L block is nrow x nelim, column-major with
//    leading dimension nrow (strict upper triangle stored as 0), at lblock(s): in nodes[s].l (the CPU path
//    keeps one array per node) or at nodes[s].lptr in one array (the GPU path: L stays on the device, in
//    `device`, and is copied to the host in one piece the first time lblock() is called).
//    Its rows are the ORIGINAL variable
//    indices rows[row_ptr .. row_ptr + nrow); the first nelim are the variables eliminated at the node,
//    in pivot order. Indefinite mode: L is unit lower triangular (diagonal stored as 1.0; the (k+1,k)
//    entry of a 2x2 pivot stored as 0.0). Posdef mode: L is the Cholesky factor with its diagonal.
//  * D (indefinite mode): d[2*(pivot position)] = D_kk, d[2k+1] = D_{k+1,k} (nonzero only for the first
//    of a 2x2 pair). dinv holds the same layout for D^{-1} (2x2 blocks inverted by two_by_two_inverse;
//    zero pivots have D = 0 and D^{-1} = 0).
//  * Pivot positions run node by node in postorder: node s owns positions pos_ptr[s] .. pos_ptr[s]+nelim.
//  * scale (optional): S by original variable; the factorization is of S A S.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "analyse/symbolic.hpp"
#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct DeviceFactors;  // GPU backend: L, rows and the solve plan on the device (src/cuda/device_factors.cuh)
struct DeviceDiag;     // GPU backend: D and D^{-1} on the device

/// The host copy of GPU-resident L, made once on first use and shared by copies of the factors (alter()
/// changes D only).
struct HostCopyOfL {
  std::once_flag once;
  Vector<double> val;
};

struct NodeFactor {
  index_t nelim = 0;      ///< columns eliminated at this node
  index_t nrow = 0;       ///< rows of the L block (front size including delayed rows)
  index_t ndelay_in = 0;  ///< delayed columns received from children
  index_t pos = 0;        ///< first pivot position owned by this node
  Vector<double> l;       ///< the L block (nrow x nelim, ld nrow), or empty when it lives in contiguous_l()
  offset_t lptr = 0;      ///< offset of the L block in contiguous_l() when l is empty
  offset_t row_ptr = 0;   ///< offset of the row list in rows
};

struct NumericFactors;

/// The host tables (nodes, rows, D, D^{-1}, pivot_var) of destroyed GPU factors, kept with the analysis for its
/// next factorizations: filling freshly allocated memory costs several times the work itself (page faults), and
/// a refactorization needs about the same sizes. Holds at most two sets (a caller that keeps the old factors
/// until the new ones exist circulates two).
struct HostTablePool {
  struct Set {
    Vector<NodeFactor> nodes;
    Vector<index_t> rows, pivot_var;
    Vector<double> d, dinv;
    /// Exchanges these vectors with f's.
    void swap_with(NumericFactors& f) noexcept;
  };
  std::mutex mutex;
  std::vector<Set> sets;
  /// Moves a kept set's vectors into f's (empty) ones, if there is one.
  void take(NumericFactors& f);
  /// Keeps f's vectors (moved out) if fewer than two sets are kept.
  void give(NumericFactors& f) noexcept;
};

struct NumericFactors {
  NumericFactors() = default;
  NumericFactors(const NumericFactors&) = default;
  NumericFactors& operator=(const NumericFactors&) = default;
  ~NumericFactors() {
    if (table_pool) table_pool->give(*this);
  }
  std::shared_ptr<const Symbolic> symbolic;  ///< keeps the analysis alive
  Mode mode = Mode::indefinite;
  Backend backend = Backend::cpu;
  index_t n = 0;
  Vector<NodeFactor> nodes;   ///< nsup
  Vector<index_t> rows;
  Vector<double> d;           ///< 2n (indefinite)
  Vector<double> dinv;        ///< 2n (indefinite)
  Vector<index_t> pivot_var;  ///< pivot position -> original variable
  Vector<double> scale;       ///< empty or n
  std::shared_ptr<const DeviceFactors> device;  ///< GPU backend: the factors on the device
  std::shared_ptr<const DeviceDiag> device_diag;
  std::shared_ptr<HostCopyOfL> host_l;          ///< GPU backend: L on the host, filled on first use
  std::shared_ptr<HostTablePool> table_pool;    ///< GPU backend: where the host tables go when destroyed

  /// L of every node stored in one array (GPU backend), copied from the device on first use (thread-safe).
  const double* contiguous_l() const;
  const double* lblock(const NodeFactor& nd) const {
    if (!nd.l.empty() || !device) return nd.l.data();  // CPU path (an empty block: a node that eliminated nothing)
    return contiguous_l() + nd.lptr;
  }
};

inline void HostTablePool::Set::swap_with(NumericFactors& f) noexcept {
  nodes.swap(f.nodes);
  rows.swap(f.rows);
  pivot_var.swap(f.pivot_var);
  d.swap(f.d);
  dinv.swap(f.dinv);
}

inline void HostTablePool::take(NumericFactors& f) {
  std::lock_guard<std::mutex> lock(mutex);
  if (sets.empty()) return;
  sets.back().swap_with(f);
  sets.pop_back();
}

inline void HostTablePool::give(NumericFactors& f) noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex);
    if (sets.size() >= 2) return;
    sets.emplace_back();
    sets.back().swap_with(f);
  } catch (...) {  // (a failed lock or allocation: the vectors are freed as usual)
  }
}

}  // namespace detail
}  // namespace ssids
