// solve_gpu.cu — the solve plan built after a GPU factorization and the level-scheduled GPU solve
// (forward, diagonal, backward and their combinations, one or many right-hand sides, on the host or
// already on the device). See solve_kernels.cuh for the scheme.
#include <algorithm>
#include <numeric>
#include <string>

#include "cuda/device_factors.cuh"
#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

using namespace gpu;

std::shared_ptr<DeviceFactors> build_device_factors(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                                    const Vector<int>& host_rows, DeviceBuffer<double>& l,
                                                    std::size_t l_size, DeviceBuffer<int>& rows, bool posdef,
                                                    bool presolve, const Vector<index_t>& pivot_var,
                                                    const double* scale, cudaStream_t st, double* presolve_seconds) {
  auto df = std::make_shared<DeviceFactors>();
  check_cuda(cudaGetDevice(&df->device), "cudaGetDevice");
  df->n = sym.n;
  df->posdef = posdef;
  df->presolve = presolve;
  df->l_size = l_size;
  df->l.swap(l);
  df->rows.swap(rows);
  const index_t nsup = sym.nsup;
  constexpr int T = solve_tile;

  // ---- nodes, children and the maps of the children's contribution rows into their parents
  Vector<SolveNode> nodes(static_cast<size_t>(nsup));
  Vector<SolveChild> children;
  Vector<int> maps;
  Vector<int> pos(static_cast<size_t>(sym.n), -1);
  long long inv_size = 0;
  for (index_t s = 0; s < nsup; ++s) {
    const DeviceNodeInfo& ni = info[s];
    SolveNode& nd = nodes[s];
    nd.l_off = ni.l_off;
    nd.rows_off = ni.rows_off;
    nd.m = ni.m;
    nd.ne = ni.ne;
    nd.inv_off = -1;
    if (presolve && ni.ne > 0) {
      const int last = ni.ne - (ni.ne - 1) / T * T;
      nd.inv_off = inv_size;
      inv_size += static_cast<long long>((ni.ne - 1) / T) * T * T + static_cast<long long>(last) * last;
    }
    const int* prow = host_rows.data() + ni.rows_off;
    for (int i = 0; i < ni.m; ++i) pos[prow[i]] = i;
    nd.child_begin = static_cast<int>(children.size());
    for (index_t c = sym.child_ptr[s]; c < sym.child_ptr[s + 1]; ++c) {
      const index_t ch = sym.child_list[c];
      const DeviceNodeInfo& ci = info[ch];
      if (ci.m == ci.ne) continue;  // nothing to pass up
      SolveChild sc;
      sc.node = ch;
      sc.map_off = static_cast<long long>(maps.size());
      const int* crow = host_rows.data() + ci.rows_off;
      for (int k = ci.ne; k < ci.m; ++k) {
        const int p = pos[crow[k]];
        if (p < 0) throw Error(flag::unknown, "internal error: a contribution row of a child is not in its parent");
        maps.push_back(p);
      }
      children.push_back(sc);
    }
    nd.child_end = static_cast<int>(children.size());
    for (int i = 0; i < ni.m; ++i) pos[prow[i]] = -1;
  }

  // ---- levels (largest ne first within a level) and the launches
  Vector<int> level_nodes;
  Vector<SolveTask> tasks;
  Vector<long long> level_first(static_cast<size_t>(sym.num_levels) + 1, 0);
  for (index_t lev = 0; lev < sym.num_levels; ++lev) {
    const index_t b = sym.level_ptr[lev], e = sym.level_ptr[lev + 1];
    level_first[lev] = static_cast<long long>(level_nodes.size());
    for (index_t k = b; k < e; ++k) level_nodes.push_back(sym.level_nodes[k]);
    std::stable_sort(level_nodes.begin() + level_first[lev], level_nodes.end(),
                     [&](int x, int y) { return info[x].ne > info[y].ne; });
    long long rows_sum = 0;
    for (long long k = level_first[lev]; k < static_cast<long long>(level_nodes.size()); ++k) {
      nodes[level_nodes[k]].buf_off = rows_sum;
      rows_sum += info[level_nodes[k]].m;
    }
    df->max_level_rows = std::max(df->max_level_rows, rows_sum);
  }
  level_first[sym.num_levels] = static_cast<long long>(level_nodes.size());
  auto level_count = [&](index_t lev) { return static_cast<int>(level_first[lev + 1] - level_first[lev]); };
  auto push_step = [&](Vector<SolveStep>& v, SolveStep::Kind kind, int lev, long long first) {
    const long long count = static_cast<long long>(tasks.size()) - first;
    if (count > 0) v.push_back(SolveStep{kind, lev, static_cast<int>(count), first});
  };
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
    const int cnt = level_count(lev);
    if (cnt == 0) continue;
    df->forward.push_back(SolveStep{SolveStep::fwd_gather, lev, cnt, level_first[lev]});
    const int max_ne = info[level_nodes[level_first[lev]]].ne;
    for (int j0 = 0; j0 < max_ne; j0 += T) {
      long long first = static_cast<long long>(tasks.size());
      for (int k = 0; k < cnt; ++k) {
        const int s = level_nodes[level_first[lev] + k];
        if (info[s].ne <= j0) break;
        tasks.push_back(SolveTask{s, j0, std::min(info[s].ne, j0 + T), 0});
      }
      push_step(df->forward, SolveStep::fwd_tile, lev, first);
      first = static_cast<long long>(tasks.size());
      for (int k = 0; k < cnt; ++k) {
        const int s = level_nodes[level_first[lev] + k];
        if (info[s].ne <= j0) break;
        const int j1 = std::min(info[s].ne, j0 + T);
        for (int r0 = j1; r0 < info[s].m; r0 += solve_rows) tasks.push_back(SolveTask{s, j0, j1, r0});
      }
      push_step(df->forward, SolveStep::fwd_update, lev, first);
    }
  }
  for (index_t lev = 0; lev < sym.num_levels; ++lev) {
    const int cnt = level_count(lev);
    if (cnt == 0) continue;
    df->backward.push_back(SolveStep{SolveStep::bwd_gather, lev, cnt, level_first[lev]});
    long long first = static_cast<long long>(tasks.size());
    for (int k = 0; k < cnt; ++k) {
      const int s = level_nodes[level_first[lev] + k];
      if (info[s].m > info[s].ne)
        for (int r0 = 0; r0 < info[s].ne; r0 += solve_cols) tasks.push_back(SolveTask{s, 0, 0, r0});
    }
    push_step(df->backward, SolveStep::bwd_ancestor, lev, first);
    const int max_ne = info[level_nodes[level_first[lev]]].ne;
    const int ntiles = (max_ne + T - 1) / T;
    for (int t = ntiles - 1; t >= 0; --t) {
      const int j0 = t * T;
      first = static_cast<long long>(tasks.size());
      for (int k = 0; k < cnt; ++k) {
        const int s = level_nodes[level_first[lev] + k];
        if (info[s].ne <= j0) break;
        tasks.push_back(SolveTask{s, j0, std::min(info[s].ne, j0 + T), 0});
      }
      push_step(df->backward, SolveStep::bwd_tile, lev, first);
      first = static_cast<long long>(tasks.size());
      for (int k = 0; k < cnt; ++k) {
        const int s = level_nodes[level_first[lev] + k];
        if (info[s].ne <= j0) break;
        const int j1 = std::min(info[s].ne, j0 + T);
        for (int r0 = 0; r0 < j0; r0 += solve_cols) tasks.push_back(SolveTask{s, j0, j1, r0});
      }
      push_step(df->backward, SolveStep::bwd_update, lev, first);
    }
  }

  // ---- upload
  df->nodes.upload(nodes.data(), nodes.size(), st);
  df->children.upload(children.data(), children.size(), st);
  df->maps.upload(maps.data(), maps.size(), st);
  df->level_nodes.upload(level_nodes.data(), level_nodes.size(), st);
  df->tasks.upload(tasks.data(), tasks.size(), st);
  Vector<int> pv(pivot_var.begin(), pivot_var.end());
  df->pivot_var.upload(pv.data(), pv.size(), st);
  if (scale) df->scale.upload(scale, static_cast<size_t>(sym.n), st);

  // ---- presolve: invert every diagonal tile
  if (presolve) {
    Vector<SolveTask> inv_tasks;
    for (index_t s = 0; s < nsup; ++s)
      for (int j0 = 0; j0 < info[s].ne; j0 += T) inv_tasks.push_back(SolveTask{s, j0, std::min(info[s].ne, j0 + T), 0});
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
    cudaError_t ce = cudaEventCreate(&e1);
    if (ce != cudaSuccess) cudaEventDestroy(e0);
    check_cuda(ce, "cudaEventCreate");
    try {
      DeviceBuffer<SolveTask> dinv_tasks;
      dinv_tasks.upload(inv_tasks.data(), inv_tasks.size(), st);
      df->inv.reserve_discard(static_cast<size_t>(inv_size) + 1);
      check_cuda(cudaEventRecord(e0, st), "cudaEventRecord");
      launch_invert_tiles(dinv_tasks.get(), static_cast<int>(inv_tasks.size()), df->l.get(), df->nodes.get(),
                          df->inv.get(), posdef ? 1 : 0, st);
      check_cuda(cudaEventRecord(e1, st), "cudaEventRecord");
      check_cuda(cudaStreamSynchronize(st), "presolve");
      float ms = 0.0f;
      check_cuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
      if (presolve_seconds) *presolve_seconds = 1e-3 * ms;
    } catch (...) {
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      throw;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  check_cuda(cudaStreamSynchronize(st), "upload of the solve plan");
  return df;
}

std::shared_ptr<DeviceDiag> upload_device_diag(const NumericFactors& f) {
  auto dd = std::make_shared<DeviceDiag>();
  if (f.mode == Mode::posdef || f.n == 0) return dd;
  check_cuda(cudaSetDevice(f.device->device), "cudaSetDevice");
  dd->d.upload(f.d.data(), f.d.size(), nullptr);
  dd->dinv.upload(f.dinv.data(), f.dinv.size(), nullptr);
  check_cuda(cudaDeviceSynchronize(), "upload of D");
  return dd;
}

void device_copy_l(const DeviceFactors& df, Vector<double>& host) {
  host.resize(df.l_size);
  if (df.l_size == 0) return;
  check_cuda(cudaSetDevice(df.device), "cudaSetDevice");
  check_cuda(cudaMemcpy(host.data(), df.l.get(), df.l_size * sizeof(double), cudaMemcpyDeviceToHost), "copy of L to the host");
}

namespace {

/// Device memory from the stream-ordered allocator, released on the same stream.
class StreamBuffer {
 public:
  StreamBuffer(std::size_t bytes, cudaStream_t s) : s_(s) {
    device_malloc_async(&p_, bytes, s, "cudaMallocAsync (solve work space)");
  }
  ~StreamBuffer() { device_free_async(p_, s_); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  double* get() const { return static_cast<double*>(p_); }

 private:
  void* p_ = nullptr;
  cudaStream_t s_;
};

void run_steps(const DeviceFactors& df, const Vector<SolveStep>& steps, SolveArgs a, double* buf0, double* buf1,
               cudaStream_t st) {
  for (const SolveStep& s : steps) {
    a.buf = (s.level & 1) ? buf1 : buf0;
    a.cbuf = (s.level & 1) ? buf0 : buf1;
    const SolveTask* t = df.tasks.get() + s.off;
    const int* ln = df.level_nodes.get() + s.off;
    switch (s.kind) {
      case SolveStep::fwd_gather: launch_fwd_gather(ln, s.count, a, st); break;
      case SolveStep::fwd_tile: launch_fwd_tile(t, s.count, a, st); break;
      case SolveStep::fwd_update: launch_fwd_update(t, s.count, a, st); break;
      case SolveStep::bwd_gather: launch_bwd_gather(ln, s.count, a, st); break;
      case SolveStep::bwd_ancestor: launch_bwd_ancestor(t, s.count, a, st); break;
      case SolveStep::bwd_tile: launch_bwd_tile(t, s.count, a, st); break;
      case SolveStep::bwd_update: launch_bwd_update(t, s.count, a, st); break;
    }
  }
}

/// The solve on device-resident right-hand sides, queued on st.
void solve_on_device(const NumericFactors& f, SolveJob job, int nrhs, double* dx, long long ldx, cudaStream_t st) {
  const DeviceFactors& df = *f.device;
  const bool scaled = df.scale.get() != nullptr;
  const bool need_work = job != SolveJob::diagonal;
  const std::size_t work = need_work ? static_cast<std::size_t>(df.max_level_rows) * nrhs : 0;
  StreamBuffer b0(work * sizeof(double), st), b1(work * sizeof(double), st);
  SolveArgs a{};
  a.l = df.l.get();
  a.rows = df.rows.get();
  a.nodes = df.nodes.get();
  a.children = df.children.get();
  a.maps = df.maps.get();
  a.inv = df.presolve ? df.inv.get() : nullptr;
  a.x = dx;
  a.ldx = ldx;
  a.nrhs = nrhs;
  a.posdef = df.posdef ? 1 : 0;
  const int n = static_cast<int>(df.n);
  auto diag = [&] {
    if (df.posdef) return;
    const DeviceDiag& dd = *f.device_diag;
    launch_diag_solve(n, df.pivot_var.get(), dd.d.get(), dd.dinv.get(), dx, ldx, nrhs, st);
  };
  auto scale = [&] {
    if (scaled) launch_scale_rows(n, df.scale.get(), dx, ldx, nrhs, st);
  };
  switch (job) {
    case SolveJob::full:
      scale();
      run_steps(df, df.forward, a, b0.get(), b1.get(), st);
      diag();
      run_steps(df, df.backward, a, b0.get(), b1.get(), st);
      scale();
      break;
    case SolveJob::forward:
      scale();
      run_steps(df, df.forward, a, b0.get(), b1.get(), st);
      break;
    case SolveJob::diagonal: diag(); break;
    case SolveJob::backward:
      run_steps(df, df.backward, a, b0.get(), b1.get(), st);
      scale();
      break;
    case SolveJob::diagonal_backward:
      diag();
      run_steps(df, df.backward, a, b0.get(), b1.get(), st);
      scale();
      break;
  }
}

class OwnStream {
 public:
  OwnStream() { check_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~OwnStream() { cudaStreamDestroy(s_); }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace

void solve_gpu(const NumericFactors& f, SolveJob job, int nrhs, double* x, offset_t ldx, bool x_on_device,
               void* stream) {
  if (!f.device) throw Error(flag::no_cuda, "the factors are not on the GPU (factorized by the CPU backend)");
  check_cuda(cudaSetDevice(f.device->device), "cudaSetDevice");
  if (x_on_device) {
    solve_on_device(f, job, nrhs, x, ldx, static_cast<cudaStream_t>(stream));
    return;
  }
  OwnStream own;
  const cudaStream_t st = own.get();
  const std::size_t n = static_cast<std::size_t>(f.n);
  {
    StreamBuffer dx(n * nrhs * sizeof(double), st);
    check_cuda(cudaMemcpy2DAsync(dx.get(), n * sizeof(double), x, static_cast<std::size_t>(ldx) * sizeof(double),
                                 n * sizeof(double), static_cast<std::size_t>(nrhs), cudaMemcpyHostToDevice, st),
               "copy of the right-hand sides to the GPU");
    solve_on_device(f, job, nrhs, dx.get(), static_cast<long long>(n), st);
    check_cuda(cudaMemcpy2DAsync(x, static_cast<std::size_t>(ldx) * sizeof(double), dx.get(), n * sizeof(double),
                                 n * sizeof(double), static_cast<std::size_t>(nrhs), cudaMemcpyDeviceToHost, st),
               "copy of the solution to the host");
  }
  check_cuda(cudaStreamSynchronize(st), "GPU solve");
}

}  // namespace detail
}  // namespace ssids
