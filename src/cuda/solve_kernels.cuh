// solve_kernels.cuh — task records and launchers of the level-scheduled GPU solve (issue 5).
//
// The factors stay where the GPU factorization left them: node s has an m x ne block of L (column-major,
// ld m) at l + l_off and its m row variables (original indices) at rows + rows_off; the first ne rows are
// the variables it eliminated, in pivot order.
//
// Forward solve, level by level from the leaves: each node owns an m x nrhs slice of its level's work
// buffer. gather: slice = [x(own pivots); 0] + the children's contribution rows (children in a fixed
// order, one block per node, so no atomics). Then, diagonal tile by diagonal tile (solve_tile columns):
// tile solves the tile's unit lower triangle (or multiplies by its precomputed inverse, "presolve") and
// writes the solution to x; update subtracts L(rows below, tile) * y from the rows below the tile — the
// node's later pivots and its contribution rows, which its parent gathers.
// Backward solve, level by level from the roots: gather x(all m rows); ancestor subtracts
// L(rows >= ne, j)^T x(rows) from every pivot row j; then tiles from the last to the first: tile solves
// the transposed triangle, update subtracts the tile's contribution from the pivot rows before it.
// Every sum over a column or row is done in a fixed order (per-thread sequential, then a fixed shuffle
// tree), and each right-hand side column goes through exactly the same operations whatever nrhs is: a
// column of a multi-RHS solve is bitwise equal to the single-RHS solve, and repeated solves are identical.
#pragma once
#include <cuda_runtime.h>

namespace ssids {
namespace detail {
namespace gpu {

constexpr int solve_tile = 64;   ///< columns of a diagonal tile
constexpr int solve_rows = 128;  ///< rows per block of the forward update
constexpr int solve_cols = 8;    ///< columns (one warp each) per block of the backward column kernels
constexpr int solve_rhs = 4;     ///< right-hand sides held in registers at once

struct SolveNode {
  long long l_off;     ///< L block (m x ne, ld m) in the L array
  long long rows_off;  ///< row variables (m) in the rows array
  long long buf_off;   ///< first row of the node's slice of its level buffer (slice = m x nrhs, ld m)
  long long inv_off;   ///< presolve: the node's inverted diagonal tiles (tile t: tb x tb, ld tb), or -1
  int m, ne;
  int child_begin, child_end;  ///< the node's children in the SolveChild array (fixed order)
};

struct SolveChild {
  int node;           ///< index of the child in the SolveNode array
  long long map_off;  ///< the child's contribution rows -> the parent's local rows (m_c - ne_c ints)
};

/// One block's work: node, tile [j0, j1) of its pivots, first row (forward update) or column (backward).
struct SolveTask {
  int node, j0, j1, r0;
};

struct SolveArgs {
  const double* l;
  const int* rows;
  const SolveNode* nodes;
  const SolveChild* children;
  const int* maps;
  const double* inv;     ///< presolve tiles, or nullptr
  double* x;             ///< right-hand sides on the device, n x nrhs, ld ldx
  long long ldx;
  int nrhs;
  int posdef;            ///< non-unit L (Cholesky factor with its diagonal)
  double* buf;           ///< this level's work buffer
  const double* cbuf;    ///< the children's level buffer (forward gather)
};

void launch_fwd_gather(const int* level_nodes, int count, const SolveArgs& a, cudaStream_t s);
void launch_fwd_tile(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s);
void launch_fwd_update(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s);
void launch_bwd_gather(const int* level_nodes, int count, const SolveArgs& a, cudaStream_t s);
void launch_bwd_ancestor(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s);
void launch_bwd_tile(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s);
void launch_bwd_update(const SolveTask* tasks, int count, const SolveArgs& a, cudaStream_t s);

/// x <- D^{-1} x by pivot position (pivot_var: position -> variable; d, dinv: the host layout).
void launch_diag_solve(int n, const int* pivot_var, const double* d, const double* dinv, double* x, long long ldx,
                       int nrhs, cudaStream_t s);
/// x(i, r) *= scale(i).
void launch_scale_rows(int n, const double* scale, double* x, long long ldx, int nrhs, cudaStream_t s);
/// Presolve: invert every diagonal tile listed in tasks (j0, j1 of node; r0 unused) into inv.
void launch_invert_tiles(const SolveTask* tasks, int count, const double* l, const SolveNode* nodes, double* inv,
                         int posdef, cudaStream_t s);
/// Posdef: L(:, j) *= sqrt(D_j) for every pivot column (turns the unit L D L^T into the Cholesky factor).
/// cols: per pivot column {l offset of the diagonal entry, its length, its D index}.
struct ScaleColumn {
  long long diag_off;
  long long d_idx;
  int len;
};
void launch_scale_columns(const ScaleColumn* cols, int count, double* l, const double* d, cudaStream_t s);

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
