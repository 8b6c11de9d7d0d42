// solve_gpu.cu — the solve plan built after a GPU factorization and the level-scheduled GPU solve
// (forward, diagonal, backward and their combinations, one or many right-hand sides, on the host or
// already on the device). See solve_kernels.cuh for the scheme.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "cuda/device_factors.cuh"
#include "cuda/solve_gather.hpp"
#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

using namespace gpu;

namespace {
std::atomic<int> compact_blocks_limit{solve_compact_blocks};
std::atomic<int> row_group_limit{solve_row_group};
}

int set_solve_compact_blocks(int blocks) {
  return compact_blocks_limit.exchange(std::max(0, std::min(blocks, solve_compact_blocks)));
}
int set_solve_row_group(int blocks) {
  return row_group_limit.exchange(std::max(1, std::min(blocks, solve_row_group)));
}

std::pair<int, int> solve_task_counts(const NumericFactors& f) {
  if (!f.device) return {0, 0};
  return {f.device->plan->n_fwd_tasks, f.device->plan->n_bwd_tasks};
}

namespace {

/// Whether plan was built for this structure and these settings. Only each node's own rows are compared
/// ([rows_off, rows_off + m), all the plan reads): the rows store also has the unused tails of slots sized for
/// delays, whose contents are whatever the memory held before.
bool same_structure(const SolvePlan& plan, const Vector<DeviceNodeInfo>& info, const int* host_rows,
                    std::size_t n_rows, bool posdef, bool presolve, int compact_limit, int row_group) {
  if (plan.posdef != posdef || plan.presolve != presolve || plan.compact_limit != compact_limit ||
      plan.row_group != row_group || plan.info.size() != info.size() || plan.rows.size() != n_rows)
    return false;
  for (size_t s = 0; s < info.size(); ++s) {
    const DeviceNodeInfo &x = plan.info[s], &y = info[s];
    if (x.m != y.m || x.ne != y.ne || x.l_off != y.l_off || x.rows_off != y.rows_off || x.d_off != y.d_off)
      return false;
  }
  for (const DeviceNodeInfo& x : info)
    if (x.m > 0 && std::memcmp(plan.rows.data() + x.rows_off, host_rows + x.rows_off,
                               static_cast<std::size_t>(x.m) * sizeof(int)) != 0)
      return false;
  return true;
}

/// Builds the solve plan of a factorization with this structure (uploaded on st, not waited for).
std::shared_ptr<SolvePlan> make_solve_plan(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                           const int* host_rows, std::size_t n_rows, bool posdef, bool presolve,
                                           int compact_limit, int row_group, int device, cudaStream_t st,
                                           SolvePlanTimes& tm, std::shared_ptr<DeviceBlockCache> blocks) {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  auto pl = std::make_shared<SolvePlan>();
  pl->device = device;
  pl->blocks = blocks;
  for (DeviceBuffer<int>* b : {&pl->children, &pl->gptr, &pl->gsrc, &pl->pivot_var}) b->use_cache(blocks);
  pl->nodes.use_cache(blocks);
  pl->fwd_tasks.use_cache(blocks);
  pl->bwd_tasks.use_cache(blocks);
  pl->tiles.use_cache(blocks);
  pl->posdef = posdef;
  pl->presolve = presolve;
  pl->compact_limit = compact_limit;
  pl->row_group = row_group;
  pl->info = info;
  pl->rows.assign(host_rows, host_rows + n_rows);
  const index_t nsup = sym.nsup;
  constexpr int T = solve_tile;
  auto too_big = [](long long v) {
    if (v > 2147483647LL) throw Error(flag::allocation, "the GPU solve plan needs more than 2^31 entries");
  };
  // ---- nodes: work-buffer rows, tiles, presolve offsets, the ancestor the backward sweep waits for
  Vector<SolveNode> nodes(static_cast<size_t>(nsup));
  long long total_rows = 0, inv_size = 0, part_slots = 0, pos = 0;
  int total_tiles = 0;
  for (index_t s = 0; s < nsup; ++s) {
    const DeviceNodeInfo& ni = info[s];
    SolveNode& nd = nodes[s];
    nd.l_off = ni.l_off;
    nd.rows_off = ni.rows_off;
    nd.m = ni.m;
    nd.ne = ni.ne;
    nd.buf_off = total_rows;
    total_rows += ni.m;
    nd.nblk = (ni.m + T - 1) / T;
    nd.ntile = (ni.ne + T - 1) / T;
    nd.flag_off = total_tiles;
    total_tiles += nd.ntile;
    nd.inv_off = -1;
    nd.d_off = ni.d_off;
    nd.pos = pos;
    pos += ni.ne;
    if (presolve && ni.ne > 0) {
      nd.inv_off = inv_size;
      inv_size += presolve_inverse_size(nd.ntile);
    }
    index_t p = sym.sparent[s];
    while (p >= 0 && info[p].ne == 0) p = sym.sparent[p];
    nd.wait_node = p;
    const int below = (ni.m - ni.ne + T - 1) / T;  // row blocks below the pivots
    nd.ngroups = below > solve_chunk_blocks ? (below + solve_chunk_blocks - 1) / solve_chunk_blocks : 0;
    nd.part_slot = part_slots;
    part_slots += static_cast<long long>(nd.ntile) * nd.ngroups;
  }
  too_big(total_rows);

  // ---- children passing rows up, and per work-buffer row the children's rows added into it (child order)
  // (in the analysis' host workspace when no other factorization of it holds that, else in fresh memory)
  std::unique_lock<std::mutex> ws_lock(sym.gpu_cache->host_mutex, std::try_to_lock);
  std::shared_ptr<SolveGatherWorkspace> ws;
  if (ws_lock.owns_lock()) {
    if (!sym.gpu_cache->host_workspace) sym.gpu_cache->host_workspace = std::make_shared<SolveGatherWorkspace>();
    ws = std::static_pointer_cast<SolveGatherWorkspace>(sym.gpu_cache->host_workspace);
  } else {
    ws = std::make_shared<SolveGatherWorkspace>();
  }
  const SolveGather& gather = ws->g;
  {
    Vector<int> m(static_cast<size_t>(nsup)), ne(static_cast<size_t>(nsup));
    Vector<long long> rows_off(static_cast<size_t>(nsup)), buf_off(static_cast<size_t>(nsup));
    for (index_t s = 0; s < nsup; ++s) {
      m[s] = info[s].m;
      ne[s] = info[s].ne;
      rows_off[s] = info[s].rows_off;
      buf_off[s] = nodes[s].buf_off;
    }
    build_solve_gather_into(sym, SolveGatherInput{m.data(), ne.data(), rows_off.data(), buf_off.data(),
                                                  host_rows, total_rows},
                            *ws);
    for (index_t s = 0; s < nsup; ++s) {
      nodes[s].child_begin = gather.child_begin[s];
      nodes[s].child_end = gather.child_end[s];
    }
  }
  const Vector<int>& children = gather.children;
  const Vector<int>& gcount = gather.gptr;
  const Vector<int>& gsrc = gather.gsrc;
  const auto t1 = clock::now();
  tm.gather = secs(t0, t1);

  // ---- tasks in ticket order: forward leaves first (deepest level first), row blocks in order (those after
  //      a node's pivots in row groups {s, first, count});
  //      backward roots first, per level the partial tasks of its nodes, then their tiles, last first
  //      (a compact node is one task {s, -1, -1} per sweep; with presolve its pivots must be one super-block)
  auto compact = [&](index_t s) {
    const SolveNode& nd = nodes[s];
    return nd.nblk <= compact_limit && nd.ngroups == 0 && (!presolve || nd.ntile <= solve_inv_tiles);
  };
  Vector<SolveTask> fwd, bwd, tiles;
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev)
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (compact(s)) fwd.push_back(SolveTask{s, -1, -1});
      else
        for (int b = 0; b < nodes[s].nblk;) {
          const int group = std::max(1, std::min(row_group, solve_row_group_items / std::max(1, nodes[s].ntile)));
          const int count = b < nodes[s].ntile ? 1 : std::min(group, nodes[s].nblk - b);
          fwd.push_back(SolveTask{s, b, count > 1 ? count : -1});
          b += count;
        }
    }
  for (index_t lev = 0; lev < sym.num_levels; ++lev) {
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (compact(s)) continue;
      for (int t = nodes[s].ntile - 1; t >= 0; --t)
        for (int g = 0; g < nodes[s].ngroups; ++g) bwd.push_back(SolveTask{s, t, g});
    }
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (compact(s) && nodes[s].ntile > 0) bwd.push_back(SolveTask{s, -1, -1});
      for (int t = nodes[s].ntile - 1; t >= 0; --t) {
        if (!compact(s)) bwd.push_back(SolveTask{s, t, -1});
        tiles.push_back(SolveTask{s, t, -1});
      }
    }
  }
  too_big(static_cast<long long>(fwd.size()));
  too_big(static_cast<long long>(bwd.size()));
  pl->n_fwd_tasks = static_cast<int>(fwd.size());
  pl->n_bwd_tasks = static_cast<int>(bwd.size());
  pl->total_tiles = total_tiles;
  pl->total_rows = total_rows;
  pl->part_slots = part_slots;

  const auto t2 = clock::now();
  tm.tasks = secs(t1, t2);
  // ---- upload (the pivot order: the first ne rows of every node, node by node)
  pl->inv_size = inv_size;
  pl->n_tiles = static_cast<int>(tiles.size());
  pl->nodes.upload(nodes.data(), nodes.size(), st);
  pl->children.upload(children.data(), children.size(), st);
  pl->gptr.upload(gcount.data(), gcount.size(), st);
  pl->gsrc.upload(gsrc.data(), gsrc.size(), st);
  pl->fwd_tasks.upload(fwd.data(), fwd.size(), st);
  pl->bwd_tasks.upload(bwd.data(), bwd.size(), st);
  if (!tiles.empty()) pl->tiles.upload(tiles.data(), tiles.size(), st);
  Vector<int> pv(static_cast<size_t>(pos));
  for (index_t s = 0; s < nsup; ++s)
    std::copy(host_rows + info[s].rows_off, host_rows + info[s].rows_off + info[s].ne, pv.begin() + nodes[s].pos);
  pl->pivot_var.upload(pv.data(), pv.size(), st);
  // (an upload from pageable memory returns once its data is staged: the host vectors may go)
  tm.upload = secs(t2, clock::now());
  return pl;
}

}  // namespace

std::shared_ptr<DeviceFactors> build_device_factors(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                                    const int* host_rows, std::size_t n_rows, DeviceBuffer<double>& l,
                                                    std::size_t l_size, DeviceBuffer<int>& rows, bool posdef,
                                                    bool presolve, const double* dev_scale, const double* dstore,
                                                    std::shared_ptr<DeviceDiag>* diag, cudaStream_t st,
                                                    SolvePlanTimes* times, std::shared_ptr<DeviceBlockCache> blocks,
                                                    const std::function<void()>& host_work) {
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  SolvePlanTimes local;
  SolvePlanTimes& tm = times ? *times : local;
  tm = SolvePlanTimes{};
  auto df = std::make_shared<DeviceFactors>();
  check_cuda(cudaGetDevice(&df->device), "cudaGetDevice");
  df->blocks = blocks;
  df->inv.use_cache(blocks);
  df->scale.use_cache(blocks);
  df->n = sym.n;
  df->nsup = sym.nsup;
  df->posdef = posdef;
  df->presolve = presolve;
  df->l_size = l_size;
  df->l.swap(l);
  df->rows.swap(rows);

  // the plan of the last factorization of this analysis, if this one ended with the same structure
  const int compact_limit = compact_blocks_limit.load(), row_group = row_group_limit.load();
  std::shared_ptr<const SolvePlan> plan;
  {
    std::lock_guard<std::mutex> lock(sym.gpu_cache->mutex);
    plan = std::static_pointer_cast<const SolvePlan>(sym.gpu_cache->solve_plan);
  }
  std::shared_ptr<SolvePlan> made;  // a new plan, offered to later factorizations once it is on the device
  if (plan && plan->device == df->device &&
      same_structure(*plan, info, host_rows, n_rows, posdef, presolve, compact_limit, row_group)) {
    tm.reused = true;
  } else {
    made = make_solve_plan(sym, info, host_rows, n_rows, posdef, presolve, compact_limit, row_group, df->device, st, tm, blocks);
    plan = made;
  }
  df->plan = plan;
  const auto t3 = clock::now();
  // the caller's host work, once, while the device works (if it throws, the device work is waited for first)
  bool host_done = !host_work;
  double host_secs = 0.0;
  auto run_host_work = [&] {
    if (host_done) return;
    host_done = true;
    const auto h = clock::now();
    try {
      host_work();
    } catch (...) {
      cudaStreamSynchronize(st);
      throw;
    }
    host_secs = secs(h, clock::now());
  };
  if (dev_scale) {
    df->scale.reserve_discard(static_cast<size_t>(sym.n));
    check_cuda(cudaMemcpyAsync(df->scale.get(), dev_scale, static_cast<size_t>(sym.n) * sizeof(double),
                               cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync scaling");
  }

  // ---- D and D^{-1} for the solve, formed from the factorization's D
  if (diag) {
    auto dd = std::make_shared<DeviceDiag>();
    dd->device = df->device;
    if (!posdef && sym.n > 0) {
      dd->d.use_cache(blocks);
      dd->dinv.use_cache(blocks);
      dd->d.reserve_discard(2 * static_cast<size_t>(sym.n));
      dd->dinv.reserve_discard(2 * static_cast<size_t>(sym.n));
      launch_form_diag(plan->nodes.get(), static_cast<int>(sym.nsup), dstore, dd->d.get(), dd->dinv.get(), st);
    }
    *diag = std::move(dd);
  }

  // ---- presolve: invert the diagonal super-blocks (one task per tile: its column tile of the inverse)
  if (presolve && plan->n_tiles > 0) {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
    cudaError_t ce = cudaEventCreate(&e1);
    if (ce != cudaSuccess) cudaEventDestroy(e0);
    check_cuda(ce, "cudaEventCreate");
    try {
      df->inv.reserve_discard(static_cast<size_t>(plan->inv_size) + 1);
      check_cuda(cudaEventRecord(e0, st), "cudaEventRecord");
      launch_invert_superblocks(plan->tiles.get(), plan->n_tiles, df->l.get(), plan->nodes.get(),
                                df->inv.get(), posdef ? 1 : 0, st);
      check_cuda(cudaEventRecord(e1, st), "cudaEventRecord");
      run_host_work();
      check_cuda(cudaStreamSynchronize(st), "presolve");
      float ms = 0.0f;
      check_cuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
      tm.presolve = 1e-3 * ms;
    } catch (...) {
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      throw;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  run_host_work();
  check_cuda(cudaStreamSynchronize(st), "upload of the solve plan");
  tm.upload += secs(t3, clock::now()) - tm.presolve - host_secs;
  if (made) {
    std::lock_guard<std::mutex> lock(sym.gpu_cache->mutex);
    sym.gpu_cache->solve_plan = made;
  }
  return df;
}

std::shared_ptr<DeviceDiag> upload_device_diag(const NumericFactors& f) {
  auto dd = std::make_shared<DeviceDiag>();
  if (f.mode == Mode::posdef || f.n == 0) return dd;
  check_cuda(cudaSetDevice(f.device->device), "cudaSetDevice");
  dd->device = f.device->device;
  dd->d.use_cache(f.device->blocks);
  dd->dinv.use_cache(f.device->blocks);
  dd->d.upload(f.d.data(), f.d.size(), nullptr);
  dd->dinv.upload(f.dinv.data(), f.dinv.size(), nullptr);
  check_cuda(cudaDeviceSynchronize(), "upload of D");
  return dd;
}

void device_diag_copy(const NumericFactors& f, Vector<double>& d, Vector<double>& dinv) {
  d.clear();
  dinv.clear();
  if (!f.device || !f.device_diag || !f.device_diag->d.get()) return;
  check_cuda(cudaSetDevice(f.device->device), "cudaSetDevice");
  d.resize(2 * static_cast<size_t>(f.n));
  dinv.resize(d.size());
  check_cuda(cudaMemcpy(d.data(), f.device_diag->d.get(), d.size() * sizeof(double), cudaMemcpyDeviceToHost), "copy D");
  check_cuda(cudaMemcpy(dinv.data(), f.device_diag->dinv.get(), dinv.size() * sizeof(double), cudaMemcpyDeviceToHost),
             "copy D^-1");
}

bool share_solve_plan(const NumericFactors& a, const NumericFactors& b) {
  return a.device && b.device && a.device->plan == b.device->plan;
}

void device_copy_l(const DeviceFactors& df, Vector<double>& host) {
  host.resize(df.l_size);
  if (df.l_size == 0) return;
  check_cuda(cudaSetDevice(df.device), "cudaSetDevice");
  check_cuda(cudaMemcpy(host.data(), df.l.get(), df.l_size * sizeof(double), cudaMemcpyDeviceToHost), "copy of L to the host");
}

namespace {

/// Device memory from the library's stream-ordered pool (device_malloc_async), released on the same stream.
class StreamBuffer {
 public:
  StreamBuffer() = default;
  StreamBuffer(std::size_t bytes, cudaStream_t s) { allocate(bytes, s); }
  ~StreamBuffer() { device_free_async(p_, s_); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  void allocate(std::size_t bytes, cudaStream_t s) {
    device_free_async(p_, s_);
    p_ = nullptr;
    s_ = s;
    device_malloc_async(&p_, bytes, s, "cudaMallocAsync (solve work space)");
  }
  double* get() const { return static_cast<double*>(p_); }
  void* raw() const { return p_; }

 private:
  void* p_ = nullptr;
  cudaStream_t s_ = nullptr;
};

#ifdef SSIDS_SOLVE_TRACE
/// Writes the task trace of a sweep to PREFIX.fwd / PREFIX.bwd (solve_trace_words per ticket) and the nodes to
/// PREFIX.nodes (m, ne, wait_node per node) for tools/solve_trace.py. Synchronizes the stream.
void dump_solve_trace(const DeviceFactors& df, const SolveArgs& a, bool forward, const char* prefix,
                      cudaStream_t st) {
  std::vector<unsigned long long> h(solve_trace_words * static_cast<size_t>(a.ntasks));
  check_cuda(cudaMemcpyAsync(h.data(), a.trace, h.size() * 8, cudaMemcpyDeviceToHost, st), "solve trace");
  std::vector<SolveNode> hn(static_cast<size_t>(df.nsup));
  check_cuda(cudaMemcpyAsync(hn.data(), df.plan->nodes.get(), hn.size() * sizeof(SolveNode), cudaMemcpyDeviceToHost, st),
             "solve trace");
  check_cuda(cudaStreamSynchronize(st), "solve trace");
  if (FILE* fp = std::fopen((std::string(prefix) + ".nodes").c_str(), "wb")) {
    for (const SolveNode& nd : hn) {
      const int v[3] = {nd.m, nd.ne, nd.wait_node};
      std::fwrite(v, 4, 3, fp);
    }
    std::fclose(fp);
  }
  if (FILE* fp = std::fopen((std::string(prefix) + (forward ? ".fwd" : ".bwd")).c_str(), "wb")) {
    std::fwrite(h.data(), 8, h.size(), fp);
    std::fclose(fp);
  }
}
#endif

/// The solve on device-resident right-hand sides, queued on st. Each sweep is one launch per panel of
/// solve_panel right-hand sides. error_flag (device int) is set if a dependency wait ever timed out.
void solve_on_device(const NumericFactors& f, SolveJob job, int nrhs, double* dx, long long ldx, cudaStream_t st,
                     int** error_flag_out, StreamBuffer* flags_keep) {
  const DeviceFactors& df = *f.device;
  const bool scaled = df.scale.get() != nullptr;
  const bool sweeps = job != SolveJob::diagonal;
  const int panel = std::min(nrhs, solve_panel);
  const std::size_t rows_work = sweeps ? static_cast<std::size_t>(df.plan->total_rows) * panel : 0;
  const std::size_t v_work = df.presolve ? rows_work : 0;  // the pivot rows' reduced values (vbuf)
  const std::size_t work =
      rows_work + v_work + (sweeps ? static_cast<std::size_t>(df.plan->part_slots) * solve_panel * solve_tile : 0);
  // integer state: tickets (2), error (1), tile flags and node counters of both sweeps, partial counters,
  // the presolve's published-v flags of both sweeps
  const std::size_t nflags = 3 + 5 * static_cast<std::size_t>(df.plan->total_tiles) + 2 * static_cast<std::size_t>(df.nsup);
  StreamBuffer wb(work * sizeof(double), st);
  StreamBuffer& fb = *flags_keep;
  fb.allocate(nflags * sizeof(int), st);
  int* fl = static_cast<int*>(fb.raw());
  // every ticket and flag, and the error flag, zero: the two sweeps' areas are disjoint, so the first panel of
  // each needs nothing more
  check_cuda(cudaMemsetAsync(fl, 0, nflags * sizeof(int), st), "cudaMemsetAsync");
  SolveArgs a{};
  a.l = df.l.get();
  a.rows = df.rows.get();
  a.nodes = df.plan->nodes.get();
  a.children = df.plan->children.get();
  a.gptr = df.plan->gptr.get();
  a.gsrc = df.plan->gsrc.get();
  a.inv = df.presolve ? df.inv.get() : nullptr;
  a.ldx = ldx;
  a.posdef = df.posdef ? 1 : 0;
  a.buf = wb.get();
  a.total_rows = df.plan->total_rows;
  a.part = wb.get() + rows_work + v_work;
  a.vbuf = df.presolve ? wb.get() + rows_work : nullptr;
  a.flags.ticket = fl;
  a.flags.error = fl + 2;
  a.flags.fwd_tile = fl + 3;
  a.flags.bwd_tile = a.flags.fwd_tile + df.plan->total_tiles;
  a.flags.fwd_done = a.flags.bwd_tile + df.plan->total_tiles;
  a.flags.bwd_done = a.flags.fwd_done + df.nsup;
  a.flags.bwd_part = a.flags.bwd_done + df.nsup;
  a.flags.fwd_v = a.flags.bwd_part + df.plan->total_tiles;
  a.flags.bwd_v = a.flags.fwd_v + df.plan->total_tiles;
  *error_flag_out = a.flags.error;
  const int n = static_cast<int>(df.n);
  auto sweep = [&](bool forward) {
    for (int r0 = 0; r0 < nrhs; r0 += panel) {
      if (r0 > 0) {  // a later panel: the tickets and flags again (the error flag is kept; the other sweep is not
                     // running: the forward sweep takes every panel before the backward sweep starts)
        check_cuda(cudaMemsetAsync(fl, 0, 2 * sizeof(int), st), "cudaMemsetAsync");
        check_cuda(cudaMemsetAsync(fl + 3, 0, (nflags - 3) * sizeof(int), st), "cudaMemsetAsync");
      }
      a.x = dx + static_cast<long long>(r0) * ldx;
      a.nrhs = std::min(panel, nrhs - r0);
#ifdef SSIDS_SOLVE_TRACE
      const char* trace_prefix = std::getenv("SSIDS_SOLVE_TRACE");
      StreamBuffer trace_buf;
      if (trace_prefix) {
        const std::size_t bytes = sizeof(unsigned long long) * solve_trace_words * std::max(df.plan->n_fwd_tasks, df.plan->n_bwd_tasks);
        trace_buf.allocate(bytes, st);
        check_cuda(cudaMemsetAsync(trace_buf.raw(), 0, bytes, st), "solve trace");
        a.trace = static_cast<unsigned long long*>(trace_buf.raw());
      }
#endif
      if (forward) {
        a.tasks = df.plan->fwd_tasks.get();
        a.ntasks = df.plan->n_fwd_tasks;
        launch_forward_sweep(a, st);
      } else {
        a.tasks = df.plan->bwd_tasks.get();
        a.ntasks = df.plan->n_bwd_tasks;
        launch_backward_sweep(a, st);
      }
#ifdef SSIDS_SOLVE_TRACE
      if (trace_prefix) {
        dump_solve_trace(df, a, forward, trace_prefix, st);
        a.trace = nullptr;
      }
#endif
    }
  };
  auto diag = [&] {
    if (df.posdef) return;
    const DeviceDiag& dd = *f.device_diag;
    launch_diag_solve(n, df.plan->pivot_var.get(), dd.d.get(), dd.dinv.get(), dx, ldx, nrhs, st);
  };
  auto scale = [&] {
    if (scaled) launch_scale_rows(n, df.scale.get(), dx, ldx, nrhs, st);
  };
  switch (job) {
    case SolveJob::full:
      scale();
      sweep(true);
      diag();
      sweep(false);
      scale();
      break;
    case SolveJob::forward:
      scale();
      sweep(true);
      break;
    case SolveJob::diagonal: diag(); break;
    case SolveJob::backward:
      sweep(false);
      scale();
      break;
    case SolveJob::diagonal_backward:
      diag();
      sweep(false);
      scale();
      break;
  }
}

}  // namespace

namespace {

/// What a solve with right-hand sides in host memory needs besides the factors: a stream, the right-hand sides on
/// the device and a page-locked copy of them. Kept with the analysis (Symbolic::GpuCacheSlot::solve_scratch) for
/// its next solves: creating a stream, allocating and copying through pageable memory cost about as much as the
/// sweeps of a small problem.
struct SolveScratch {
  int device = 0;
  Stream stream;
  DeviceBuffer<double> dx;
  PinnedBuffer<double> staged;  ///< the right-hand sides, then the solution, packed (n x nrhs), and the status
};

struct SolveScratchPool {
  std::mutex mutex;
  std::vector<std::unique_ptr<SolveScratch>> idle;  ///< at most two
};

/// Right-hand sides up to this many doubles go through the page-locked copy (bigger ones: pageable copies, as
/// the staging memory would stay with the analysis).
constexpr std::size_t staged_max_doubles = std::size_t(8) << 20;

/// A scratch taken from the analysis' idle ones on this device (or a new one), given back when done.
class ScratchLease {
 public:
  ScratchLease(const Symbolic& sym, int device) {
    {
      std::lock_guard<std::mutex> lock(sym.gpu_cache->mutex);
      if (!sym.gpu_cache->solve_scratch) sym.gpu_cache->solve_scratch = std::make_shared<SolveScratchPool>();
      pool_ = std::static_pointer_cast<SolveScratchPool>(sym.gpu_cache->solve_scratch);
    }
    {
      std::lock_guard<std::mutex> lock(pool_->mutex);
      for (auto it = pool_->idle.begin(); it != pool_->idle.end(); ++it)
        if ((*it)->device == device) {
          s_ = std::move(*it);
          pool_->idle.erase(it);
          break;
        }
    }
    if (!s_) {
      s_ = std::make_unique<SolveScratch>();
      s_->device = device;
    }
  }
  ~ScratchLease() {
    // a solve that failed may have left work queued: keep the scratch only if its stream is still usable
    if (cudaStreamSynchronize(s_->stream.get()) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    std::lock_guard<std::mutex> lock(pool_->mutex);
    if (pool_->idle.size() < 2) pool_->idle.push_back(std::move(s_));
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  SolveScratch& operator*() const { return *s_; }

 private:
  std::shared_ptr<SolveScratchPool> pool_;
  std::unique_ptr<SolveScratch> s_;
};

}  // namespace

void solve_gpu(const NumericFactors& f, SolveJob job, int nrhs, double* x, offset_t ldx, bool x_on_device,
               void* stream) {
  if (!f.device) throw Error(flag::no_cuda, "the factors are not on the GPU (factorized by the CPU backend)");
  check_cuda(cudaSetDevice(f.device->device), "cudaSetDevice");
  int* error_flag = nullptr;
  if (x_on_device) {
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    StreamBuffer flags;
    solve_on_device(f, job, nrhs, x, ldx, st, &error_flag, &flags);
    return;  // asynchronous: a dependency time-out (an internal error) cannot be reported here
  }
  ScratchLease lease(*f.symbolic, f.device->device);
  SolveScratch& sc = *lease;
  const cudaStream_t st = sc.stream.get();
  const std::size_t n = static_cast<std::size_t>(f.n), count = n * static_cast<std::size_t>(nrhs);
  const bool staged = count <= staged_max_doubles;
  int error = 0;
  {
    sc.dx.reserve_discard(std::max<std::size_t>(count, 1));
    StreamBuffer flags;
    double* const h = staged ? (sc.staged.reserve_discard(count + 1), sc.staged.get()) : nullptr;
    if (staged) {
      for (int r = 0; r < nrhs; ++r) std::copy(x + r * ldx, x + r * ldx + n, h + r * n);
      check_cuda(cudaMemcpyAsync(sc.dx.get(), h, count * sizeof(double), cudaMemcpyHostToDevice, st),
                 "copy of the right-hand sides to the GPU");
    } else {
      check_cuda(cudaMemcpy2DAsync(sc.dx.get(), n * sizeof(double), x, static_cast<std::size_t>(ldx) * sizeof(double),
                                   n * sizeof(double), static_cast<std::size_t>(nrhs), cudaMemcpyHostToDevice, st),
                 "copy of the right-hand sides to the GPU");
    }
    solve_on_device(f, job, nrhs, sc.dx.get(), static_cast<long long>(n), st, &error_flag, &flags);
    int* const herror = staged ? reinterpret_cast<int*>(h + count) : &error;
    if (staged)
      check_cuda(cudaMemcpyAsync(h, sc.dx.get(), count * sizeof(double), cudaMemcpyDeviceToHost, st),
                 "copy of the solution to the host");
    else
      check_cuda(cudaMemcpy2DAsync(x, static_cast<std::size_t>(ldx) * sizeof(double), sc.dx.get(), n * sizeof(double),
                                   n * sizeof(double), static_cast<std::size_t>(nrhs), cudaMemcpyDeviceToHost, st),
                 "copy of the solution to the host");
    *herror = 0;
    if (error_flag)
      check_cuda(cudaMemcpyAsync(herror, error_flag, sizeof(int), cudaMemcpyDeviceToHost, st), "copy of the status");
    check_cuda(cudaStreamSynchronize(st), "GPU solve");
    if (staged) {
      for (int r = 0; r < nrhs; ++r) std::copy(h + r * n, h + (r + 1) * n, x + r * ldx);
      error = *herror;
    }
  }
  if (error) throw Error(flag::unknown, "internal error: a dependency of the GPU solve was never satisfied");
}

}  // namespace detail
}  // namespace ssids
