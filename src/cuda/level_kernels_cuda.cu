// level_kernels_cuda.cu — the parts of the CUDA kernel set of the level driver that are not one launch: cuBLAS
// handles and side streams, and the plan and launches of the batched updates (see level_kernels_cuda.cuh).
#include "cuda/level_kernels_cuda.cuh"

#include <algorithm>
#include <string>
#include <utility>

#include "cuda/cublas_loader.hpp"
#include "factor/factor_gpu.hpp"
#include "ssids/device_memory.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

/// Pieces of an update at least plain_gemm_min in both dimensions and of at least plain_gemm_work
/// multiply-adds go to a plain cublasDgemm of their own on a side stream; the others to the tensor-core kernel.
/// A plain call runs at DGEMM's rate but costs a launch and fills the GPU only when big. Since the fronts are
/// 64-byte aligned (front_align), 2.5e8 measured best of 2.5e8-4e9 on gen:laplace3d:80 and gen:stokes3d:51
/// (bench/NOTES.md), where only the top levels' fronts have such pieces.
#ifndef SSIDS_PLAIN_GEMM_MIN
#define SSIDS_PLAIN_GEMM_MIN 512
#endif
#ifndef SSIDS_PLAIN_GEMM_WORK
#define SSIDS_PLAIN_GEMM_WORK 2.5e8
#endif
int plain_gemm_min = SSIDS_PLAIN_GEMM_MIN;  // set_gpu_plain_gemm_bounds
double plain_gemm_work = SSIDS_PLAIN_GEMM_WORK;
bool tensor_core_updates = true;  // set_gpu_tensor_core_updates

/// Regions of at least 256 x 128 with an inner dimension of at least mma128_min_kdim go to the tensor-core kernel's
/// tiles of 128 (one block per multiprocessor), the others to its tiles of 64 (four blocks per multiprocessor).
/// Since the tiles of 64 copy 16 bytes at a time on aligned fronts they are the faster ones below inner dimensions
/// of about 2000 (bench_level_update --sweep; bench/NOTES.md has the measurements).
constexpr int mma128_min_kdim = 2048;

}  // namespace

int plain_gemm_min_dim() { return plain_gemm_min; }

Blas::Blas(cudaStream_t s) {
  // the handle's work space counts as one device allocation (failure injection, leak counts)
  if (device_allocation_fails()) throw Error(flag::allocation, "GPU out of memory in cublasCreate (injected failure)");
  check_cublas(cublas().create(&h_), "cublasCreate");
  device_allocation_made();
  const cublasStatus_t st = cublas().set_stream(h_, s);
  if (st != CUBLAS_STATUS_SUCCESS) {
    cublas().destroy(h_);
    device_allocation_released();
    throw Error(flag::cublas, "cublasSetStream failed", static_cast<int>(st));
  }
}

Blas::~Blas() {
  cublas().destroy(h_);
  device_allocation_released();
}

void Blas::check_cublas(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return;
  if (st == CUBLAS_STATUS_ALLOC_FAILED) throw Error(flag::allocation, std::string("GPU out of memory in ") + what);
  throw Error(flag::cublas, std::string(what) + " failed with cuBLAS status " + std::to_string(static_cast<int>(st)),
              static_cast<int>(st));
}

void SideBlas::create() {
  if (!streams_.empty()) return;
  for (int i = 0; i < count; ++i) {
    streams_.push_back(std::make_unique<Stream>());
    blas_.push_back(std::make_unique<Blas>(streams_.back()->get()));
    done_.push_back(std::make_unique<Event>());
  }
}

void SideBlas::fork(cudaStream_t main) {
  create();
  start_.record(main);
  for (auto& s : streams_) check_cuda(cudaStreamWaitEvent(s->get(), start_.get(), 0), "cudaStreamWaitEvent");
}

void SideBlas::join(cudaStream_t main) {
  for (int i = 0; i < count; ++i) {
    done_[i]->record(streams_[i]->get());
    check_cuda(cudaStreamWaitEvent(main, done_[i]->get(), 0), "cudaStreamWaitEvent");
  }
}

void plan_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl) {
  pl.plain.clear();
  pl.mma.clear();
  pl.tiles64 = pl.tiles128 = 0;
  pl.classic = !tensor_core_updates;
  if (pl.classic) {  // every task whole to launch_update
    for (UpdateTask t : upd) {
      if (t.kdim <= 0 || t.nrow <= 0 || t.ncol <= 0) continue;
      t.tile_begin = pl.tiles64;
      pl.tiles64 += update_tiles(t.nrow, t.ncol);
      pl.mma.push_back(t);
    }
    pl.n64 = pl.mma.size();
    pl.n128 = 0;
    pl.aligned64 = pl.aligned128 = false;
    return;
  }
  Vector<UpdateTask> mt128;  // tasks in tiles of 128, appended to pl.mma at the end
  auto add_mma = [&](UpdateTask t, bool full) {
    t.full = full ? 1 : 0;
    const bool big = t.nrow >= 256 && t.ncol >= 128 && t.kdim >= mma128_min_kdim;
    t.tile_begin = big ? pl.tiles128 : pl.tiles64;
    (big ? pl.tiles128 : pl.tiles64) += update_mma_tiles(t.nrow, t.ncol, big ? 128 : 64, full);
    (big ? mt128 : pl.mma).push_back(t);
  };
  auto is_plain = [](const UpdateTask& u, int mr, int nc) {
    return mr >= plain_gemm_min && nc >= plain_gemm_min && static_cast<double>(mr) * nc * u.kdim >= plain_gemm_work;
  };
  auto piece = [&](const UpdateTask& u, int r, int c, int mr, int nc) {
    if (mr <= 0 || nc <= 0) return;
    if (is_plain(u, mr, nc)) {
      pl.plain.push_back(UpdatePlan::Piece{u, r, c, mr, nc});
      return;
    }
    UpdateTask p = u;
    p.c = u.c + r + static_cast<long long>(c) * u.ldc;
    p.l = u.l + r;
    p.w = u.w + c;
    p.nrow = mr;
    p.ncol = nc;
    add_mma(p, !(r == c && mr == nc));
  };
  // where a square of n columns is halved: its first half, rounded up to a multiple of cb_gemm_col_block
  auto half = [](int n) { return (n / 2 + cb_gemm_col_block - 1) / cb_gemm_col_block * cb_gemm_col_block; };
  Vector<std::pair<int, int>> todo;
  for (const UpdateTask& u : upd) {
    if (u.kdim <= 0 || u.nrow <= 0 || u.ncol <= 0) continue;
    // the biggest pieces: the rectangle below the top square, the lower left quarter of the square
    if (!is_plain(u, u.nrow - u.ncol, u.ncol) && !is_plain(u, u.ncol - half(u.ncol), half(u.ncol))) {
      add_mma(u, false);
      continue;
    }
    piece(u, u.ncol, 0, u.nrow - u.ncol, u.ncol);
    todo.assign(1, {0, u.ncol});
    while (!todo.empty()) {
      const auto [o, n] = todo.back();
      todo.pop_back();
      if (n <= cb_gemm_col_block) {
        piece(u, o, o, n, n);
        continue;
      }
      const int h = half(n);
      piece(u, o + h, o, n - h, h);
      todo.push_back({o, h});
      todo.push_back({o + h, n - h});
    }
  }
  pl.n64 = pl.mma.size();
  pl.n128 = mt128.size();
  pl.mma.insert(pl.mma.end(), mt128.begin(), mt128.end());
  pl.aligned64 = update_mma_aligned16(pl.mma.data(), static_cast<int>(pl.n64));
  pl.aligned128 = update_mma_aligned16(pl.mma.data() + pl.n64, static_cast<int>(pl.n128));
}

void launch_updates(const UpdatePlan& pl, const UpdateTask* dmma, SideBlas& side, cudaStream_t st) {
  if (pl.classic) {
    if (pl.n64) launch_update(dmma, static_cast<int>(pl.n64), pl.tiles64, st);
    return;
  }
  const double minus_one = -1.0, one = 1.0;
  if (!pl.plain.empty()) {
    side.fork(st);
    for (size_t i = 0; i < pl.plain.size(); ++i) {
      const UpdatePlan::Piece& q = pl.plain[i];
      const UpdateTask& u = q.u;
      Blas::check_cublas(cublas().dgemm(side.handle(static_cast<int>(i)), CUBLAS_OP_N, CUBLAS_OP_T, q.mr, q.nc, u.kdim,
                                        &minus_one, u.l + q.r, u.ldl, u.w + q.c, u.ldw, &one,
                                        u.c + q.r + static_cast<long long>(q.c) * u.ldc, u.ldc),
                         "cublasDgemm (update)");
    }
  }
  launch_update_mma(dmma + pl.n64, static_cast<int>(pl.n128), pl.tiles128, 128, st, pl.aligned128);
  launch_update_mma(dmma, static_cast<int>(pl.n64), pl.tiles64, 64, st, pl.aligned64);
  if (!pl.plain.empty()) side.join(st);
}

}  // namespace gpu

std::pair<int, double> set_gpu_plain_gemm_bounds(int min_dim, double work) {
  const std::pair<int, double> old{gpu::plain_gemm_min, gpu::plain_gemm_work};
  gpu::plain_gemm_min = std::max(1, min_dim);
  gpu::plain_gemm_work = std::max(0.0, work);
  return old;
}

bool set_gpu_tensor_core_updates(bool on) {
  const bool old = gpu::tensor_core_updates;
  gpu::tensor_core_updates = on;
  return old;
}

}  // namespace detail
}  // namespace ssids
