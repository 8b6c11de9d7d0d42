// level_kernels_cuda.cuh — the CUDA kernel set of the level driver (factor/level_driver.hpp): device buffers,
// the factorization's main stream and a copy stream, the level-batched kernels (cuda/front_kernels.cuh), and the
// batched C -= L W^T updates (the tensor-core kernel, with plain cublasDgemm calls on side streams for big
// pieces). Its CPU twin with the same member signatures is factor/level_kernels_reference.hpp.
// Every call is ordered on the main stream unless it names the copy stream; only sync(), to_host_now and
// block_to_host_now wait.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/front_kernels.cuh"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {
namespace gpu {

class Event {
 public:
  Event() { check_cuda(cudaEventCreate(&e_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t s) { check_cuda(cudaEventRecord(e_, s), "cudaEventRecord"); }
  cudaEvent_t get() const { return e_; }
  /// Seconds from `from` to this event (both recorded and complete).
  double since(const Event& from) const {
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, from.e_, e_), "cudaEventElapsedTime");
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

/// A cuBLAS handle bound to a stream.
class Blas {
 public:
  explicit Blas(cudaStream_t s);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasHandle_t get() const { return h_; }
  static void check_cublas(cublasStatus_t st, const char* what);

 private:
  cublasHandle_t h_ = nullptr;
};

/// Side streams, each with its own cuBLAS handle (and so its own work space), for the big pieces of the
/// updates; created on first use. fork() makes them wait for the main stream's work so far, join() makes
/// the main stream wait for theirs.
class SideBlas {
 public:
#ifndef SSIDS_SIDE_STREAMS
#define SSIDS_SIDE_STREAMS 3
#endif
  static constexpr int count = SSIDS_SIDE_STREAMS;
  /// Creates the streams and handles (cublasCreate takes about a millisecond: done before the level loop when
  /// the analysis plans fronts big enough for plain pieces, else on first use).
  void create();
  void fork(cudaStream_t main);
  void join(cudaStream_t main);
  cublasHandle_t handle(int i) const { return blas_[i % count]->get(); }

 private:
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Blas>> blas_;
  std::vector<std::unique_ptr<Event>> done_;
  Event start_;
};

/// C -= L W^T on the lower triangle of every task's region. The tensor-core kernel (update_mma.cu) takes all
/// regions of a level in one launch, in tiles of 128 (regions of at least 256 x 128 with an inner dimension of at
/// least mma128_min_kdim) or 64. A region big enough for plain cublasDgemm calls is cut into pieces: the
/// rectangle below its top square, and the square's lower triangle halved recursively (at multiples of
/// cb_gemm_col_block) into rectangles, down to its diagonal blocks of cb_gemm_col_block columns. Pieces of at
/// least plain_gemm_min x plain_gemm_min and plain_gemm_work multiply-adds go to plain cublasDgemm calls on the
/// side streams (DGEMM's full rate); the other pieces (rectangles whole, diagonal blocks on their lower triangle)
/// to the tensor-core kernel on the main stream at the same time. Every entry is computed by one call or tile of
/// fixed shape and order, so the result is deterministic for a given GPU, sizes and library build.
/// With the tensor-core updates off (set_gpu_tensor_core_updates, for tests), every task goes whole to
/// launch_update, whose CPU twin (twin_update) gives the same bits.
struct UpdatePlan {
  struct Piece {
    UpdateTask u;
    int r, c, mr, nc;  // C(r:r+mr, c:c+nc) -= L(r:r+mr, :) W(c:c+nc, :)^T in the region u
  };
  Vector<Piece> plain;     // plain cublasDgemm calls
  Vector<UpdateTask> mma;  // tasks of the tensor-core kernel: tiles of 64 first, then n128 of 128
  std::size_t n64 = 0, n128 = 0;
  long long tiles64 = 0, tiles128 = 0;
  bool aligned64 = false, aligned128 = false;  // update_mma_aligned16 of each launch
  bool classic = false;  // launch_update for the n64 tasks of mma (tiles64 tiles), nothing else
};

/// The smallest rows and columns of a plain cublasDgemm piece (set_gpu_plain_gemm_bounds).
int plain_gemm_min_dim();

void plan_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl);
/// Runs a plan whose pl.mma is on the device at dmma (uploaded on st or before it).
void launch_updates(const UpdatePlan& pl, const UpdateTask* dmma, SideBlas& side, cudaStream_t st);

/// The kernel set. Holds no buffers of its own: the driver's LevelWork and the factor stores are its Buffers.
struct CudaLevelKernels {
  template <class T>
  using Buffer = DeviceBuffer<T>;
  using Queue = cudaStream_t;
  using Event = gpu::Event;
  using UpdatePlan = gpu::UpdatePlan;

  Queue main = nullptr;  ///< the factorization's stream
  Queue copy = nullptr;  ///< uploads that overlap the main stream's work
  SideBlas* side = nullptr;

  void sync() { check_cuda(cudaStreamSynchronize(main), "cudaStreamSynchronize"); }
  void wait(const Event& e) { check_cuda(cudaStreamWaitEvent(main, e.get(), 0), "cudaStreamWaitEvent"); }
  template <class T>
  void to_host(T* h, const T* d, std::size_t n, const char* what) {
    check_cuda(cudaMemcpyAsync(h, d, n * sizeof(T), cudaMemcpyDeviceToHost, main), what);
  }
  template <class T>
  void to_host_now(T* h, const T* d, std::size_t n, const char* what) {
    check_cuda(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost), what);
  }
  template <class T>
  void to_device(T* d, const T* h, std::size_t n, const char* what) {
    check_cuda(cudaMemcpyAsync(d, h, n * sizeof(T), cudaMemcpyHostToDevice, main), what);
  }
  void zero(double* d, std::size_t n, const char* what) {
    check_cuda(cudaMemsetAsync(d, 0, n * sizeof(double), main), what);
  }
  /// rows x cols block, column-major: device (ld ldd) -> host (ld ldh), synchronous.
  void block_to_host_now(double* h, int ldh, const double* d, int ldd, int rows, int cols, const char* what) {
    check_cuda(cudaMemcpy2D(h, ldh * sizeof(double), d, ldd * sizeof(double), rows * sizeof(double), cols,
                            cudaMemcpyDeviceToHost), what);
  }
  void block_to_device(double* d, int ldd, const double* h, int ldh, int rows, int cols, const char* what) {
    check_cuda(cudaMemcpy2DAsync(d, ldd * sizeof(double), h, ldh * sizeof(double), rows * sizeof(double), cols,
                                 cudaMemcpyHostToDevice, main), what);
  }

  // ---- the kernels (cuda/front_kernels.cuh) on the main stream
  void zero_fronts(const FrontDesc* fronts, int nfronts, int spread, double* fbuf) {
    launch_zero_fronts(fronts, nfronts, spread, fbuf, main);
  }
  void init_fronts(const FrontDesc* fronts, int nfronts, double* fbuf, int* vars, const int* perm, const int* sptr,
                   const long long* rptr, const int* rlist) {
    launch_init_fronts(fronts, nfronts, fbuf, vars, perm, sptr, rptr, rlist, main);
  }
  void assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr, const ATarget* targets,
                  const long long* srcs, const double* val, const double* scale) {
    launch_assemble_a(fronts, nfronts, fbuf, tptr, targets, srcs, val, scale, main);
  }
  void assemble_children(const ChildTask* tasks, int ntasks, int spread, const FrontDesc* fronts, double* fbuf,
                         int* vars, const double* prev_fronts, const double* pool, const int* cmap,
                         const int* rows_store) {
    launch_assemble_children(tasks, ntasks, spread, fronts, fbuf, vars, prev_fronts, pool, cmap, rows_store, main);
  }
  void window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                     const double* fbuf, double* cmax) {
    launch_window_colmax(tasks, ntasks, nblocks, fronts, fbuf, cmax, main);
  }
  void factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf, double* lt,
                     double* sbuf, WindowResult* res, const double* cmax, DenseParams prm) {
    launch_factor_window(tasks, ntasks, fronts, fbuf, lt, sbuf, res, cmax, prm, main);
  }
  void apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                    const double* fbuf, double* lt, const double* sbuf, WindowResult* res, DenseParams prm) {
    launch_apply_window(tasks, ntasks, nblocks, fronts, fbuf, lt, sbuf, res, prm, main);
  }
  void commit_window(const WindowTask* tasks, int ntasks, long long max_entries, const FrontDesc* fronts,
                     double* fbuf, int* vars, double* dbuf, const double* lt, const WindowResult* res, int* q,
                     int* scratch, double* lines) {
    launch_commit_window(tasks, ntasks, max_entries, fronts, fbuf, vars, dbuf, lt, res, q, scratch, lines, main);
  }
  void form_w(const FormWTask* tasks, int ntasks, long long max_entries) {
    launch_form_w(tasks, ntasks, max_entries, main);
  }
  void copy_out(const CopyOutTask* tasks, int ntasks, int spread, const FrontDesc* fronts, const double* fbuf,
                const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore) {
    launch_copy_out(tasks, ntasks, spread, fronts, fbuf, vars, dbuf, lstore, rows_store, dstore, main);
  }
  void permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch) {
    launch_permute_range(front, fbuf, vars, lo, len, scratch, main);
  }

  // ---- the updates: plan on the host, upload the tasks (on q), launch
  void plan_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl) { gpu::plan_updates(upd, pl); }
  void upload_updates(const UpdatePlan& pl, Buffer<UpdateTask>& d, Queue q) {
    if (!pl.mma.empty()) d.upload(pl.mma.data(), pl.mma.size(), q);
  }
  void launch_updates(const UpdatePlan& pl, const UpdateTask* d) { gpu::launch_updates(pl, d, *side, main); }
};

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
