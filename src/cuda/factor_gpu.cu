// factor_gpu.cu — host driver of the GPU multifrontal factorization: levels from the deepest to the roots,
// one launch per operation and level over task records (Hogg, Ovtchinnikov & Scott 2016, §3).
//
// Device data: the analysis' maps, the small-front plan and an idle workspace (streams, handles, scratch
// buffers) are kept with the analysis (Symbolic::gpu_cache); each factorization uploads the values (and
// scaling). First the small fronts at the bottom of the tree are factorized by the small-front kernel in the
// plan's launches (factor/small_front_plan.hpp), with one wait for their results (cuda/small_fronts.cu); the
// level loop then takes the other fronts: the level driver (factor/level_driver.hpp) with the CUDA kernel set
// (cuda/level_kernels_cuda.cuh), the same driver that CI runs with the kernels' CPU twins. Fronts of a level share one buffer; contribution
// blocks of a level go to one of two buffers that swap roles between levels (the small fronts' stay in the
// kernel's pool). L, D and the row lists stay on the device until the end, when D and the rows are copied into
// the host layout shared with the CPU path.
// Host<->device traffic in the level loop is limited to the pivoting outcome: the number of pivots each
// window accepted (one small copy per dense step) — plus, in the rare case that pivots still fail at a root,
// that root's remaining block, which is finished on the host with a full search.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "common/gpu_warmup.hpp"
#include "common/parallel_copy.hpp"
#include "cuda/cublas_loader.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_factors.cuh"
#include "cuda/front_kernels.cuh"
#include "cuda/level_kernels_cuda.cuh"
#include "cuda/small_fronts.cuh"
#include "factor/factor_gpu.hpp"
#include "factor/factor_tables.hpp"
#include "factor/front_targets.hpp"
#include "factor/level_driver.hpp"
#include "factor/pivot_tests.hpp"
#include "factor/small_front_plan.hpp"
#include "factor/values_check.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

using namespace gpu;

namespace {

bool prepared_updates = true;  // set_gpu_prepared_updates
bool small_fronts_on = true;   // set_gpu_small_fronts

/// The device buffers, streams and cuBLAS handles of one factorization that do not become part of its result.
/// Kept with the analysis (GpuSymbolic::workspaces) and reused by its next factorization: a refactorization then
/// allocates only the factors themselves (each cudaMalloc and cudaFree costs tens of microseconds and
/// cudaFree synchronizes the device, which adds up to about a third of a small problem's factorization).
struct FactorWorkspace {
  Stream stream, copy_stream;
  SideBlas side_blas;
  DeviceBuffer<double> val, scale;
  LevelWork<CudaLevelKernels> level;  // the level loop's buffers
  DeviceBuffer<double> cb_pool;  // contribution blocks of the small-front kernel
  DeviceBuffer<double> small_work;  // its fronts above small_front_max_rows rows
  DeviceBuffer<SmallResult> small_res;
  PinnedBuffer<SmallResult> small_res_host;  // its copy on the host (page-locked: the copy does not block)
  DeviceBuffer<int> small_pending;  // the one-launch small phase's children left per node (counted down)
  PinnedBuffer<double> host_stage;  // D and the row lists on their way back to the host
  PinnedBuffer<double> value_stage;  // large host arrays on their way to the device: two chunks (upload_host)
  std::unique_ptr<Event> value_moved[2];  // each chunk's copy to the device
  DeviceBuffer<int> nonfinite;      // the values check's flag (check_values)
  PinnedBuffer<int> nonfinite_host;
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
  DeviceBuffer<int> tree_leaves, tree_parent, tree_pending;  // SmallFrontPlan::tree's
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
  p->host = plan_small_fronts(sym, posdef, block_size, posdef ? SmallFrontNeeds{} : needs, LaunchGrouping::estimated,
                              small_front_multiprocessors());
  p->posdef = posdef;
  p->block_size = block_size;
  p->slots.upload(p->host.slots.data(), p->host.slots.size(), s);
  p->nodes.upload(p->host.nodes.data(), p->host.nodes.size(), s);
  if (p->host.tree) {
    p->tree_leaves.upload(p->host.tree_leaves.data(), p->host.tree_leaves.size(), s);
    p->tree_parent.upload(p->host.tree_parent.data(), p->host.tree_parent.size(), s);
    p->tree_pending.upload(p->host.tree_pending.data(), p->host.tree_pending.size(), s);
  }
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

bool is_device_pointer(const void* p) {
  if (!p) return false;
  cudaPointerAttributes at{};
  if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
    cudaGetLastError();  // not a pointer CUDA knows (or no device): host memory
    return false;
  }
  return at.type == cudaMemoryTypeDevice || at.type == cudaMemoryTypeManaged;
}

void wait_for_device_values(const void* p) {
  cudaPointerAttributes at{};
  check_cuda(cudaPointerGetAttributes(&at, p), "cudaPointerGetAttributes");
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  const int owner = at.type == cudaMemoryTypeDevice && at.device >= 0 ? at.device : current;
  if (owner != current) check_cuda(cudaSetDevice(owner), "cudaSetDevice");
  const cudaError_t e = cudaDeviceSynchronize();
  if (owner != current) cudaSetDevice(current);
  check_cuda(e, "waiting for the work that writes the values");
}

void copy_device_values(const double* d, offset_t n, Vector<double>& h) {
  h.resize(static_cast<size_t>(n));
  if (n > 0)
    check_cuda(cudaMemcpy(h.data(), d, static_cast<size_t>(n) * sizeof(double), cudaMemcpyDefault),
               "copy of the values to the host");
}

namespace {
/// The warm-up thread's completion; std::async's future waits in its destructor.
struct GpuWarmup {
  std::future<void> done;
};
}  // namespace

std::shared_ptr<void> start_gpu_warmup(bool with_cublas) {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return nullptr;
  auto w = std::make_shared<GpuWarmup>();
  // Every CUDA call, the driver's initialization included, runs on the new thread. With one visible device it is
  // the calling thread's current device too; with several, the caller's choice is not known without initializing
  // CUDA on the calling thread, so nothing is created. A failure is left for the factorization's calls to report.
  w->done = std::async(std::launch::async, [with_cublas] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count != 1 || cudaFree(nullptr) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    if (!with_cublas) return;
    try {  // the library opened and initialized once (a failure is reported by the factorization's own call)
      cublasHandle_t h = nullptr;
      if (cublas().create(&h) == CUBLAS_STATUS_SUCCESS) {
        // cuBLAS loads a GEMM's kernels on its first call (lazy module loading): one product of the shape of the
        // big fronts' update pieces (C -= A B^T, 1024 x 1024 x 256) loads those the factorization will call
        const int m = 1024, k = 256;
        const size_t count = 2 * static_cast<size_t>(m) * k + static_cast<size_t>(m) * m;
        // on a stream of its own that does not synchronize with the caller's streams
        cudaStream_t st = nullptr;
        double* buf = nullptr;
        if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess) st = nullptr;
        if (st && cublas().set_stream(h, st) == CUBLAS_STATUS_SUCCESS &&
            cudaMalloc(&buf, sizeof(double) * count) == cudaSuccess) {
          const double one = 1.0, minus = -1.0;
          if (cudaMemsetAsync(buf, 0, sizeof(double) * count, st) == cudaSuccess)
            cublas().dgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, m, k, &minus, buf, m, buf + m * k, m, &one, buf + 2 * m * k, m);
          cudaStreamSynchronize(st);
        } else {
          buf = nullptr;
        }
        if (buf) cudaFree(buf);
        cublas().destroy(h);
        if (st) cudaStreamDestroy(st);
        cudaGetLastError();
      }
    } catch (...) {
    }
  });
  return w;
}

void wait_gpu_warmup(const std::shared_ptr<void>& handle) {
  if (handle) static_cast<GpuWarmup*>(handle.get())->done.wait();
}

namespace {

using clock = std::chrono::steady_clock;

double secs(clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// Host arrays of at least this many doubles (2 MiB) are uploaded through two pinned chunks of this size
/// (GpuFactorization::upload_host); smaller ones take the driver's path for pageable memory.
constexpr size_t value_chunk = size_t(1) << 18;

/// One GPU factorization, stage by stage; factor_multifrontal_gpu runs the stages in this order:
///   constructor     the CUDA context (the warm-up thread's), the analysis' device tables, a workspace
///   upload_values   the values (from host or device memory) with their check (read at the first wait), the scaling
///   reserve         the plans (small fronts, level loop), the memory check, the factors' and the loop's buffers
///   small_phase     the small-front kernel's launches and one wait for their results (again while nodes defer)
///   level_loop      the other fronts, level by level (factor/level_driver.hpp with the CUDA kernels)
///   download        L D^{1/2} for posdef on the device; D and the row lists to the host
///   device_factors  the factors on the device with the solve plan, the host tables beside it
///   report          --print-level lines and the inform
class GpuFactorization {
 public:
  GpuFactorization(const Symbolic& sym, const double* scale, Mode mode, const Options& options)
      : sym_(sym), scale_(scale), mode_(mode), options_(options), posdef_(mode == Mode::posdef) {
    std::string why;
    if (!gpu_available(&why)) throw Error(flag::no_cuda, why);
    t_.start = clock::now();
    wait_gpu_warmup(sym.gpu_cache->gpu_warmup);
    t_.warm = clock::now();
    gs_ = gpu_symbolic(sym);
    t_.tables = clock::now();
    dL_.use_cache(gs_->blocks);
    dDs_.use_cache(gs_->blocks);
    dRows_.use_cache(gs_->blocks);
    lease_.emplace(*gs_);
    ws_ = &**lease_;
    st_ = ws_->stream.get();
    t_.lease = clock::now();
    prm_.u = posdef_ ? 0.0 : std::min(0.5, std::max(0.0, options.u));
    prm_.small = options.small;
    prm_.posdef = posdef_ ? 1 : 0;
    info_.resize(sym.nsup);
    by_small_.assign(static_cast<size_t>(sym.nsup), 0);
  }

  void upload_values(const double* val, bool val_on_device, bool check_values);
  void upload_host(DeviceBuffer<double>& dst, const double* src, size_t n);
  void finish_values_check();
  void copy_d_and_rows(long long d_count, long long rows_count);
  void reserve();
  void small_phase();
  void level_loop();
  void download();
  void device_factors(NumericFactors& out, Inform& inform);
  void report(Inform& inform) const;

 private:
  /// Launches the small-front kernel over plan pl's launches (the tree launch first when pl.tree).
  void launch_small(const SmallDevicePlan& p, SmallFrontArgs& a, std::vector<std::unique_ptr<Event>>& ev_launch);

  const Symbolic& sym_;
  const double* scale_;
  const Mode mode_;
  const Options& options_;
  const bool posdef_;
  struct {
    clock::time_point start, warm, tables, lease, values, blas, plans, memcheck, reserved, small, levels, downloaded,
        device;
  } t_;
  std::shared_ptr<GpuSymbolic> gs_;
  // L, D and the row lists become part of the factors: taken from the analysis' block cache or allocated. Declared
  // before the workspace, whose release waits for the stream: if the factorization fails they go back to the cache
  // only after that.
  DeviceBuffer<double> dL_, dDs_;
  DeviceBuffer<int> dRows_;
  std::optional<WorkspaceLease> lease_;
  FactorWorkspace* ws_ = nullptr;
  cudaStream_t st_ = nullptr;
  DenseParams prm_;
  Vector<NodeInfo> info_;  ///< where each node's L, rows and D are, and its pivots
  long long l_used_ = 0, rows_used_ = 0, d_used_ = 0;  ///< of dL_, dRows_, dDs_
  long long l_guess_ = 0;                              ///< L's room beside the small fronts' slots
  std::shared_ptr<const SmallDevicePlan> sp_;          ///< null: no small-front phase
  LevelPlan plan_;
  bool preallocate_ = false;
  Vector<unsigned char> by_small_;  ///< by node: done by the small-front kernel
  int small_runs_ = 0, small_launches_ = 0;
  long long small_nodes_ = 0;
  double t_small_device_ = 0.0;  ///< the small-front kernel's launches of the last run
  LevelTimes level_times_;
  double t_host_tables_ = 0.0;
  SolvePlanTimes plan_times_;
  GpuFactorCounts counts_;
  const double* check_val_ = nullptr;  ///< the values the device checks (the caller's array)
  bool check_val_on_device_ = false;
  bool check_pending_ = false;  ///< the device's values check has not been read yet
  bool early_download_ = false;  ///< the last small-front run copied D and the row lists back with its results
};

void GpuFactorization::upload_values(const double* val, bool val_on_device, bool check_values) {
  DeviceBuffer<double>& dval = ws_->val;
  if (val_on_device) {  // the caller's values already in device memory: one copy on the device
    dval.reserve_discard(static_cast<size_t>(sym_.nnz_in));
    if (sym_.nnz_in > 0)
      check_cuda(cudaMemcpyAsync(dval.get(), val, static_cast<size_t>(sym_.nnz_in) * sizeof(double), cudaMemcpyDefault,
                                 st_),
                 "copy of the values on the device");
  } else {
    upload_host(dval, val, static_cast<size_t>(sym_.nnz_in));
  }
  if (check_values) {  // one pass on the device; its answer is read at the next wait (finish_values_check)
    ws_->nonfinite.reserve_discard(1);
    ws_->nonfinite_host.reserve_discard(1);
    check_cuda(cudaMemsetAsync(ws_->nonfinite.get(), 0, sizeof(int), st_), "cudaMemsetAsync");
    launch_count_nonfinite(dval.get(), sym_.nnz_in, ws_->nonfinite.get(), st_);
    check_cuda(cudaMemcpyAsync(ws_->nonfinite_host.get(), ws_->nonfinite.get(), sizeof(int), cudaMemcpyDeviceToHost, st_),
               "copy of the values check");
    check_val_ = val;
    check_val_on_device_ = val_on_device;
    check_pending_ = true;
  }
  if (scale_) upload_host(ws_->scale, scale_, static_cast<size_t>(sym_.n));
  t_.values = clock::now();
}

// The device's values check, once the stream has been waited for after it: only if it found a value that is not
// finite, the host search that names the entry (in the caller's array, or in a copy of device values). Called
// before anything computed from the values is looked at.
void GpuFactorization::finish_values_check() {
  if (!check_pending_) return;
  check_pending_ = false;
  if (*ws_->nonfinite_host.get() == 0) return;
  if (!check_val_on_device_) throw_first_nonfinite(sym_, check_val_);
  Vector<double> host;
  copy_device_values(check_val_, sym_.nnz_in, host);
  throw_first_nonfinite(sym_, host.data());
}

// Host arrays of megabytes (the values, the scaling) go through two pinned chunks: the threads copy chunk k
// into one (parallel_copy) while the copy engine moves chunk k-1 out of the other. The driver's own path for
// pageable memory copies on one thread and returns only when its copy has ended. A chunk is refilled only after
// its last copy to the device has ended (its event; one never recorded has ended). Smaller arrays take the
// driver's path.
void GpuFactorization::upload_host(DeviceBuffer<double>& dst, const double* src, size_t n) {
  if (n < value_chunk) {
    dst.upload(src, n, st_);
    return;
  }
  dst.reserve_discard(n);
  ws_->value_stage.reserve_discard(2 * value_chunk);
  for (auto& e : ws_->value_moved)
    if (!e) e = std::make_unique<Event>();
  for (size_t off = 0, k = 0; off < n; off += value_chunk, ++k) {
    const size_t len = std::min(value_chunk, n - off);
    double* const chunk = ws_->value_stage.get() + (k & 1) * value_chunk;
    Event& moved = *ws_->value_moved[k & 1];
    check_cuda(cudaEventSynchronize(moved.get()), "cudaEventSynchronize (upload)");
    parallel_copy(chunk, src + off, len, options_.num_threads);
    check_cuda(cudaMemcpyAsync(dst.get() + off, chunk, len * sizeof(double), cudaMemcpyHostToDevice, st_),
               "cudaMemcpyAsync H2D (upload)");
    moved.record(st_);
  }
}

void GpuFactorization::reserve() {
  {  // the side streams' cuBLAS handles now, if some front may have pieces for them
    index_t big = 0;
    for (index_t nd = 0; nd < sym_.nsup; ++nd) big = std::max(big, sym_.nrow(nd) - sym_.ncol(nd));
    if (big >= 2 * plain_gemm_min_dim()) ws_->side_blas.create();
  }
  t_.blas = clock::now();
  l_guess_ = static_cast<long long>(sym_.num_factor + sym_.num_factor / 10) + 1;
  if (small_fronts_on) sp_ = small_plan(*gs_, sym_, posdef_, options_.cpu_block_size, st_);
  // the level loop's buffers for the nodes the small-front kernel does not take (they grow if it defers some)
  plan_ = level_plan(sym_, sp_ ? sp_->host.small : Vector<unsigned char>());
  double small_bytes = 0.0;
  if (sp_) {
    const SmallFrontPlan& h = sp_->host;
    small_bytes = 8.0 * (h.l_size + h.d_size + h.cb_size + h.work_size) + 4.0 * h.rows_size +
                  sizeof(SmallResult) * double(sym_.nsup);
  }
  t_.plans = clock::now();
  const long long prealloc_key[8] = {plan_.fronts, plan_.front_pair, plan_.rows, plan_.w, plan_.w_cb, plan_.nf,
                                     l_guess_, static_cast<long long>(small_bytes)};
  const bool prepared = ws_->preallocated && std::equal(prealloc_key, prealloc_key + 8, ws_->preallocated_for);
  preallocate_ = prepared || check_device_memory(sym_, plan_, l_guess_, small_bytes);
  t_.memcheck = clock::now();
  const long long small_l = sp_ ? sp_->host.l_size : 0, small_rows = sp_ ? sp_->host.rows_size : 0,
                  small_d = sp_ ? sp_->host.d_size : 0;
  dL_.reserve_discard(static_cast<size_t>(l_guess_ + small_l));
  dRows_.reserve_discard(static_cast<size_t>(sym_.rlist.size()) + sym_.n + 1 + small_rows);
  dDs_.reserve_discard(2 * static_cast<size_t>(sym_.n) + 2 + small_d);
  LevelWork<CudaLevelKernels>& lw = ws_->level;
  if (preallocate_) {  // the level loop's buffers once, with 10% slack for delays (cudaMalloc synchronizes)
    auto slack = [](long long v) { return static_cast<size_t>(v + v / 10 + 64); };
    lw.F.reserve_discard(slack(plan_.fronts));
    lw.Fprev.reserve_discard(slack(plan_.fronts));
    lw.Vars.reserve_discard(slack(plan_.rows));
    lw.Dlev.reserve_discard(slack(2 * plan_.rows));
    lw.Lt.reserve_discard(slack(64 * plan_.rows));
    lw.Lines.reserve_discard(slack(128 * plan_.rows));
    lw.S.reserve_discard(slack(4096 * plan_.nf));
    lw.Scr.reserve_discard(slack(3 * plan_.rows + plan_.nf));
    lw.W.reserve_discard(slack(plan_.w));
    lw.Wcb.reserve_discard(slack(plan_.w_cb));
    ws_->preallocated = true;
    std::copy(prealloc_key, prealloc_key + 8, ws_->preallocated_for);
  }
  // task arrays for the largest level (window updates and contribution updates: a few per front)
  const size_t nf = static_cast<size_t>(plan_.nf);
  lw.Fronts.reserve_discard(nf + 16);
  lw.Child.reserve_discard(nf + 16);
  lw.Win.reserve_discard(nf + 16);
  lw.FormW.reserve_discard(2 * nf + 16);
  lw.Upd.reserve_discard(2 * nf + 16);
  lw.FormWcb.reserve_discard(nf + 16);
  lw.UpdCb.reserve_discard(2 * nf + 16);
  lw.Copy.reserve_discard(nf + 16);
  lw.Res.reserve_discard(nf + 16);
  lw.Q.reserve_discard(2 * nf + 32);
  if (!sp_ || sp_->host.num_small == 0) {  // no small-front phase whose wait would bring the values check back
    ws_->stream.sync();
    finish_values_check();
  }
  t_.reserved = clock::now();
}

void GpuFactorization::launch_small(const SmallDevicePlan& p, SmallFrontArgs& a,
                                    std::vector<std::unique_ptr<Event>>& ev_launch) {
  const SmallFrontPlan& pl = p.host;
  for (int L = 0; L < pl.launches(); ++L) {
    if (L == 0 && pl.tree) {  // launch 0 as one tree; the children left per node start from the plan's
      ws_->small_pending.reserve_discard(static_cast<size_t>(sym_.nsup));
      check_cuda(cudaMemcpyAsync(ws_->small_pending.get(), p.tree_pending.get(), sizeof(int) * sym_.nsup,
                                 cudaMemcpyDeviceToDevice, st_), "cudaMemcpyAsync small-front counts");
      a.nodes = p.tree_leaves.get();
      launch_small_tree(a, static_cast<int>(pl.tree_leaves.size()), p.tree_parent.get(), ws_->small_pending.get(),
                        pl.launch_fast_bytes[0], pl.tree_with_work, st_);
    } else {
      a.nodes = p.nodes.get() + pl.launch_ptr[L];
      launch_small_fronts(a, pl.launch_ptr[L + 1] - pl.launch_ptr[L], pl.launch_m_cap[L], pl.launch_fast_bytes[L],
                          st_);
    }
    if (a.prof) {
      ev_launch.push_back(std::make_unique<Event>());
      ev_launch.back()->record(st_);
    }
  }
}

// The subtrees of small fronts at the bottom of the tree, in the plan's launches (each node after its children)
// with no host round trip in between (sizes that depend on delays are read from the children's results on the
// device); then one wait for the results. A node that needed more room for delays than its slot had is deferred:
// the plan learns its needs and the phase runs again (a node deferred three times is left to the level loop).
void GpuFactorization::small_phase() {
  if (!sp_ || sp_->host.num_small == 0) {
    t_.small = clock::now();
    return;
  }
  DeviceBuffer<SmallResult>& dSmallRes = ws_->small_res;
  Event ev_small0, ev_small1;
  ws_->small_res_host.reserve_discard(static_cast<size_t>(sym_.nsup));
  const SmallResult* const hres = ws_->small_res_host.get();
  dSmallRes.reserve_discard(static_cast<size_t>(sym_.nsup));
  for (;;) {
    ++small_runs_;
    const std::shared_ptr<const SmallDevicePlan> run_plan = sp_;  // kept alive while pl is used
    const SmallFrontPlan& pl = run_plan->host;
    dL_.reserve_discard(static_cast<size_t>(l_guess_ + pl.l_size));
    dRows_.reserve_discard(static_cast<size_t>(sym_.rlist.size()) + sym_.n + 1 + pl.rows_size);
    dDs_.reserve_discard(2 * static_cast<size_t>(sym_.n) + 2 + pl.d_size);
    ws_->cb_pool.reserve_discard(static_cast<size_t>(pl.cb_size) + 1);
    ws_->small_work.reserve_discard(static_cast<size_t>(pl.work_size) + 1);
    SmallFrontArgs a{};
    a.slots = run_plan->slots.get();
    a.res = dSmallRes.get();
    a.sptr = gs_->sptr.get();
    a.rlist = gs_->rlist.get();
    a.perm = gs_->perm.get();
    a.cmap = gs_->cmap.get();
    a.child_ptr = gs_->child_ptr.get();
    a.child_list = gs_->child_list.get();
    a.rptr = gs_->rptr.get();
    a.tptr = gs_->tptr.get();
    a.srcs = gs_->srcs.get();
    a.targets = gs_->targets.get();
    a.val = ws_->val.get();
    a.scale = scale_ ? ws_->scale.get() : nullptr;
    a.lstore = dL_.get();
    a.rows_store = dRows_.get();
    a.dstore = dDs_.get();
    a.cb_pool = ws_->cb_pool.get();
    a.work = ws_->small_work.get();
    a.u = prm_.u;
    a.small = prm_.small;
    a.ib = pl.ib;
    a.posdef = prm_.posdef;
    DeviceBuffer<unsigned long long> dprof;  // --print-level 3 in a profiling build: where the kernel's cycles go
#if defined(SSIDS_KERNEL_PROFILE)
    if (options_.print_level >= 3) {
      dprof.reserve_discard(16);
      check_cuda(cudaMemsetAsync(dprof.get(), 0, 16 * sizeof(unsigned long long), st_), "cudaMemsetAsync");
      a.prof = dprof.get();
    }
#endif
    ev_small0.record(st_);
    std::vector<std::unique_ptr<Event>> ev_launch;
    launch_small(*run_plan, a, ev_launch);
    ev_small1.record(st_);
    small_launches_ += pl.launches();
    check_cuda(cudaMemcpyAsync(ws_->small_res_host.get(), dSmallRes.get(),
                               static_cast<size_t>(sym_.nsup) * sizeof(SmallResult), cudaMemcpyDeviceToHost, st_),
               "cudaMemcpyAsync small-front results");
    // every node in this plan: D and the row lists are complete unless a node defers, so they come back with the
    // results (download() then has nothing left to wait for)
    early_download_ = pl.num_small == sym_.nsup;
    if (early_download_) copy_d_and_rows(pl.d_size, pl.rows_size);
    ws_->stream.sync();
    finish_values_check();  // before the results of values that may not be finite are looked at
    t_small_device_ = ev_small1.since(ev_small0);
    for (size_t L = 0; L < ev_launch.size(); ++L)
      std::fprintf(stderr, "ssids gpu factor: small fronts launch %d: %d fronts, m_cap %d, %.3f ms\n",
                   static_cast<int>(L), pl.launch_ptr[L + 1] - pl.launch_ptr[L], pl.launch_m_cap[L],
                   1e3 * ev_launch[L]->since(L ? *ev_launch[L - 1] : ev_small0));
    if (a.prof) {
      unsigned long long c[16];
      check_cuda(cudaMemcpy(c, a.prof, sizeof c, cudaMemcpyDeviceToHost), "cudaMemcpy profile");
      std::fprintf(stderr, "ssids gpu factor: small fronts, summed over blocks (thread 0): cycles start %llu, "
                   "zero+A %llu, children %llu, factor %llu (decisions %llu, interchanges %llu, pivot updates %llu, "
                   "window ends %llu, scaling %llu, other %llu), output %llu; column maxima %llu, trailing updates "
                   "%llu, 1x1 pivots %llu\n", c[0], c[1], c[2], c[3] + c[8] + c[9] + c[10] + c[11] + c[12], c[8],
                   c[9], c[10], c[11], c[12], c[3], c[4], c[5], c[6], c[7]);
    } else if (options_.print_level >= 3) {
      std::fprintf(stderr, "ssids gpu factor: small fronts: cycle counters need -DSSIDS_KERNEL_PROFILE=ON\n");
    }
    for (index_t s = 0; s < sym_.nsup; ++s)
      if (pl.small[s] && hres[s].state == small_not_posdef)
        throw Error(flag::not_posdef, "matrix is not positive definite: pivot of column " +
                                          std::to_string(hres[s].fail_var) + " (0-based) is not positive");
    bool deferred = false;
    {
      std::lock_guard<std::mutex> lock(gs_->small_mutex);
      deferred = learn_small_front_needs(sym_, pl, hres, gs_->small_needs, small_runs_);
      if (deferred) gs_->small_plan = make_small_plan(sym_, posdef_, options_.cpu_block_size, gs_->small_needs, st_);
      if (deferred) sp_ = gs_->small_plan;
    }
    if (deferred) {
      // the fourth run defers nothing (learn_small_front_needs hands nodes deferred three times to the level
      // loop, and the other nodes get the same room and the same results again)
      if (small_runs_ < 6) continue;
      throw Error(flag::unknown, "internal error: the small-front phase kept deferring nodes");
    }
    small_nodes_ += take_small_results(sym_, pl, hres, info_, by_small_);
    l_used_ = pl.l_size;
    rows_used_ = pl.rows_size;
    d_used_ = pl.d_size;
    break;
  }
  t_.small = clock::now();
}

void GpuFactorization::level_loop() {
  CudaLevelKernels kernels;
  kernels.main = st_;
  kernels.copy = ws_->copy_stream.get();
  kernels.side = &ws_->side_blas;
  LevelInputs lin;
  lin.maps.perm = gs_->perm.get();
  lin.maps.sptr = gs_->sptr.get();
  lin.maps.rlist = gs_->rlist.get();
  lin.maps.cmap = gs_->cmap.get();
  lin.maps.rptr = gs_->rptr.get();
  lin.maps.tptr = gs_->tptr.get();
  lin.maps.srcs = gs_->srcs.get();
  lin.maps.targets = gs_->targets.get();
  lin.val = ws_->val.get();
  lin.scale = scale_ ? ws_->scale.get() : nullptr;
  lin.cb_pool = ws_->cb_pool.get();
  lin.by_small = by_small_.data();
  lin.prm = prm_;
  lin.cpu_block_size = options_.cpu_block_size;
  lin.print_level = options_.print_level;
  lin.preallocate = preallocate_;
  lin.prepared_updates = prepared_updates;
  LevelStores<CudaLevelKernels> stores{dL_, dRows_, dDs_, info_, l_used_, rows_used_, d_used_};
  LevelDriver<CudaLevelKernels> levels(kernels, &sym_, lin, ws_->level, stores);
  levels.run();
  l_used_ = stores.l_used;
  rows_used_ = stores.rows_used;
  d_used_ = stores.d_used;
  level_times_ = levels.times;
  t_.levels = clock::now();
}

// L stays on the device (the host copy is made on first use); D and the row lists come back through page-locked
// memory kept with the workspace (one copy each, at full bandwidth)
void GpuFactorization::download() {
  if (posdef_ && l_used_) {  // L D L^T with D > 0 -> the Cholesky factor L D^{1/2}, on the device
    Vector<ScaleColumn> cols;
    cols.reserve(static_cast<size_t>(sym_.n));
    for (index_t s = 0; s < sym_.nsup; ++s) {
      const NodeInfo& ni = info_[s];
      for (int j = 0; j < ni.nelim; ++j)
        cols.push_back(ScaleColumn{ni.l_off + static_cast<long long>(j) * ni.m + j, ni.d_off + 2LL * j, ni.m - j});
    }
    DeviceBuffer<ScaleColumn> dcols;
    dcols.upload(cols.data(), cols.size(), st_);
    launch_scale_columns(dcols.get(), static_cast<int>(cols.size()), dL_.get(), dDs_.get(), st_);
    ws_->stream.sync();
  }
  // the small-front phase took every node and already copied D and the row lists back (nothing wrote them since)
  const bool done = early_download_ && small_nodes_ == sym_.nsup;
  if (!done) {
    copy_d_and_rows(d_used_, rows_used_);
    ws_->stream.sync();
  }
  t_.downloaded = clock::now();
}

// The first d_count entries of D and rows_count of the row lists into the page-locked stage (D, then the rows),
// on the stream, not waited for.
void GpuFactorization::copy_d_and_rows(long long d_count, long long rows_count) {
  ws_->host_stage.reserve_discard(static_cast<size_t>(d_count + (rows_count + 1) / 2 + 1));
  double* const hD = ws_->host_stage.get();
  int* const hRows = reinterpret_cast<int*>(hD + d_count);
  if (d_count)
    check_cuda(cudaMemcpyAsync(hD, dDs_.get(), static_cast<size_t>(d_count) * sizeof(double), cudaMemcpyDeviceToHost,
                               st_), "copy D");
  if (rows_count)
    check_cuda(cudaMemcpyAsync(hRows, dRows_.get(), static_cast<size_t>(rows_count) * sizeof(int),
                               cudaMemcpyDeviceToHost, st_), "copy rows");
}

// The factors stay on the device, with the plan of the GPU solve; the host tables (in the memory of destroyed
// factors of this analysis, see HostTablePool) are filled while the device forms D, D^-1 and the presolve inverse.
void GpuFactorization::device_factors(NumericFactors& out, Inform& inform) {
  const size_t d_count = static_cast<size_t>(d_used_), rows_count = static_cast<size_t>(rows_used_);
  const double* const hD = ws_->host_stage.get();
  const int* const hRows = reinterpret_cast<const int*>(hD + d_count);
  out.n = sym_.n;
  auto host_tables = [&] {
    const auto t0 = clock::now();
    std::shared_ptr<HostTablePool> pool;
    {
      std::lock_guard<std::mutex> lock(sym_.gpu_cache->mutex);
      if (!sym_.gpu_cache->table_pool) sym_.gpu_cache->table_pool = std::make_shared<HostTablePool>();
      pool = std::static_pointer_cast<HostTablePool>(sym_.gpu_cache->table_pool);
    }
    if (out.nodes.empty() && out.rows.empty() && out.pivot_var.empty() && out.d.empty() && out.dinv.empty())
      pool->take(out);
    out.table_pool = std::move(pool);
    out.pivot_var.resize(sym_.n);
    counts_ = fill_host_tables(sym_.n, info_, hRows, hD, posdef_, out);
    t_host_tables_ = secs(t0, clock::now());
  };
  Vector<DeviceNodeInfo> dinfo(static_cast<size_t>(sym_.nsup));
  for (index_t s = 0; s < sym_.nsup; ++s) {
    dinfo[s].m = info_[s].m;
    dinfo[s].ne = info_[s].nelim;
    dinfo[s].l_off = info_[s].l_off;
    dinfo[s].rows_off = info_[s].rows_off;
    dinfo[s].d_off = info_[s].d_off;
  }
  std::shared_ptr<DeviceDiag> diag;
  out.device = build_device_factors(sym_, dinfo, hRows, rows_count, dL_, static_cast<size_t>(l_used_), dRows_,
                                    posdef_, options_.presolve, scale_ ? ws_->scale.get() : nullptr, dDs_.get(), &diag,
                                    st_, &plan_times_, gs_->blocks, host_tables);
  if (counts_.eliminated != sym_.n)
    throw Error(flag::unknown, "internal error: the GPU factorization did not eliminate every column");
  out.device_diag = std::move(diag);
  out.host_l = std::make_shared<HostCopyOfL>();
  out.mode = mode_;
  inform.time_gpu_presolve = plan_times_.presolve;
  t_.device = clock::now();
}

void GpuFactorization::report(Inform& inform) const {
  const LevelTimes& lt = level_times_;
  if (options_.print_level > 0)
    std::fprintf(stderr, "ssids gpu factor: setup and uploads %.3f ms, small fronts %.3f ms (device %.3f ms; %lld of %d nodes, "
                 "%d launches, %d runs), levels %.3f ms (device: assembly %.3f, dense %.3f, update %.3f, other %.3f ms), D and rows to "
                 "host %.3f ms, solve plan %.3f ms (presolve %.3f ms)\n",
                 1e3 * secs(t_.start, t_.reserved), 1e3 * secs(t_.reserved, t_.small), 1e3 * t_small_device_,
                 small_nodes_, static_cast<int>(sym_.nsup), small_launches_, small_runs_,
                 1e3 * secs(t_.small, t_.levels), 1e3 * lt.assembly, 1e3 * lt.dense, 1e3 * lt.update, 1e3 * lt.other,
                 1e3 * secs(t_.levels, t_.downloaded), 1e3 * secs(t_.downloaded, t_.device), 1e3 * inform.time_gpu_presolve);
  if (options_.print_level >= 2) {
    std::fprintf(stderr, "ssids gpu factor: %lld window steps; device factor_window %.3f ms, apply_window %.3f ms, "
                 "commit_window %.3f ms\n", lt.steps, 1e3 * lt.window, 1e3 * lt.apply, 1e3 * lt.commit);
    std::fprintf(stderr, "ssids gpu factor: setup: wait for the CUDA context %.3f ms, analysis tables %.3f ms, workspace "
                 "%.3f ms, values upload %.3f ms, side streams and cuBLAS %.3f ms, plans %.3f ms, memory check %.3f ms, "
                 "reservations %.3f ms\n", 1e3 * secs(t_.start, t_.warm), 1e3 * secs(t_.warm, t_.tables),
                 1e3 * secs(t_.tables, t_.lease), 1e3 * secs(t_.lease, t_.values), 1e3 * secs(t_.values, t_.blas),
                 1e3 * secs(t_.blas, t_.plans), 1e3 * secs(t_.plans, t_.memcheck), 1e3 * secs(t_.memcheck, t_.reserved));
    std::fprintf(stderr, "ssids gpu factor: D and rows: copies %.3f ms; solve plan%s: gather map %.3f ms, tasks %.3f ms, "
                 "uploads, D and D^-1 %.3f ms; host tables %.3f ms (while the device forms D)\n",
                 1e3 * secs(t_.levels, t_.downloaded), plan_times_.reused ? " (the previous factorization's)" : "",
                 1e3 * plan_times_.gather, 1e3 * plan_times_.tasks, 1e3 * plan_times_.upload, 1e3 * t_host_tables_);
  }
  inform.time_gpu_assembly = lt.assembly;
  inform.time_gpu_dense = lt.dense;
  inform.time_gpu_update = lt.update;
  inform.time_gpu_other = lt.other;
  inform.num_delay = counts_.num_delay;
  inform.maxfront = counts_.maxfront;
  inform.num_factor = counts_.num_factor;
  inform.num_flops = counts_.num_flops;
  if (posdef_) {
    inform.num_neg = 0;
    inform.num_pos = sym_.n;
    inform.num_zero = 0;
    inform.num_two = 0;
  } else {
    inform.num_neg = counts_.num_neg;
    inform.num_pos = counts_.num_pos;
    inform.num_zero = counts_.num_zero;
    inform.num_two = counts_.num_two;
  }
  inform.matrix_rank = sym_.n - inform.num_zero;
}

}  // namespace

void factor_multifrontal_gpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform, bool check_values,
                             bool val_on_device) {
  GpuFactorization f(sym, scale, mode, options);
  f.upload_values(val, val_on_device, check_values);
  f.reserve();
  f.small_phase();
  f.level_loop();
  f.download();
  f.device_factors(out, inform);
  f.report(inform);
}

}  // namespace detail
}  // namespace ssids
