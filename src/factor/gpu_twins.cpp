// gpu_twins.cpp — CPU twins of the GPU factorization kernels; contract and FMA placement: gpu_twins.hpp.
// Each function below names the kernel it mirrors; the loops over blockIdx/threadIdx of the kernel become
// plain loops (the kernels' threads write disjoint entries, or combine with an order-free min), so the
// results do not depend on how the kernel's threads are scheduled.

// No contraction by the host compiler: every fused multiply-add below is an explicit std::fma.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "factor/gpu_twins.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "factor/pivot_tests.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

constexpr int W = max_window;
constexpr int tile = 64;    // update_kernel's tile
constexpr int tile_k = 16;  // update_kernel's inner chunk

// ---- the device arithmetic, as nvcc contracts it (see gpu_twins.hpp)

/// x - a*b (one rounding).
inline double sub_mul(double x, double a, double b) { return std::fma(-a, b, x); }
/// a*b + c*d with the second product rounded.
inline double mad2(double a, double b, double c, double d) { return std::fma(a, b, c * d); }
/// two_by_two_inverse as compiled for the device: det = fma(a11, a22, -(a21*a21)).
inline void dev_two_by_two_inverse(double a11, double a21, double a22, double& i11, double& i21, double& i22) {
  const double det = std::fma(a11, a22, -(a21 * a21));
  i11 = a22 / det;
  i21 = -a21 / det;
  i22 = a11 / det;
}

inline bool multiplier_ok(double l, double u) { return std::isfinite(l) && std::fabs(l) * u <= 1.0; }

inline double sym_at(const double* F, long long ld, long long i, long long j) {
  return i >= j ? F[i + j * ld] : F[j + i * ld];
}

inline int front_row(int local, int ncol, int ndelay) { return local < ncol ? local : local + ndelay; }

/// sym_swap of dense_kernels.cu: symmetric swap of positions a < b (lower storage) and of vars[a], vars[b].
void sym_swap(double* F, long long m, long long ld, int a, int b, int* vars) {
  for (long long j = 0; j < m; ++j) {
    double* x;
    double* y;
    if (j < a) {
      x = F + a + j * ld;
      y = F + b + j * ld;
    } else if (j == a) {
      x = F + a + a * ld;
      y = F + b + b * ld;
    } else if (j < b) {
      x = F + j + a * ld;
      y = F + b + j * ld;
    } else if (j == b) {
      continue;
    } else {
      x = F + j + a * ld;
      y = F + j + b * ld;
    }
    std::swap(*x, *y);
  }
  if (vars) std::swap(vars[a], vars[b]);
}

/// permute_positions of dense_kernels.cu: afterwards position lo+t holds what was at lo+src[t], by the same
/// sequence of transpositions (pos/at: len-int scratch, left as the kernel leaves them).
void permute_positions(double* F, long long m, long long ld, int* vars, int lo, int len, const int* src, int* pos, int* at) {
  for (int t = 0; t < len; ++t) {
    pos[t] = t;
    at[t] = t;
  }
  for (int t = 0; t < len; ++t) {
    const int e = src[t], cur = pos[e];
    const int sa = t, sb = cur;
    if (cur != t) {
      const int other = at[t];
      at[cur] = other;
      pos[other] = cur;
      at[t] = e;
      pos[e] = t;
    }
    if (sa != sb) sym_swap(F, m, ld, lo + std::min(sa, sb), lo + std::max(sa, sb), vars);
  }
}

/// One block of factor_window_kernel.
void factor_window_block(const WindowTask& t, const FrontDesc* fronts, const double* fbuf, double* lt_buf,
                         double* sbuf, WindowResult& out, const double* cmax, const DenseParams& prm) {
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const long long m = f.m;
  const int w = t.w, base = t.k + t.s;
  const long long ldt = m - t.k;
  double* lt = lt_buf + t.lt_off;

  std::vector<double> Sv(static_cast<size_t>(W) * (W + 1));
  auto S = [&](int r, int c) -> double& { return Sv[static_cast<size_t>(r) * (W + 1) + c]; };  // S[r][c]
  int processed[W], order[W], pos_of[W], skipped[W];
  double D[2 * W + 2], off[W];
  const long long nrb = (ldt - w + apply_rows - 1) / apply_rows;  // the window's row blocks in cmax
  for (int c = 0; c < W; ++c) {
    processed[c] = 0;
    skipped[c] = c >= w;
    pos_of[c] = W;
    order[c] = -1;
    off[c] = 0.0;
    if (!prm.posdef)
      for (long long b = 0; b < nrb; ++b) off[c] = std::fmax(off[c], cmax[(t.rb_begin + b) * W + c]);
  }
  for (double& x : D) x = 0.0;
  for (int c = 0; c < w; ++c)
    for (int r = 0; r < w; ++r) S(r, c) = sym_at(F, f.ld, base + r, base + c);
  int npiv = 0, stop_pos = W, fail_pos = W, fail_local = -1;
  bool early = false;  // a multiplier of the last pivot inside the window failed: no later pivot can be accepted

  while (npiv < w && stop_pos == W && !early) {
    int i = 0;
    while (i < W && (processed[i] || skipped[i])) ++i;  // leftmost candidate neither processed nor skipped
    if (i == W) break;
    // warp argmax of |S[r][i]| over unprocessed r != i: the largest value, the smallest index on ties
    // (NaN never wins); a sequential scan with a strict comparison gives the same (value, index)
    double best = -1.0;
    int bj = -1;
    for (int r = 0; r < w; ++r) {
      if (r != i && !processed[r]) {
        const double v = std::fabs(S(r, i));
        if (v > best) {
          best = v;
          bj = r;
        }
      }
    }
    const double aii = S(i, i);
    int kind, t1 = i, t2 = -1;
    if (prm.posdef) {
      kind = 1;
      if (!(aii > 0.0)) {
        stop_pos = npiv;
        fail_local = i;
      }
    } else {
      const double gi = std::fmax(best, off[i]);
      if (!(std::fmax(std::fabs(aii), gi) >= prm.small)) {
        kind = 0;
      } else if (one_by_one_ok(aii, gi, prm.u, prm.small)) {
        kind = 1;
      } else {
        kind = -1;
        if (bj >= 0) {
          double gi2 = 0.0, gj2 = 0.0;
          for (int r = 0; r < w; ++r)
            if (r != i && r != bj && !processed[r]) {
              gi2 = std::fmax(gi2, std::fabs(S(r, i)));
              gj2 = std::fmax(gj2, std::fabs(S(r, bj)));
            }
          if (two_by_two_ok(aii, S(bj, i), S(bj, bj), std::fmax(gi2, off[i]), std::fmax(gj2, off[bj]), prm.u)) {
            kind = 2;
            t2 = bj;
          }
        }
        if (kind == -1) {
          skipped[i] = 1;
          continue;
        }
      }
    }
    if (stop_pos != W) break;
    const int np = npiv;
    if (kind == 0) {
      for (int r = 0; r < w; ++r)
        if (!processed[r] && r != t1) S(r, t1) = 0.0;
      D[2 * np] = 0.0;
      D[2 * np + 1] = 0.0;
    } else if (kind == 1) {
      const double d = S(t1, t1);
      for (int c = 0; c < w; ++c)
        for (int r = 0; r < w; ++r)
          if (r != t1 && c != t1 && !processed[r] && !processed[c]) S(r, c) = sub_mul(S(r, c), S(r, t1) / d, S(c, t1));
      for (int r = 0; r < w; ++r) {
        if (!processed[r] && r != t1) {
          S(r, t1) = S(r, t1) / d;
          early = early || !multiplier_ok(S(r, t1), prm.u);
        }
      }
      D[2 * np] = d;
      D[2 * np + 1] = 0.0;
    } else {
      double i11, i21, i22;
      dev_two_by_two_inverse(S(t1, t1), S(t2, t1), S(t2, t2), i11, i21, i22);
      for (int c = 0; c < w; ++c)
        for (int r = 0; r < w; ++r)
          if (r != t1 && r != t2 && c != t1 && c != t2 && !processed[r] && !processed[c]) {
            const double a = S(r, t1), b = S(r, t2);
            const double l1 = mad2(a, i11, b, i21), l2 = mad2(a, i21, b, i22);
            S(r, c) -= mad2(l1, S(c, t1), l2, S(c, t2));
          }
      for (int r = 0; r < w; ++r)
        if (!processed[r] && r != t1 && r != t2) {
          const double a = S(r, t1), b = S(r, t2);
          S(r, t1) = mad2(a, i11, b, i21);
          S(r, t2) = mad2(a, i21, b, i22);
          early = early || !(multiplier_ok(S(r, t1), prm.u) && multiplier_ok(S(r, t2), prm.u));
        }
      D[2 * np] = S(t1, t1);
      D[2 * np + 1] = S(t2, t1);
      D[2 * np + 2] = S(t2, t2);
      D[2 * np + 3] = 0.0;
    }
    processed[t1] = 1;
    order[np] = t1;
    pos_of[t1] = np;
    if (kind == 2) {
      processed[t2] = 1;
      order[np + 1] = t2;
      pos_of[t2] = np + 1;
      npiv = np + 2;
    } else {
      npiv = np + 1;
    }
  }
  const int np = npiv;

  // multipliers inside the window (rows processed after their pivot column)
  for (int pc = 0; pc < np; ++pc)
    for (int a = 0; a < w; ++a) {
      if (pos_of[a] <= pc) continue;
      const bool partner = D[2 * pc + 1] != 0.0 && pc + 1 < np && order[pc + 1] == a;
      const double l = partner ? 0.0 : S(a, order[pc]);
      if (!multiplier_ok(l, prm.u)) fail_pos = std::min(fail_pos, pc);
    }
  // window rows of the scratch L
  for (int pc = 0; pc < np; ++pc)
    for (int a = 0; a < w; ++a) {
      double l;
      const int pa = pos_of[a];
      if (pc > pa) l = 0.0;
      else if (pc == pa) l = 1.0;
      else if (D[2 * pc + 1] != 0.0 && order[pc + 1] == a) l = 0.0;
      else l = S(a, order[pc]);
      lt[(t.s + a) + pc * ldt] = l;
    }
  out.np = np;
  out.stop_pos = stop_pos;
  out.fail_pos = fail_pos;
  out.fail_local = fail_local;
  for (int c = 0; c < W; ++c) {
    out.order[c] = c < np ? order[c] : -1;
    out.pos_of[c] = pos_of[c];
  }
  for (int e = 0; e < 2 * W + 2; ++e) out.d[e] = e < 2 * np ? D[e] : 0.0;
  double* sg = sbuf + t.s_off;
  for (int e = 0; e < w * w; ++e) sg[e] = S(e % w, e / w);
}

/// Index of the last task whose `begin` (rb_begin or tile_begin) is <= b, as the kernels' binary search.
template <class Task, class Begin>
int task_of_block(const Task* tasks, int ntasks, long long b, Begin begin) {
  int lo = 0, hi = ntasks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (begin(tasks[mid]) <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace

long long twin_update_tiles(int nrow, int ncol) {
  if (nrow <= 0 || ncol <= 0) return 0;
  const long long nti = (nrow + tile - 1) / tile, ntj = (ncol + tile - 1) / tile;
  long long n = 0;
  for (long long tj = 0; tj < ntj; ++tj) n += nti - tj;
  return n;
}

// ---- assemble_kernels.cu

void twin_init_fronts(const FrontDesc* fronts, int nfronts, double*, int* vars, const int* perm, const int* sptr,
                      const long long* rptr, const int* rlist) {
  for (int b = 0; b < nfronts; ++b) {
    const FrontDesc f = fronts[b];
    int* v = vars + f.var_off;
    const int nrow = f.m - f.ndelay;
    for (int t = 0; t < nrow; ++t) {
      if (t < f.ncol) v[t] = perm[sptr[f.node] + t];
      else v[t + f.ndelay] = perm[rlist[rptr[f.node] + t]];
    }
  }
}

void twin_assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr, const ATarget* targets,
                     const long long* srcs, const double* val, const double* scale) {
  for (int b = 0; b < nfronts; ++b) {
    const FrontDesc f = fronts[b];
    double* F = fbuf + f.off;
    for (long long t = tptr[f.node]; t < tptr[f.node + 1]; ++t) {
      const ATarget a = targets[t];
      double acc = 0.0;
      for (int e = a.src_begin; e < a.src_end; ++e) {
        const double v = val[srcs[e]];
        if (scale) acc = std::fma(v, scale[a.orig_row] * scale[a.orig_col], acc);  // v *= s_r s_c; acc += v
        else acc += v;
      }
      const int r = front_row(a.lrow, f.ncol, f.ndelay);
      F[r + static_cast<long long>(a.lcol) * f.ld] = acc;
    }
  }
}

void twin_zero_fronts(const FrontDesc* fronts, int nfronts, int, double* fbuf) {
  for (int b = 0; b < nfronts; ++b) {
    const FrontDesc f = fronts[b];
    double* F = fbuf + f.off;
    const long long m = f.m;
    for (long long e = 0; e < static_cast<long long>(f.ld) * f.p; ++e) F[e] = 0.0;
    for (long long j = f.p; j < m; ++j)
      for (long long i = cb_zero_row(f.p, j); i < m; ++i) F[i + j * f.ld] = 0.0;
  }
}

void twin_assemble_children(const ChildTask* tasks, int ntasks, int, const FrontDesc* fronts, double* fbuf, int* vars,
                            const double* prev_fronts, const double* pool, const int* cmap, const int* rows_store) {
  for (int b = 0; b < ntasks; ++b) {
    const ChildTask t = tasks[b];
    const FrontDesc f = fronts[t.parent];
    double* F = fbuf + f.off;
    const double* C = (t.cb_in_pool ? pool : prev_fronts) + t.cb_off;
    for (int i = 0; i < t.nd; ++i) vars[f.var_off + t.delay_pos + i] = rows_store[t.child_vars + t.child_nelim + i];
    // each entry of the block is added once, into a distinct front entry: the kernel's spread over blocks,
    // warps and lanes does not change any sum
    for (int j = 0; j < t.mc; ++j) {
      const int fj = j < t.nd ? t.delay_pos + j : front_row(cmap[t.cmap_off + t.child_ncol + (j - t.nd)], f.ncol, f.ndelay);
      for (int i = j; i < t.mc; ++i) {
        const int fi =
            i < t.nd ? t.delay_pos + i : front_row(cmap[t.cmap_off + t.child_ncol + (i - t.nd)], f.ncol, f.ndelay);
        const double v = C[i + static_cast<long long>(j) * t.cb_ld];
        if (fi >= fj) F[fi + static_cast<long long>(fj) * f.ld] += v;
        else F[fj + static_cast<long long>(fi) * f.ld] += v;
      }
    }
  }
}

void twin_copy_out(const CopyOutTask* tasks, int ntasks, int, const FrontDesc* fronts, const double* fbuf,
                   const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore) {
  for (int b = 0; b < ntasks; ++b) {
    const CopyOutTask t = tasks[b];
    const FrontDesc f = fronts[t.front];
    const double* F = fbuf + f.off;
    const long long m = f.m;
    for (long long e = 0; e < m * t.nelim; ++e) {
      const long long i = e % m, j = e / m;
      lstore[t.l_off + e] = i < j ? 0.0 : F[i + j * f.ld];
    }
    for (int i = 0; i < f.m; ++i) rows_store[t.rows_off + i] = vars[f.var_off + i];
    for (int i = 0; i < 2 * t.nelim; ++i) dstore[t.dstore_off + i] = dbuf[f.d_off + i];
  }
}

// ---- dense_kernels.cu

void twin_window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                        const double* fbuf, double* cmax) {
  for (long long b = 0; b < nblocks; ++b) {
    const WindowTask& t = tasks[task_of_block(tasks, ntasks, b, [](const WindowTask& x) { return x.rb_begin; })];
    const FrontDesc& f = fronts[t.front];
    const double* F = fbuf + f.off;
    const int w = t.w, base = t.k + t.s;
    const long long nrows_other = f.m - t.k - w, r0 = (b - t.rb_begin) * apply_rows;
    for (int c = 0; c < W; ++c) {
      double v = 0.0;
      if (c < w)
        for (long long rr = r0; rr < std::min(r0 + apply_rows, nrows_other); ++rr) {
          const long long row = t.k + (rr < t.s ? rr : rr + w);
          v = std::fmax(v, std::fabs(sym_at(F, f.ld, row, base + c)));
        }
      cmax[b * W + c] = v;
    }
  }
}

void twin_factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf, double* lt,
                        double* sbuf, WindowResult* res, const double* cmax, DenseParams prm) {
  for (int b = 0; b < ntasks; ++b) factor_window_block(tasks[b], fronts, fbuf, lt, sbuf, res[b], cmax, prm);
}

void twin_apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                       const double* fbuf, double* lt_buf, const double* sbuf, WindowResult* res, DenseParams prm) {
  if (ntasks == 0) return;
  std::vector<double> Sv(static_cast<size_t>(W) * (W + 1));
  auto S = [&](int r, int c) -> double& { return Sv[static_cast<size_t>(r) * (W + 1) + c]; };
  for (long long b = 0; b < nblocks; ++b) {
    const int lo = task_of_block(tasks, ntasks, b, [](const WindowTask& t) { return t.rb_begin; });
    const WindowTask t = tasks[lo];
    const FrontDesc f = fronts[t.front];
    const double* F = fbuf + f.off;
    const long long m = f.m;
    const int w = t.w, base = t.k + t.s;
    const long long ldt = m - t.k;
    double* lt = lt_buf + t.lt_off;
    WindowResult& r = res[lo];
    const double* sg = sbuf + t.s_off;
    for (int e = 0; e < w * w; ++e) S(e % w, e / w) = sg[e];
    // what every thread of the block reads before any of them lowers r.fail_pos
    int order[W], pos_of[W];
    double D[2 * W + 2];
    for (int c = 0; c < W; ++c) {
      order[c] = r.order[c];
      pos_of[c] = r.pos_of[c];
    }
    for (int e = 0; e < 2 * W + 2; ++e) D[e] = r.d[e];
    const int np = r.np;
    const long long nrows_other = ldt - w;
    int block_bad = W;
    double x[W];
    for (int tid = 0; tid < apply_rows; ++tid) {
      const long long rr = (b - t.rb_begin) * apply_rows + tid;
      if (rr >= nrows_other) continue;
      const long long rel = rr < t.s ? rr : rr + w;
      const long long row = t.k + rel;
      for (int a = 0; a < w; ++a) x[a] = sym_at(F, f.ld, row, base + a);
      int first_bad = W;
      for (int pc = 0; pc < np;) {
        const int c1 = order[pc];
        if (D[2 * pc + 1] != 0.0) {
          const int c2 = order[pc + 1];
          double i11, i21, i22;
          dev_two_by_two_inverse(D[2 * pc], D[2 * pc + 1], D[2 * pc + 2], i11, i21, i22);
          const double x1 = x[c1], x2 = x[c2];
          for (int c = 0; c < w; ++c)
            if (pos_of[c] > pc + 1) x[c] -= mad2(x1, S(c, c1), x2, S(c, c2));
          const double l1 = mad2(x1, i11, x2, i21), l2 = mad2(x1, i21, x2, i22);
          lt[rel + pc * ldt] = l1;
          lt[rel + (pc + 1) * ldt] = l2;
          if (first_bad == W && !(multiplier_ok(l1, prm.u) && multiplier_ok(l2, prm.u))) first_bad = pc;
          pc += 2;
        } else {
          const double x1 = x[c1];
          for (int c = 0; c < w; ++c)
            if (pos_of[c] > pc) x[c] = sub_mul(x[c], x1, S(c, c1));
          const double d = D[2 * pc];
          double l = 0.0;
          if (d != 0.0) {  // the kernel's quotient: reciprocal, then one correction by the residual
            const double rd = 1.0 / d, q = x1 * rd;
            l = std::fma(std::fma(-q, d, x1), rd, q);
          }
          lt[rel + pc * ldt] = l;
          const bool ok = d != 0.0 ? multiplier_ok(l, prm.u) : !(std::fabs(x1) >= prm.small);
          if (first_bad == W && !ok) first_bad = pc;
          pc += 1;
        }
      }
      block_bad = std::min(block_bad, first_bad);
    }
    if (block_bad < W) r.fail_pos = std::min(r.fail_pos, block_bad);  // atomicMin
  }
}

void twin_commit_window(const WindowTask* tasks, int ntasks, long long, const FrontDesc* fronts, double* fbuf,
                        int* vars, double* dbuf, const double* lt_buf, const WindowResult* res, int* q_out,
                        int* scratch_buf, double* line_buf) {
  // commit_prepare_kernel
  for (int b = 0; b < ntasks; ++b) {
    const WindowTask t = tasks[b];
    const WindowResult& r = res[b];
    int q = std::min(r.np, std::min(r.fail_pos, r.stop_pos));
    if (q > 0 && q < r.np && r.d[2 * (q - 1) + 1] != 0.0) --q;  // never split a 2x2 pivot
    q_out[2 * b] = q;
    q_out[2 * b + 1] = (r.stop_pos != W && q == r.stop_pos) ? r.fail_local : -1;
    if (q == 0) continue;
    const FrontDesc f = fronts[t.front];
    const int len = t.s + t.w, s = t.s;
    int* src = scratch_buf + t.scr_off;
    int* mv = src + len;
    int* inv = mv + len;
    int accepted[W] = {};
    for (int e = 0; e < len; ++e) src[e] = e;
    for (int pc = 0; pc < q; ++pc) accepted[r.order[pc]] = 1;
    for (int pc = 0; pc < q; ++pc) src[pc] = s + r.order[pc];
    int a = 0;
    for (int e = 0; e < q; ++e) {
      if (e >= s && accepted[e - s]) continue;
      while (!(accepted[a] && s + a >= q)) ++a;
      src[s + a] = e;
      ++a;
    }
    int nm = 0;
    for (int e = 0; e < q; ++e)
      if (src[e] != e) mv[nm++] = e;
    for (int c = std::max(0, q - s); c < t.w; ++c)
      if (src[s + c] != s + c) mv[nm++] = s + c;
    for (int i = 0; i < nm; ++i) inv[i] = static_cast<int>(std::lower_bound(mv, mv + nm, src[mv[i]]) - mv);
    src[3 * len] = nm;
    int* fv = vars + f.var_off + t.k;
    int old_vars[2 * W];
    for (int i = 0; i < nm; ++i) old_vars[i] = fv[mv[i]];
    for (int i = 0; i < nm; ++i) fv[mv[i]] = old_vars[inv[i]];
    for (int e = 0; e < 2 * q; ++e) dbuf[f.d_off + 2 * t.k + e] = r.d[e];
  }
  // commit_lines_kernel (every task's copies are complete before any scatter)
  for (int b = 0; b < ntasks; ++b) {
    const WindowTask t = tasks[b];
    if (q_out[2 * b] == 0) continue;
    const FrontDesc f = fronts[t.front];
    const double* F = fbuf + f.off;
    const long long m = f.m;
    const int len = t.s + t.w;
    const int* src = scratch_buf + t.scr_off;
    const int* mv = src + len;
    const long long nm = src[3 * len];
    double* lines = line_buf + t.line_off;
    for (long long e = 0; e < nm * m; ++e) lines[e] = sym_at(F, f.ld, t.k + mv[e / m], e % m);
  }
  // commit_scatter_kernel
  for (int b = 0; b < ntasks; ++b) {
    const WindowTask t = tasks[b];
    const int q = q_out[2 * b];
    if (q == 0) continue;
    const FrontDesc f = fronts[t.front];
    double* F = fbuf + f.off;
    const long long m = f.m, k = t.k;
    const int len = t.s + t.w;
    const int* src = scratch_buf + t.scr_off;
    const int* mv = src + len;
    const int* inv = mv + len;
    const long long nm = src[3 * len];
    const double* lines = line_buf + t.line_off;
    for (long long e = 0; e < nm * m; ++e) {
      const long long i = e / m, x = e % m;
      const long long P = k + mv[i];
      long long xs = x;
      bool xmoved = false;
      if (x >= k && x < k + len) {
        const int sx = src[x - k];
        xmoved = sx != x - k;
        xs = k + sx;
      }
      if (xmoved && x > P) continue;
      const long long c = std::min(P, x), rr = std::max(P, x);
      if (c >= k && c < k + q) continue;
      F[rr + c * f.ld] = lines[static_cast<long long>(inv[i]) * m + xs];
    }
  }
  // write_window_l_kernel (a fourth launch)
  for (int b = 0; b < ntasks; ++b) {
    const WindowTask t = tasks[b];
    const int q = q_out[2 * b];
    if (q == 0) continue;
    const FrontDesc f = fronts[t.front];
    double* F = fbuf + f.off;
    const long long m = f.m;
    const int len = t.s + t.w;
    const int* src = scratch_buf + t.scr_off;
    const long long ldt = m - t.k;
    const double* lt = lt_buf + t.lt_off;
    for (long long e = 0; e < ldt * q; ++e) {
      const long long i = e % ldt, pc = e / ldt;
      if (i < pc) continue;
      const long long srow = i < len ? src[i] : i;
      F[(t.k + i) + (t.k + pc) * f.ld] = lt[srow + pc * ldt];
    }
  }
}

void twin_permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch) {
  if (len <= 1) return;  // as launch_permute_range: no launch
  const FrontDesc f = *front;
  permute_positions(fbuf + f.off, f.m, f.ld, vars + f.var_off, lo, len, scratch, scratch + len, scratch + 2 * len);
}

void twin_form_w(const FormWTask* tasks, int ntasks, long long) {
  for (int b = 0; b < ntasks; ++b) {
    const FormWTask t = tasks[b];
    for (long long e = 0; e < static_cast<long long>(t.nrow) * t.q; ++e) {
      const int r = static_cast<int>(e % t.nrow), j = static_cast<int>(e / t.nrow);
      const double* l = t.l + r;
      const long long ld = t.ldl;
      double v;
      if (t.d[2 * j + 1] != 0.0) {  // first of a 2x2
        v = mad2(l[j * ld], t.d[2 * j], l[(j + 1) * ld], t.d[2 * j + 1]);
      } else if (j > 0 && t.d[2 * (j - 1) + 1] != 0.0) {  // second of a 2x2
        v = mad2(l[(j - 1) * ld], t.d[2 * (j - 1) + 1], l[j * ld], t.d[2 * j]);
      } else {
        v = l[j * ld] * t.d[2 * j];
      }
      t.w[r + static_cast<long long>(j) * (t.ldw > 0 ? t.ldw : t.nrow)] = v;
    }
  }
}

void twin_update(const UpdateTask* tasks, int ntasks, long long ntiles) {
  if (ntasks == 0) return;
  for (long long b = 0; b < ntiles; ++b) {
    const int lo = task_of_block(tasks, ntasks, b, [](const UpdateTask& t) { return t.tile_begin; });
    const UpdateTask t = tasks[lo];
    long long local = b - t.tile_begin;
    const int nti = (t.nrow + tile - 1) / tile;
    int tj = 0;
    while (local >= nti - tj) {
      local -= nti - tj;
      ++tj;
    }
    const int ti = tj + static_cast<int>(local);
    const int i0 = ti * tile, j0 = tj * tile;
    const int kpad = (t.kdim + tile_k - 1) / tile_k * tile_k;  // the kernel's chunks, zero padded
    for (int jj = 0; jj < tile; ++jj) {
      const int j = j0 + jj;
      for (int ii = 0; ii < tile; ++ii) {
        const int i = i0 + ii;
        if (!(i < t.nrow && j < t.ncol && i >= j)) continue;
        double acc = 0.0;
        for (int gk = 0; gk < kpad; ++gk) {
          const double lv = gk < t.kdim ? t.l[i + static_cast<long long>(gk) * t.ldl] : 0.0;
          const double wv = gk < t.kdim ? t.w[j + static_cast<long long>(gk) * t.ldw] : 0.0;
          acc = std::fma(lv, wv, acc);
        }
        t.c[i + static_cast<long long>(j) * t.ldc] -= acc;
      }
    }
  }
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
