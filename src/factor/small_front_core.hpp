// small_front_core.hpp — the whole factorization of one small front (assembly excluded), compiled for the host
// (the CPU twin, factor/small_fronts_twin.cpp) and for CUDA devices (cuda/small_fronts.cu): both run exactly
// these functions, the host with one thread (tid 0, nth 1, no synchronization), a thread block with its threads,
// __syncthreads() and block-wide max reductions. Every entry is written by one thread with the same operations in
// both, and the reductions are maxima (exact in any order), so the twin and the kernel agree bitwise.
// Arithmetic goes through mul/sub/add/dvd: __dmul_rn etc. on the device (never contracted into FMA), plain IEEE
// operations on the host (the library is compiled in ISO C++ mode, where GCC does not contract them either).
//
// Storage: the front F is m x m, column-major with leading dimension ld >= m, lower triangle only; the first p
// positions are fully summed. vars[i] is the variable at position i (moved with the symmetric interchanges).
//
// Pivoting: the rule of the CPU path's ldlt_threshold_partial (dense_ldlt.cpp) — windows of at most ib candidate
// columns; in a window, candidates left to right, a 1x1 pivot when |a_jj| >= u max_i|a_ij|, else a 2x2 with the
// window column of largest |a_rj| (first on ties) when the 2x2 test passes, else the candidate is tried again
// only after the next accepted pivot; a window that made progress is followed by its failed columns plus ib new
// ones, a window without progress is doubled until it covers every remaining candidate; the rest is delayed, or
// on a root (m == p) the relaxed pass with u = 0 and forced pivots. The pivot tests are pivot_tests.hpp's. (The
// CPU path marks failed candidates as tried until the next accepted pivot; since its scan only moves forward
// between accepted pivots, the marks never change a decision, and this code has none.)
// Updates as on the CPU path: an accepted pivot updates the other columns of its window (over all their rows),
// and a window's pivots update every column after the window at once when it ends (trailing_update); the sums
// are ordered differently, so the values equal the CPU path's up to rounding and the pivot decisions match it
// except where a comparison is within rounding of its threshold.
#pragma once
#include <cmath>

#include "common/host_device.hpp"
#include "cuda/front_tasks.hpp"
#include "factor/pivot_tests.hpp"

namespace ssids {
namespace detail {
namespace small {

using gpu::ATarget;
using gpu::small_deferred;
using gpu::small_done;
using gpu::small_not_posdef;
using gpu::SmallFrontArgs;
using gpu::SmallResult;
using gpu::SmallSlot;

SSIDS_HOST_DEVICE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SSIDS_HOST_DEVICE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SSIDS_HOST_DEVICE double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
SSIDS_HOST_DEVICE double dvd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

/// Inverse of a 2x2 pivot with the operations above (two_by_two_inverse's formulas).
SSIDS_HOST_DEVICE void inverse_2x2(double a11, double a21, double a22, double& i11, double& i21, double& i22) {
  const double det = sub(mul(a11, a22), mul(a21, a21));
  i11 = dvd(a22, det);
  i21 = dvd(-a21, det);
  i22 = dvd(a11, det);
}

/// One thread doing everything (the CPU twin). A team also splits into groups (warps on the device) of nlanes
/// lanes, for loops over columns (groups) and rows (lanes).
struct HostTeam {
  static constexpr int tid = 0, nth = 1;
  static constexpr int group = 0, ngroups = 1, lane = 0, nlanes = 1;
  void sync() const {}
  double max_all(double v) const { return v; }
  /// (v, i) with the largest v, the smallest i among equal v; here the caller's own candidate.
  void argmax_all(double& /*v*/, int& /*i*/) const {}
};

/// Front view with the accessors the algorithm needs.
struct FrontRef {
  double* a;
  int ld, m;
  SSIDS_HOST_DEVICE double& at(int i, int j) const { return a[i + static_cast<long long>(j) * ld]; }
  SSIDS_HOST_DEVICE double sym(int i, int j) const { return i >= j ? at(i, j) : at(j, i); }
};

/// Workspace of one front's factorization (shared memory on the device): w1, w2 of m doubles each.
struct SmallWork {
  double* w1;
  double* w2;
};

template <class Team>
SSIDS_HOST_DEVICE double column_absmax(Team& t, const FrontRef& f, int k, int j, int ex) {
  double r = 0.0;
  for (int c = k + t.tid; c < j; c += t.nth)
    if (c != ex) r = std::fmax(r, std::fabs(f.at(j, c)));
  for (int i = j + 1 + t.tid; i < f.m; i += t.nth)
    if (i != ex) r = std::fmax(r, std::fabs(f.at(i, j)));
  return t.max_all(r);
}

/// Symmetric interchange of positions x and y of the whole lower-triangle storage (including the rows of the
/// computed L columns before x) and of vars. Every pair of entries is swapped by one thread.
template <class Team>
SSIDS_HOST_DEVICE void symmetric_swap(Team& t, const FrontRef& f, int x, int y, int* vars) {
  if (x == y) return;
  if (x > y) {
    const int z = x;
    x = y;
    y = z;
  }
  // index space: [0, x) row parts, x the diagonal, (x, y) the crossing part, (y, m) the column parts
  for (int q = t.tid; q < f.m; q += t.nth) {
    if (q == y) continue;
    double* p1;
    double* p2;
    if (q < x) {
      p1 = &f.at(x, q);
      p2 = &f.at(y, q);
    } else if (q == x) {
      p1 = &f.at(x, x);
      p2 = &f.at(y, y);
    } else if (q < y) {
      p1 = &f.at(q, x);
      p2 = &f.at(y, q);
    } else {
      p1 = &f.at(q, x);
      p2 = &f.at(q, y);
    }
    const double v = *p1;
    *p1 = *p2;
    *p2 = v;
  }
  if (t.tid == 0) {
    const int v = vars[x];
    vars[x] = vars[y];
    vars[y] = v;
  }
  t.sync();
}

/// 1x1 pivot at position j, moved to k: L column = column / D (all rows), the window's other columns (k, e)
/// updated over their rows. Returns k+1.
template <class Team>
SSIDS_HOST_DEVICE int pivot_1x1(Team& t, const FrontRef& f, int k, int j, int e, int* vars, double* d, SmallWork& ws) {
  symmetric_swap(t, f, k, j, vars);
  const double dkk = f.at(k, k);
  for (int i = k + 1 + t.tid; i < f.m; i += t.nth) {
    const double v = f.at(i, k);
    ws.w1[i] = v;
    f.at(i, k) = dvd(v, dkk);
  }
  t.sync();  // every thread has read dkk before the diagonal is overwritten below
  if (t.tid == 0) {
    f.at(k, k) = 1.0;
    d[2 * k] = dkk;
    d[2 * k + 1] = 0.0;
  }
  // F(i, c) -= l_i w_c for k < c < e, c <= i < m: columns over the groups, rows over the lanes
  for (int c = k + 1 + t.group; c < e; c += t.ngroups) {
    const double wc = ws.w1[c];
    for (int i = c + t.lane; i < f.m; i += t.nlanes) f.at(i, c) = sub(f.at(i, c), mul(f.at(i, k), wc));
  }
  t.sync();
  return k + 1;
}

/// 2x2 pivot on positions j and r, moved to k and k+1 in their order; updates the window's columns [k+2, e).
/// Returns k+2.
template <class Team>
SSIDS_HOST_DEVICE int pivot_2x2(Team& t, const FrontRef& f, int k, int j, int r, int e, int* vars, double* d,
                                SmallWork& ws) {
  const int first = j < r ? j : r, second = j < r ? r : j;
  symmetric_swap(t, f, k, first, vars);
  symmetric_swap(t, f, k + 1, second, vars);
  const double a11 = f.at(k, k), a21 = f.at(k + 1, k), a22 = f.at(k + 1, k + 1);
  double i11, i21, i22;
  inverse_2x2(a11, a21, a22, i11, i21, i22);
  for (int i = k + 2 + t.tid; i < f.m; i += t.nth) {
    const double x = f.at(i, k), y = f.at(i, k + 1);
    ws.w1[i] = x;
    ws.w2[i] = y;
    f.at(i, k) = add(mul(x, i11), mul(y, i21));
    f.at(i, k + 1) = add(mul(x, i21), mul(y, i22));
  }
  t.sync();  // every thread has read the pivot block before it is overwritten below
  if (t.tid == 0) {
    f.at(k, k) = 1.0;
    f.at(k + 1, k) = 0.0;
    f.at(k + 1, k + 1) = 1.0;
    d[2 * k] = a11;
    d[2 * k + 1] = a21;
    d[2 * k + 2] = a22;
    d[2 * k + 3] = 0.0;
  }
  for (int c = k + 2 + t.group; c < e; c += t.ngroups) {
    const double w1 = ws.w1[c], w2 = ws.w2[c];
    for (int i = c + t.lane; i < f.m; i += t.nlanes)
      f.at(i, c) = sub(f.at(i, c), add(mul(f.at(i, k), w1), mul(f.at(i, k + 1), w2)));
  }
  t.sync();
  return k + 2;
}

/// Zero pivot at position j, moved to k: D = 0, L column = e_k, no update. Returns k+1.
template <class Team>
SSIDS_HOST_DEVICE int pivot_zero(Team& t, const FrontRef& f, int k, int j, int* vars, double* d) {
  symmetric_swap(t, f, k, j, vars);
  for (int i = k + 1 + t.tid; i < f.m; i += t.nth) f.at(i, k) = 0.0;
  if (t.tid == 0) {
    f.at(k, k) = 1.0;
    d[2 * k] = 0.0;
    d[2 * k + 1] = 0.0;
  }
  t.sync();
  return k + 1;
}

/// The pivots [k0, k1) (their L columns and D final) applied to the columns [e, m) after the window:
/// F(i, c) -= sum_t L(i, t) W(c, t) for e <= c <= i < m, with W = L D, which is first formed in the front's unused
/// upper triangle (W(c, t) at position (t, c), t < k1 <= e <= c), where a warp reads it as a broadcast.
template <class Team>
SSIDS_HOST_DEVICE void trailing_update(Team& t, const FrontRef& f, const double* d, int k0, int k1, int e) {
  if (k1 <= k0 || e >= f.m) return;
  for (int c = e + t.tid; c < f.m; c += t.nth) {
    for (int q = k0; q < k1;) {
      const double l1 = f.at(c, q);
      if (d[2 * q + 1] != 0.0) {  // 2x2 pivot (q, q+1)
        const double l2 = f.at(c, q + 1), d11 = d[2 * q], d21 = d[2 * q + 1], d22 = d[2 * q + 2];
        f.at(q, c) = add(mul(l1, d11), mul(l2, d21));
        f.at(q + 1, c) = add(mul(l1, d21), mul(l2, d22));
        q += 2;
      } else {
        f.at(q, c) = mul(l1, d[2 * q]);
        q += 1;
      }
    }
  }
  t.sync();
  for (int c = e + t.group; c < f.m; c += t.ngroups) {
    const double* wc = &f.at(0, c);  // W(c, q) at wc[q]
    for (int i = c + t.lane; i < f.m; i += t.nlanes) {
      double acc = 0.0;
      for (int q = k0; q < k1; ++q) acc = add(acc, mul(f.at(i, q), wc[q]));
      f.at(i, c) = sub(f.at(i, c), acc);
    }
  }
  t.sync();
}

/// Threshold pivoting inside the window [k, e) (dense_ldlt.cpp's factor_window). Returns the new k.
template <class Team>
SSIDS_HOST_DEVICE int factor_window(Team& t, const FrontRef& f, int k, int e, double u, double small, int* vars,
                                    double* d, SmallWork& ws) {
  int j = k;
  while (true) {
    if (j >= e) break;
    const double ajj = f.at(j, j);
    const double gj = column_absmax(t, f, k, j, -1);
    if (std::fmax(std::fabs(ajj), gj) <= small) {
      k = pivot_zero(t, f, k, j, vars, d);
    } else if (one_by_one_ok(ajj, gj, u, small)) {
      k = pivot_1x1(t, f, k, j, e, vars, d, ws);
    } else {
      // 2x2 partner: the other window column with the largest |a_rj| (first on ties; none if all are 0)
      double best = 0.0;
      int r = -1;
      for (int c = k + t.tid; c < e; c += t.nth) {
        if (c == j) continue;
        const double v = std::fabs(f.sym(c, j));
        if (v > best) {
          best = v;
          r = c;
        }
      }
      t.argmax_all(best, r);
      bool ok = false;
      if (r >= 0) {
        const double arj = f.sym(r, j), arr = f.at(r, r);
        const double gj2 = column_absmax(t, f, k, j, r);
        const double gr2 = column_absmax(t, f, k, r, j);
        ok = two_by_two_ok(ajj, arj, arr, gj2, gr2, u);
      }
      if (ok) {
        k = pivot_2x2(t, f, k, j, r, e, vars, d, ws);
      } else {
        ++j;  // tried again only after the next accepted pivot
        continue;
      }
    }
    j = k;  // every remaining candidate has changed: all are eligible again
  }
  return k;
}

/// Partial LDL^T of the first p columns with the CPU path's window sequence (ib: its window width, min of
/// the CPU block size and 32). On exit columns [0, nelim) hold L (unit diagonal, 0 at (k+1, k) of a 2x2),
/// d[0, 2 nelim) holds D in the CPU layout, the trailing triangle from nelim on is the Schur complement whose
/// first p - nelim positions are the delayed columns, and vars is permuted like the positions.
/// Root fronts (m == p) eliminate every column (relaxed pass, then forced pivots). Returns nelim.
template <class Team>
SSIDS_HOST_DEVICE int ldlt_small(Team& t, const FrontRef& f, int p, double u, double small, int ib, int* vars,
                                 double* d, SmallWork& ws) {
  int k = 0, wnext = ib;
  while (k < p) {
    const int w = wnext < p - k ? wnext : p - k;
    const int e = k + w;
    const int knew = factor_window(t, f, k, e, u, small, vars, d, ws);
    if (knew > k) {
      trailing_update(t, f, d, k, knew, e);  // the columns after the window catch up
      k = knew;
      wnext = (e - knew) + ib;
    } else {
      if (e == p) break;
      wnext = 2 * w;
    }
  }
  if (f.m == p) {
    while (k < p) {
      k = factor_window(t, f, k, p, 0.0, small, vars, d, ws);
      if (k == p) break;
      int best = k;
      for (int c = k + 1; c < p; ++c)  // every thread scans the diagonal: the same answer everywhere
        if (std::fabs(f.at(c, c)) > std::fabs(f.at(best, best))) best = c;
      t.sync();  // before the pivot below moves diagonal entries
      if (std::fabs(f.at(best, best)) > small) k = pivot_1x1(t, f, k, best, p, vars, d, ws);
      else k = pivot_zero(t, f, k, k, vars, d);
    }
  }
  return k;
}

/// Positive-definite mode: pivots in order, 1x1, none may be <= 0. Returns p, or -(c + 1) for the first column
/// c whose pivot is not positive.
template <class Team>
SSIDS_HOST_DEVICE int ldlt_small_posdef(Team& t, const FrontRef& f, int p, int ib, int* vars, double* d,
                                        SmallWork& ws) {
  for (int k0 = 0; k0 < p; k0 += ib) {
    const int e = k0 + ib < p ? k0 + ib : p;
    for (int k = k0; k < e; ++k) {
      if (!(f.at(k, k) > 0.0)) return -(k + 1);
      pivot_1x1(t, f, k, k, e, vars, d, ws);
    }
    trailing_update(t, f, d, k0, e, e);
  }
  return p;
}

/// Shared-memory (or host) layout of one small front: the front with leading dimension ld, w1, w2, vars.
SSIDS_HOST_DEVICE int small_front_ld(int m) { return m | 1; }  // odd: a row of the front spreads over the banks
SSIDS_HOST_DEVICE long long small_front_bytes(int m_cap) {
  const long long ld = small_front_ld(m_cap);
  return 8 * (ld * m_cap + 2LL * m_cap) + 4LL * m_cap;
}

/// Node s of the launch (a.nodes[b]): sizes from its children's results, assembly of A and of the children's
/// contribution blocks (children in child_list order, each added to a zeroed front: the CPU path's order),
/// factorization, and the outputs at its slot. A node with a child that is not done, or that would receive or
/// pass up more delays than its slot holds, is deferred (to the level loop) without writing anything else.
/// `mem`: small_front_bytes(slot.m_cap) bytes, 8-byte aligned.
template <class Team>
SSIDS_HOST_DEVICE void factor_small_node(Team& t, const SmallFrontArgs& a, int b, unsigned char* mem) {
  const int s = a.nodes[b];
  const SmallSlot slot = a.slots[s];
  int ndelay = 0;
  bool ready = true;
  for (int q = a.child_ptr[s]; q < a.child_ptr[s + 1]; ++q) {
    const SmallResult rc = a.res[a.child_list[q]];
    ready = ready && rc.state == small_done;
    ndelay += rc.p - rc.nelim;
  }
  const int ncol = a.sptr[s + 1] - a.sptr[s];
  const int nrow = static_cast<int>(a.rptr[s + 1] - a.rptr[s]);
  const int m = nrow + ndelay, p = ncol + ndelay;
  if (!ready || m > slot.m_cap) {
    if (t.tid == 0) a.res[s] = SmallResult{small_deferred, m, p, -1, -1};  // nelim -1: not run
    return;
  }
  const int ld = small_front_ld(m);
  FrontRef f{reinterpret_cast<double*>(mem), ld, m};
  SmallWork ws;
  ws.w1 = f.a + static_cast<long long>(ld) * m;
  ws.w2 = ws.w1 + m;
  int* vars = reinterpret_cast<int*>(ws.w2 + m);

  // ---- assembly: zero, variables, A, children in order
  for (int j = t.group; j < m; j += t.ngroups)
    for (int i = j + t.lane; i < m; i += t.nlanes) f.at(i, j) = 0.0;
  for (int q = t.tid; q < nrow; q += t.nth) {
    if (q < ncol) vars[q] = a.perm[a.sptr[s] + q];
    else vars[q + ndelay] = a.perm[a.rlist[a.rptr[s] + q]];
  }
  t.sync();
  for (long long q = a.tptr[s] + t.tid; q < a.tptr[s + 1]; q += t.nth) {
    const ATarget at = a.targets[q];
    double acc = 0.0;
    for (int e = at.src_begin; e < at.src_end; ++e) {
      double v = a.val[a.srcs[e]];
      if (a.scale) v = mul(v, mul(a.scale[at.orig_row], a.scale[at.orig_col]));
      acc = add(acc, v);
    }
    f.at(at.lrow < ncol ? at.lrow : at.lrow + ndelay, at.lcol) = acc;
  }
  t.sync();
  int delay_pos = ncol;
  for (int q = a.child_ptr[s]; q < a.child_ptr[s + 1]; ++q) {
    const int c = a.child_list[q];
    const SmallResult rc = a.res[c];
    const SmallSlot cs = a.slots[c];
    const int nd = rc.p - rc.nelim, mc = rc.m - rc.nelim;
    const int cncol = a.sptr[c + 1] - a.sptr[c];
    const int* cmap = a.cmap + a.rptr[c] + cncol;
    const double* C = a.cb_pool + cs.cb_off;
    for (int i = t.tid; i < nd; i += t.nth) vars[delay_pos + i] = a.rows_store[cs.rows_off + rc.nelim + i];
    for (int j = t.group; j < mc; j += t.ngroups) {
      const int fj = j < nd ? delay_pos + j : (cmap[j - nd] < ncol ? cmap[j - nd] : cmap[j - nd] + ndelay);
      for (int i = j + t.lane; i < mc; i += t.nlanes) {
        const int fi = i < nd ? delay_pos + i : (cmap[i - nd] < ncol ? cmap[i - nd] : cmap[i - nd] + ndelay);
        double& x = fi >= fj ? f.at(fi, fj) : f.at(fj, fi);
        x = add(x, C[i + static_cast<long long>(j) * mc]);
      }
    }
    delay_pos += nd;
    t.sync();
  }

  // ---- factorization
  double* d = a.dstore + slot.d_off;
  int nelim;
  if (a.posdef) {
    nelim = ldlt_small_posdef(t, f, p, a.ib, vars, d, ws);
    if (nelim < 0) {
      if (t.tid == 0) a.res[s] = SmallResult{small_not_posdef, m, p, 0, vars[-nelim - 1]};
      return;
    }
  } else {
    nelim = ldlt_small(t, f, p, a.u, a.small, a.ib, vars, d, ws);
  }
  if (p - nelim > slot.dout_cap) {
    if (t.tid == 0) a.res[s] = SmallResult{small_deferred, m, p, nelim, -1};
    return;
  }

  // ---- outputs: L (strict upper triangle 0), variables, contribution block (lower triangle)
  double* L = a.lstore + slot.l_off;
  for (int j = t.group; j < nelim; j += t.ngroups)
    for (int i = t.lane; i < m; i += t.nlanes) L[i + static_cast<long long>(j) * m] = i < j ? 0.0 : f.at(i, j);
  for (int i = t.tid; i < m; i += t.nth) a.rows_store[slot.rows_off + i] = vars[i];
  const int mc = m - nelim;
  double* C = a.cb_pool + slot.cb_off;
  for (int j = t.group; j < mc; j += t.ngroups)
    for (int i = j + t.lane; i < mc; i += t.nlanes) C[i + static_cast<long long>(j) * mc] = f.at(nelim + i, nelim + j);
  if (t.tid == 0) a.res[s] = SmallResult{small_done, m, p, nelim, -1};
}

}  // namespace small
}  // namespace detail
}  // namespace ssids
