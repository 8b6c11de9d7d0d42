// chunk_core.hpp — the one-shot tridiagonal solve (tridiag::solve_once_device) one chunk of kChunk rows at a
// time, compiled for the host (its CPU twin, detail::chunk_solve_cpu) and for CUDA devices (one thread per
// chunk). Same arithmetic on both sides (pcr::mul/sub/dvd: no FMA contraction), so they agree bitwise.
//
// A level of order nl is cut into chunks of kChunk rows (pcr::block_of with bsz = kChunk). A chunk's first and
// last rows s, e are its interface rows; its interior rows s+1..e-1 (m <= kChunk - 2) form T_int, solved by the
// Thomas algorithm for three right-hand sides at once: d_int (giving y), a_{s+1} e_0 (the spike v) and
// c_{e-1} e_{m-1} (the spike w), so that x_int = y - v x_s - w x_e. Substituting into rows s and e gives the
// reduced system of the next level, 2 rows per chunk (pcr::interface_rows). Down, a chunk writes only its
// reduced rows; up, it recomputes y, v, w from its rows (cheaper than storing them) and writes x.
// Compared with the block-wide cyclic reduction of pcr_core.hpp (about 70 barriers per 512 rows), a chunk
// needs no barrier: one thread eliminates its rows in registers (one reciprocal per pivot). The GPU stages a
// thread block's rows through shared memory (coalesced loads) and tests the pivots after the fact.
#pragma once
#include "common/host_device.hpp"
#include "tridiag/pcr_core.hpp"

namespace ssids {
namespace detail {
namespace chunk {

constexpr int kChunk = 8;

/// Smallest |pivot| of a set of chunks and whether a pivot was NaN (the GPU checks pivots after the fact).
struct PivotStats {
  double min_abs = 1.0 / 0.0;
  bool nan = false;
  SSIDS_HOST_DEVICE void add(double p) {
    const double a = p < 0 ? -p : p;
    if (a != a) nan = true;
    else if (a < min_abs) min_abs = a;
  }
};

/// y, v, w of the chunk's interior; returns the index (0-based within the interior) of the first pivot that
/// fails the test against thr, or -1. a, b, c, d: the level's arrays shifted by `origin` (row r at r - origin);
/// rows s+1 .. e-1 are read. Each pivot is inverted once and multiplied by. stats (may be null) collects the
/// pivots.
SSIDS_HOST_DEVICE int interior(const pcr::Block& blk, const double* a, const double* b, const double* c,
                               const double* d, long long origin, double thr, double* y, double* v, double* w,
                               PivotStats* stats) {
  const int m = blk.m;
  if (m == 0) return -1;
  const long long base = blk.s + 1 - origin;
  double cp[kChunk];
  int bad = -1;
  // forward elimination; the spikes' right-hand sides are a[s+1] at row 0 and c[e-1] at row m-1
  double piv = b[base];
  if (!pcr::pivot_ok(piv, thr)) bad = 0;
  if (stats) stats->add(piv);
  double inv = pcr::dvd(1.0, piv);
  cp[0] = pcr::mul(c[base], inv);
  y[0] = pcr::mul(d[base], inv);
  v[0] = pcr::mul(a[base], inv);
  w[0] = m == 1 ? cp[0] : 0.0;
  for (int t = 1; t < m; ++t) {
    const double at = a[base + t];
    piv = pcr::sub(b[base + t], pcr::mul(at, cp[t - 1]));
    if (bad < 0 && !pcr::pivot_ok(piv, thr)) bad = t;
    if (stats) stats->add(piv);
    inv = pcr::dvd(1.0, piv);
    cp[t] = pcr::mul(c[base + t], inv);
    y[t] = pcr::mul(pcr::sub(d[base + t], pcr::mul(at, y[t - 1])), inv);
    v[t] = pcr::mul(-pcr::mul(at, v[t - 1]), inv);
    const double rw = t == m - 1 ? c[base + t] : 0.0;
    w[t] = pcr::mul(pcr::sub(rw, pcr::mul(at, w[t - 1])), inv);
  }
  // back substitution (cp[m-1] couples to x_e, which the spike w carries: not used here)
  for (int t = m - 2; t >= 0; --t) {
    y[t] = pcr::sub(y[t], pcr::mul(cp[t], y[t + 1]));
    v[t] = pcr::sub(v[t], pcr::mul(cp[t], v[t + 1]));
    w[t] = pcr::sub(w[t], pcr::mul(cp[t], w[t + 1]));
  }
  return bad;
}

/// Down pass of chunk j of a level: its reduced rows into na/nb/nc/nd at 2j (1 or 2 rows). a, b, c, d are
/// shifted by `origin` as in interior(). a[0] and c[nl-1] are read as zero. Returns the level row of the first
/// interior pivot failing the test against thr, or -1.
SSIDS_HOST_DEVICE long long down(long long nl, long long j, const double* a, const double* b, const double* c,
                                 const double* d, long long origin, double thr, double* na, double* nb, double* nc,
                                 double* nd, PivotStats* stats) {
  const pcr::Block blk = pcr::block_of(nl, kChunk, j);
  double y[kChunk], v[kChunk], w[kChunk];
  const int bad = interior(blk, a, b, c, d, origin, thr, y, v, w, stats);
  const int m = blk.m;
  const long long s = blk.s - origin, e = blk.e - origin;
  const double as = blk.s == 0 ? 0.0 : a[s], ce = blk.e == nl - 1 ? 0.0 : c[e], cs = blk.s == nl - 1 ? 0.0 : c[s];
  const double v0 = m > 0 ? v[0] : 0.0, vl = m > 0 ? v[m - 1] : 0.0;
  const double w0 = m > 0 ? w[0] : 0.0, wl = m > 0 ? w[m - 1] : 0.0;
  pcr::interface_rows(blk, as, b[s], cs, a[e], b[e], ce, v0, vl, w0, wl, na + 2 * j, nb + 2 * j, nc + 2 * j);
  double* o = nd + 2 * j;
  if (blk.k == 1) {
    o[0] = d[s];
  } else if (m == 0) {
    o[0] = d[s];
    o[1] = d[e];
  } else {
    o[0] = pcr::sub(d[s], pcr::mul(c[s], y[0]));
    o[1] = pcr::sub(d[e], pcr::mul(a[e], y[m - 1]));
  }
  return bad < 0 ? -1 : blk.s + 1 + bad;
}

/// Up pass of chunk j: x of its rows (over d, shifted by `origin` like a, b, c) from the reduced solution nx.
SSIDS_HOST_DEVICE void up(long long nl, long long j, const double* a, const double* b, const double* c, double* d,
                          long long origin, const double* nx) {
  const pcr::Block blk = pcr::block_of(nl, kChunk, j);
  double y[kChunk], v[kChunk], w[kChunk];
  interior(blk, a, b, c, d, origin, 0.0, y, v, w, nullptr);
  const double xs = nx[2 * j];
  const double xe = blk.k > 1 ? nx[2 * j + 1] : 0.0;
  const long long s = blk.s - origin;
  for (int t = 0; t < blk.m; ++t) d[s + 1 + t] = pcr::sub(pcr::sub(y[t], pcr::mul(v[t], xs)), pcr::mul(w[t], xe));
  d[s] = xs;
  if (blk.k > 1) d[blk.e - origin] = xe;
}

}  // namespace chunk
}  // namespace detail
}  // namespace ssids
