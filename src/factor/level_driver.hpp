// level_driver.hpp — the level loop of the GPU multifrontal factorization (Hogg, Ovtchinnikov & Scott 2016, §3),
// written once against a kernel set K: the CUDA kernels (cuda/level_kernels_cuda.cuh, device buffers, streams)
// or their CPU twins (factor/level_kernels_reference.hpp, host buffers, run in CI without a device). Both sets
// have the same member signatures; the driver issues the same sequence of launches, copies and waits on either.
//
// Per level, deepest first, the stages are
//   build_fronts          FrontDesc records: sizes with the delayed columns the children pass up, offsets
//   assemble              zero, variable lists, entries of A, children's contribution blocks (one launch per rank)
//   dense_phase           the window loop: window_colmax / factor_window / apply_window / commit_window over
//                         every active front, one copy of the accepted-pivot counts per step, host bookkeeping,
//                         queued updates
//   finish_roots          roots whose remaining candidates all failed, finished on the host with a full search
//   contribution_updates  C -= L2 D L2^T with every pivot of each front at once
//   copy_out              L, D and the row lists out of the fronts into the factor stores
//   end_level             wait, swap the front buffers (the contribution blocks stay for the parent level)
// Fronts are column-major with their lower triangle used (cuda/front_tasks.hpp); indices are 0-based.
// The kernel set K provides (pointers are device pointers for CUDA, host pointers for the reference):
//   Buffer<T>: reserve_discard(n), reserve_keep(n, keep, Queue), upload(host, n, Queue), get(), swap()
//   Queue main, copy; Event: record(Queue), since(const Event&) in seconds; UpdatePlan
//   sync(), wait(Event) (main waits for it), to_host / to_device / zero (ordered on main), to_host_now and
//   block_to_host_now (synchronous), block_to_device (ordered on main)
//   the kernels of cuda/front_kernels.cuh without the stream argument, and plan_updates, upload_updates,
//   launch_updates for the batched C -= L W^T updates.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "analyse/symbolic.hpp"
#include "cuda/front_tasks.hpp"
#include "factor/dense_ldlt.hpp"
#include "factor/factor_tables.hpp"
#include "ssids/error.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// Candidate columns per block of the two-level dense factorization (see dense_phase). 256, 512 and 1024 gave
/// the same time on gen:laplace3d:80 (bench/NOTES.md); the smallest exercises the deferred updates on the most
/// fronts.
constexpr int outer_block = 256;

/// Fronts are stored with a leading dimension rounded up to front_align doubles, and placed so that their
/// contribution block (row and column p) starts on a multiple of front_align: the operands of the plain
/// cublasDgemm pieces (rows of L, the contribution block, and W, whose leading dimension is rounded the same
/// way) are then 64-byte aligned, which cuBLAS runs faster (bench/NOTES.md).
constexpr int front_align = 8;
inline long long round_up_align(long long v) { return (v + front_align - 1) / front_align * front_align; }

/// The analysis' maps as the kernels read them (device or host pointers, as the kernel set's buffers).
struct LevelMaps {
  const int *perm = nullptr, *sptr = nullptr, *rlist = nullptr, *cmap = nullptr;
  const long long *rptr = nullptr, *tptr = nullptr, *srcs = nullptr;
  const ATarget* targets = nullptr;
};

/// What the level loop reads besides the analysis.
struct LevelInputs {
  LevelMaps maps;
  const double* val = nullptr;      ///< the matrix values (caller's positions)
  const double* scale = nullptr;    ///< scaling by original variable, or null
  const double* cb_pool = nullptr;  ///< contribution blocks of the nodes done by the small-front kernel
  const unsigned char* by_small = nullptr;  ///< by node: done by the small-front kernel (null: none)
  DenseParams prm{};
  int cpu_block_size = 32;   ///< block size of the host search that finishes failed roots
  int print_level = 0;       ///< >= 2: window-step times; >= 3: a line per level on stderr
  bool preallocate = false;  ///< the work buffers were sized before the loop (then the contribution updates of a
                             ///< level may be prepared while its first window step runs)
  bool prepared_updates = true;
};

/// Device (or reference) time of the stages, summed over the levels, in seconds.
struct LevelTimes {
  double assembly = 0, dense = 0, update = 0, other = 0;  ///< always measured
  double window = 0, apply = 0, commit = 0;               ///< print_level >= 2 (window: window_colmax and
                                                          ///< factor_window, reported as factor_window)
  long long steps = 0;                                    ///< window steps
};

/// The level loop's work buffers, reused from level to level (and, with the CUDA kernels, from factorization to
/// factorization). F: this level's fronts; Fprev: the previous level's, whose contribution blocks it assembles.
template <class K>
struct LevelWork {
  template <class T>
  using Buf = typename K::template Buffer<T>;
  Buf<double> F, Fprev, Dlev, Lt, S, W, Lines, Cmax;
  Buf<int> Vars, Scr, Q;
  Buf<WindowResult> Res;
  Buf<FrontDesc> Fronts;
  Buf<ChildTask> Child;
  Buf<WindowTask> Win;
  Buf<FormWTask> FormW;
  Buf<UpdateTask> Upd;
  Buf<CopyOutTask> Copy;
  Buf<double> Wcb;  ///< W of the prepared contribution updates, and their tasks
  Buf<FormWTask> FormWcb;
  Buf<UpdateTask> UpdCb;
};

/// The factor stores the level loop appends to (after what the small-front phase wrote: *_used on entry).
template <class K>
struct LevelStores {
  typename K::template Buffer<double>& L;  ///< L blocks, node s at info[s].l_off (m x nelim, ld m)
  typename K::template Buffer<int>& rows;  ///< row lists, node s at info[s].rows_off (m ints)
  typename K::template Buffer<double>& D;  ///< D, node s at info[s].d_off (2 nelim doubles)
  Vector<GpuNodeInfo>& info;               ///< by node
  long long l_used = 0, rows_used = 0, d_used = 0;
};

template <class K>
class LevelDriver {
 public:
  LevelDriver(K& k, const Symbolic* sym, const LevelInputs& in, LevelWork<K>& w, LevelStores<K>& out)
      : k_(k), sym_(sym), in_(in), w_(w), out_(out) {}

  /// Every level from the deepest to the roots, skipping the nodes the small-front kernel did.
  void run() {
    const Symbolic& sym = *sym_;
    Vector<index_t> lev_nodes;
    for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
      lev_nodes.clear();
      for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k)
        if (!in_.by_small || !in_.by_small[sym.level_nodes[k]]) lev_nodes.push_back(sym.level_nodes[k]);
      if (lev_nodes.empty()) continue;
      run_level(lev, lev_nodes);
    }
  }

  /// One level: the stages in order, then the timings of the level.
  void run_level(index_t lev, const Vector<index_t>& nodes) {
    const auto lev_t0 = std::chrono::steady_clock::now();
    const long long steps_before = times.steps;
    const double win_before = times.window, apply_before = times.apply, commit_before = times.commit;
    ev_start_.record(k_.main);
    build_fronts(nodes);
    assemble();
    ev_assembled_.record(k_.main);
    dense_phase();
    throw_if_not_posdef();
    finish_roots();
    ev_dense_.record(k_.main);
    const auto upd_h0 = std::chrono::steady_clock::now();
    contribution_updates();
    const double upd_host = seconds_since(upd_h0);
    ev_updated_.record(k_.main);
    copy_out();
    ev_copied_.record(k_.main);
    end_level();
    times.assembly += ev_assembled_.since(ev_start_);
    times.dense += ev_dense_.since(ev_assembled_);
    times.update += ev_updated_.since(ev_dense_);
    times.other += ev_copied_.since(ev_updated_);
    if (in_.print_level >= 3) {
      int mmax = 0, pmax = 0;
      double upd_flops = 0.0;  // the contribution updates' flops (lower triangles: k (m - p)^2 per front)
      for (index_t f = 0; f < nf_; ++f) {
        const FrontDesc& fd = fronts[f];
        mmax = std::max(mmax, fd.m);
        pmax = std::max(pmax, fd.p);
        upd_flops += static_cast<double>(kk[f]) * (fd.m - fd.p) * (fd.m - fd.p);
      }
      std::fprintf(stderr, "ssids gpu factor: level %d: %d fronts, largest m %d, p %d; %lld window steps; wall %.3f ms, "
                   "device assembly %.3f, dense %.3f (factor_window %.3f, apply_window %.3f, commit_window %.3f), update %.3f "
                   "(%.0f GFlop/s; host %.3f, form_w %.3f), other %.3f ms\n", static_cast<int>(lev), static_cast<int>(nf_),
                   mmax, pmax, times.steps - steps_before, 1e3 * seconds_since(lev_t0),
                   1e3 * ev_assembled_.since(ev_start_), 1e3 * ev_dense_.since(ev_assembled_),
                   1e3 * (times.window - win_before), 1e3 * (times.apply - apply_before),
                   1e3 * (times.commit - commit_before), 1e3 * ev_updated_.since(ev_dense_),
                   upd_flops / std::max(1e-9, ev_updated_.since(ev_dense_)) * 1e-9, 1e3 * upd_host,
                   1e3 * ev_formw_.since(ev_dense_), 1e3 * ev_copied_.since(ev_updated_));
    }
  }

  // ---- the stages (public: the kernel tests run the dense stages on synthetic levels)

  /// The fronts of a level: each node's front grows by the columns its children could not eliminate (their p -
  /// nelim); fronts are placed back to back in w.F (see front_align), variable lists in w.Vars, D in w.Dlev.
  void build_fronts(const Vector<index_t>& nodes) {
    const Symbolic& sym = *sym_;
    nf_ = static_cast<index_t>(nodes.size());
    fronts.resize(nf_);
    long long foff = 0, voff = 0, doff = 0;
    for (index_t f = 0; f < nf_; ++f) {
      const index_t nd = nodes[f];
      int ndelay = 0;
      for (index_t c = sym.child_ptr[nd]; c < sym.child_ptr[nd + 1]; ++c) {
        const GpuNodeInfo& ci = out_.info[sym.child_list[c]];
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
      GpuNodeInfo& ni = out_.info[nd];
      ni.m = d.m;
      ni.p = d.p;
      ni.ndelay = ndelay;
      ni.front_off = d.off;
      ni.front_ld = d.ld;
    }
    w_.F.reserve_discard(static_cast<size_t>(foff));
    w_.Vars.reserve_discard(static_cast<size_t>(voff));
    w_.Dlev.reserve_discard(static_cast<size_t>(doff) + 2);
    k_.zero(w_.Dlev.get(), static_cast<size_t>(doff) + 2, "cudaMemsetAsync D");
    w_.Fronts.upload(fronts.data(), fronts.size(), k_.main);
    set_spread();
  }

  /// A level given by its front records (fronts already set, w.Fronts uploaded, w.F, w.Vars and w.Dlev filled):
  /// the kernel tests' synthetic levels.
  void set_level(const Vector<FrontDesc>& level_fronts) {
    fronts = level_fronts;
    nf_ = static_cast<index_t>(fronts.size());
    set_spread();
  }

  /// The fronts' entries: cleared, their variables, A's entries, then the children's contribution blocks, one
  /// launch per child rank (a fixed order, no atomics: bitwise reproducible sums).
  void assemble() {
    const Symbolic& sym = *sym_;
    const LevelMaps& mp = in_.maps;
    k_.zero_fronts(w_.Fronts.get(), nf_, spread_, w_.F.get());
    k_.init_fronts(w_.Fronts.get(), nf_, w_.F.get(), w_.Vars.get(), mp.perm, mp.sptr, mp.rptr, mp.rlist);
    k_.assemble_a(w_.Fronts.get(), nf_, w_.F.get(), mp.tptr, mp.targets, mp.srcs, in_.val, in_.scale);
    int max_children = 0;
    for (index_t f = 0; f < nf_; ++f) {
      const index_t nd = fronts[f].node;
      max_children = std::max<int>(max_children, sym.child_ptr[nd + 1] - sym.child_ptr[nd]);
    }
    Vector<int> delay_pos(nf_);
    for (index_t f = 0; f < nf_; ++f) delay_pos[f] = fronts[f].ncol;
    for (int r = 0; r < max_children; ++r) {
      Vector<ChildTask> ct;
      for (index_t f = 0; f < nf_; ++f) {
        const index_t nd = fronts[f].node;
        if (sym.child_ptr[nd] + r >= sym.child_ptr[nd + 1]) continue;
        const index_t c = sym.child_list[sym.child_ptr[nd] + r];
        const GpuNodeInfo& ci = out_.info[c];
        ChildTask t;
        t.parent = f;
        t.mc = ci.m - ci.nelim;
        t.nd = ci.p - ci.nelim;
        t.delay_pos = delay_pos[f];
        t.child_ncol = sym.ncol(c);
        if (in_.by_small && in_.by_small[c]) {  // in the small fronts' pool (front_off, front_ld: its block there)
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
      w_.Child.upload(ct.data(), ct.size(), k_.main);
      int max_mc = 0;
      for (const auto& t : ct) max_mc = std::max(max_mc, t.mc);
      const int child_spread = std::max(1, std::min(256, max_mc / 64));
      k_.assemble_children(w_.Child.get(), static_cast<int>(ct.size()), child_spread, w_.Fronts.get(), w_.F.get(),
                           w_.Vars.get(), w_.Fprev.get(), in_.cb_pool, mp.cmap, out_.rows.get());
    }
  }

  /// The dense partial factorization of every front of the level, window by window.
  /// Candidates are swept from left to right: a window that fails leaves its columns behind (s grows), a window
  /// that succeeds moves its pivots to k and the failures after them. When a sweep reaches the end, a new sweep
  /// starts over the failed columns if the last one made progress (they have been updated since they failed),
  /// else the front is finished and they are delayed (a-posteriori pivoting, Hogg et al. 2016 §3.2).
  /// Two-level blocking: the candidates are taken in blocks of outer_block columns. A window's pivots update only
  /// the columns of its block (and the failed candidates before it); the columns after the block are updated once
  /// when the block is done, with all its pivots at once (an update with an inner dimension of up to outer_block
  /// instead of max_window).
  /// Posdef mode: a front whose pivot is not positive stops (not_posdef_var[f] is its variable, else -1).
  void dense_phase() {
    begin_dense_phase();
    while (dense_step()) {
    }
  }

  /// The window loop's state for the level's fronts (every front with candidates active).
  void begin_dense_phase() {
    const index_t nf = nf_;
    kk.assign(nf, 0);
    ss.assign(nf, 0);
    progress_.assign(nf, 0);
    active_.assign(nf, 0);
    block_end_.assign(nf, 0);
    block_k0_.assign(nf, 0);
    not_posdef_var.assign(nf, -1);
    first_not_posdef_ = -1;
    for (index_t f = 0; f < nf; ++f) active_[f] = fronts[f].p > 0;
    cb_ready_ = false;
  }

  /// One window step over the active fronts, its bookkeeping and its queued updates; false when no front is
  /// active (nothing done).
  bool dense_step() {
    wins_.clear();
    long long lt_size = 0, scr_size = 0, s_size = 0, row_blocks = 0, line_size = 0;
    for (index_t f = 0; f < nf_; ++f) {
      if (!active_[f]) continue;
      if (kk[f] + ss[f] >= block_end_[f]) {  // a new block of candidates
        block_end_[f] = std::min(fronts[f].p, kk[f] + ss[f] + outer_block);
        block_k0_[f] = kk[f];
      }
      WindowTask t;
      t.front = f;
      t.k = kk[f];
      t.s = ss[f];
      t.w = std::min(max_window, block_end_[f] - kk[f] - ss[f]);
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
      wins_.push_back(t);
    }
    if (wins_.empty()) return false;
    window_step(lt_size, scr_size, s_size, row_blocks, line_size);
    window_bookkeeping();
    run_queued_updates();
    return true;
  }

  /// Posdef mode: throws Error(not_posdef) for the first front dense_phase stopped.
  void throw_if_not_posdef() const {
    if (first_not_posdef_ < 0) return;
    throw Error(flag::not_posdef, "matrix is not positive definite: pivot of column " +
                                      std::to_string(not_posdef_var[first_not_posdef_]) + " (0-based) is not positive");
  }

  /// Roots whose remaining candidates all failed (nothing to delay them to): the remaining block is copied to the
  /// host, factorized there with a full threshold search (ldlt_threshold_partial), and its permutation, entries and
  /// D written back.
  void finish_roots() {
    for (index_t f = 0; f < nf_; ++f) {
      const FrontDesc& fd = fronts[f];
      if (fd.m != fd.p || kk[f] == fd.p) continue;
      const int k = kk[f], r = fd.p - k;
      k_.sync();
      Vector<double> blk(static_cast<size_t>(r) * r);
      double* F = w_.F.get() + fd.off;
      k_.block_to_host_now(blk.data(), r, F + k + static_cast<long long>(k) * fd.ld, fd.ld, r, r, "cudaMemcpy2D root block");
      Vector<int> perm(r);
      Vector<double> d(2 * static_cast<size_t>(r));
      DenseLdltOptions o;
      o.u = in_.prm.u;
      o.small = in_.prm.small;
      o.block_size = std::max(8, in_.cpu_block_size);
      DenseLdltStats stats;
      ldlt_threshold_partial(r, r, blk.data(), r, perm.data(), d.data(), o, stats);
      Vector<int> scr(3 * static_cast<size_t>(r));
      std::copy(perm.begin(), perm.end(), scr.begin());
      w_.Scr.upload(scr.data(), scr.size(), k_.main);
      k_.permute_range(w_.Fronts.get() + f, w_.F.get(), w_.Vars.get(), k, r, w_.Scr.get());
      k_.block_to_device(F + k + static_cast<long long>(k) * fd.ld, fd.ld, blk.data(), r, r, r, "cudaMemcpy2DAsync root block");
      k_.to_device(w_.Dlev.get() + fd.d_off + 2LL * k, d.data(), 2 * static_cast<size_t>(r), "cudaMemcpyAsync root D");
      k_.sync();
      kk[f] = fd.p;
      ++roots_finished;
    }
  }

  /// The contribution blocks: C -= L2 D L2^T with every pivot of the front at once. Prepared during the dense
  /// phase when no front delayed a column, else queued and run as the window updates are.
  void contribution_updates() {
    bool no_delays = true;
    for (index_t f = 0; f < nf_; ++f) {
      out_.info[fronts[f].node].nelim = kk[f];
      no_delays = no_delays && kk[f] == fronts[f].p;
    }
    mark_formw_ = in_.print_level >= 3;
    if (mark_formw_) ev_formw_.record(k_.main);
    if (cb_ready_ && no_delays) {  // prepared during the dense phase
      if (!cb_formw_.empty()) {
        k_.wait(ev_cb_uploaded_);
        k_.form_w(w_.FormWcb.get(), static_cast<int>(cb_formw_.size()), cb_max_entries_);
        if (mark_formw_) ev_formw_.record(k_.main);
        k_.launch_updates(cb_plan_, w_.UpdCb.get());
      }
    } else {
      for (index_t f = 0; f < nf_; ++f) queue_update(fronts[f], fronts[f].p, fronts[f].m, 0, kk[f]);
      run_queued_updates();
    }
    mark_formw_ = false;
  }

  /// L, D and the row lists of every front appended to the factor stores (the contribution blocks stay in the
  /// fronts for the next level).
  void copy_out() {
    Vector<CopyOutTask> co(nf_);
    long long l_need = 0, rows_need = 0, d_need = 0;
    for (index_t f = 0; f < nf_; ++f) {
      const FrontDesc& fd = fronts[f];
      GpuNodeInfo& ni = out_.info[fd.node];
      CopyOutTask& t = co[f];
      t.front = f;
      t.nelim = ni.nelim;
      t.l_off = ni.l_off = out_.l_used + l_need;
      t.rows_off = ni.rows_off = out_.rows_used + rows_need;
      t.dstore_off = ni.d_off = out_.d_used + d_need;
      l_need += static_cast<long long>(fd.m) * ni.nelim;
      rows_need += fd.m;
      d_need += 2LL * ni.nelim;
    }
    out_.L.reserve_keep(static_cast<size_t>(out_.l_used + l_need), static_cast<size_t>(out_.l_used), k_.main);
    out_.rows.reserve_keep(static_cast<size_t>(out_.rows_used + rows_need), static_cast<size_t>(out_.rows_used), k_.main);
    out_.D.reserve_keep(static_cast<size_t>(out_.d_used + d_need), static_cast<size_t>(out_.d_used), k_.main);
    w_.Copy.upload(co.data(), co.size(), k_.main);
    k_.copy_out(w_.Copy.get(), nf_, spread_, w_.Fronts.get(), w_.F.get(), w_.Vars.get(), w_.Dlev.get(), out_.L.get(),
                out_.rows.get(), out_.D.get());
    out_.l_used += l_need;
    out_.rows_used += rows_need;
    out_.d_used += d_need;
  }

  /// Waits for the level (its task arrays and buffers are reused by the next one); this level's fronts, holding
  /// the contribution blocks, become the previous level's.
  void end_level() {
    k_.sync();
    w_.Fprev.swap(w_.F);
  }

  // ---- state readable by the caller
  Vector<FrontDesc> fronts;     ///< this level's fronts
  Vector<int> kk, ss;           ///< per front: pivots accepted, failed candidates of the current sweep
  Vector<int> not_posdef_var;   ///< per front (posdef): the variable whose pivot is not positive, else -1
  LevelTimes times;
  int roots_finished = 0;       ///< roots finished by finish_roots

 private:
  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  /// Blocks per front of the zero_fronts and copy_out launches: by the largest front.
  void set_spread() {
    int max_m = 0;
    for (const auto& fd : fronts) max_m = std::max(max_m, fd.m);
    spread_ = std::max(1, std::min(1024, static_cast<int>(static_cast<long long>(max_m) * max_m / (256 * 64))));
  }

  /// One window step over the active fronts (wins_): window_colmax, factor_window, apply_window, commit_window, and
  /// the copy of the accepted-pivot counts to the host (the only wait of the step).
  void window_step(long long lt_size, long long scr_size, long long s_size, long long row_blocks, long long line_size) {
    const int nt = static_cast<int>(wins_.size());
    w_.Win.upload(wins_.data(), wins_.size(), k_.main);
    w_.Lt.reserve_discard(static_cast<size_t>(lt_size));
    w_.Scr.reserve_discard(static_cast<size_t>(scr_size));
    w_.S.reserve_discard(static_cast<size_t>(s_size));
    w_.Lines.reserve_discard(static_cast<size_t>(line_size));
    w_.Res.reserve_discard(static_cast<size_t>(nt));
    w_.Q.reserve_discard(2 * static_cast<size_t>(nt));
    const bool detail_times = in_.print_level >= 2;
    if (detail_times) ev_w0_.record(k_.main);
    if (!in_.prm.posdef) {  // the windows' column maxima outside the window, for the pivot tests
      w_.Cmax.reserve_discard(static_cast<size_t>(row_blocks) * max_window + 1);
      k_.window_colmax(w_.Win.get(), nt, row_blocks, w_.Fronts.get(), w_.F.get(), w_.Cmax.get());
    }
    k_.factor_window(w_.Win.get(), nt, w_.Fronts.get(), w_.F.get(), w_.Lt.get(), w_.S.get(), w_.Res.get(),
                     w_.Cmax.get(), in_.prm);
    if (detail_times) ev_w1_.record(k_.main);
    k_.apply_window(w_.Win.get(), nt, row_blocks, w_.Fronts.get(), w_.F.get(), w_.Lt.get(), w_.S.get(), w_.Res.get(),
                    in_.prm);
    if (detail_times) ev_w2_.record(k_.main);
    long long max_lt = 0;
    // (the commit copies whole lines of m entries: spread by m * w, not by the (m - k) * w entries of L)
    for (const auto& t : wins_) max_lt = std::max(max_lt, static_cast<long long>(fronts[t.front].m) * t.w);
    k_.commit_window(w_.Win.get(), nt, max_lt, w_.Fronts.get(), w_.F.get(), w_.Vars.get(), w_.Dlev.get(), w_.Lt.get(),
                     w_.Res.get(), w_.Q.get(), w_.Scr.get(), w_.Lines.get());
    if (detail_times) ev_w3_.record(k_.main);
    if (in_.preallocate && in_.prepared_updates && !cb_ready_) {  // while the step runs
      prepare_cb_updates();
      cb_ready_ = true;
    }
    qhost_.resize(2 * static_cast<size_t>(nt));
    k_.to_host(qhost_.data(), w_.Q.get(), qhost_.size(), "cudaMemcpyAsync pivots accepted");
    k_.sync();
    ++times.steps;
    if (detail_times) {
      times.window += ev_w1_.since(ev_w0_);
      times.apply += ev_w2_.since(ev_w1_);
      times.commit += ev_w3_.since(ev_w2_);
    }
  }

  /// The host's part of a window step: advance k and s of each front by its accepted pivots, queue the updates
  /// of the rest of the block (and of the columns after a finished block), start a new sweep or retire the front.
  void window_bookkeeping() {
    for (size_t i = 0; i < wins_.size(); ++i) {
      const WindowTask& t = wins_[i];
      const int f = t.front;
      const FrontDesc& fd = fronts[f];
      const int q = qhost_[2 * i];
      if (in_.prm.posdef && qhost_[2 * i + 1] >= 0) {
        int var = -1;
        const long long at = fd.var_off + t.k + t.s + qhost_[2 * i + 1];
        k_.to_host_now(&var, w_.Vars.get() + at, 1, "cudaMemcpy variable");
        not_posdef_var[f] = var;
        if (first_not_posdef_ < 0) first_not_posdef_ = f;
        active_[f] = 0;
        continue;
      }
      if (q > 0) {
        kk[f] += q;
        ss[f] += t.w - q;
        progress_[f] = 1;
        const int k = kk[f];
        queue_update(fd, k, block_end_[f], k - q, q);  // the rest of the block
      } else {
        ss[f] += t.w;
      }
      if (kk[f] + ss[f] >= block_end_[f]) {  // block done: the columns after it
        const int k = kk[f], b = block_end_[f];
        queue_update(fd, b, fd.p, block_k0_[f], k - block_k0_[f]);
      }
      if (kk[f] < fd.p && ss[f] >= fd.p - kk[f] && progress_[f]) {
        ss[f] = 0;  // a new sweep over the failed candidates
        progress_[f] = 0;
        block_end_[f] = 0;
      }
      if (kk[f] == fd.p || ss[f] >= fd.p - kk[f]) active_[f] = 0;
    }
  }

  /// Queues C(r0:m, r0:c1) -= L(r0:m, j0:j0+nq) D W^T on front fd, the lower trapezoid, with W = the rows r0:c1 of
  /// L(:, j0:j0+nq) D (W's place is an offset, as a pointer, until it is resolved against its buffer).
  void queue_update(const FrontDesc& fd, int r0, int c1, int j0, int nq) {
    const int ncol = c1 - r0;
    if (ncol <= 0 || nq <= 0) return;
    double* F = w_.F.get() + fd.off;
    FormWTask fw;
    fw.l = F + r0 + static_cast<long long>(j0) * fd.ld;
    fw.d = w_.Dlev.get() + fd.d_off + 2LL * j0;
    fw.w = reinterpret_cast<double*>(w_size_);
    fw.ldl = fd.ld;
    fw.nrow = ncol;
    fw.q = nq;
    fw.ldw = static_cast<int>(round_up_align(ncol));  // every W 64-byte aligned (see front_align)
    formw_.push_back(fw);
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
    upd_.push_back(u);
    w_size_ += static_cast<long long>(fw.ldw) * nq;
  }

  /// Forms every queued W (one form_w launch) and runs the updates; empties the queue.
  void run_queued_updates() {
    if (!upd_.empty()) {
      w_.W.reserve_discard(static_cast<size_t>(w_size_));
      for (auto& fw : formw_) fw.w = w_.W.get() + reinterpret_cast<long long>(fw.w);
      for (auto& u : upd_) u.w = w_.W.get() + reinterpret_cast<long long>(u.w);
      w_.FormW.upload(formw_.data(), formw_.size(), k_.main);
      long long max_entries = 0;
      for (const auto& fw : formw_) max_entries = std::max(max_entries, static_cast<long long>(fw.nrow) * fw.q);
      k_.form_w(w_.FormW.get(), static_cast<int>(formw_.size()), max_entries);
      if (mark_formw_) ev_formw_.record(k_.main);
      k_.plan_updates(upd_, upd_plan_);
      k_.upload_updates(upd_plan_, w_.Upd, k_.main);
      k_.launch_updates(upd_plan_, w_.Upd.get());
    }
    formw_.clear();
    upd_.clear();
    w_size_ = 0;
  }

  /// The contribution updates of the level prepared while its first window step runs, as if every front
  /// eliminated all its candidates (no delays): their tasks, their plan, W in w.Wcb, uploaded on the copy queue.
  /// When the dense phase ends with no delays the level's updates are then only launches: the device does not
  /// wait for the host to build and upload them. With delays they are queued and run as the window updates are.
  void prepare_cb_updates() {
    for (const FrontDesc& fd : fronts) queue_update(fd, fd.p, fd.m, 0, fd.p);
    w_.Wcb.reserve_discard(static_cast<size_t>(w_size_) + 1);  // preallocated; grows only with delays
    cb_max_entries_ = 0;
    for (auto& fw : formw_) {
      fw.w = w_.Wcb.get() + reinterpret_cast<long long>(fw.w);
      cb_max_entries_ = std::max(cb_max_entries_, static_cast<long long>(fw.nrow) * fw.q);
    }
    for (auto& u : upd_) u.w = w_.Wcb.get() + reinterpret_cast<long long>(u.w);
    cb_formw_.swap(formw_);
    cb_upd_.swap(upd_);
    formw_.clear();
    upd_.clear();
    w_size_ = 0;
    k_.plan_updates(cb_upd_, cb_plan_);
    if (!cb_formw_.empty()) w_.FormWcb.upload(cb_formw_.data(), cb_formw_.size(), k_.copy);
    k_.upload_updates(cb_plan_, w_.UpdCb, k_.copy);
    ev_cb_uploaded_.record(k_.copy);
  }

  K& k_;
  const Symbolic* sym_;
  const LevelInputs& in_;
  LevelWork<K>& w_;
  LevelStores<K>& out_;
  index_t nf_ = 0;
  int spread_ = 1;
  Vector<int> progress_, active_, block_end_, block_k0_;
  int first_not_posdef_ = -1;
  Vector<WindowTask> wins_;
  Vector<int> qhost_;
  // queued updates (W offsets until run_queued_updates) and the prepared contribution updates
  Vector<FormWTask> formw_, cb_formw_;
  Vector<UpdateTask> upd_, cb_upd_;
  long long w_size_ = 0, cb_max_entries_ = 0;
  typename K::UpdatePlan upd_plan_, cb_plan_;
  bool cb_ready_ = false, mark_formw_ = false;
  typename K::Event ev_start_, ev_assembled_, ev_dense_, ev_updated_, ev_copied_, ev_w0_, ev_w1_, ev_w2_, ev_w3_,
      ev_formw_, ev_cb_uploaded_;
};

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
