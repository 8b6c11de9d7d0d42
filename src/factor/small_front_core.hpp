// small_front_core.hpp — the whole factorization of one small front (assembly excluded), compiled for the host
// (the CPU twin, factor/small_fronts_twin.cpp) and for CUDA devices (cuda/small_fronts.cu): both run exactly
// these functions, the host with one thread (tid 0, nth 1, no synchronization), a thread block with its threads,
// __syncthreads() and warp-wide max reductions. Every entry is written by one thread with the same operations in
// both, and the reductions are maxima (exact in any order), so the twin and the kernel agree bitwise.
// Arithmetic goes through mul/sub/add/dvd/rcp/fmadd (common/exact_arith.hpp: the same bits on the host and the
// device). The updates are fused multiply-adds (a pivot's x - l w, a 2x2 pivot's x - q w2 - p w1 in that order,
// a window end's running sums): one rounding and one dependent operation less per step of their chains.
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
// and a window's pivots update every column after the window at once when it ends (finish_window); the sums
// are ordered differently, so the values equal the CPU path's up to rounding and the pivot decisions match it
// except where a comparison is within rounding of its threshold.
#pragma once
#include <cmath>

#include "common/exact_arith.hpp"
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

using exact::add;
using exact::dvd;
using exact::fmadd;
using exact::mul;
using exact::rcp;
using exact::sub;

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
  /// Barrier of the group (a warp on the device).
  void group_sync() const {}
  /// Largest v over the group (a warp on the device), in every lane; v is never NaN or negative (maxima of
  /// |entries| from 0.0).
  double group_max(double v) const { return v; }
  /// Profiling hook of the device team (time since the last mark, to counter `phase`); nothing on the host.
  void mark(int /*phase*/) {}
  /// From each lane's scan of a candidate column (ColumnScan: its largest |entry| v1 at x1, its largest v2 away
  /// from x1, its largest wbest over the window's positions, first at wpos): r, the group's window position of
  /// the largest |entry| (the smallest position among equal ones; -1 when every window entry is 0), and rest, the
  /// group's largest |entry| away from position r; in every lane. Here the only lane's.
  template <class Scan>
  void partner_and_rest(const Scan& sc, int& r, double& rest) const {
    r = sc.wpos;
    rest = sc.x1 == r ? sc.v2 : sc.v1;
  }
  /// Group 0's (kind, r) in every thread, after a barrier; here the only group's.
  void share_group0(int& /*kind*/, int& /*r*/) {}
  /// Each group's choice (j, kind, r) in, the one with the smallest j out, in every thread, after a barrier; here
  /// the only group's.
  void pick_first(int& /*j*/, int& /*kind*/, int& /*r*/) {}
};

/// Front view with the accessors the algorithm needs.
/// Columns [0, ps) are at a, the others at g (column j at g + j ld there too): a front in one place has ps = m;
/// a front split between shared memory and the work area has its fully summed columns, which every pivot reads
/// and writes, at a. Offsets are ints: a small front has at most medium_front_max_rows rows (with its delays), so
/// j ld + i stays far below 2^31 (and 32-bit offsets cost the device fewer instructions than 64-bit ones).
struct FrontRef {
  double* a;
  int ld, m;
  double* g;
  int ps;
  SSIDS_HOST_DEVICE double* col(int j) const { return (j < ps ? a : g) + j * ld; }
  SSIDS_HOST_DEVICE double& at(int i, int j) const { return col(j)[i]; }
  SSIDS_HOST_DEVICE double sym(int i, int j) const { return i >= j ? at(i, j) : at(j, i); }
};

/// Workspace of one front's factorization (shared memory on the device): dinv, 2m doubles, D^{-1} of the pivots
/// of the current window in D's layout (1/d for a 1x1, i11 i21 i22 for a 2x2); gpart, two areas (32 doubles
/// each, the first used): the largest |entry| of the column after an accepted pivot, below its diagonal (the next
/// candidate's column maximum, computed by group 0 during the update). Pivots write the two areas in turn (gsel):
/// a thread may still read the last pivot's value while a faster one writes the next pivot's, since a pivot whose
/// candidate is already in place passes no barrier before its update.
struct SmallWork {
  double* dinv;
  double* gpart;
  double* wrows = nullptr;  ///< split fronts: cb_update's row of W per group (small_wrow_groups x p)
  int gsel = 0;
  SSIDS_HOST_DEVICE double* gpart_next() { return gpart + 32 * gsel; }
  SSIDS_HOST_DEVICE const double* gpart_last() const { return gpart + 32 * (gsel ^ 1); }
};

/// Largest |entry| of column j over the remaining rows other than j and ex: along row j for the columns [k, j),
/// down column j below its diagonal. Computed by each group on its own (shuffles only).
template <class Team>
SSIDS_HOST_DEVICE double column_absmax(Team& t, const FrontRef& f, int k, int j, int ex) {
  t.mark(5);
  double r = 0.0;
  for (int c = k + t.lane; c < j; c += t.nlanes)
    if (c != ex) r = std::fmax(r, std::fabs(f.at(j, c)));
  const double* cj = f.col(j);
  for (int i = j + 1 + t.lane; i < f.m; i += t.nlanes)
    if (i != ex) r = std::fmax(r, std::fabs(cj[i]));
  return t.group_max(r);
}

/// A lane's running top two of |v| at position x (positions come in increasing order: a tie keeps the first), and
/// its largest |v| over the window's positions with that position (the 2x2 partner).
struct ColumnScan {
  double v1 = 0.0, v2 = 0.0, wbest = 0.0;
  int x1 = -1, wpos = -1;
  SSIDS_HOST_DEVICE void push(double v, int x, bool in_window) {
    const double a = std::fabs(v);
    if (a > v1) {
      v2 = v1;
      v1 = a;
      x1 = x;
    } else if (a > v2) {
      v2 = a;
    }
    if (in_window && a > wbest) {
      wbest = a;
      wpos = x;
    }
  }
};

/// Pivot kinds of a decision.
constexpr int kind_none = -1, kind_zero = 0, kind_1x1 = 1, kind_2x2 = 2;

/// The pivot tests of candidate j of the window [k, e) (the CPU path's, in its order): a zero pivot when column j is
/// below `small`, else a 1x1 when it passes the threshold test, else a 2x2 with the window column r of largest
/// |a_rj| (first on ties) when that passes. One pass over column j gives its maximum, its maximum without r (the
/// top two with the first one's position) and r; a second, over column r, r's maximum without j. Every group
/// evaluates its own candidates (shuffles only). tested_1x1: the zero and 1x1 tests are known to fail (the caller
/// made them from column j's maximum), only the 2x2 test is left. Returns the kind, kind_none when every test
/// fails.
template <class Team>
SSIDS_HOST_DEVICE int evaluate_candidate(Team& t, const FrontRef& f, int k, int j, int e, double u, double small,
                                         bool tested_1x1, int& r) {
  t.mark(5);
  const double ajj = f.at(j, j);
  ColumnScan sc;
  for (int c = k + t.lane; c < j; c += t.nlanes) sc.push(f.at(j, c), c, true);
  const double* cj = f.col(j);
  for (int i = j + 1 + t.lane; i < f.m; i += t.nlanes) sc.push(cj[i], i, i < e);
  if (!tested_1x1) {
    const double gj = t.group_max(sc.v1);  // the 1x1 tests need only the maximum
    if (std::fmax(std::fabs(ajj), gj) <= small) return kind_zero;
    if (one_by_one_ok(ajj, gj, u, small)) return kind_1x1;
  }
  double gj2;
  t.partner_and_rest(sc, r, gj2);
  if (r < 0) return kind_none;
  const double gr2 = column_absmax(t, f, k, r, j);
  return two_by_two_ok(ajj, f.sym(r, j), f.at(r, r), gj2, gr2, u) ? kind_2x2 : kind_none;
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

/// The window's columns [first, e) that a pivot's update gives to the caller's group: from c0 in steps of cstep.
/// Group 0 takes column `first` alone (it also reduces that column's maximum, the next candidate's), the other
/// groups the rest, so that the reduction overlaps their columns; with one group, every column.
template <class Team>
SSIDS_HOST_DEVICE void window_columns(const Team& t, int first, int e, int& c0, int& cstep) {
  if (t.ngroups == 1) {
    c0 = first;
    cstep = 1;
  } else if (t.group == 0) {
    c0 = first;
    cstep = e;
  } else {
    c0 = first + t.group;
    cstep = t.ngroups - 1;
  }
}

/// Column c of a 1x1 pivot's window update, F(i, c) -= F(i, k) w_c (lk: column k, w_c = F(c, k) / d) for the rows
/// i >= c of the group's lane, two rows at a time (both loaded before the stores). Track: returns the largest
/// |entry| it wrote below the diagonal (the next candidate's column maximum, this lane's part); else 0. (A template
/// argument, so that the loop over the other columns carries no test of it.)
template <bool Track, class Team>
SSIDS_HOST_DEVICE double update_column_1x1(const Team& t, const FrontRef& f, const double* lk, double rd, int c) {
  double* xc = f.col(c);
  const double wc = mul(lk[c], rd);
  double g = 0.0;
  for (int i = c + t.lane; i < f.m; i += 2 * t.nlanes) {
    const int i1 = i + t.nlanes;
    const bool v1 = i1 < f.m;
    const double x0 = xc[i], l0 = lk[i];
    const double x1 = v1 ? xc[i1] : 0.0, l1 = v1 ? lk[i1] : 0.0;
    const double r0 = fmadd(-l0, wc, x0);
    xc[i] = r0;
    if (Track && i > c) g = std::fmax(g, std::fabs(r0));
    if (v1) {
      const double r1 = fmadd(-l1, wc, x1);
      xc[i1] = r1;
      if (Track) g = std::fmax(g, std::fabs(r1));
    }
  }
  return g;
}

/// Column c of a 2x2 pivot's window update, F(i, c) -= F(i, k) w1 + F(i, k+1) w2 with [w1 w2] = [F(c, k)
/// F(c, k+1)] D^{-1} (pk, qk: columns k and k+1), as update_column_1x1.
template <bool Track, class Team>
SSIDS_HOST_DEVICE double update_column_2x2(const Team& t, const FrontRef& f, const double* pk, const double* qk,
                                           double i11, double i21, double i22, int c) {
  double* xc = f.col(c);
  const double x = pk[c], y = qk[c];
  const double w1 = add(mul(x, i11), mul(y, i21)), w2 = add(mul(x, i21), mul(y, i22));
  double g = 0.0;
  for (int i = c + t.lane; i < f.m; i += 2 * t.nlanes) {
    const int i1 = i + t.nlanes;
    const bool v1 = i1 < f.m;
    const double x0 = xc[i], p0 = pk[i], q0 = qk[i];
    const double x1 = v1 ? xc[i1] : 0.0, p1 = v1 ? pk[i1] : 0.0, q1 = v1 ? qk[i1] : 0.0;
    const double r0 = fmadd(-p0, w1, fmadd(-q0, w2, x0));
    xc[i] = r0;
    if (Track && i > c) g = std::fmax(g, std::fabs(r0));
    if (v1) {
      const double r1 = fmadd(-p1, w1, fmadd(-q1, w2, x1));
      xc[i1] = r1;
      if (Track) g = std::fmax(g, std::fabs(r1));
    }
  }
  return g;
}

// Inside a window the pivots' columns are left unscaled (column k holds (L D)(:, k)) and the pivots' diagonal
// entries hold D: a pivot is then one barrier (its update reads nothing another thread writes in the same
// step). finish_window scales them into L when the window ends.

/// 1x1 pivot at position j, moved to k: the window's other columns (k, e) updated over their rows,
/// F(i, c) -= F(i, k) (F(c, k) / d); columns over the groups (window_columns), rows over the lanes. Leaves in
/// ws.gpart the maximum of column k+1 below its diagonal (group 0's column; meaningful when k + 1 < e). Returns k+1.
template <class Team>
SSIDS_HOST_DEVICE int pivot_1x1(Team& t, const FrontRef& f, int k, int j, int e, int* vars, double* d, SmallWork& ws) {
  t.mark(8);
  symmetric_swap(t, f, k, j, vars);
  t.mark(9);
  const double dkk = f.at(k, k);
  const double rd = rcp(dkk);
  if (t.tid == 0) {
    d[2 * k] = dkk;
    d[2 * k + 1] = 0.0;
    ws.dinv[2 * k] = rd;
    ws.dinv[2 * k + 1] = 0.0;
  }
  double g = 0.0;
  const double* lk = f.col(k);
  int c0, cstep;
  window_columns(t, k + 1, e, c0, cstep);
  int c = c0;
  if (c == k + 1 && c < e) {  // group 0's column: the next candidate, whose maximum it also takes
    g = update_column_1x1<true>(t, f, lk, rd, c);
    c += cstep;
  }
  for (; c < e; c += cstep) update_column_1x1<false>(t, f, lk, rd, c);
  if (t.group == 0) {
    g = t.group_max(g);
    if (t.lane == 0) ws.gpart_next()[0] = g;
  }
  ws.gsel ^= 1;
  t.sync();
  t.mark(10);
  t.mark(7);
  return k + 1;
}

/// 2x2 pivot on positions j and r, moved to k and k+1 in their order; updates the window's columns [k+2, e),
/// F(i, c) -= [F(i, k) F(i, k+1)] D^{-1} [F(c, k); F(c, k+1)], mapped as in pivot_1x1. Leaves in ws.gpart the
/// maximum of column k+2 below its diagonal (group 0's column). Returns k+2.
template <class Team>
SSIDS_HOST_DEVICE int pivot_2x2(Team& t, const FrontRef& f, int k, int j, int r, int e, int* vars, double* d,
                                SmallWork& ws) {
  const int first = j < r ? j : r, second = j < r ? r : j;
  t.mark(8);
  symmetric_swap(t, f, k, first, vars);
  symmetric_swap(t, f, k + 1, second, vars);
  t.mark(9);
  const double a11 = f.at(k, k), a21 = f.at(k + 1, k), a22 = f.at(k + 1, k + 1);
  double i11, i21, i22;
  inverse_2x2(a11, a21, a22, i11, i21, i22);
  if (t.tid == 0) {
    d[2 * k] = a11;
    d[2 * k + 1] = a21;
    d[2 * k + 2] = a22;
    d[2 * k + 3] = 0.0;
    ws.dinv[2 * k] = i11;
    ws.dinv[2 * k + 1] = i21;
    ws.dinv[2 * k + 2] = i22;
    ws.dinv[2 * k + 3] = 0.0;
  }
  double g = 0.0;
  const double* pk = f.col(k);
  const double* qk = f.col(k + 1);
  int c0, cstep;
  window_columns(t, k + 2, e, c0, cstep);
  int c = c0;
  if (c == k + 2 && c < e) {  // group 0's column, as in pivot_1x1
    g = update_column_2x2<true>(t, f, pk, qk, i11, i21, i22, c);
    c += cstep;
  }
  for (; c < e; c += cstep) update_column_2x2<false>(t, f, pk, qk, i11, i21, i22, c);
  if (t.group == 0) {
    g = t.group_max(g);
    if (t.lane == 0) ws.gpart_next()[0] = g;
  }
  ws.gsel ^= 1;
  t.sync();
  t.mark(10);
  return k + 2;
}

/// Zero pivot at position j, moved to k: D = 0, D^{-1} = 0 (its column becomes 0 when scaled), no update.
/// Returns k+1.
template <class Team>
SSIDS_HOST_DEVICE int pivot_zero(Team& t, const FrontRef& f, int k, int j, int* vars, double* d, SmallWork& ws) {
  symmetric_swap(t, f, k, j, vars);
  if (t.tid == 0) {
    d[2 * k] = 0.0;
    d[2 * k + 1] = 0.0;
    ws.dinv[2 * k] = 0.0;
    ws.dinv[2 * k + 1] = 0.0;
  }
  t.sync();
  return k + 1;
}

/// F(i, c) -= sum_{q in [q0, q1)} F(i, q) wc[q] over the group's lane's rows i >= c of column c, four rows at a time
/// (four sums side by side); each sum runs over q in order from 0.0 (fused multiply-adds), whatever the grouping.
/// wc[q] is read as a broadcast (the same for every lane of the group).
template <class Team>
SSIDS_HOST_DEVICE void column_update(const Team& t, const FrontRef& f, int c, const double* wc, int q0, int q1) {
  const int m = f.m;
  double* const out = f.col(c);
  for (int i = c + t.lane; i < m; i += 4 * t.nlanes) {
    const int i1 = i + t.nlanes, i2 = i1 + t.nlanes, i3 = i2 + t.nlanes;
    const bool v1 = i1 < m, v2 = i2 < m, v3 = i3 < m;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    for (int q = q0; q < q1; ++q) {
      const double w = wc[q];
      const double* col = f.col(q);
      a0 = fmadd(col[i], w, a0);
      if (v1) a1 = fmadd(col[i1], w, a1);
      if (v2) a2 = fmadd(col[i2], w, a2);
      if (v3) a3 = fmadd(col[i3], w, a3);
    }
    out[i] = sub(out[i], a0);
    if (v1) out[i1] = sub(out[i1], a1);
    if (v2) out[i2] = sub(out[i2], a2);
    if (v3) out[i3] = sub(out[i3], a3);
  }
}

/// column_update for the nc consecutive columns [c, c + nc) at once (nc <= NC), each column's W read from the
/// front's upper triangle (W(c', q) at (q, c')): a thread's four rows take each F(i, q) from fast memory once for
/// all of them, so the front's entries are read once per NC columns. Every entry's sum is column_update's (over q
/// in order from 0.0, fused multiply-adds), so the bits are the same.
template <int NC, class Team>
SSIDS_HOST_DEVICE void column_update_tile(const Team& t, const FrontRef& f, int c, int nc, int q0, int q1) {
  const int m = f.m;
  const double* w[NC];
  double* out[NC];
  for (int j = 0; j < NC; ++j) {
    const int cj = c + (j < nc ? j : nc - 1);
    w[j] = &f.at(0, cj);
    out[j] = f.col(cj);
  }
  for (int i = c + t.lane; i < m; i += 4 * t.nlanes) {
    int row[4];
    for (int r = 0; r < 4; ++r) row[r] = i + r * t.nlanes;
    double a[4][NC];
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < NC; ++j) a[r][j] = 0.0;
    for (int q = q0; q < q1; ++q) {
      const double* col = f.col(q);
      double x[4];
      for (int r = 0; r < 4; ++r) x[r] = row[r] < m ? col[row[r]] : 0.0;
      for (int j = 0; j < NC; ++j) {
        const double wq = w[j][q];
        for (int r = 0; r < 4; ++r) a[r][j] = fmadd(x[r], wq, a[r][j]);
      }
    }
    for (int j = 0; j < NC && j < nc; ++j)
      for (int r = 0; r < 4; ++r)
        if (row[r] < m && row[r] >= c + j) out[j][row[r]] = sub(out[j][row[r]], a[r][j]);
  }
}

/// Entry (i, q) of the unscaled pivots' columns scaled into L: F(i, q) / d for a 1x1 pivot, the entry of
/// [F(i, q) F(i, q+1)] D^{-1} for the first column of a 2x2 pivot (q, q+1), of [F(i, q-1) F(i, q)] D^{-1} for its
/// second. q0: the first pivot of the range (a 2x2 never straddles it). D as d holds it (d[2q+1] != 0: q starts a
/// 2x2), D^{-1} in dinv.
SSIDS_HOST_DEVICE double scaled_entry(const FrontRef& f, const double* d, const double* dinv, int i, int q, int q0) {
  if (d[2 * q + 1] != 0.0) return add(mul(f.at(i, q), dinv[2 * q]), mul(f.at(i, q + 1), dinv[2 * q + 1]));
  if (q > q0 && d[2 * q - 1] != 0.0) {
    const int p = q - 1;
    return add(mul(f.at(i, p), dinv[2 * p + 1]), mul(f.at(i, q), dinv[2 * p + 2]));
  }
  return mul(f.at(i, q), dinv[2 * q]);
}

/// Whether column q is the second column of a 2x2 pivot (q0: the first pivot of the range).
SSIDS_HOST_DEVICE bool second_of_2x2(const double* d, int q, int q0) { return q > q0 && d[2 * q - 1] != 0.0; }

/// The rows from max(lo, the pivot's last row + 1) to hi of the pivot starting at column q scaled into L in place
/// (scaled_entry's rule; a 2x2's two columns together), over the group's lanes.
template <class Team>
SSIDS_HOST_DEVICE void scale_pivot_rows(const Team& t, const FrontRef& f, const double* d, const double* dinv, int q,
                                        int lo, int hi) {
  double* const cq = f.col(q);
  if (d[2 * q + 1] != 0.0) {
    const double i11 = dinv[2 * q], i21 = dinv[2 * q + 1], i22 = dinv[2 * q + 2];
    double* const cq1 = f.col(q + 1);
    for (int i = (lo > q + 2 ? lo : q + 2) + t.lane; i < hi; i += t.nlanes) {
      const double x = cq[i], y = cq1[i];
      cq[i] = add(mul(x, i11), mul(y, i21));
      cq1[i] = add(mul(x, i21), mul(y, i22));
    }
  } else {
    const double r = dinv[2 * q];
    for (int i = (lo > q + 1 ? lo : q + 1) + t.lane; i < hi; i += t.nlanes) cq[i] = mul(cq[i], r);
  }
}

/// Ends a window whose pivots [k0, k1) are in place unscaled: first the columns [e, pe) after the window catch up,
/// F(i, c) -= sum_q F(i, q) W(c, q) for e <= c < pe, c <= i < m, with W = F(c, k0:k1) D^{-1} formed in the front's
/// unused upper triangle (W(c, q) at (q, c), q < k1 <= e <= c, where a warp reads it as a broadcast); then the
/// pivots' columns are scaled into L (unit diagonal, 0 at (q+1, q) of a 2x2) in the rows above pe. pe = f.ps: m
/// for a front in one place; p for a split front, whose contribution block (the columns from p on, in the work
/// area) and the pivots' rows from p on are left to cb_update.
/// W has one entry per (column c: groups, position q: lanes), so a thread's entries are independent; both columns
/// of a 2x2 read the pair (F(c, q), F(c, q+1)). Each thread takes the trailing entries of its walk (its group's
/// columns, its lane's rows) four at a time, so that four sums progress side by side; every entry's sum runs over
/// q in order, with the same operations whatever the grouping.
template <class Team>
SSIDS_HOST_DEVICE void finish_window(Team& t, const FrontRef& f, const double* d, const SmallWork& ws, int k0, int k1,
                                     int e) {
  if (k1 <= k0) return;
  t.mark(8);
  const double* dinv = ws.dinv;
  const int pe = f.ps < f.m ? f.ps : f.m;
  if (e < pe) {
    t.mark(6);
    for (int c = e + t.group; c < pe; c += t.ngroups) {
      for (int q = k0 + t.lane; q < k1; q += t.nlanes) f.at(q, c) = scaled_entry(f, d, dinv, c, q, k0);
    }
    t.sync();
    // the columns in pairs while every group gets one, else one by one (W(c, q) at (q, c))
    if (pe - e >= 2 * t.ngroups) {
      for (int c = e + 2 * t.group; c < pe; c += 2 * t.ngroups)
        column_update_tile<2>(t, f, c, pe - c < 2 ? pe - c : 2, k0, k1);
    } else {
      for (int c = e + t.group; c < pe; c += t.ngroups) column_update(t, f, c, &f.at(0, c), k0, k1);
    }
    t.sync();
  }
  t.mark(11);
  // the pivots' rows below them and above pe scaled into L, unit diagonals (0 at (q+1, q) of a 2x2)
  for (int q = k0 + t.group; q < k1; q += t.ngroups) {
    if (second_of_2x2(d, q, k0)) continue;  // done with the first column
    scale_pivot_rows(t, f, d, dinv, q, 0, pe);
    if (t.lane == 0) {
      f.at(q, q) = 1.0;
      if (d[2 * q + 1] != 0.0) {
        f.at(q + 1, q) = 0.0;
        f.at(q + 1, q + 1) = 1.0;
      }
    }
  }
  t.sync();
  t.mark(12);
}

/// A split front after its last window: the contribution block's columns [p, m) (p = f.ps; they are in the work
/// area) receive every pivot's update at once, F(i, c) -= sum_{q < nelim} F(i, q) W(c, q) for p <= c <= i < m
/// (F(i, q) as the windows left it, unscaled), with W(c, q) = L(c, q), row c of the pivots' columns scaled as
/// finish_window scales; then those rows are scaled. Once per front, the work area's entries are read and written
/// once instead of once per window. Each group forms W(c, :) for its column c in ws.wrows (fast memory) and its
/// lanes take the column's rows four at a time. Nothing to do for a front in one place (finish_window did it).
template <class Team>
SSIDS_HOST_DEVICE void cb_update(Team& t, const FrontRef& f, const double* d, const SmallWork& ws, int nelim) {
  const int m = f.m, p = f.ps;
  if (nelim == 0 || p >= m) return;
  t.mark(8);
  const double* dinv = ws.dinv;
  for (int c = p + t.group; c < m; c += t.ngroups) {
    double* wc = ws.wrows + static_cast<long long>(t.group) * p;  // W(c, q) at wc[q]
    for (int q = t.lane; q < nelim; q += t.nlanes) wc[q] = scaled_entry(f, d, dinv, c, q, 0);
    t.group_sync();
    column_update(t, f, c, wc, 0, nelim);
    t.group_sync();  // before the group's next column overwrites wc (ws.wrows)
  }
  t.sync();
  t.mark(11);
  // the pivots' rows from p on, scaled into L (pairs of a 2x2 together)
  for (int q = t.group; q < nelim; q += t.ngroups)
    if (!second_of_2x2(d, q, 0)) scale_pivot_rows(t, f, d, dinv, q, p, m);  // a 2x2's second: with the first
  t.sync();
  t.mark(12);
}

/// Threshold pivoting inside the window [k, e) (dense_ldlt.cpp's factor_window): the first candidate from k on that
/// passes a test is pivoted, and the search starts again at the new k (every remaining candidate has changed).
/// The candidate in place after a pivot is tested first from the maximum that pivot's update left (no barrier),
/// then fully by group 0 alone, whose answer a barrier hands to every thread (copies of the same test in the other
/// groups would only take issue slots from it). When it fails, the groups evaluate the following candidates side
/// by side, in rounds of one candidate per group (k + 1 + g in the first), and the smallest passing one of the
/// first round that has one is taken (one barrier per round, after which the front may be written): the same
/// choice as testing them one by one, in the time of one test per round. Candidate k is tested alone because it
/// usually passes, and a round waits for its slowest group; but after a pivot found past k, the candidate now at
/// k is one that failed, and it joins the first round. Returns the new k.
template <class Team>
SSIDS_HOST_DEVICE int factor_window(Team& t, const FrontRef& f, int k, int e, double u, double small, int* vars,
                                    double* d, SmallWork& ws) {
  bool ready = false;  // ws.gpart holds column k's maximum below its diagonal (left by the last pivot)
  // the last pivot was found past candidate k: the candidates before it failed, and one of them is now at k, so
  // candidate k is tested in the first round with the following ones instead of alone first
  bool after_rounds = false;
  while (k < e) {
    int j = e, kind = kind_none, r = -1;
    bool tested_1x1 = false;
    if (ready) {
      // the last pivot's update left column k's maximum; a 1x1 or zero pivot at k reads only column k, which that
      // pivot's update does not write, so it needs no barrier. The common case, a run of 1x1 pivots at k each
      // tested so, is a loop of its own (the general decision's control stays out of it).
      double akk = f.at(k, k), gk = ws.gpart_last()[0];
      bool pivoted = false;
      while (!(std::fmax(std::fabs(akk), gk) <= small) && one_by_one_ok(akk, gk, u, small)) {
        k = pivot_1x1(t, f, k, k, e, vars, d, ws);
        pivoted = true;
        if (k >= e) break;
        akk = f.at(k, k);
        gk = ws.gpart_last()[0];
      }
      if (pivoted) after_rounds = false;  // each pivot of the run was its candidate k
      if (k >= e) break;
      if (std::fmax(std::fabs(akk), gk) <= small) kind = kind_zero;
      if (kind != kind_none) j = k;
      tested_1x1 = kind == kind_none;
      ready = false;
    }
    if (kind == kind_none) {
      int first_round = k;
      if (!after_rounds) {
        // candidate k by group 0; its answer reaches every thread through a barrier, also the one needed before
        // the pivot writes the front
        int rk = -1, kind_k = kind_none;
        if (t.group == 0) kind_k = evaluate_candidate(t, f, k, k, e, u, small, tested_1x1, rk);
        t.share_group0(kind_k, rk);
        if (kind_k != kind_none) {
          j = k;
          kind = kind_k;
          r = rk;
        }
        first_round = k + 1;
      }
      for (int c0 = first_round; c0 < e && j >= e; c0 += t.ngroups) {  // rounds of one candidate per group
        const int c = c0 + t.group;
        if (c < e) {
          int rc = -1;
          const int kc = evaluate_candidate(t, f, k, c, e, u, small, c == k && tested_1x1, rc);
          if (kc != kind_none) {
            j = c;
            kind = kc;
            r = rc;
          }
        }
        t.pick_first(j, kind, r);
      }
      if (j >= e) break;  // every candidate failed
    }
    after_rounds = j > k;
    if (kind == kind_zero) {
      k = pivot_zero(t, f, k, j, vars, d, ws);
    } else if (kind == kind_1x1) {
      k = pivot_1x1(t, f, k, j, e, vars, d, ws);
      ready = k < e;
    } else {
      k = pivot_2x2(t, f, k, j, r, e, vars, d, ws);
      ready = k < e;
    }
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
      finish_window(t, f, d, ws, k, knew, e);  // the columns after the window catch up; L
      k = knew;
      wnext = (e - knew) + ib;
    } else {
      if (e == p) break;
      wnext = 2 * w;
    }
  }
  if (f.m == p && k < p) {
    const int k0 = k;  // the root's remaining columns are one window: scaled once at the end
    while (k < p) {
      k = factor_window(t, f, k, p, 0.0, small, vars, d, ws);
      if (k == p) break;
      int best = k;
      for (int c = k + 1; c < p; ++c)  // every thread scans the diagonal: the same answer everywhere
        if (std::fabs(f.at(c, c)) > std::fabs(f.at(best, best))) best = c;
      t.sync();  // before the pivot below moves diagonal entries
      if (std::fabs(f.at(best, best)) > small) k = pivot_1x1(t, f, k, best, p, vars, d, ws);
      else k = pivot_zero(t, f, k, k, vars, d, ws);
    }
    finish_window(t, f, d, ws, k0, p, p);
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
    finish_window(t, f, d, ws, k0, e, e);
  }
  return p;
}

/// Shared-memory (or host) layout of one small front: the front with leading dimension ld, dinv (2m), gpart (64),
/// vars (m ints).
SSIDS_HOST_DEVICE int small_front_ld(int m) { return m | 1; }  // odd: a row of the front spreads over the banks
/// Bytes of the workspace after the front (dinv, gpart, vars) of a front of m rows.
SSIDS_HOST_DEVICE long long small_work_bytes(int m) { return 8 * (2LL * m + 64) + 4LL * m; }
SSIDS_HOST_DEVICE long long small_front_bytes(int m_cap) {
  return 8 * static_cast<long long>(small_front_ld(m_cap)) * m_cap + small_work_bytes(m_cap);
}
/// Most groups (warps) of a block: rows of W that cb_update keeps for a split front.
constexpr int small_wrow_groups = 16;
/// Bytes of shared memory a front of m rows and p fully summed columns takes when split: its first p columns,
/// cb_update's rows of W and the workspace.
SSIDS_HOST_DEVICE long long small_split_bytes(int m, int p) {
  return 8 * (static_cast<long long>(small_front_ld(m)) + small_wrow_groups) * p + small_work_bytes(m);
}

/// Node s: sizes from its children's results, assembly of A and of the children's
/// contribution blocks (children in child_list order, each added to a zeroed front: the CPU path's order),
/// factorization, and the outputs at its slot. A node with a child that is not done, or that would receive or
/// pass up more delays than its slot holds, is deferred (to the level loop) without writing anything else.
/// Memory (8-byte aligned): a front of at most small_front_max_rows rows is factorized in `fast` (shared memory on
/// a device; the plan gives its launch small_front_bytes(m) bytes), even when its slot has room in the work area
/// for more delays than came. A bigger one (its slot in the work area, `work`: small_front_bytes(m_cap) bytes) is
/// split when small_split_bytes(m, p) fits in what a front of small_front_max_rows rows takes: its fully summed
/// columns and the workspace in `fast`, the rest of the front in `work`; otherwise everything is in `work`. A split
/// front's contribution block gets every pivot's update at once (cb_update), not window by window, so the choice
/// depends on the front's actual size alone: never on the other fronts of its launch or on the room the plan keeps
/// for delays.
template <class Team>
SSIDS_HOST_DEVICE void factor_small_node(Team& t, const SmallFrontArgs& a, int s, unsigned char* fast,
                                         unsigned char* work) {
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
  double* const fd = reinterpret_cast<double*>(fast);
  FrontRef f{fd, ld, m, fd, m};
  SmallWork ws;
  if (!work || m <= gpu::small_front_max_rows) {
    ws.dinv = fd + static_cast<long long>(ld) * m;
  } else if (small_split_bytes(m, p) <= small_front_bytes(gpu::small_front_max_rows)) {
    f.g = reinterpret_cast<double*>(work);
    f.ps = p;
    ws.wrows = fd + static_cast<long long>(ld) * p;
    ws.dinv = ws.wrows + static_cast<long long>(small_wrow_groups) * p;
  } else {
    f.a = f.g = reinterpret_cast<double*>(work);
    ws.dinv = f.a + static_cast<long long>(ld) * m;
  }
  ws.gpart = ws.dinv + 2 * m;
  int* vars = reinterpret_cast<int*>(ws.gpart + 64);

  t.mark(0);
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
  t.mark(1);
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
        x = add(x, C[i + j * mc]);
      }
    }
    delay_pos += nd;
    t.sync();
  }

  t.mark(2);
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
  cb_update(t, f, d, ws, nelim);

  t.mark(3);
  // ---- outputs: L (strict upper triangle 0), variables, contribution block (lower triangle)
  double* L = a.lstore + slot.l_off;
  for (int j = t.group; j < nelim; j += t.ngroups)
    for (int i = t.lane; i < m; i += t.nlanes) L[i + j * m] = i < j ? 0.0 : f.at(i, j);
  for (int i = t.tid; i < m; i += t.nth) a.rows_store[slot.rows_off + i] = vars[i];
  const int mc = m - nelim;
  double* C = a.cb_pool + slot.cb_off;
  for (int j = t.group; j < mc; j += t.ngroups)
    for (int i = j + t.lane; i < mc; i += t.nlanes) C[i + j * mc] = f.at(nelim + i, nelim + j);
  if (t.tid == 0) a.res[s] = SmallResult{small_done, m, p, nelim, -1};
  t.mark(4);
}

}  // namespace small
}  // namespace detail
}  // namespace ssids
