// solve_kernels.cuh — task records and launchers of the GPU solve.
//
// The factors stay where the GPU factorization left them: node s has an m x ne block of L (column-major,
// ld m) at l + l_off and its m row variables (original indices) at rows + rows_off; the first ne rows are
// the variables it eliminated, in pivot order.
//
// Each sweep is ONE kernel launch over all nodes of the tree ("sync-free" scheduling): a block takes the
// next task by an integer ticket (atomicAdd), so tasks start in ticket order whatever order the hardware
// launches blocks in; tasks are numbered so that every task waits only for tasks with smaller tickets,
// which are already running on the GPU — no deadlock, however many blocks there are. Waiting is on integer
// flags (a tile solved, a node finished); the floating-point arithmetic of every entry is done by one thread
// in a fixed order, so results do not depend on timing, and each right-hand side column goes through the
// same operations whatever nrhs is (multi-RHS columns bitwise equal to single-RHS solves).
//
// Forward (P L y = b), tasks = row blocks of 64 rows of every node, leaves first: gather the block's rows
// (own pivots from x, plus the children's contribution rows, children in a fixed order), subtract the
// contributions of the node's earlier 64-column tiles as each is solved, then — for a row block holding
// pivots — solve its diagonal tile (or multiply by its inverse: presolve), publish it, and finally hand the
// contribution rows to the parent. The row blocks after a node's pivots go in row groups of up to
// solve_row_group row blocks per task (fewer where the node has many tiles). Backward ((P L)^T x = y), tasks = tiles of every node, roots first,
// last tile first: subtract L(rows below the pivots, tile)^T x(ancestors), then the later tiles as they
// are solved, then solve the transposed tile. Where a node has more than solve_chunk_blocks row blocks below
// its pivots, that product is split: "partial" tasks (ticketed before the node's tiles) each multiply
// solve_chunk_blocks row blocks into a slot of the partial buffer, and the tile task adds the slots in
// order — so the long serial walk down a big node's rows is spread over many blocks.
//
// Presolve: the node's diagonal block of L is cut into super-blocks of solve_inv_tiles tiles, each of
// which is inverted during the factorization (Z = L_SS^{-1}, stored as its lower tiles). A pivot row block
// then no longer waits for every earlier tile of its node: forward, it subtracts the tiles of the earlier
// super-blocks, publishes its reduced rows v (flag fwd_v), and forms y_b = sum_{c in S, c <= b} Z(b, c) v_c
// from the published v of its super-block; backward likewise with Z^T. A node's chain of dependent
// tiles becomes a chain of super-blocks, solve_inv_tiles times shorter.
//
// Every task streams its blocks of L (or of the inverse), in the order it uses them, through a ring of
// shared-memory stages filled by asynchronous copies (BlockStream in solve_device.cuh), issued from the
// task's start, before it waits for its dependencies.
//
// Compact nodes (at most solve_compact_blocks row blocks: most nodes of a nested-dissection tree) are one
// task per sweep instead of one per row block or tile: the block gathers all the node's rows into shared
// memory at once and streams the node's L (or its inverse) through, with no flags between its tiles. Each
// row (forward) or column (backward) goes through exactly the operations, in the same order, as in the
// per-block tasks, so the results are bitwise the same either way.
#pragma once
#include <cuda_runtime.h>

namespace ssids {
namespace detail {
namespace gpu {

constexpr int solve_tile = 64;    ///< rows of a row block = columns of a diagonal tile
constexpr int solve_panel = 8;    ///< right-hand sides per sweep launch (more are done panel by panel)
constexpr int solve_threads = 256;
/// Row blocks below the pivots per partial task of the backward sweep.
constexpr int solve_chunk_blocks = 8;
#ifndef SSIDS_SOLVE_INV_TILES
#define SSIDS_SOLVE_INV_TILES 8
#endif
/// Presolve: tiles per inverted diagonal super-block of a node.
constexpr int solve_inv_tiles = SSIDS_SOLVE_INV_TILES;
/// Row blocks of the largest compact node (one task per sweep; see above). A compact node's rows below its
/// pivots fit in one partial group, and with presolve its pivots in one super-block (the plan checks ntile).
constexpr int solve_compact_blocks = 8;
static_assert(solve_compact_blocks <= solve_chunk_blocks, "a compact node must not need partial tasks");
/// Forward: row blocks after a node's pivots per task (a row group: its rows in slabs, the rest of the slabs
/// hold batches of solved tiles), at most; a node of ntile tiles takes solve_row_group_items / ntile of them
/// (at least one), so that a group's blocks of L stay few where the node's tiles are many (the top of the
/// tree, where a long group task would hold up the parent). The budget was chosen by measurement on
/// gen:laplace3d:80 (bench/NOTES.md, "GPU solve"): fixed groups and one row block per task were slower.
#ifndef SSIDS_SOLVE_ROW_GROUP_ITEMS
#define SSIDS_SOLVE_ROW_GROUP_ITEMS 64
#endif
constexpr int solve_row_group = 4;
constexpr int solve_row_group_items = SSIDS_SOLVE_ROW_GROUP_ITEMS;
/// Shared memory of the sweep kernels: the stages of the block stream (64 x 65 each) and solve_compact_blocks
/// + 1 slabs of 64 rows x the launch's right-hand sides (a compact node's rows, split at its pivots in the
/// backward sweep; the forward's spare slab holds a copy of the last pivot block's solved rows).
constexpr int solve_slabs = solve_compact_blocks + 1;
static_assert(solve_chunk_blocks <= solve_slabs - 1, "a backward task's rows below the pivots fit in the slabs");
static_assert(solve_inv_tiles <= solve_slabs - 1, "a super-block's published rows fit in the slabs");
static_assert(solve_row_group < solve_slabs, "a row group leaves a slab for solved tiles");
#ifndef SSIDS_SOLVE_MAX_STAGES
#define SSIDS_SOLVE_MAX_STAGES 2
#endif
#ifndef SSIDS_SOLVE_SMEM_BUDGET
#define SSIDS_SOLVE_SMEM_BUDGET (113 * 1024)
#endif
/// Stages of the block stream: as many as fit in solve_smem_budget bytes per block (two resident blocks per
/// multiprocessor of 228 KB) with the slabs of nrhs right-hand sides, between 2 and solve_max_stages (the
/// stream's waits handle up to 4). Default 2 (one block in flight while one is used): 3 stages were slower on
/// gen:laplace3d:80 and gen:stokes3d:51 (bench/NOTES.md, "GPU solve"), since 104 KB of shared memory per
/// block leaves the multiprocessor less L1.
constexpr int solve_max_stages = SSIDS_SOLVE_MAX_STAGES;
constexpr int solve_smem_budget = SSIDS_SOLVE_SMEM_BUDGET;
static_assert(solve_max_stages >= 2 && solve_max_stages <= 4, "2 to 4 stages");
constexpr int solve_smem_bytes(int stages, int nrhs) {
  return (stages * solve_tile * (solve_tile + 1) + solve_slabs * nrhs * solve_tile) * static_cast<int>(sizeof(double));
}
static_assert(solve_smem_bytes(2, solve_panel) <= solve_smem_budget, "two stages always fit");
constexpr int solve_stages(int nrhs) {
  int s = 2;
  while (s < solve_max_stages && solve_smem_bytes(s + 1, nrhs) <= solve_smem_budget) ++s;
  return s;
}
/// Doubles of the inverse of a node with ntile diagonal tiles: per super-block its lower tiles, T x T each.
inline long long presolve_inverse_size(int ntile) {
  const long long full = ntile / solve_inv_tiles, rest = ntile % solve_inv_tiles;
  return (full * (solve_inv_tiles * (solve_inv_tiles + 1) / 2) + rest * (rest + 1) / 2) * solve_tile * solve_tile;
}

struct SolveNode {
  long long l_off;     ///< L block (m x ne, ld m) in the L array
  long long rows_off;  ///< row variables (m) in the rows array
  long long buf_off;   ///< first row of the node in the work buffer (total_rows rows per rhs column)
  long long inv_off;   ///< presolve: the inverse of the node's diagonal super-blocks (see invert_superblocks), or -1
  int m, ne;
  int nblk, ntile;     ///< row blocks (ceil(m/64)) and diagonal tiles (ceil(ne/64))
  int flag_off;        ///< first tile flag of the node
  int child_begin, child_end;  ///< children that pass rows up (forward waits for them), in child_list
  int wait_node;       ///< backward: the nearest ancestor that eliminated something, or -1
  int ngroups;         ///< backward: partial tasks per tile (0: the tile task walks the rows below itself)
  long long part_slot; ///< backward: first partial slot of the node (tile t, group g: part_slot + t*ngroups + g)
  long long d_off;     ///< its pivots' D in the factorization's D array (2 per pivot)
  long long pos;       ///< its first pivot position
};

struct SolveTask {
  int node, blk;  ///< forward: row block; backward: tile; -1: the whole (compact) node
  int part;       ///< backward: group of row blocks below the pivots of a partial task, or -1 (a tile task);
                  ///< forward, a row block after the pivots: the row blocks of its row group (-1: one)
};

/// Integer state of one sweep pair, zeroed before each sweep (cudaMemsetAsync).
struct SolveFlags {
  int* ticket;     ///< [2]: forward, backward
  int* fwd_tile;   ///< tiles solved in the forward sweep (1 when published)
  int* fwd_done;   ///< per node: row blocks finished
  int* bwd_tile;
  int* bwd_done;   ///< per node: tiles finished
  int* bwd_part;   ///< per tile: partial tasks finished
  int* fwd_v;      ///< presolve, per tile: its reduced rows published in vbuf (forward)
  int* bwd_v;      ///< likewise, backward
  int* error;      ///< set when a wait timed out (an internal error: never expected)
};

struct SolveArgs {
  const double* l;
  const int* rows;
  const SolveNode* nodes;
  const int* children;   ///< child node indices (SolveNode::child_begin .. child_end)
  const int* gptr;       ///< per buffer row: its contributions from children, gsrc[gptr[g] .. gptr[g+1])
  const int* gsrc;       ///< buffer rows of the children's contribution rows
  const double* inv;     ///< presolve: inverted super-blocks, or nullptr
  const SolveTask* tasks;
  int ntasks;
  double* x;             ///< right-hand sides on the device (this panel), ld ldx
  long long ldx;
  int nrhs;              ///< columns in this panel (<= solve_panel)
  int posdef;            ///< non-unit L (Cholesky factor with its diagonal)
  double* buf;           ///< work buffer, total_rows x nrhs
  double* vbuf;          ///< presolve: the pivot rows' reduced values, total_rows x nrhs (else unused)
  long long total_rows;
  double* part;          ///< backward partial products: slot s, column q at part + (s * solve_panel + q) * solve_tile
  int stages;            ///< shared-memory stages of the block stream (set by the sweep launchers)
  SolveFlags flags;
  unsigned long long* trace;  ///< -DSSIDS_SOLVE_TRACE builds: solve_trace_words per ticket, or nullptr
};
/// Task trace words per ticket (-DSSIDS_SOLVE_TRACE builds; see solve_kernels.cu and tools/solve_trace.py).
constexpr int solve_trace_words = 8;

void launch_forward_sweep(const SolveArgs& a, cudaStream_t s);
void launch_backward_sweep(const SolveArgs& a, cudaStream_t s);

/// D and D^{-1} in the host layout (2 per pivot position, diag_pivot_entries) from the factorization's D array
/// dstore, node by node.
void launch_form_diag(const SolveNode* nodes, int nsup, const double* dstore, double* d, double* dinv, cudaStream_t s);
/// x <- D^{-1} x by pivot position (pivot_var: position -> variable; d, dinv: the host layout).
void launch_diag_solve(int n, const int* pivot_var, const double* d, const double* dinv, double* x, long long ldx,
                       int nrhs, cudaStream_t s);
/// x(i, r) *= scale(i).
void launch_scale_rows(int n, const double* scale, double* x, long long ldx, int nrhs, cudaStream_t s);
/// Presolve: for every diagonal tile (node, tile j) listed in tasks, column tile j of the inverse of its
/// super-block: Z(i, j) for the super-block's tiles i >= j.
void launch_invert_superblocks(const SolveTask* tasks, int count, const double* l, const SolveNode* nodes,
                               double* inv, int posdef, cudaStream_t s);
/// Posdef: L(:, j) *= sqrt(D_j) for every pivot column (turns the unit L D L^T into the Cholesky factor).
struct ScaleColumn {
  long long diag_off;  ///< offset of the diagonal entry in L
  long long d_idx;     ///< index of D_jj in the D array
  int len;             ///< entries from the diagonal down
};
void launch_scale_columns(const ScaleColumn* cols, int count, double* l, const double* d, cudaStream_t s);

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
