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

struct NumericFactors {
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

  /// L of every node stored in one array (GPU backend), copied from the device on first use (thread-safe).
  const double* contiguous_l() const;
  const double* lblock(const NodeFactor& nd) const {
    if (!nd.l.empty() || !device) return nd.l.data();  // CPU path (an empty block: a node that eliminated nothing)
    return contiguous_l() + nd.lptr;
  }
};

}  // namespace detail
}  // namespace ssids
