// factor_gpu.cu — host driver of the GPU multifrontal factorization: levels from the deepest to the roots,
// one launch per operation and level over task records (Hogg, Ovtchinnikov & Scott 2016, §3).
//
// Device data: the analysis' maps, the small-front plan and an idle workspace (streams, handles, scratch
// buffers) are kept with the analysis (Symbolic::gpu_cache); each factorization uploads the values (and
// scaling). First the small fronts at the bottom of the tree are factorized by the small-front kernel, one
// launch per level, with one wait for their results (cuda/small_fronts.cu); the level loop then takes the
// other fronts. Fronts of a level share one buffer; contribution blocks of a level go to one of two buffers
// that swap roles between levels (the small fronts' stay in the kernel's pool). L, D and the row lists stay
// on the device until the end, when D and the rows are copied into the host layout shared with the CPU path.
// Host<->device traffic in the level loop is limited to the pivoting outcome: the number of pivots each
// window accepted (one small copy per dense step) — plus, in the rare case that pivots still fail at a root,
// that root's remaining block, which is finished on the host with a full search.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cuda/cublas_loader.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_factors.cuh"
#include "factor/factor_tables.hpp"
#include "factor/front_targets.hpp"
#include "cuda/front_kernels.cuh"
#include "cuda/small_fronts.cuh"
#include "factor/dense_ldlt.hpp"
#include "factor/factor_gpu.hpp"
#include "factor/pivot_tests.hpp"
#include "factor/small_front_plan.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

using namespace gpu;

namespace {

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

/// A cuBLAS handle bound to the factorization's stream.
class Blas {
 public:
  explicit Blas(cudaStream_t s) {
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
  ~Blas() {
    cublas().destroy(h_);
    device_allocation_released();
  }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasHandle_t get() const { return h_; }
  static void check_cublas(cublasStatus_t st, const char* what) {
    if (st == CUBLAS_STATUS_SUCCESS) return;
    if (st == CUBLAS_STATUS_ALLOC_FAILED) throw Error(flag::allocation, std::string("GPU out of memory in ") + what);
    throw Error(flag::cublas, std::string(what) + " failed with cuBLAS status " + std::to_string(static_cast<int>(st)),
                static_cast<int>(st));
  }

 private:
  cublasHandle_t h_ = nullptr;
};

/// Pieces of an update at least plain_gemm_min in both dimensions and of at least plain_gemm_work
/// multiply-adds go to a plain cublasDgemm of their own on a side stream; the others to the tensor-core kernel.
/// A plain call runs at DGEMM's rate but costs a launch and fills the GPU only when big. Since the fronts are
/// 64-byte aligned (front_align), 2.5e8 measured best of 2.5e8-4e9 on gen:laplace3d:80 and gen:stokes3d:51
/// (bench/NOTES.md, session 12), where only the top levels' fronts have such pieces.
#ifndef SSIDS_PLAIN_GEMM_MIN
#define SSIDS_PLAIN_GEMM_MIN 512
#endif
#ifndef SSIDS_PLAIN_GEMM_WORK
#define SSIDS_PLAIN_GEMM_WORK 2.5e8
#endif
int plain_gemm_min = SSIDS_PLAIN_GEMM_MIN;         // set_gpu_plain_gemm_bounds
double plain_gemm_work = SSIDS_PLAIN_GEMM_WORK;
bool prepared_updates = true;  // set_gpu_prepared_updates
bool small_fronts_on = true;   // set_gpu_small_fronts

/// Regions of at least 256 x 128 with an inner dimension of at least mma128_min_kdim go to the tensor-core kernel's
/// tiles of 128 (one block per multiprocessor), the others to its tiles of 64 (four blocks per multiprocessor).
/// Since the tiles of 64 copy 16 bytes at a time on aligned fronts (session 13) they are the faster ones below
/// inner dimensions of about 2000 (bench_level_update --sweep: 4096 x 4096 x 512, 38 against 34 TFlop/s); on
/// gen:laplace3d:80 this bound took the updates from 51.6% to 54.4% of DGEMM (0, 1024, 2048 and never 128 tried,
/// bench/NOTES.md).
constexpr int mma128_min_kdim = 2048;

/// Candidate columns per block of the two-level dense factorization (see the window loop). 256, 512 and
/// 1024 gave the same time on gen:laplace3d:80 (H200, bench/NOTES.md); the smallest exercises the deferred
/// updates on the most fronts.
constexpr int outer_block = 256;

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
  void create() {
    if (!streams_.empty()) return;
    for (int i = 0; i < count; ++i) {
      streams_.push_back(std::make_unique<Stream>());
      blas_.push_back(std::make_unique<Blas>(streams_.back()->get()));
      done_.push_back(std::make_unique<Event>());
    }
  }
  void fork(cudaStream_t main) {
    create();
    start_.record(main);
    for (auto& s : streams_) check_cuda(cudaStreamWaitEvent(s->get(), start_.get(), 0), "cudaStreamWaitEvent");
  }
  void join(cudaStream_t main) {
    for (int i = 0; i < count; ++i) {
      done_[i]->record(streams_[i]->get());
      check_cuda(cudaStreamWaitEvent(main, done_[i]->get(), 0), "cudaStreamWaitEvent");
    }
  }
  cublasHandle_t handle(int i) const { return blas_[i % count]->get(); }

 private:
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<Blas>> blas_;
  std::vector<std::unique_ptr<Event>> done_;
  Event start_;
};

/// The device buffers, streams and cuBLAS handles of one factorization that do not become part of its result.
/// Kept with the analysis (GpuSymbolic::workspaces) and reused by its next factorization: a refactorization then
/// allocates only the factors themselves (each cudaMalloc and cudaFree costs tens of microseconds and
/// cudaFree synchronizes the device, which adds up to about a third of a small problem's factorization).
struct FactorWorkspace {
  Stream stream, copy_stream;
  SideBlas side_blas;
  DeviceBuffer<double> val, scale;
  // F: this level's fronts; Fprev: the previous level's, whose contribution blocks this level assembles
  DeviceBuffer<double> F, Fprev, Dlev, Lt, S, W, Lines;
  DeviceBuffer<int> Vars, Scr, Q;
  DeviceBuffer<WindowResult> Res;
  DeviceBuffer<FrontDesc> Fronts;
  DeviceBuffer<ChildTask> Child;
  DeviceBuffer<WindowTask> Win;
  DeviceBuffer<FormWTask> FormW;
  DeviceBuffer<UpdateTask> Upd;
  DeviceBuffer<CopyOutTask> Copy;
  DeviceBuffer<double> Wcb;  // W of the prepared contribution updates, and their tasks
  DeviceBuffer<FormWTask> FormWcb;
  DeviceBuffer<UpdateTask> UpdCb;
  DeviceBuffer<double> cb_pool;  // contribution blocks of the small-front kernel
  DeviceBuffer<double> small_work;  // its fronts above small_front_max_rows rows
  DeviceBuffer<SmallResult> small_res;
  PinnedBuffer<double> host_stage;  // D and the row lists on their way back to the host
  /// The level loop's buffers were preallocated for these sizes (level_plan, L guess, small-front bytes): a
  /// factorization with the same needs skips the device memory check (its buffers are all there already).
  bool preallocated = false;
  long long preallocated_for[8] = {};
};

/// A small-front plan (factor/small_front_plan.hpp) with its slots and launch lists on the device. Immutable once
/// made; a factorization keeps the one it started with.
struct SmallDevicePlan {
  SmallFrontPlan host;
  bool posdef = false;
  int block_size = 0;  ///< Options::cpu_block_size it was made for (the search window follows it)
  DeviceBuffer<SmallSlot> slots;
  DeviceBuffer<int> nodes;
};

/// The analysis' maps on the device, and the small-front plan with what factorizations have taught it.
struct GpuSymbolic {
  DeviceBuffer<int> perm, sptr, rlist, cmap, child_ptr, child_list;
  DeviceBuffer<long long> rptr, tptr, srcs;
  DeviceBuffer<ATarget> targets;
  std::mutex small_mutex;  ///< guards the two below
  SmallFrontNeeds small_needs;
  std::shared_ptr<const SmallDevicePlan> small_plan;
  std::mutex workspace_mutex;  ///< guards workspaces
  std::vector<std::unique_ptr<FactorWorkspace>> workspaces;  ///< idle ones, for the next factorizations
  /// Device blocks of destroyed factors (L, rows, D, the solve plan's arrays) for the next factorizations'
  /// (bounded: a big problem's L is freed as before, its allocation is small next to its factorization)
  std::shared_ptr<DeviceBlockCache> blocks = std::make_shared<DeviceBlockCache>(std::size_t(256) << 20);
};

/// A workspace taken from the analysis' idle ones (or a new one) for one factorization, given back after it.
class WorkspaceLease {
 public:
  explicit WorkspaceLease(GpuSymbolic& g) : g_(g) {
    {
      std::lock_guard<std::mutex> lock(g.workspace_mutex);
      if (!g.workspaces.empty()) {
        w_ = std::move(g.workspaces.back());
        g.workspaces.pop_back();
      }
    }
    if (!w_) w_ = std::make_unique<FactorWorkspace>();
  }
  ~WorkspaceLease() {
    // a factorization that failed may have left work queued: wait for it, and keep the workspace only if the
    // stream is still usable
    if (cudaStreamSynchronize(w_->stream.get()) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    std::lock_guard<std::mutex> lock(g_.workspace_mutex);
    if (g_.workspaces.size() < 2) g_.workspaces.push_back(std::move(w_));
  }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  FactorWorkspace& operator*() const { return *w_; }

 private:
  GpuSymbolic& g_;
  std::unique_ptr<FactorWorkspace> w_;
};

std::shared_ptr<const SmallDevicePlan> make_small_plan(const Symbolic& sym, bool posdef, int block_size,
                                                       const SmallFrontNeeds& needs, cudaStream_t s) {
  auto p = std::make_shared<SmallDevicePlan>();
  p->host = plan_small_fronts(sym, posdef, block_size, posdef ? SmallFrontNeeds{} : needs);
  p->posdef = posdef;
  p->block_size = block_size;
  p->slots.upload(p->host.slots.data(), p->host.slots.size(), s);
  p->nodes.upload(p->host.nodes.data(), p->host.nodes.size(), s);
  check_cuda(cudaStreamSynchronize(s), "upload of the small-front plan");
  return p;
}

/// The current small-front plan for (posdef, block_size), made on first use.
std::shared_ptr<const SmallDevicePlan> small_plan(GpuSymbolic& g, const Symbolic& sym, bool posdef, int block_size,
                                                  cudaStream_t s) {
  std::lock_guard<std::mutex> lock(g.small_mutex);
  if (!g.small_plan || g.small_plan->posdef != posdef || g.small_plan->block_size != block_size)
    g.small_plan = make_small_plan(sym, posdef, block_size, g.small_needs, s);
  return g.small_plan;
}

template <class T>
void upload(DeviceBuffer<T>& d, const Vector<T>& h, cudaStream_t s) {
  d.upload(h.data(), h.size(), s);
}

std::shared_ptr<GpuSymbolic> gpu_symbolic(const Symbolic& sym) {
  std::lock_guard<std::mutex> lock(sym.gpu_cache->mutex);
  if (sym.gpu_cache->data) return std::static_pointer_cast<GpuSymbolic>(sym.gpu_cache->data);
  Stream upload_stream;
  const cudaStream_t s = upload_stream.get();
  auto g = std::make_shared<GpuSymbolic>();
  upload(g->perm, sym.perm, s);
  upload(g->sptr, sym.sptr, s);
  upload(g->rlist, sym.rlist, s);
  upload(g->cmap, sym.cmap, s);
  upload(g->child_ptr, sym.child_ptr, s);
  upload(g->child_list, sym.child_list, s);
  Vector<long long> rptr(sym.rptr.begin(), sym.rptr.end());
  upload(g->rptr, rptr, s);
  Vector<long long> tptr, srcs;
  Vector<ATarget> targets;
  build_front_targets(sym, tptr, srcs, targets);
  upload(g->tptr, tptr, s);
  upload(g->srcs, srcs, s);
  upload(g->targets, targets, s);
  check_cuda(cudaStreamSynchronize(s), "upload of the analysis");
  sym.gpu_cache->data = g;
  return g;
}

/// C -= L W^T on the lower triangle of every task's region. The tensor-core kernel (update_mma.cu) takes all
/// regions of a level in one launch, in tiles of 128 (regions of at least 256 x 128 with an inner dimension of at
/// least mma128_min_kdim) or 64; it runs at about the rate of cuBLAS's grouped DGEMM and above it on levels of
/// many small fronts, without per-call launches.
/// A region big enough for plain cublasDgemm calls is cut into pieces: the rectangle below its top square, and
/// the square's lower triangle halved recursively (at multiples of cb_gemm_col_block) into rectangles, down to
/// its diagonal blocks of cb_gemm_col_block columns. Pieces of at least plain_gemm_min x plain_gemm_min and
/// plain_gemm_work multiply-adds go to plain cublasDgemm calls on the side streams (DGEMM's full rate); the
/// other pieces (rectangles whole, diagonal blocks on their lower triangle) to the tensor-core kernel on the
/// main stream at the same time. Every entry is computed by one call or tile of fixed shape and order, so the
/// result is deterministic for a given GPU, sizes and library build.
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
};

void plan_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl) {
  pl.plain.clear();
  pl.mma.clear();
  pl.tiles64 = pl.tiles128 = 0;
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

/// Runs a plan whose pl.mma is on the device at dmma (uploaded on st or before it).
void launch_updates(const UpdatePlan& pl, const UpdateTask* dmma, SideBlas& side, cudaStream_t st) {
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

void run_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl, DeviceBuffer<UpdateTask>& dmma, SideBlas& side,
                 cudaStream_t st) {
  plan_updates(upd, pl);
  if (!pl.mma.empty()) dmma.upload(pl.mma.data(), pl.mma.size(), st);
  launch_updates(pl, dmma.get(), side, st);
}

/// Largest per-level sizes of the buffers the level loop uses (before delays).
struct LevelPlan {
  long long fronts = 0;      ///< sum of m^2 over a level's fronts
  long long front_pair = 0;  ///< the largest sum of two consecutive levels' fronts (a level is assembled
                             ///< from the contribution blocks left in its children's fronts)
  long long rows = 0;    ///< sum of m
  long long w = 0;       ///< sum of (m - ncol) * ncol + 64 * ncol (W of the contribution and window updates)
  long long w_cb = 0;    ///< sum of round_up_align(m - ncol) * ncol (W of the contribution updates alone)
  long long nf = 0;      ///< fronts
};

/// Fronts are stored with a leading dimension rounded up to front_align doubles, and placed so that their
/// contribution block (row and column p) starts on a multiple of front_align: the operands of the plain
/// cublasDgemm pieces (rows of L, the contribution block, and W, whose leading dimension is rounded the same
/// way) are then 64-byte aligned. cuBLAS 13 runs 64-byte-aligned operands ~25% faster than 8-byte-aligned ones,
/// and only-16-byte-aligned ones slower still (bench/NOTES.md, session 12).
constexpr int front_align = 8;
inline long long round_up_align(long long v) { return (v + front_align - 1) / front_align * front_align; }

/// skip: nodes the level loop does not take (the small fronts'; may be empty).
LevelPlan level_plan(const Symbolic& sym, const Vector<unsigned char>& skip) {
  LevelPlan pl;
  long long fronts_prev = 0;
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
    long long fronts = 0, rows = 0, w = 0, w_cb = 0;
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      if (!skip.empty() && skip[sym.level_nodes[k]]) continue;
      const long long m = sym.nrow(sym.level_nodes[k]), p = sym.ncol(sym.level_nodes[k]), c = m - p;
      fronts += round_up_align(m) * m + front_align;
      rows += m;
      w += c * p + (64 + front_align) * p + p * std::min<long long>(p, outer_block);
      w_cb += round_up_align(c) * p;
    }
    pl.fronts = std::max(pl.fronts, fronts);
    pl.front_pair = std::max(pl.front_pair, fronts + fronts_prev);
    pl.rows = std::max(pl.rows, rows);
    pl.w = std::max(pl.w, w);
    pl.w_cb = std::max(pl.w_cb, w_cb);
    long long nf = 0;
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) nf += skip.empty() || !skip[sym.level_nodes[k]];
    pl.nf = std::max(pl.nf, nf);
    fronts_prev = fronts;
  }
  return pl;
}

/// The memory plan: L with 10% slack for delayed pivots (as SPRAL), the fronts of two consecutive levels
/// (a level's fronts and its children's, whose contribution blocks it assembles), the values and the
/// analysis' maps.
/// Checked against the device's free memory before anything big is allocated, so that a problem too large
/// for the GPU fails at once with a clear message (Error(allocation), flag -50) instead of half-way.
/// Buffers still grow between levels when delays outgrow the plan; a real out-of-memory then is the same
/// error with the CUDA message. Returns whether the level loop's work buffers (scratch of the window steps,
/// W) fit as well with their 10% slack: then they are allocated once, before the loop.
bool check_device_memory(const Symbolic& sym, const LevelPlan& pl, long long l_guess, double small_bytes) {
  const double need = 8.0 * (static_cast<double>(l_guess) + pl.front_pair + sym.nnz_in) +
                      4.0 * (static_cast<double>(sym.rlist.size()) * 2 + sym.amap.size() * 3) + small_bytes;
  const double work = 8.0 * 1.1 * (static_cast<double>(pl.rows) * (64 + 128 + 2) + pl.w + pl.w_cb + 4096.0 * pl.nf) +
                      4.0 * 1.1 * (4.0 * pl.rows + pl.nf) + 8.0 * 0.1 * pl.front_pair;
  std::size_t free_b = 0, total_b = 0;
  check_cuda(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  if (need > static_cast<double>(free_b))
    throw Error(flag::allocation, "the GPU factorization needs about " + std::to_string(need / (1 << 30)) +
                                      " GiB of device memory, only " + std::to_string(free_b / double(1 << 30)) +
                                      " GiB are free");
  return need + work < 0.9 * static_cast<double>(free_b);
}

/// Per-node results kept on the host while levels are processed.
using NodeInfo = GpuNodeInfo;

}  // namespace

std::pair<int, double> set_gpu_plain_gemm_bounds(int min_dim, double work) {
  const std::pair<int, double> old{plain_gemm_min, plain_gemm_work};
  plain_gemm_min = std::max(1, min_dim);
  plain_gemm_work = std::max(0.0, work);
  return old;
}

bool set_gpu_prepared_updates(bool on) {
  const bool old = prepared_updates;
  prepared_updates = on;
  return old;
}

bool set_gpu_small_fronts(bool on) {
  const bool old = small_fronts_on;
  small_fronts_on = on;
  return old;
}

bool gpu_available(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (why) *why = e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  return true;
}

void factor_multifrontal_gpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform) {
  std::string why;
  if (!gpu_available(&why)) throw Error(flag::no_cuda, why);
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto h0 = clock::now();
  const std::shared_ptr<GpuSymbolic> gs = gpu_symbolic(sym);
  // L, D and the row lists become part of the factors: taken from the analysis' block cache or allocated. Declared
  // before the workspace, whose release waits for the stream: if the factorization fails they go back to the cache
  // only after that.
  DeviceBuffer<double> dL, dDs;
  DeviceBuffer<int> dRows;
  dL.use_cache(gs->blocks);
  dDs.use_cache(gs->blocks);
  dRows.use_cache(gs->blocks);
  WorkspaceLease lease(*gs);
  FactorWorkspace& ws = *lease;
  const auto h0_lease = clock::now();
  Stream& stream = ws.stream;
  const cudaStream_t st = stream.get();
  SideBlas& side_blas = ws.side_blas;
  const bool posdef = mode == Mode::posdef;
  DenseParams prm;
  prm.u = posdef ? 0.0 : std::min(0.5, std::max(0.0, options.u));
  prm.small = options.small;
  prm.posdef = posdef ? 1 : 0;

  DeviceBuffer<double>& dval = ws.val;
  DeviceBuffer<double>& dscale = ws.scale;
  dval.upload(val, static_cast<size_t>(sym.nnz_in), st);
  if (scale) dscale.upload(scale, static_cast<size_t>(sym.n), st);
  const auto h0_values = clock::now();

  DeviceBuffer<double>&dF = ws.F, &dFprev = ws.Fprev, &dDlev = ws.Dlev, &dLt = ws.Lt, &dS = ws.S, &dW = ws.W,
  &dLines = ws.Lines;
  DeviceBuffer<int>&dVars = ws.Vars, &dScr = ws.Scr, &dQ = ws.Q;
  DeviceBuffer<WindowResult>& dRes = ws.Res;
  DeviceBuffer<FrontDesc>& dFronts = ws.Fronts;
  DeviceBuffer<ChildTask>& dChild = ws.Child;
  DeviceBuffer<WindowTask>& dWin = ws.Win;
  DeviceBuffer<FormWTask>& dFormW = ws.FormW;
  DeviceBuffer<UpdateTask>& dUpd = ws.Upd;
  DeviceBuffer<CopyOutTask>& dCopy = ws.Copy;
  DeviceBuffer<double>& dWcb = ws.Wcb;
  DeviceBuffer<FormWTask>& dFormWcb = ws.FormWcb;
  DeviceBuffer<UpdateTask>& dUpdCb = ws.UpdCb;

  {  // the side streams' cuBLAS handles now, if some front may have pieces for them
    index_t big = 0;
    for (index_t nd = 0; nd < sym.nsup; ++nd) big = std::max(big, sym.nrow(nd) - sym.ncol(nd));
    if (big >= 2 * plain_gemm_min) side_blas.create();
  }
  Vector<NodeInfo> info(sym.nsup);
  long long l_used = 0, rows_used = 0, d_used = 0;
  const long long l_guess = static_cast<long long>(sym.num_factor + sym.num_factor / 10) + 1;
  std::shared_ptr<const SmallDevicePlan> sp;
  if (small_fronts_on) sp = small_plan(*gs, sym, posdef, options.cpu_block_size, st);
  // the level loop's buffers for the nodes the small-front kernel does not take (they grow if it defers some)
  const LevelPlan plan = level_plan(sym, sp ? sp->host.small : Vector<unsigned char>());
  auto small_bytes = [&] {
    const SmallFrontPlan& h = sp->host;
    return 8.0 * (h.l_size + h.d_size + h.cb_size + h.work_size) + 4.0 * h.rows_size + sizeof(SmallResult) * double(sym.nsup);
  };
  const auto h0_plans = clock::now();
  const long long prealloc_key[8] = {plan.fronts, plan.front_pair, plan.rows, plan.w, plan.w_cb, plan.nf, l_guess,
                                     static_cast<long long>(sp ? small_bytes() : 0.0)};
  const bool prepared = ws.preallocated && std::equal(prealloc_key, prealloc_key + 8, ws.preallocated_for);
  const bool preallocate = prepared || check_device_memory(sym, plan, l_guess, sp ? small_bytes() : 0.0);
  const auto h0_memcheck = clock::now();
  const long long small_l = sp ? sp->host.l_size : 0, small_rows = sp ? sp->host.rows_size : 0,
                  small_d = sp ? sp->host.d_size : 0;
  dL.reserve_discard(static_cast<size_t>(l_guess + small_l));
  dRows.reserve_discard(static_cast<size_t>(sym.rlist.size()) + sym.n + 1 + small_rows);
  dDs.reserve_discard(2 * static_cast<size_t>(sym.n) + 2 + small_d);
  if (preallocate) {  // the level loop's buffers once, with 10% slack for delays (cudaMalloc synchronizes)
    auto slack = [](long long v) { return static_cast<size_t>(v + v / 10 + 64); };
    dF.reserve_discard(slack(plan.fronts));
    dFprev.reserve_discard(slack(plan.fronts));
    dVars.reserve_discard(slack(plan.rows));
    dDlev.reserve_discard(slack(2 * plan.rows));
    dLt.reserve_discard(slack(64 * plan.rows));
    dLines.reserve_discard(slack(128 * plan.rows));
    dS.reserve_discard(slack(4096 * plan.nf));
    dScr.reserve_discard(slack(3 * plan.rows + plan.nf));
    dW.reserve_discard(slack(plan.w));
    dWcb.reserve_discard(slack(plan.w_cb));
    ws.preallocated = true;
    std::copy(prealloc_key, prealloc_key + 8, ws.preallocated_for);
  }
  // task arrays for the largest level (window updates and contribution updates: a few per front)
  dFronts.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dChild.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dWin.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dFormW.reserve_discard(2 * static_cast<size_t>(plan.nf) + 16);
  dUpd.reserve_discard(2 * static_cast<size_t>(plan.nf) + 16);
  dFormWcb.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dUpdCb.reserve_discard(2 * static_cast<size_t>(plan.nf) + 16);
  dCopy.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dRes.reserve_discard(static_cast<size_t>(plan.nf) + 16);
  dQ.reserve_discard(2 * static_cast<size_t>(plan.nf) + 32);

  Vector<FrontDesc> fronts;
  Vector<int> kk, ss, active, progress, block_end, block_k0;
  Vector<WindowTask> wins;
  Vector<FormWTask> formw;
  Vector<UpdateTask> upd;
  Vector<int> qhost;
  long long w_size = 0;  // doubles of W the queued updates need
  UpdatePlan upd_plan, cb_plan;

  // Queues C(r0:m, r0:c1) -= L(r0:m, j0:j0+nq) D W^T on front fd, the lower trapezoid, with W = the rows
  // r0:c1 of L(:, j0:j0+nq) D (W's place in dW is an offset until run_queued_updates).
  auto queue_update = [&](const FrontDesc& fd, int r0, int c1, int j0, int nq) {
    const int ncol = c1 - r0;
    if (ncol <= 0 || nq <= 0) return;
    double* F = dF.get() + fd.off;
    FormWTask fw;
    fw.l = F + r0 + static_cast<long long>(j0) * fd.ld;
    fw.d = dDlev.get() + fd.d_off + 2LL * j0;
    fw.w = reinterpret_cast<double*>(w_size);
    fw.ldl = fd.ld;
    fw.nrow = ncol;
    fw.q = nq;
    fw.ldw = static_cast<int>(round_up_align(ncol));  // every W 64-byte aligned (see front_align)
    formw.push_back(fw);
    UpdateTask u;
    u.c = F + r0 + static_cast<long long>(r0) * fd.ld;
    u.ldc = fd.ld;
    u.l = fw.l;
    u.ldl = fd.ld;
    u.w = fw.w;
    u.ldw = fw.ldw;
    u.nrow = fd.m - r0;
    u.ncol = ncol;
    u.kdim = nq;
    upd.push_back(u);
    w_size += static_cast<long long>(fw.ldw) * nq;
  };
  // Forms every queued W and runs the updates (one form_w launch, then run_updates); empties the queue.
  Event ev_formw;
  bool mark_formw = false;  // record ev_formw after the next form_w launch (--print-level 3)
  auto run_queued_updates = [&] {
    if (!upd.empty()) {
      dW.reserve_discard(static_cast<size_t>(w_size));
      for (auto& fw : formw) fw.w = dW.get() + reinterpret_cast<long long>(fw.w);
      for (auto& u : upd) u.w = dW.get() + reinterpret_cast<long long>(u.w);
      dFormW.upload(formw.data(), formw.size(), st);
      long long max_entries = 0;
      for (const auto& fw : formw) max_entries = std::max(max_entries, static_cast<long long>(fw.nrow) * fw.q);
      launch_form_w(dFormW.get(), static_cast<int>(formw.size()), max_entries, st);
      if (mark_formw) ev_formw.record(st);
      run_updates(upd, upd_plan, dUpd, side_blas, st);
    }
    formw.clear();
    upd.clear();
    w_size = 0;
  };
  // The contribution updates of a level are prepared while its first window step runs on the GPU, as if every
  // front eliminated all its candidates (no delays): their tasks, the plan of plain and tensor-core pieces, W in
  // dWcb, uploaded on copy_stream. When the dense phase ends with no delays, the level's updates are then only
  // launches: the GPU does not wait for the host to build and upload them (about 0.1-0.2 ms on each level of
  // a few thousand fronts, bench/NOTES.md, session 13). With delays, they are queued and run as the window
  // updates are. Only when the level loop's buffers are preallocated (dWcb is one more W).
  Stream& copy_stream = ws.copy_stream;
  Event ev_cb_uploaded;
  Vector<FormWTask> cb_formw;
  Vector<UpdateTask> cb_upd;
  long long cb_max_entries = 0;
  auto prepare_cb_updates = [&](const Vector<FrontDesc>& fr) {
    for (const FrontDesc& fd : fr) queue_update(fd, fd.p, fd.m, 0, fd.p);
    dWcb.reserve_discard(static_cast<size_t>(w_size) + 1);  // preallocated; grows only with delays
    cb_max_entries = 0;
    for (auto& fw : formw) {
      fw.w = dWcb.get() + reinterpret_cast<long long>(fw.w);
      cb_max_entries = std::max(cb_max_entries, static_cast<long long>(fw.nrow) * fw.q);
    }
    for (auto& u : upd) u.w = dWcb.get() + reinterpret_cast<long long>(u.w);
    cb_formw.swap(formw);
    cb_upd.swap(upd);
    formw.clear();
    upd.clear();
    w_size = 0;
    plan_updates(cb_upd, cb_plan);
    if (!cb_formw.empty()) dFormWcb.upload(cb_formw.data(), cb_formw.size(), copy_stream.get());
    if (!cb_plan.mma.empty()) dUpdCb.upload(cb_plan.mma.data(), cb_plan.mma.size(), copy_stream.get());
    ev_cb_uploaded.record(copy_stream.get());
  };

  const auto h1 = clock::now();
  // ---- small fronts: the subtrees of small fronts at the bottom of the tree, one launch per level with no host
  // round trip in between (sizes that depend on delays are read from the children's results on the device); then
  // one wait for the results. A node that needed more room for delays than its slot had is deferred: the plan
  // learns its needs and the phase runs again (a node deferred three times is left to the level loop).
  Vector<unsigned char> by_small(static_cast<size_t>(sym.nsup), 0);  // done by the small-front kernel
  DeviceBuffer<double>& dCbPool = ws.cb_pool;
  DeviceBuffer<SmallResult>& dSmallRes = ws.small_res;
  int small_runs = 0, small_launches = 0;
  long long small_nodes = 0;
  Event ev_small0, ev_small1;
  double t_small_device = 0.0;  // the kernel's launches of the last run
  if (sp && sp->host.num_small > 0) {
    Vector<SmallResult> hres(static_cast<size_t>(sym.nsup));
    dSmallRes.reserve_discard(static_cast<size_t>(sym.nsup));
    for (;;) {
      ++small_runs;
      const std::shared_ptr<const SmallDevicePlan> run_plan = sp;  // kept alive while pl is used
      const SmallFrontPlan& pl = run_plan->host;
      dL.reserve_discard(static_cast<size_t>(l_guess + pl.l_size));
      dRows.reserve_discard(static_cast<size_t>(sym.rlist.size()) + sym.n + 1 + pl.rows_size);
      dDs.reserve_discard(2 * static_cast<size_t>(sym.n) + 2 + pl.d_size);
      dCbPool.reserve_discard(static_cast<size_t>(pl.cb_size) + 1);
      ws.small_work.reserve_discard(static_cast<size_t>(pl.work_size) + 1);
      SmallFrontArgs a{};
      a.slots = sp->slots.get();
      a.res = dSmallRes.get();
      a.sptr = gs->sptr.get();
      a.rlist = gs->rlist.get();
      a.perm = gs->perm.get();
      a.cmap = gs->cmap.get();
      a.child_ptr = gs->child_ptr.get();
      a.child_list = gs->child_list.get();
      a.rptr = gs->rptr.get();
      a.tptr = gs->tptr.get();
      a.srcs = gs->srcs.get();
      a.targets = gs->targets.get();
      a.val = dval.get();
      a.scale = scale ? dscale.get() : nullptr;
      a.lstore = dL.get();
      a.rows_store = dRows.get();
      a.dstore = dDs.get();
      a.cb_pool = dCbPool.get();
      a.work = ws.small_work.get();
      a.u = prm.u;
      a.small = prm.small;
      a.ib = pl.ib;
      a.posdef = prm.posdef;
      DeviceBuffer<unsigned long long> dprof;  // --print-level 3: where the kernel's cycles go
      if (options.print_level >= 3) {
        dprof.reserve_discard(8);
        check_cuda(cudaMemsetAsync(dprof.get(), 0, 8 * sizeof(unsigned long long), st), "cudaMemsetAsync");
        a.prof = dprof.get();
      }
      ev_small0.record(st);
      std::vector<std::unique_ptr<Event>> ev_launch;
      for (int L = 0; L < pl.launches(); ++L) {
        a.nodes = sp->nodes.get() + pl.launch_ptr[L];
        launch_small_fronts(a, pl.launch_ptr[L + 1] - pl.launch_ptr[L], pl.launch_m_cap[L], pl.launch_smem_m_cap[L], st);
        if (a.prof) {
          ev_launch.push_back(std::make_unique<Event>());
          ev_launch.back()->record(st);
        }
      }
      ev_small1.record(st);
      small_launches += pl.launches();
      check_cuda(cudaMemcpyAsync(hres.data(), dSmallRes.get(), hres.size() * sizeof(SmallResult),
                                 cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync small-front results");
      stream.sync();
      t_small_device = ev_small1.since(ev_small0);
      for (size_t L = 0; L < ev_launch.size(); ++L)
        std::fprintf(stderr, "ssids gpu factor: small fronts launch %d: %d fronts, m_cap %d, %.3f ms\n",
                     static_cast<int>(L), pl.launch_ptr[L + 1] - pl.launch_ptr[L], pl.launch_m_cap[L],
                     1e3 * ev_launch[L]->since(L ? *ev_launch[L - 1] : ev_small0));
      if (a.prof) {
        unsigned long long c[8];
        check_cuda(cudaMemcpy(c, a.prof, sizeof c, cudaMemcpyDeviceToHost), "cudaMemcpy profile");
        std::fprintf(stderr, "ssids gpu factor: small fronts, summed over blocks (thread 0): cycles start %llu, "
                     "zero+A %llu, children %llu, factor %llu, output %llu; column maxima %llu, trailing updates %llu, "
                     "1x1 pivots %llu\n", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
      }
      for (index_t s = 0; s < sym.nsup; ++s)
        if (pl.small[s] && hres[s].state == small_not_posdef)
          throw Error(flag::not_posdef, "matrix is not positive definite: pivot of column " +
                                            std::to_string(hres[s].fail_var) + " (0-based) is not positive");
      bool deferred = false;
      {
        std::lock_guard<std::mutex> lock(gs->small_mutex);
        deferred = learn_small_front_needs(sym, pl, hres.data(), gs->small_needs, small_runs);
        if (deferred) gs->small_plan = make_small_plan(sym, posdef, options.cpu_block_size, gs->small_needs, st);
        if (deferred) sp = gs->small_plan;
      }
      if (deferred) {
        // the fourth run defers nothing (learn_small_front_needs hands nodes deferred three times to the level
        // loop, and the other nodes get the same room and the same results again)
        if (small_runs < 6) continue;
        throw Error(flag::unknown, "internal error: the small-front phase kept deferring nodes");
      }
      for (index_t s = 0; s < sym.nsup; ++s) {
        if (!pl.small[s] || hres[s].state != small_done) continue;
        const SmallResult& r = hres[s];
        const SmallSlot& sl = pl.slots[s];
        NodeInfo& ni = info[s];
        ni.m = r.m;
        ni.p = r.p;
        ni.ndelay = r.p - sym.ncol(s);
        ni.nelim = r.nelim;
        ni.l_off = sl.l_off;
        ni.rows_off = sl.rows_off;
        ni.d_off = sl.d_off;
        ni.front_off = sl.cb_off;  // its contribution block, in dCbPool
        ni.front_ld = r.m - r.nelim;
        by_small[s] = 1;
        ++small_nodes;
      }
      l_used = pl.l_size;
      rows_used = pl.rows_size;
      d_used = pl.d_size;
      break;
    }
  }
  const auto h1s = clock::now();
  Event ev_start, ev_assembled, ev_dense, ev_updated, ev_copied, ev_w0, ev_w1, ev_w2, ev_w3;
  double t_win = 0, t_apply = 0, t_commit = 0;
  long long n_steps = 0;
  double t_assembly = 0, t_dense = 0, t_update = 0, t_other = 0;
  Vector<index_t> lev_nodes;
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
    lev_nodes.clear();
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k)
      if (!by_small[sym.level_nodes[k]]) lev_nodes.push_back(sym.level_nodes[k]);
    const index_t nf = static_cast<index_t>(lev_nodes.size());
    if (nf == 0) continue;
    const auto lev_t0 = clock::now();
    const long long steps_before = n_steps;
    const double win_before = t_win, apply_before = t_apply, commit_before = t_commit;
    ev_start.record(st);
    // ---- fronts of this level
    fronts.resize(nf);
    long long foff = 0, voff = 0, doff = 0;
    for (index_t f = 0; f < nf; ++f) {
      const index_t nd = lev_nodes[f];
      int ndelay = 0;
      for (index_t c = sym.child_ptr[nd]; c < sym.child_ptr[nd + 1]; ++c) {
        const NodeInfo& ci = info[sym.child_list[c]];
        ndelay += ci.p - ci.nelim;
      }
      FrontDesc& d = fronts[f];
      d.node = nd;
      d.ncol = sym.ncol(nd);
      d.ndelay = ndelay;
      d.m = sym.nrow(nd) + ndelay;
      d.p = d.ncol + ndelay;
      d.ld = static_cast<int>(round_up_align(d.m));
      d.off = round_up_align(foff + d.p) - d.p;  // the contribution block on a multiple of front_align
      d.var_off = voff;
      d.d_off = doff;
      foff = d.off + static_cast<long long>(d.ld) * d.m;
      voff += d.m;
      doff += 2LL * d.p;
      info[nd].m = d.m;
      info[nd].p = d.p;
      info[nd].ndelay = ndelay;
      info[nd].front_off = d.off;
      info[nd].front_ld = d.ld;
    }
    dF.reserve_discard(static_cast<size_t>(foff));
    dVars.reserve_discard(static_cast<size_t>(voff));
    dDlev.reserve_discard(static_cast<size_t>(doff) + 2);
    check_cuda(cudaMemsetAsync(dDlev.get(), 0, (static_cast<size_t>(doff) + 2) * sizeof(double), st), "cudaMemsetAsync D");
    dFronts.upload(fronts.data(), fronts.size(), st);
    int max_m = 0;
    for (const auto& fd : fronts) max_m = std::max(max_m, fd.m);
    const int spread = std::max(1, std::min(1024, static_cast<int>(static_cast<long long>(max_m) * max_m / (256 * 64))));
    launch_zero_fronts(dFronts.get(), nf, spread, dF.get(), st);
    launch_init_fronts(dFronts.get(), nf, dF.get(), dVars.get(), gs->perm.get(), gs->sptr.get(), gs->rptr.get(),
                       gs->rlist.get(), st);
    launch_assemble_a(dFronts.get(), nf, dF.get(), gs->tptr.get(), gs->targets.get(), gs->srcs.get(), dval.get(),
                      scale ? dscale.get() : nullptr, st);

    // ---- children's contribution blocks, one launch per child rank (fixed order, no atomics)
    int max_children = 0;
    for (index_t f = 0; f < nf; ++f) {
      const index_t nd = fronts[f].node;
      max_children = std::max<int>(max_children, sym.child_ptr[nd + 1] - sym.child_ptr[nd]);
    }
    Vector<int> delay_pos(nf);
    for (index_t f = 0; f < nf; ++f) delay_pos[f] = fronts[f].ncol;
    for (int r = 0; r < max_children; ++r) {
      Vector<ChildTask> ct;
      for (index_t f = 0; f < nf; ++f) {
        const index_t nd = fronts[f].node;
        if (sym.child_ptr[nd] + r >= sym.child_ptr[nd + 1]) continue;
        const index_t c = sym.child_list[sym.child_ptr[nd] + r];
        const NodeInfo& ci = info[c];
        ChildTask t;
        t.parent = f;
        t.mc = ci.m - ci.nelim;
        t.nd = ci.p - ci.nelim;
        t.delay_pos = delay_pos[f];
        t.child_ncol = sym.ncol(c);
        if (by_small[c]) {  // in the small fronts' pool (front_off, front_ld: its block there)
          t.cb_in_pool = 1;
          t.cb_off = ci.front_off;
          t.cb_ld = ci.front_ld;
        } else {
          t.cb_off = ci.front_off + ci.nelim + static_cast<long long>(ci.nelim) * ci.front_ld;
          t.cb_ld = ci.front_ld;
        }
        t.cmap_off = sym.rptr[c];
        t.child_vars = ci.rows_off;
        t.child_nelim = ci.nelim;
        delay_pos[f] += t.nd;
        if (t.mc > 0) ct.push_back(t);
      }
      if (ct.empty()) continue;
      dChild.upload(ct.data(), ct.size(), st);
      int max_mc = 0;
      for (const auto& t : ct) max_mc = std::max(max_mc, t.mc);
      const int child_spread = std::max(1, std::min(256, max_mc / 64));
      launch_assemble_children(dChild.get(), static_cast<int>(ct.size()), child_spread, dFronts.get(), dF.get(),
                               dVars.get(), dFprev.get(), dCbPool.get(), gs->cmap.get(), dRows.get(), st);
    }

    ev_assembled.record(st);
    // ---- dense partial factorization, window by window
    // Candidates are swept from left to right: a window that fails leaves its columns behind (s grows), a
    // window that succeeds moves its pivots to k and the failures after them. When a sweep reaches the
    // end, a new sweep starts over the failed columns if the last one made progress (they have been
    // updated since they failed), else the front is finished and they are delayed.
    // Two-level blocking: the candidates are taken in blocks of outer_block columns. A window's pivots
    // update only the columns of its block (and the failed candidates before it); the columns after the
    // block are updated once when the block is done, with all its pivots at once (a DGEMM with an inner
    // dimension of up to outer_block instead of max_window).
    kk.assign(nf, 0);
    ss.assign(nf, 0);
    progress.assign(nf, 0);
    active.assign(nf, 0);
    block_end.assign(nf, 0);
    block_k0.assign(nf, 0);
    for (index_t f = 0; f < nf; ++f) active[f] = fronts[f].p > 0;
    bool cb_ready = false;  // prepare_cb_updates has run for this level
    for (;;) {
      wins.clear();
      long long lt_size = 0, scr_size = 0, s_size = 0, row_blocks = 0, line_size = 0;
      for (index_t f = 0; f < nf; ++f) {
        if (!active[f]) continue;
        if (kk[f] + ss[f] >= block_end[f]) {  // a new block of candidates
          block_end[f] = std::min(fronts[f].p, kk[f] + ss[f] + outer_block);
          block_k0[f] = kk[f];
        }
        WindowTask t;
        t.front = f;
        t.k = kk[f];
        t.s = ss[f];
        t.w = std::min(max_window, block_end[f] - kk[f] - ss[f]);
        t.lt_off = lt_size;
        t.scr_off = scr_size;
        t.s_off = s_size;
        t.rb_begin = row_blocks;
        t.line_off = line_size;
        lt_size += static_cast<long long>(fronts[f].m - t.k) * t.w;
        scr_size += commit_scratch_ints(t.s, t.w);
        line_size += commit_line_doubles(fronts[f].m, t.w);
        s_size += static_cast<long long>(t.w) * t.w;
        row_blocks += (fronts[f].m - t.k - t.w + apply_rows - 1) / apply_rows;
        wins.push_back(t);
      }
      if (wins.empty()) break;
      const int nt = static_cast<int>(wins.size());
      dWin.upload(wins.data(), wins.size(), st);
      dLt.reserve_discard(static_cast<size_t>(lt_size));
      dScr.reserve_discard(static_cast<size_t>(scr_size));
      dS.reserve_discard(static_cast<size_t>(s_size));
      dLines.reserve_discard(static_cast<size_t>(line_size));
      dRes.reserve_discard(static_cast<size_t>(nt));
      dQ.reserve_discard(2 * static_cast<size_t>(nt));
      const bool detail_times = options.print_level >= 2;
      if (detail_times) ev_w0.record(st);
      launch_factor_window(dWin.get(), nt, dFronts.get(), dF.get(), dLt.get(), dS.get(), dRes.get(), prm, st);
      if (detail_times) ev_w1.record(st);
      launch_apply_window(dWin.get(), nt, row_blocks, dFronts.get(), dF.get(), dLt.get(), dS.get(), dRes.get(), prm, st);
      if (detail_times) ev_w2.record(st);
      long long max_lt = 0;
      // (the commit copies whole lines of m entries: spread by m * w, not by the (m - k) * w entries of L)
      for (const auto& t : wins) max_lt = std::max(max_lt, static_cast<long long>(fronts[t.front].m) * t.w);
      launch_commit_window(dWin.get(), nt, max_lt, dFronts.get(), dF.get(), dVars.get(), dDlev.get(), dLt.get(), dRes.get(),
                           dQ.get(), dScr.get(), dLines.get(), st);
      if (detail_times) ev_w3.record(st);
      if (preallocate && prepared_updates && !cb_ready) {  // while the step runs
        prepare_cb_updates(fronts);
        cb_ready = true;
      }
      qhost.resize(2 * static_cast<size_t>(nt));
      check_cuda(cudaMemcpyAsync(qhost.data(), dQ.get(), qhost.size() * sizeof(int), cudaMemcpyDeviceToHost, st),
                 "cudaMemcpyAsync pivots accepted");
      stream.sync();
      ++n_steps;
      if (detail_times) {
        t_win += ev_w1.since(ev_w0);
        t_apply += ev_w2.since(ev_w1);
        t_commit += ev_w3.since(ev_w2);
      }
      for (int i = 0; i < nt; ++i) {
        const WindowTask& t = wins[i];
        const FrontDesc& fd = fronts[t.front];
        const int q = qhost[2 * i];
        if (posdef && qhost[2 * i + 1] >= 0) {
          int var = -1;
          const long long at = fd.var_off + t.k + t.s + qhost[2 * i + 1];
          check_cuda(cudaMemcpy(&var, dVars.get() + at, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy variable");
          throw Error(flag::not_posdef, "matrix is not positive definite: pivot of column " + std::to_string(var) +
                                            " (0-based) is not positive");
        }
        if (q > 0) {
          kk[t.front] += q;
          ss[t.front] += t.w - q;
          progress[t.front] = 1;
          const int k = kk[t.front];
          queue_update(fd, k, block_end[t.front], k - q, q);  // the rest of the block
        } else {
          ss[t.front] += t.w;
        }
        if (kk[t.front] + ss[t.front] >= block_end[t.front]) {  // block done: the columns after it
          const int k = kk[t.front], b = block_end[t.front];
          queue_update(fd, b, fd.p, block_k0[t.front], k - block_k0[t.front]);
        }
        if (kk[t.front] < fd.p && ss[t.front] >= fd.p - kk[t.front] && progress[t.front]) {
          ss[t.front] = 0;  // a new sweep over the failed candidates
          progress[t.front] = 0;
          block_end[t.front] = 0;
        }
        if (kk[t.front] == fd.p || ss[t.front] >= fd.p - kk[t.front]) active[t.front] = 0;
      }
      run_queued_updates();
    }

    // ---- roots whose remaining candidates all failed: finish them on the host with a full search
    for (index_t f = 0; f < nf; ++f) {
      const FrontDesc& fd = fronts[f];
      if (fd.m != fd.p || kk[f] == fd.p) continue;
      const int k = kk[f], r = fd.p - k;
      stream.sync();
      Vector<double> blk(static_cast<size_t>(r) * r);
      double* F = dF.get() + fd.off;
      check_cuda(cudaMemcpy2D(blk.data(), r * sizeof(double), F + k + static_cast<long long>(k) * fd.ld,
                              fd.ld * sizeof(double), r * sizeof(double), r, cudaMemcpyDeviceToHost),
                 "cudaMemcpy2D root block");
      Vector<int> perm(r);
      Vector<double> d(2 * static_cast<size_t>(r));
      DenseLdltOptions o;
      o.u = prm.u;
      o.small = prm.small;
      o.block_size = std::max(8, options.cpu_block_size);
      DenseLdltStats stats;
      ldlt_threshold_partial(r, r, blk.data(), r, perm.data(), d.data(), o, stats);
      Vector<int> scr(3 * static_cast<size_t>(r));
      std::copy(perm.begin(), perm.end(), scr.begin());
      dScr.upload(scr.data(), scr.size(), st);
      launch_permute_range(dFronts.get() + f, dF.get(), dVars.get(), k, r, dScr.get(), st);
      check_cuda(cudaMemcpy2DAsync(F + k + static_cast<long long>(k) * fd.ld, fd.ld * sizeof(double), blk.data(),
                                   r * sizeof(double), r * sizeof(double), r, cudaMemcpyHostToDevice, st),
                 "cudaMemcpy2DAsync root block");
      check_cuda(cudaMemcpyAsync(dDlev.get() + fd.d_off + 2LL * k, d.data(), 2 * static_cast<size_t>(r) * sizeof(double),
                                 cudaMemcpyHostToDevice, st),
                 "cudaMemcpyAsync root D");
      stream.sync();
      kk[f] = fd.p;
    }

    ev_dense.record(st);
    const auto upd_h0 = clock::now();
    // ---- contribution blocks: C -= L2 D L2^T with every pivot of the front at once
    bool no_delays = true;
    for (index_t f = 0; f < nf; ++f) {
      info[fronts[f].node].nelim = kk[f];
      no_delays = no_delays && kk[f] == fronts[f].p;
    }
    mark_formw = options.print_level >= 3;
    if (mark_formw) ev_formw.record(st);
    if (cb_ready && no_delays) {  // prepared during the dense phase
      if (!cb_formw.empty()) {
        check_cuda(cudaStreamWaitEvent(st, ev_cb_uploaded.get(), 0), "cudaStreamWaitEvent");
        launch_form_w(dFormWcb.get(), static_cast<int>(cb_formw.size()), cb_max_entries, st);
        if (mark_formw) ev_formw.record(st);
        launch_updates(cb_plan, dUpdCb.get(), side_blas, st);
      }
    } else {
      for (index_t f = 0; f < nf; ++f) queue_update(fronts[f], fronts[f].p, fronts[f].m, 0, kk[f]);
      run_queued_updates();
    }
    mark_formw = false;
    const double upd_host = secs(upd_h0, clock::now());

    ev_updated.record(st);
    // ---- copy L, D and the row lists out of the fronts (the contribution blocks stay for the next level)
    Vector<CopyOutTask> co(nf);
    long long l_need = 0, rows_need = 0, d_need = 0;
    for (index_t f = 0; f < nf; ++f) {
      const FrontDesc& fd = fronts[f];
      NodeInfo& ni = info[fd.node];
      CopyOutTask& t = co[f];
      t.front = f;
      t.nelim = ni.nelim;
      t.l_off = ni.l_off = l_used + l_need;
      t.rows_off = ni.rows_off = rows_used + rows_need;
      t.dstore_off = ni.d_off = d_used + d_need;
      l_need += static_cast<long long>(fd.m) * ni.nelim;
      rows_need += fd.m;
      d_need += 2LL * ni.nelim;
    }
    dL.reserve_keep(static_cast<size_t>(l_used + l_need), static_cast<size_t>(l_used), st);
    dRows.reserve_keep(static_cast<size_t>(rows_used + rows_need), static_cast<size_t>(rows_used), st);
    dDs.reserve_keep(static_cast<size_t>(d_used + d_need), static_cast<size_t>(d_used), st);
    dCopy.upload(co.data(), co.size(), st);
    launch_copy_out(dCopy.get(), nf, spread, dFronts.get(), dF.get(), dVars.get(), dDlev.get(), dL.get(), dRows.get(),
                    dDs.get(), st);
    l_used += l_need;
    rows_used += rows_need;
    d_used += d_need;
    ev_copied.record(st);
    stream.sync();  // task arrays and buffers are reused by the next level
    dFprev.swap(dF);
    t_assembly += ev_assembled.since(ev_start);
    t_dense += ev_dense.since(ev_assembled);
    t_update += ev_updated.since(ev_dense);
    t_other += ev_copied.since(ev_updated);
    if (options.print_level >= 3) {
      int mmax = 0, pmax = 0;
      double upd_flops = 0.0;  // the contribution updates' flops (lower triangles: k (m - p)^2 per front)
      for (index_t f = 0; f < nf; ++f) {
        const FrontDesc& fd = fronts[f];
        mmax = std::max(mmax, fd.m);
        pmax = std::max(pmax, fd.p);
        upd_flops += static_cast<double>(kk[f]) * (fd.m - fd.p) * (fd.m - fd.p);
      }
      std::fprintf(stderr, "ssids gpu factor: level %d: %d fronts, largest m %d, p %d; %lld window steps; wall %.3f ms, "
                   "device assembly %.3f, dense %.3f (factor_window %.3f, apply_window %.3f, commit_window %.3f), update %.3f "
                   "(%.0f GFlop/s; host %.3f, form_w %.3f), other %.3f ms\n", static_cast<int>(lev), static_cast<int>(nf), mmax, pmax, n_steps - steps_before,
                   1e3 * secs(lev_t0, clock::now()), 1e3 * ev_assembled.since(ev_start), 1e3 * ev_dense.since(ev_assembled),
                   1e3 * (t_win - win_before), 1e3 * (t_apply - apply_before), 1e3 * (t_commit - commit_before),
                   1e3 * ev_updated.since(ev_dense), upd_flops / std::max(1e-9, ev_updated.since(ev_dense)) * 1e-9, 1e3 * upd_host,
                   1e3 * ev_formw.since(ev_dense),
                   1e3 * ev_copied.since(ev_updated));
    }
  }

  const auto h2 = clock::now();
  // ---- L stays on the device (the host copy is made on first use); D and the row lists come back
  if (posdef && l_used) {  // L D L^T with D > 0 -> the Cholesky factor L D^{1/2}, on the device
    Vector<ScaleColumn> cols;
    cols.reserve(static_cast<size_t>(sym.n));
    for (index_t s = 0; s < sym.nsup; ++s) {
      const NodeInfo& ni = info[s];
      for (int j = 0; j < ni.nelim; ++j)
        cols.push_back(ScaleColumn{ni.l_off + static_cast<long long>(j) * ni.m + j, ni.d_off + 2LL * j, ni.m - j});
    }
    DeviceBuffer<ScaleColumn> dcols;
    dcols.upload(cols.data(), cols.size(), st);
    launch_scale_columns(dcols.get(), static_cast<int>(cols.size()), dL.get(), dDs.get(), st);
    stream.sync();
  }
  // through page-locked memory kept with the workspace (one copy each, at full bandwidth)
  const size_t d_count = static_cast<size_t>(d_used), rows_count = static_cast<size_t>(rows_used);
  ws.host_stage.reserve_discard(d_count + (rows_count + 1) / 2 + 1);
  double* const hD = ws.host_stage.get();
  int* const hRows = reinterpret_cast<int*>(hD + d_count);
  if (d_used) check_cuda(cudaMemcpyAsync(hD, dDs.get(), d_count * sizeof(double), cudaMemcpyDeviceToHost, st), "copy D");
  if (rows_used) check_cuda(cudaMemcpyAsync(hRows, dRows.get(), rows_count * sizeof(int), cudaMemcpyDeviceToHost, st), "copy rows");
  stream.sync();
  const auto h2b = clock::now();

  out.n = sym.n;
  {  // the host tables in the memory of destroyed factors of this analysis (see HostTablePool)
    std::shared_ptr<HostTablePool> pool;
    {
      std::lock_guard<std::mutex> lock(sym.gpu_cache->mutex);
      if (!sym.gpu_cache->table_pool) sym.gpu_cache->table_pool = std::make_shared<HostTablePool>();
      pool = std::static_pointer_cast<HostTablePool>(sym.gpu_cache->table_pool);
    }
    if (out.nodes.empty() && out.rows.empty() && out.pivot_var.empty() && out.d.empty() && out.dinv.empty())
      pool->take(out);
    out.table_pool = std::move(pool);
  }
  out.pivot_var.resize(sym.n);
  const GpuFactorCounts counts = fill_host_tables(sym.n, info, hRows, hD, posdef, out);
  if (counts.eliminated != sym.n)
    throw Error(flag::unknown, "internal error: the GPU factorization did not eliminate every column");

  // ---- the factors stay on the device, with the plan of the GPU solve
  const auto h3 = clock::now();
  SolvePlanTimes plan_times;
  {
    Vector<DeviceNodeInfo> dinfo(static_cast<size_t>(sym.nsup));
    for (index_t s = 0; s < sym.nsup; ++s) {
      dinfo[s].m = info[s].m;
      dinfo[s].ne = info[s].nelim;
      dinfo[s].l_off = info[s].l_off;
      dinfo[s].rows_off = info[s].rows_off;
      dinfo[s].d_off = info[s].d_off;
    }
    std::shared_ptr<DeviceDiag> diag;
    out.device = build_device_factors(sym, dinfo, hRows, rows_count, dL, static_cast<size_t>(l_used), dRows, posdef,
                                      options.presolve, scale ? dscale.get() : nullptr, dDs.get(), &diag, st,
                                      &plan_times, gs->blocks);
    out.device_diag = std::move(diag);
    out.host_l = std::make_shared<HostCopyOfL>();
    out.mode = mode;
    inform.time_gpu_presolve = plan_times.presolve;
  }
  if (options.print_level > 0)
    std::fprintf(stderr, "ssids gpu factor: setup and uploads %.3f ms, small fronts %.3f ms (device %.3f ms; %lld of %d nodes, "
                 "%d launches, %d runs), levels %.3f ms (device: assembly %.3f, dense %.3f, update %.3f, other %.3f ms), D and rows to "
                 "host %.3f ms, solve plan %.3f ms (presolve %.3f ms)\n",
                 1e3 * secs(h0, h1), 1e3 * secs(h1, h1s), 1e3 * t_small_device, small_nodes, static_cast<int>(sym.nsup), small_launches,
                 small_runs, 1e3 * secs(h1s, h2), 1e3 * t_assembly, 1e3 * t_dense, 1e3 * t_update, 1e3 * t_other,
                 1e3 * secs(h2, h3), 1e3 * secs(h3, clock::now()), 1e3 * inform.time_gpu_presolve);
  if (options.print_level >= 2) {
    std::fprintf(stderr, "ssids gpu factor: %lld window steps; device factor_window %.3f ms, apply_window %.3f ms, "
                 "commit_window %.3f ms\n", n_steps, 1e3 * t_win, 1e3 * t_apply, 1e3 * t_commit);
    std::fprintf(stderr, "ssids gpu factor: setup: analysis and workspace %.3f ms, values upload %.3f ms, plans %.3f ms, "
                 "memory check %.3f ms, reservations %.3f ms\n", 1e3 * secs(h0, h0_lease), 1e3 * secs(h0_lease, h0_values),
                 1e3 * secs(h0_values, h0_plans), 1e3 * secs(h0_plans, h0_memcheck), 1e3 * secs(h0_memcheck, h1));
    std::fprintf(stderr, "ssids gpu factor: D and rows: copies %.3f ms, host tables %.3f ms; solve plan%s: gather map %.3f ms, "
                 "tasks %.3f ms, uploads, D and D^-1 %.3f ms\n", 1e3 * secs(h2, h2b), 1e3 * secs(h2b, h3),
                 plan_times.reused ? " (the previous factorization's)" : "", 1e3 * plan_times.gather,
                 1e3 * plan_times.tasks, 1e3 * plan_times.upload);
  }
  inform.time_gpu_assembly = t_assembly;
  inform.time_gpu_dense = t_dense;
  inform.time_gpu_update = t_update;
  inform.time_gpu_other = t_other;
  inform.num_delay = counts.num_delay;
  inform.maxfront = counts.maxfront;
  inform.num_factor = counts.num_factor;
  inform.num_flops = counts.num_flops;
  if (posdef) {
    inform.num_neg = 0;
    inform.num_pos = sym.n;
    inform.num_zero = 0;
    inform.num_two = 0;
  } else {
    inform.num_neg = counts.num_neg;
    inform.num_pos = counts.num_pos;
    inform.num_zero = counts.num_zero;
    inform.num_two = counts.num_two;
  }
  inform.matrix_rank = sym.n - inform.num_zero;
}

}  // namespace detail
}  // namespace ssids
