// gpu_twins.hpp — CPU twins of the level-batched GPU factorization kernels (cuda/front_kernels.cuh).
//
// Each twin_X takes the arguments of launch_X (host pointers instead of device pointers, no stream) and
// runs the same algorithm: the thread blocks of the kernel are iterated in order, each output entry is
// computed with the same floating-point operations in the same order. Where nvcc contracts a*b + c into a
// fused multiply-add (it does by default, --fmad=true), the twin calls std::fma at exactly that place; the
// places were read off the sm_90 SASS of dense_kernels.cu and assemble_kernels.cu (nvcc 13.0, -O3):
//   x - a*b        -> fma(-a, b, x)          (factor_window kind-1 update, apply_window 1x1 update)
//   a*b + c*d      -> fma(a, b, c*d)          (2x2 multipliers, 2x2 updates, form_w of a 2x2 pivot)
//   a*b - c*d      -> fma(a, b, -(c*d))       (det of two_by_two_inverse; the pivot tests of pivot_tests.hpp
//                                              use exact:: operations, never contracted)
//   acc += v * (sr*sc)  -> fma(v, sr*sc, acc)  (assemble_a with a scaling)
//   acc += l * w   -> fma(l, w, acc)          (update_kernel, explicit fma; the padded part of the last
//                                              16-wide chunk adds fma(0, 0, acc) like the kernel does)
// Division is IEEE round-to-nearest on both sides. So the twins are bitwise equal to the kernels built
// with that compiler for sm_90; tests/test_gpu_kernels.cpp checks it on a device.
// Not mirrored: the tensor-core update (update_mma.cu; rounding-equal to twin_update only) and the plain cuBLAS
// DGEMM pieces of big updates (cuda/level_kernels_cuda.cu, a library call); the reference kernel set
// (level_kernels_reference.hpp) sends every update to twin_update instead.
//
// The twins are plain C++ (no CUDA), built in every configuration, so they also serve as the CPU
// reference of the a-posteriori tile factorization in CI.
#pragma once
#include "cuda/front_tasks.hpp"

namespace ssids {
namespace detail {
namespace gpu {

void twin_zero_fronts(const FrontDesc* fronts, int nfronts, int spread, double* fbuf);
void twin_init_fronts(const FrontDesc* fronts, int nfronts, double* fbuf, int* vars, const int* perm,
                      const int* sptr, const long long* rptr, const int* rlist);
void twin_assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr,
                     const ATarget* targets, const long long* srcs, const double* val, const double* scale);
void twin_assemble_children(const ChildTask* tasks, int ntasks, int spread, const FrontDesc* fronts, double* fbuf,
                            int* vars, const double* prev_fronts, const double* pool, const int* cmap, const int* rows_store);
void twin_window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                        const double* fbuf, double* cmax);
void twin_factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf, double* lt,
                        double* sbuf, WindowResult* res, const double* cmax, DenseParams prm);
void twin_apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                       const double* fbuf, double* lt, const double* sbuf, WindowResult* res, DenseParams prm);
/// commit_prepare, commit_lines, commit_scatter and write_window_l, as launch_commit_window does.
void twin_commit_window(const WindowTask* tasks, int ntasks, long long max_entries, const FrontDesc* fronts,
                        double* fbuf, int* vars, double* dbuf, const double* lt, const WindowResult* res, int* q,
                        int* scratch, double* lines);
void twin_form_w(const FormWTask* tasks, int ntasks, long long max_entries);
void twin_update(const UpdateTask* tasks, int ntasks, long long ntiles);
void twin_copy_out(const CopyOutTask* tasks, int ntasks, int spread, const FrontDesc* fronts, const double* fbuf,
                   const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore);
void twin_permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch);

/// launch_small_fronts (small_fronts_twin.cpp): the small-front kernel, block by block.
void twin_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap, long long fast_bytes);

/// Twin of update_tiles: number of 64x64 lower tiles of a region nrow x ncol (nrow >= ncol).
long long twin_update_tiles(int nrow, int ncol);

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
