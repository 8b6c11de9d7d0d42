// pcr_core.hpp — the partitioned cyclic reduction, one block of rows at a time, compiled for the host
// (pcr_cpu, the CPU twin) and for CUDA devices (pcr_gpu). Both run exactly these functions: the host with
// tid = 0, nth = 1 and no synchronization, a thread block with its threads and __syncthreads(). Within one
// stage every equation is updated from equations that the stage does not write, so the sequential and the
// parallel order give identical results. Arithmetic goes through mul/sub/dvd (common/exact_arith.hpp: the same
// bits on the host and the device): pcr_cpu and pcr_gpu agree bitwise.
//
// Algorithm (per level, a tridiagonal system of order nl with a[0] = c[nl-1] = 0):
//  - rows are cut into blocks of B rows; block j holds rows s..e (k = e-s+1 rows, the last block may be short);
//  - the interior rows s+1..e-1 (m = k-2 of them) form a tridiagonal system T_int; by cyclic reduction in
//    shared memory we compute once: the multipliers (to_right, to_left) of the forward reduction and the
//    final coefficients (fa, fb, fc) of every interior equation, and the spikes v = T_int^-1 (a[s+1] e_0),
//    w = T_int^-1 (c[e-1] e_{m-1}); then x_int = y - v x_s - w x_e with y = T_int^-1 d_int;
//  - substituting into rows s and e gives a tridiagonal reduced system in (.., x_s, x_e, ..), 2 rows per block
//    (1 for a block of one row), which is the next level; levels stop at a single block, whose reduced system
//    (1 or 2 rows) is solved directly.
// Solve, per level down: y by cyclic reduction of d_int (reusing the multipliers) and back substitution,
// reduced right-hand side d'_s = d_s - c_s y_0, d'_e = d_e - a_e y_{m-1}; at the bottom the 1x1/2x2 solve;
// per level up: x_s, x_e from the reduced solution, x_int = y - v x_s - w x_e.
#pragma once
#include "common/exact_arith.hpp"
#include "common/host_device.hpp"

namespace ssids {
namespace detail {
namespace pcr {

using exact::dvd;
using exact::mul;
using exact::sub;

struct NoSync {
  SSIDS_HOST_DEVICE void operator()() const {}
};
struct BlockSync {
  SSIDS_HOST_DEVICE void operator()() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
};

/// Largest power of two h with 2h <= m (0 when m < 2).
SSIDS_HOST_DEVICE int top_stride(int m) {
  int h = 0;
  for (int t = 1; 2 * t <= m; t *= 2) h = t;
  return h;
}

/// Cyclic reduction of the coefficients of an m x m tridiagonal system (a[0] and c[m-1] are ignored), in place:
/// afterwards a, b, c hold each equation's final coefficients (those of its back substitution); tr[j] / tl[j]
/// receive the multipliers by which eliminated equation j is subtracted from the equation h rows below / above.
template <class Sync>
SSIDS_HOST_DEVICE void reduce_coefficients(int m, double* a, double* b, double* c, double* tr, double* tl, int tid,
                                           int nth, Sync sync) {
  for (int h = 1; 2 * h <= m; h *= 2) {
    const int cnt = m / (2 * h);
    for (int t = tid; t < cnt; t += nth) {
      const int i = 2 * h * (t + 1) - 1, lo = i - h, hi = i + h;
      const double alpha = dvd(a[i], b[lo]);
      double nb = sub(b[i], mul(alpha, c[lo]));
      const double na = -mul(alpha, a[lo]);
      double nc = 0.0;
      tr[lo] = alpha;
      if (hi < m) {
        const double gamma = dvd(c[i], b[hi]);
        nb = sub(nb, mul(gamma, a[hi]));
        nc = -mul(gamma, c[hi]);
        tl[hi] = gamma;
      }
      a[i] = na;
      b[i] = nb;
      c[i] = nc;
    }
    sync();
  }
}

/// Forward reduction of a right-hand side d (size m) with the multipliers of reduce_coefficients, in place.
template <class Sync>
SSIDS_HOST_DEVICE void reduce_rhs(int m, double* d, const double* tr, const double* tl, int tid, int nth, Sync sync) {
  for (int h = 1; 2 * h <= m; h *= 2) {
    const int cnt = m / (2 * h);
    for (int t = tid; t < cnt; t += nth) {
      const int i = 2 * h * (t + 1) - 1, lo = i - h, hi = i + h;
      double v = sub(d[i], mul(tr[lo], d[lo]));
      if (hi < m) v = sub(v, mul(tl[hi], d[hi]));
      d[i] = v;
    }
    sync();
  }
}

/// Back substitution: d holds the reduced right-hand side, receives the solution (a, b, c final coefficients).
template <class Sync>
SSIDS_HOST_DEVICE void back_substitute(int m, double* d, const double* a, const double* b, const double* c, int tid,
                                       int nth, Sync sync) {
  if (m <= 0) return;
  const int top = top_stride(m);
  const int root = top ? 2 * top - 1 : 0;
  if (tid == 0) d[root] = dvd(d[root], b[root]);
  sync();
  for (int h = top; h >= 1; h /= 2) {
    const int cnt = (m / h + 1) / 2;
    for (int t = tid; t < cnt; t += nth) {
      const int j = h * (2 * t + 1) - 1;
      double v = d[j];
      if (j - h >= 0) v = sub(v, mul(a[j], d[j - h]));
      if (j + h < m) v = sub(v, mul(c[j], d[j + h]));
      d[j] = dvd(v, b[j]);
    }
    sync();
  }
}

/// True when pivot p passes the tiny-pivot test against threshold thr (NaN fails).
SSIDS_HOST_DEVICE bool pivot_ok(double p, double thr) { return (p < 0 ? -p : p) > thr; }

/// Block geometry of one level.
struct Block {
  long long s, e;  // first and last row
  int k, m;        // rows, interior rows
};
SSIDS_HOST_DEVICE Block block_of(long long nl, int bsz, long long j) {
  Block blk;
  blk.s = j * bsz;
  blk.e = blk.s + bsz - 1;
  if (blk.e > nl - 1) blk.e = nl - 1;
  blk.k = static_cast<int>(blk.e - blk.s + 1);
  blk.m = blk.k >= 2 ? blk.k - 2 : 0;
  return blk;
}
/// Order of the reduced system of a level of order nl.
SSIDS_HOST_DEVICE long long reduced_size(long long nl, int bsz) {
  const long long q = (nl + bsz - 1) / bsz;
  const long long klast = nl - (q - 1) * bsz;
  return 2 * (q - 1) + (klast >= 2 ? 2 : 1);
}

/// The reduced (interface) rows of a block: coefficients of the 1 or 2 rows of the next level.
/// a/b/c/: the level's coefficients at rows s and e; v0, vl, w0, wl: first/last entries of the spikes.
SSIDS_HOST_DEVICE void interface_rows(const Block& blk, double as, double bs, double cs, double ae, double be,
                                      double ce, double v0, double vl, double w0, double wl, double* na, double* nb,
                                      double* nc) {
  if (blk.k == 1) {
    na[0] = as;
    nb[0] = bs;
    nc[0] = cs;
    return;
  }
  if (blk.m == 0) {
    na[0] = as;
    nb[0] = bs;
    nc[0] = cs;
    na[1] = ae;
    nb[1] = be;
    nc[1] = ce;
    return;
  }
  na[0] = as;
  nb[0] = sub(bs, mul(cs, v0));
  nc[0] = -mul(cs, w0);
  na[1] = -mul(ae, vl);
  nb[1] = sub(be, mul(ae, wl));
  nc[1] = ce;
}

/// The reduced right-hand side of a block (1 or 2 entries into nd) from the level's d, where the interior
/// rows already hold y = T_int^-1 d_int; a, c: the level's coefficients (rows s and e are the original ones).
SSIDS_HOST_DEVICE void interface_rhs(const Block& blk, const double* a, const double* c, const double* d, double* nd) {
  if (blk.k == 1) {
    nd[0] = d[blk.s];
    return;
  }
  if (blk.m == 0) {
    nd[0] = d[blk.s];
    nd[1] = d[blk.e];
    return;
  }
  nd[0] = sub(d[blk.s], mul(c[blk.s], d[blk.s + 1]));
  nd[1] = sub(d[blk.e], mul(a[blk.e], d[blk.e - 1]));
}

/// The solution at row i of a level (block blk, first reduced index 2j) from y (interior rows of d) and the
/// reduced solution nx.
SSIDS_HOST_DEVICE double up_value(const Block& blk, long long i, const double* d, const double* v, const double* w,
                                  const double* nxb) {
  const double xs = nxb[0];
  if (i == blk.s) return xs;
  const double xe = nxb[1];
  if (i == blk.e) return xe;
  return sub(sub(d[i], mul(v[i], xs)), mul(w[i], xe));
}

/// Factorization of the final (order 1 or 2) system: t[0] = b0, t[1] = c0, t[2] = a1 / b0, t[3] = b1 - t[2] c0.
/// Returns the index (0 or 1) of the first tiny pivot, or -1.
SSIDS_HOST_DEVICE int tiny_factor(int r, const double* a, const double* b, const double* c, double thr, double* t) {
  t[0] = b[0];
  t[1] = r == 2 ? c[0] : 0.0;
  t[2] = 0.0;
  t[3] = 1.0;
  if (!pivot_ok(t[0], thr)) return 0;
  if (r == 2) {
    t[2] = dvd(a[1], b[0]);
    t[3] = sub(b[1], mul(t[2], c[0]));
    if (!pivot_ok(t[3], thr)) return 1;
  }
  return -1;
}
/// Solve the final system in place.
SSIDS_HOST_DEVICE void tiny_solve(int r, const double* t, double* d) {
  if (r == 1) {
    d[0] = dvd(d[0], t[0]);
    return;
  }
  const double x1 = dvd(sub(d[1], mul(t[2], d[0])), t[3]);
  d[0] = dvd(sub(d[0], mul(t[1], x1)), t[0]);
  d[1] = x1;
}

}  // namespace pcr
}  // namespace detail
}  // namespace ssids
