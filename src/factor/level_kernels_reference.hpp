// level_kernels_reference.hpp — the reference kernel set of the level driver (factor/level_driver.hpp): host
// buffers, the CPU twins of the kernels (factor/gpu_twins.hpp), plain host copies, and a clock in place of events.
// Same member signatures as the CUDA set (cuda/level_kernels_cuda.cuh); plain C++, built in every configuration,
// so CI runs the real driver logic (task building, windows, delays, root fallback, pools) without a device.
// Results are bitwise those of the CUDA set with its tensor-core updates off (set_gpu_tensor_core_updates): the
// twins are bitwise equal to the kernels, and every update goes to twin_update, the twin of launch_update.
// With the tensor-core updates on (the default), the CUDA set's updates round differently (and plain cublasDgemm
// pieces of big fronts are cuBLAS's): the factors then agree to rounding only.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "analyse/symbolic.hpp"
#include "cuda/front_tasks.hpp"
#include "factor/gpu_twins.hpp"
#include "factor/level_driver.hpp"
#include "factor/numeric.hpp"
#include "factor/small_front_plan.hpp"
#include "ssids/inform.hpp"
#include "ssids/memory.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// The host counterpart of DeviceBuffer: grows on demand without keeping its contents (except reserve_keep).
/// New room is filled with a poison value (NaN for doubles, -1 bytes otherwise), so that a driver or twin that
/// reads what no one wrote shows in the results instead of reading zeros that a device would not give it.
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void reserve_discard(std::size_t n) {
    if (n <= v_.size()) return;
    Vector<T> fresh(n);
    poison(fresh.data(), n);
    v_.swap(fresh);
  }
  template <class Q>
  void reserve_keep(std::size_t n, std::size_t keep, Q) {
    if (n <= v_.size()) return;
    Vector<T> fresh(n);
    poison(fresh.data(), n);
    std::copy(v_.begin(), v_.begin() + static_cast<std::ptrdiff_t>(std::min(keep, v_.size())), fresh.begin());
    v_.swap(fresh);
  }
  template <class Q>
  void upload(const T* host, std::size_t n, Q) {
    reserve_discard(n);
    std::copy(host, host + n, v_.begin());
  }
  void swap(HostBuffer& o) noexcept { v_.swap(o.v_); }
  T* get() noexcept { return v_.empty() ? nullptr : v_.data(); }
  const T* get() const noexcept { return v_.empty() ? nullptr : v_.data(); }
  std::size_t capacity() const noexcept { return v_.size(); }

 private:
  static void poison(T* p, std::size_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
    } else {
      static_assert(std::is_trivially_copyable_v<T>, "HostBuffer holds plain records");
      std::memset(static_cast<void*>(p), 0xff, n * sizeof(T));
    }
  }
  Vector<T> v_;
};

struct ReferenceLevelKernels {
  template <class T>
  using Buffer = HostBuffer<T>;
  struct Queue {};
  /// Host time of record() (the reference runs everything at once, so since() measures the host work between).
  class Event {
   public:
    void record(Queue) { t_ = std::chrono::steady_clock::now(); }
    double since(const Event& from) const { return std::chrono::duration<double>(t_ - from.t_).count(); }

   private:
    std::chrono::steady_clock::time_point t_{};
  };
  /// The update tasks with their tile numbers of twin_update.
  struct UpdatePlan {
    Vector<UpdateTask> tasks;
    long long tiles = 0;
  };

  Queue main, copy;

  void sync() {}
  void wait(const Event&) {}
  template <class T>
  void to_host(T* h, const T* d, std::size_t n, const char*) { std::copy(d, d + n, h); }
  template <class T>
  void to_host_now(T* h, const T* d, std::size_t n, const char*) { std::copy(d, d + n, h); }
  template <class T>
  void to_device(T* d, const T* h, std::size_t n, const char*) { std::copy(h, h + n, d); }
  void zero(double* d, std::size_t n, const char*) { std::fill(d, d + n, 0.0); }
  void block_to_host_now(double* h, int ldh, const double* d, int ldd, int rows, int cols, const char*) {
    copy_block(h, ldh, d, ldd, rows, cols);
  }
  void block_to_device(double* d, int ldd, const double* h, int ldh, int rows, int cols, const char*) {
    copy_block(d, ldd, h, ldh, rows, cols);
  }

  static void copy_block(double* to, int ldt, const double* from, int ldf, int rows, int cols) {
    for (int j = 0; j < cols; ++j) {
      const double* col = from + static_cast<long long>(j) * ldf;
      std::copy(col, col + rows, to + static_cast<long long>(j) * ldt);
    }
  }

  // ---- the kernels: their twins
  void zero_fronts(const FrontDesc* fronts, int nfronts, int spread, double* fbuf) {
    twin_zero_fronts(fronts, nfronts, spread, fbuf);
  }
  void init_fronts(const FrontDesc* fronts, int nfronts, double* fbuf, int* vars, const int* perm, const int* sptr,
                   const long long* rptr, const int* rlist) {
    twin_init_fronts(fronts, nfronts, fbuf, vars, perm, sptr, rptr, rlist);
  }
  void assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr, const ATarget* targets,
                  const long long* srcs, const double* val, const double* scale) {
    twin_assemble_a(fronts, nfronts, fbuf, tptr, targets, srcs, val, scale);
  }
  void assemble_children(const ChildTask* tasks, int ntasks, int spread, const FrontDesc* fronts, double* fbuf,
                         int* vars, const double* prev_fronts, const double* pool, const int* cmap,
                         const int* rows_store) {
    twin_assemble_children(tasks, ntasks, spread, fronts, fbuf, vars, prev_fronts, pool, cmap, rows_store);
  }
  void window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                     const double* fbuf, double* cmax) {
    twin_window_colmax(tasks, ntasks, nblocks, fronts, fbuf, cmax);
  }
  void factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf, double* lt,
                     double* sbuf, WindowResult* res, const double* cmax, DenseParams prm) {
    twin_factor_window(tasks, ntasks, fronts, fbuf, lt, sbuf, res, cmax, prm);
  }
  void apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                    const double* fbuf, double* lt, const double* sbuf, WindowResult* res, DenseParams prm) {
    twin_apply_window(tasks, ntasks, nblocks, fronts, fbuf, lt, sbuf, res, prm);
  }
  void commit_window(const WindowTask* tasks, int ntasks, long long max_entries, const FrontDesc* fronts,
                     double* fbuf, int* vars, double* dbuf, const double* lt, const WindowResult* res, int* q,
                     int* scratch, double* lines) {
    twin_commit_window(tasks, ntasks, max_entries, fronts, fbuf, vars, dbuf, lt, res, q, scratch, lines);
  }
  void form_w(const FormWTask* tasks, int ntasks, long long max_entries) { twin_form_w(tasks, ntasks, max_entries); }
  void copy_out(const CopyOutTask* tasks, int ntasks, int spread, const FrontDesc* fronts, const double* fbuf,
                const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore) {
    twin_copy_out(tasks, ntasks, spread, fronts, fbuf, vars, dbuf, lstore, rows_store, dstore);
  }
  void permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch) {
    twin_permute_range(front, fbuf, vars, lo, len, scratch);
  }

  // ---- the updates: every task whole to twin_update (the CUDA set's plain cuBLAS pieces included)
  void plan_updates(const Vector<UpdateTask>& upd, UpdatePlan& pl) {
    pl.tasks.clear();
    pl.tiles = 0;
    for (UpdateTask t : upd) {
      if (t.kdim <= 0 || t.nrow <= 0 || t.ncol <= 0) continue;
      t.tile_begin = pl.tiles;
      pl.tiles += twin_update_tiles(t.nrow, t.ncol);
      pl.tasks.push_back(t);
    }
  }
  void upload_updates(const UpdatePlan& pl, Buffer<UpdateTask>& d, Queue q) {
    if (!pl.tasks.empty()) d.upload(pl.tasks.data(), pl.tasks.size(), q);
  }
  void launch_updates(const UpdatePlan& pl, const UpdateTask* d) {
    if (!pl.tasks.empty()) twin_update(d, static_cast<int>(pl.tasks.size()), pl.tiles);
  }
};

/// The small-front phase's output when it ran before the level loop (its CPU twin: twin_small_fronts with the
/// plan's launches, as tests/support_small.hpp runs it): the plan, the results by node, and the host arrays it
/// filled (factor stores of the plan's l_size, rows_size and d_size; the contribution-block pool).
struct SmallPhaseOutput {
  const SmallFrontPlan* plan = nullptr;
  const SmallResult* res = nullptr;
  const double* l = nullptr;
  const int* rows = nullptr;
  const double* d = nullptr;
  const double* cb_pool = nullptr;
};

/// What the reference run did: the level loop's window steps and the roots finished on the host.
struct ReferenceRunStats {
  long long window_steps = 0;
  int roots_finished = 0;
  long long small_nodes = 0;  ///< nodes taken from the small phase
};

/// The level driver with the reference kernels over a whole analysis: the GPU factorization's algorithm on the
/// host. small (optional): the small phase's output, whose finished nodes the level loop takes as the CUDA path
/// does (their contribution blocks from the pool); without it every node goes through the level loop. Fills `out`
/// (host layout, L per node; posdef: L D^{1/2}, as the GPU path leaves it) and the factor counts of `inform`, as
/// factor_multifrontal_gpu does. Throws Error(not_posdef) in posdef mode. For tests and for comparing the CUDA
/// driver with its reference; not a production path (the twins run on one thread).
void factor_levels_reference(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform,
                             ReferenceRunStats* stats = nullptr, const SmallPhaseOutput* small = nullptr);

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
