// factor_tables.hpp — the host tables of a GPU factorization (node records, pivot order, row lists, D and
// D^{-1} in the layout shared with the CPU path) and its counts (inertia, 2x2 pivots, delays, nnz(L), flops),
// built from the row lists and D copied back from the device, with OpenMP over nodes.
#pragma once
#include "factor/numeric.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

/// What the GPU factorization left for one node.
struct GpuNodeInfo {
  int m = 0, p = 0, ndelay = 0, nelim = 0;  ///< front rows, fully summed columns, delays received, eliminated
  long long l_off = 0, rows_off = 0, d_off = 0;  ///< its L block, row list and D (2 per pivot) on the device
  long long front_off = 0;                       ///< its front in its level's front buffer (while factorizing)
  int front_ld = 0;                              ///< the front's leading dimension (while factorizing)
};

struct GpuFactorCounts {
  offset_t num_factor = 0, num_flops = 0;
  int num_delay = 0, maxfront = 0, num_two = 0, num_neg = 0, num_pos = 0, num_zero = 0;
  index_t eliminated = 0;  ///< pivots over all nodes (n when the factorization is complete)
};

/// Fills out.nodes, out.pivot_var, out.rows and, unless posdef, out.d and out.dinv (2x2 blocks inverted by
/// two_by_two_inverse), from rows (the device row lists, node s at rows_off) and d (D, node s at d_off).
/// Same result as one sequential loop over the nodes. out.pivot_var must hold n entries.
GpuFactorCounts fill_host_tables(index_t n, const Vector<GpuNodeInfo>& info, const int* rows, const double* d,
                                 bool posdef, NumericFactors& out);

}  // namespace detail
}  // namespace ssids
