// solve_gather.hpp — the part of the GPU solve plan that maps the children's rows into their parents' rows
// (built on the host after each factorization: it depends on the pivoting outcome), with OpenMP over nodes.
#pragma once
#include <vector>

#include "analyse/symbolic.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

/// Per node s: m rows (variables host_rows[rows_off[s] ..]), the first ne eliminated, the rest passed up to
/// the parent; work-buffer rows buf_off[s] .. buf_off[s] + m.
struct SolveGatherInput {
  const int* m;
  const int* ne;
  const long long* rows_off;
  const long long* buf_off;
  const int* host_rows;
  long long total_rows;
};

/// Work-buffer rows (sum of the fronts' rows) from which the map is built by a team of threads.
constexpr long long gather_parallel_rows = 50000;

struct SolveGather {
  Vector<int> children;                 ///< children that pass rows up, node by node in child_list order
  Vector<int> child_begin, child_end;   ///< per node: its range in children
  Vector<int> gptr;                     ///< per work-buffer row (total_rows + 1): its range in gsrc
  Vector<int> gsrc;                     ///< the children's work-buffer rows added into it, in child order
};

/// Memory kept between factorizations of one analysis (Symbolic::GpuCacheSlot::host_workspace): the result's
/// vectors and the per-thread variable -> position maps keep their pages.
struct SolveGatherWorkspace {
  SolveGather g;
  std::vector<std::vector<int>> pos;  ///< per OpenMP thread, n entries, all -1 between uses
};

/// Same result as the sequential loop over nodes and children (the order within a row is the child order);
/// throws Error(unknown) if a child's row is missing from its parent.
SolveGather build_solve_gather(const Symbolic& sym, const SolveGatherInput& in);
/// The same, into ws.g (reusing the capacity of its vectors and ws.pos).
void build_solve_gather_into(const Symbolic& sym, const SolveGatherInput& in, SolveGatherWorkspace& ws);

}  // namespace detail
}  // namespace ssids
