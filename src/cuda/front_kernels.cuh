// front_kernels.cuh — launchers (task records: cuda/front_tasks.hpp) of the level-batched GPU factorization kernels.
//
// Fronts of one level live in one device buffer; front f is an m x m column-major matrix (leading dimension
// FrontDesc::ld >= m) of which only the lower triangle is used. Row/column order inside a front is that of the CPU path:
//     [ own ncol columns | ndelay delayed columns | the other rows ]   (fully summed: p = ncol + ndelay)
// Every kernel reads its task from an array indexed by blockIdx (one launch per operation and level).
// All floating-point sums are done in a fixed order by one thread, so results are bitwise reproducible.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/front_tasks.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// Clears what the factorization of each front reads before it writes (see cb_zero_row); spread: blocks per
/// front (grid dimension y).
/// *flag = 1 (set to 0 by the caller) if some of val[0 .. n) is NaN or Inf.
void launch_count_nonfinite(const double* val, long long n, int* flag, cudaStream_t s);
void launch_zero_fronts(const FrontDesc* fronts, int nfronts, int spread, double* fbuf, cudaStream_t s);
void launch_init_fronts(const FrontDesc* fronts, int nfronts, double* fbuf, int* vars, const int* perm,
                        const int* sptr, const long long* rptr, const int* rlist, cudaStream_t s);
void launch_assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr,
                       const ATarget* targets, const long long* srcs, const double* val, const double* scale,
                       cudaStream_t s);
/// spread: blocks per task (grid dimension y), so that big contribution blocks use many SMs. prev_fronts:
/// the previous level's front buffer, where the children's contribution blocks are (ChildTask::cb_off), or pool,
/// the small-front kernel's, for tasks with cb_in_pool.
void launch_assemble_children(const ChildTask* tasks, int ntasks, int spread, const FrontDesc* fronts, double* fbuf,
                              int* vars, const double* prev_fronts, const double* pool, const int* cmap,
                              const int* rows_store, cudaStream_t s);
/// The largest |entry| of each window column over the rows outside the window, per row block of apply_window
/// (nblocks = total row blocks): cmax[b * max_window + c] for row block b and window column c.
void launch_window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                          const double* fbuf, double* cmax, cudaStream_t s);
/// The window's pivots (its diagonal block); cmax: window_colmax's output (not read in posdef mode).
void launch_factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf,
                          double* lt, double* sbuf, WindowResult* res, const double* cmax, DenseParams prm,
                          cudaStream_t s);
/// The multipliers of every other row of the window's fronts; nblocks = total row blocks.
void launch_apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                         const double* fbuf, double* lt, const double* sbuf, WindowResult* res, DenseParams prm,
                         cudaStream_t s);
/// Accepts the leading pivots that passed (q, written to q[2i]; posdef failure column to q[2i+1]) and moves
/// them to positions k.. (at most 2q positions move). max_entries: the largest (m - k) * w over the tasks
/// (spreads the moves and the write of L over many blocks). scratch: commit_scratch_ints per task (at
/// scr_off); lines: commit_line_doubles per task (at line_off).
void launch_commit_window(const WindowTask* tasks, int ntasks, long long max_entries, const FrontDesc* fronts,
                          double* fbuf, int* vars, double* dbuf, const double* lt, const WindowResult* res, int* q,
                          int* scratch, double* lines, cudaStream_t s);
/// max_entries: the largest nrow * q over the tasks (spreads big tasks over many blocks).
void launch_form_w(const FormWTask* tasks, int ntasks, long long max_entries, cudaStream_t s);
void launch_update(const UpdateTask* tasks, int ntasks, long long ntiles, cudaStream_t s);
void launch_copy_out(const CopyOutTask* tasks, int ntasks, int spread, const FrontDesc* fronts, const double* fbuf,
                     const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore,
                     cudaStream_t s);
/// Apply a host-computed permutation of positions [lo, lo+len) of one front (the root fallback), using
/// scratch (3*len ints on the device, src in the first len).
void launch_permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch,
                          cudaStream_t s);

/// Number of 64x64 lower tiles of a region nrow x ncol (nrow >= ncol).
long long update_tiles(int nrow, int ncol);
/// The same updates on the FP64 tensor cores (update_mma.cu), in bm x bm tiles (bm = 64 or 128); tasks sorted
/// by tile_begin, counted with update_mma_tiles(nrow, ncol, bm, task.full) (full: the whole rectangle).
/// aligned16: every task's l and w are 16-byte aligned and ldl, ldw even (update_mma_aligned16 of the host copy):
/// the stage copies may then move two rows at a time.
void launch_update_mma(const UpdateTask* tasks, int ntasks, long long ntiles, int bm, cudaStream_t s,
                       bool aligned16 = false);
bool update_mma_aligned16(const UpdateTask* tasks, int ntasks);
long long update_mma_tiles(int nrow, int ncol, int bm, bool full = false);
/// The mma instruction of launch_update_mma (0: m8n8k4, 1: m16n8k4, the default, 2: m16n8k8, 3: m16n8k16; for
/// measurement and tests).
void set_update_mma_shape(int shape);
int update_mma_shape();

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
