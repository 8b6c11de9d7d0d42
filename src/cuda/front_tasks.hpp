// front_tasks.hpp — task records of the level-batched GPU factorization kernels (plain C++, no CUDA
// headers), shared by the launchers (cuda/front_kernels.cuh) and their CPU twins (factor/gpu_twins.hpp).
//
// Fronts of one level live in one buffer; front f is an m x m column-major matrix with leading dimension
// ld >= m (the level driver, factor/level_driver.hpp, pads it to a multiple of 8 and aligns the contribution block to 64 bytes, for
// cuBLAS's aligned kernels) of which only the lower triangle is used. Row/column order inside a front is that of the CPU path:
//     [ own ncol columns | ndelay delayed columns | the other rows ]   (fully summed: p = ncol + ndelay)
#pragma once
#include <cstdint>

#include "common/host_device.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// Largest pivot window factorized by one thread block (a-posteriori pivoting, Hogg et al. 2016 §3.2).
constexpr int max_window = 64;

struct FrontDesc {
  long long off;      ///< offset of the front in the level front buffer (doubles)
  long long var_off;  ///< offset of the front's variable list (m ints) in the level variable buffer
  long long d_off;    ///< offset of the front's D (2p doubles) in the level D buffer
  int m, p, ncol, ndelay, node;
  int ld;             ///< leading dimension of the front (>= m)
};

/// Unique target of the entries of A in a front: value = sum over srcs of val[src] (* scale products).
struct ATarget {
  int lrow, lcol;          ///< local row (before the delay shift) and column
  int src_begin, src_end;  ///< range in the src list
  int orig_row, orig_col;  ///< original variables, for the scaling
};

/// One child's contribution block to add into its parent's front (one launch per child rank).
struct ChildTask {
  int parent;            ///< index of the parent in the level's FrontDesc array
  int mc;                ///< order of the contribution block
  int nd;                ///< delayed columns of the child (the first nd rows/cols of its block)
  int delay_pos;         ///< where the child's delayed columns go in the parent front
  int child_ncol;        ///< eliminated columns planned for the child (cmap offset)
  long long cb_off;      ///< offset of the child's contribution block (the trailing mc x mc block of its front)
                         ///< in the previous level's front buffer
  int cb_ld;             ///< leading dimension of the contribution block (the child front's m)
  long long cmap_off;    ///< rptr[child]: its cmap entries start here
  long long child_vars;  ///< offset of the child's final variable list (rows) in the rows buffer
  int child_nelim;       ///< columns the child eliminated (its delayed variables follow them)
  int cb_in_pool = 0;    ///< 1: the block is in the small fronts' pool at cb_off (a child done by the
                         ///< small-front kernel), 0: in the previous level's front buffer
};

/// One front in the dense loop: factorize the window [k+s, k+s+w) of the fully summed columns.
struct WindowTask {
  int front;  ///< index in the level's FrontDesc array
  int k, s, w;
  long long lt_off;    ///< offset of the front's (m-k) x w scratch for the computed L (doubles)
  long long scr_off;   ///< offset of the front's integer scratch (3 * (s + w) ints)
  long long s_off;     ///< offset of the window's factorized block (w x w doubles) in the S scratch
  long long rb_begin;  ///< first row block of this task in the apply_window launch
  long long line_off;  ///< offset of the commit's copies of the moved lines (commit_line_doubles) in their scratch
};

/// Integer scratch of one commit (ints at scr_off): the permutation src of the s + w positions, the moved
/// positions, for each moved position the index of its source's line, and the number of moved positions.
inline long long commit_scratch_ints(int s, int w) { return 3LL * (s + w) + 1; }
/// Double scratch of one commit (at line_off): at most 2w positions move (the accepted pivots and the
/// candidates they displace), each with its old line of m entries.
inline long long commit_line_doubles(int m, int w) { return 2LL * w * m; }

/// What factor_window found, completed by apply_window (fail_pos) and read by commit_window.
struct WindowResult {
  int np;          ///< pivots chosen in the window (a 2x2 counts 2)
  int stop_pos;    ///< posdef: position of a pivot that is not positive, else max_window
  int fail_pos;    ///< first pivot position with a multiplier over 1/u (or a zero pivot that is not)
  int fail_local;  ///< posdef: window-local column of the failed pivot, else -1
  int order[max_window];   ///< pivot position -> window-local column
  int pos_of[max_window];  ///< window-local column -> pivot position (max_window if unprocessed)
  double d[2 * max_window + 2];
};

/// Column block of the contribution-block updates: a region big enough for plain cuBLAS pieces is cut at
/// multiples of it (plan_updates, cuda/level_kernels_cuda.cu). zero_fronts clears the fully summed columns entirely and the
/// contribution block from the top of each column's block. Nothing writes above the diagonal of a
/// contribution block (the diagonal blocks go to the tensor-core kernel, lower triangle only), so the clearing
/// could start at the diagonal; it starts at the block top (a superset, the same as its twin's).
constexpr int cb_gemm_col_block = 256;

/// First row of column j (j >= p) of a front that zero_fronts clears: the top of the column's DGEMM block.
SSIDS_HOST_DEVICE long long cb_zero_row(int p, long long j) {
  return p + (j - p) / cb_gemm_col_block * cb_gemm_col_block;
}

/// Rows of the front handled by one block of apply_window.
constexpr int apply_rows = 128;

/// C -= L W^T on the lower triangle of a square region of a front (row offset == column offset).
struct UpdateTask {
  double* c;
  const double* l;
  const double* w;
  long long tile_begin;  ///< first tile index of this task in the launch
  int ldc, ldl, ldw;
  int nrow, ncol, kdim;  ///< region rows (>= ncol), region columns, inner dimension
  int full = 0;          ///< launch_update_mma only: 1 = the whole nrow x ncol rectangle, 0 = its lower triangle
};

/// W = L D for the pivots of a task (rows aligned with the region's columns).
struct FormWTask {
  const double* l;   ///< first row, first pivot column (ld = ldl)
  const double* d;   ///< D of the pivots (2 per pivot, CPU layout)
  double* w;         ///< output, nrow x q, leading dimension ldw
  int ldl, nrow, q;
  int ldw = 0;       ///< leading dimension of w (>= nrow; 0: nrow)
};

struct CopyOutTask {
  int front;
  int nelim;
  long long l_off;     ///< destination of the L block (m x nelim) in the factor buffer
  long long rows_off;  ///< destination of the variable list (m ints)
  long long dstore_off;///< destination of D (2 nelim doubles)
};

struct DenseParams {
  double u, small;
  int posdef;
};

/// Largest front the small-front kernel factorizes in shared memory: the front and its workspace fit in 227 KiB.
/// A bigger one is split when its fully summed columns and workspace fit in as many bytes.
constexpr int small_front_max_rows = 160;

/// Small fronts (factor/small_front_core.hpp, cuda/small_fronts.cu): where node s's outputs go, fixed by the
/// plan (factor/small_front_plan.hpp) before the factorization, with room for the delays it allows.
struct SmallSlot {
  long long l_off;     ///< L block (m x nelim, ld m) in the factor buffer; room for m_cap x p_cap
  long long rows_off;  ///< variable list (m ints); room for m_cap
  long long d_off;     ///< D (2 nelim doubles); room for 2 p_cap
  long long cb_off;    ///< contribution block ((m - nelim)^2, ld m - nelim) in the pool; room for cb_cap^2
  long long work_off;  ///< -1: the front is factorized in shared memory; else at this offset (doubles) of the
                       ///< global work area (fronts too big for shared memory; small_front_bytes(m_cap) there)
  int m_cap;           ///< largest front the slot holds: nrow + the delays it may receive
  int dout_cap;        ///< most delayed columns the node may pass up (its contribution block's room)
};

/// What the small-front kernel did with node s.
struct SmallResult {
  int state;     ///< small_done, small_deferred or small_not_posdef (0: not run)
  int m, p;      ///< front size and fully summed columns (from the children's results, even when deferred)
  int nelim;     ///< eliminated columns; -1 for a deferred node that did not run (a child not done, or m > m_cap)
  int fail_var;  ///< small_not_posdef: the variable whose pivot is not positive
};
constexpr int small_done = 1;
constexpr int small_deferred = 2;  ///< too many delays for its slot, or a child deferred: the level loop does it
constexpr int small_not_posdef = 3;

/// Everything one launch of the small-front kernel reads and writes (device pointers; host pointers in the twin).
struct SmallFrontArgs {
  const int* nodes;  ///< this launch's nodes, one per block
  const SmallSlot* slots;
  SmallResult* res;  ///< by node
  const int *sptr, *rlist, *perm, *cmap, *child_ptr, *child_list;
  const long long *rptr, *tptr, *srcs;
  const ATarget* targets;
  const double *val, *scale;  ///< scale may be null
  double* lstore;
  int* rows_store;
  double* dstore;
  double* cb_pool;
  double* work;  ///< the global work area of the nodes whose slot has work_off >= 0
  double u, small;
  int ib;      ///< window width of the pivot search (the CPU path's)
  int posdef;
  unsigned long long* prof = nullptr;  ///< device only, optional: 16 counters of cycles and events (small_fronts.cu)
};

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
