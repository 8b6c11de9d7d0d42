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
// needs no barrier at all: one thread eliminates its rows in registers.
#pragma once
#include "common/host_device.hpp"
#include "tridiag/pcr_core.hpp"

namespace ssids {
namespace detail {
namespace chunk {

constexpr int kChunk = 8;

/// y, v, w of the chunk's interior; returns the index (0-based within the interior) of the first tiny pivot,
/// or -1. a, b, c, d: the level's arrays; rows s+1 .. e-1 are read.
SSIDS_HOST_DEVICE int interior(const pcr::Block& blk, const double* a, const double* b, const double* c,
                               const double* d, double thr, double* y, double* v, double* w) {
  const int m = blk.m;
  if (m == 0) return -1;
  const long long base = blk.s + 1;
  double cp[kChunk];
  int bad = -1;
  // forward elimination; the spikes' right-hand sides are a[s+1] at row 0 and c[e-1] at row m-1
  double piv = b[base];
  if (!pcr::pivot_ok(piv, thr)) bad = 0;
  cp[0] = pcr::dvd(c[base], piv);
  y[0] = pcr::dvd(d[base], piv);
  v[0] = pcr::dvd(a[base], piv);
  w[0] = m == 1 ? pcr::dvd(c[base], piv) : 0.0;
  for (int t = 1; t < m; ++t) {
    const double at = a[base + t];
    piv = pcr::sub(b[base + t], pcr::mul(at, cp[t - 1]));
    if (bad < 0 && !pcr::pivot_ok(piv, thr)) bad = t;
    cp[t] = pcr::dvd(c[base + t], piv);
    y[t] = pcr::dvd(pcr::sub(d[base + t], pcr::mul(at, y[t - 1])), piv);
    v[t] = pcr::dvd(-pcr::mul(at, v[t - 1]), piv);
    const double rw = t == m - 1 ? c[base + t] : 0.0;
    w[t] = pcr::dvd(pcr::sub(rw, pcr::mul(at, w[t - 1])), piv);
  }
  // back substitution (cp[m-1] couples to x_e, which the spike w carries: not used here)
  for (int t = m - 2; t >= 0; --t) {
    y[t] = pcr::sub(y[t], pcr::mul(cp[t], y[t + 1]));
    v[t] = pcr::sub(v[t], pcr::mul(cp[t], v[t + 1]));
    w[t] = pcr::sub(w[t], pcr::mul(cp[t], w[t + 1]));
  }
  return bad;
}

/// Down pass of chunk j of a level: its reduced rows into na/nb/nc/nd at 2j (1 or 2 rows). a[0] and c[nl-1]
/// are read as zero. Returns the level row of the first tiny interior pivot, or -1.
SSIDS_HOST_DEVICE long long down(long long nl, long long j, const double* a, const double* b, const double* c,
                                 const double* d, double thr, double* na, double* nb, double* nc, double* nd) {
  const pcr::Block blk = pcr::block_of(nl, kChunk, j);
  double y[kChunk], v[kChunk], w[kChunk];
  const int bad = interior(blk, a, b, c, d, thr, y, v, w);
  const int m = blk.m;
  const long long s = blk.s, e = blk.e;
  const double as = s == 0 ? 0.0 : a[s], ce = e == nl - 1 ? 0.0 : c[e], cs = s == nl - 1 ? 0.0 : c[s];
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
  return bad < 0 ? -1 : s + 1 + bad;
}

/// Up pass of chunk j: x of its rows (over d) from the reduced solution nx.
SSIDS_HOST_DEVICE void up(long long nl, long long j, const double* a, const double* b, const double* c, double* d,
                          const double* nx) {
  const pcr::Block blk = pcr::block_of(nl, kChunk, j);
  double y[kChunk], v[kChunk], w[kChunk];
  interior(blk, a, b, c, d, 0.0, y, v, w);
  const double xs = nx[2 * j];
  const double xe = blk.k > 1 ? nx[2 * j + 1] : 0.0;
  for (int t = 0; t < blk.m; ++t) d[blk.s + 1 + t] = pcr::sub(pcr::sub(y[t], pcr::mul(v[t], xs)), pcr::mul(w[t], xe));
  d[blk.s] = xs;
  if (blk.k > 1) d[blk.e] = xe;
}

}  // namespace chunk
}  // namespace detail
}  // namespace ssids
