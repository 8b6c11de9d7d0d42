// dense_kernels.cu — GPU partial factorization of the fully summed columns of a level's fronts with
// a-posteriori threshold pivoting (Hogg, Ovtchinnikov & Scott 2016, §3.2), batched over fronts.
//
// One step on one front factorizes the window [k+s, k+s+w) of candidate columns (k = eliminated so far,
// s = candidates that failed since the last success):
//  window_colmax: the largest |entry| of each window column over the front's rows outside the window
//    (rows k.. of the front), per block of apply_rows rows.
//  factor_window: the window's diagonal block is factorized in shared memory. Candidates are taken from the
//    left with the CPU path's threshold tests (pivot_tests.hpp), where a column's largest entry is that of its
//    remaining rows in the window (current values) and of its rows outside the window (window_colmax, the
//    values before the window's pivots: exact for the window's first pivot, an estimate after it): a zero
//    pivot when both are below `small` (confirmed on the other rows below), else a 1x1 when it passes,
//    else a 2x2 with the window's row of largest |f_ji| when that passes, else the candidate is skipped for
//    this window. Then every other row of the front gets its multipliers L21 = F21 L11^{-T} D^{-1}; every
//    multiplier is checked against 1/u and the leading pivots whose columns all pass are accepted (q of
//    them; a 2x2 is never split). The window's factorization stops after a pivot with a failing multiplier
//    inside the window, since no later pivot can then be accepted. The front itself is not modified.
//  commit_window: the accepted pivots are moved to positions k.. (a symmetric permutation of the front that
//    moves at most 2q positions: the accepted ones and the candidates they displace, through copies of
//    their old lines, over many blocks); the failed candidates keep their original values (restored for
//    free); the accepted columns are written from the scratch.
//  form_w + update: the remaining fully summed columns get C -= L W^T with W = L D (update_kernel).
// Windows sweep the candidates from left to right (failed ones are left behind, s grows); a new sweep over
// the failed ones starts when the last one made progress, else the front is finished and they are delayed
// (host side, factor/level_driver.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda/cuda_check.hpp"
#include "cuda/front_kernels.cuh"
#include "cuda/segment_walk.cuh"
#include "factor/pivot_tests.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

constexpr int W = max_window;
/// Pivot slots of a batch of factor_window (a 2x2 takes two): barriers per batch, not per pivot.
constexpr int window_batch = 8;
constexpr int tile = 64;
constexpr int tile_k = 16;
/// Pivots per chunk of apply_window's substitution (their entries in registers).
constexpr int apply_chunk = 8;
/// apply_window's dynamic shared memory: each thread's row entries by pivot position.
constexpr size_t apply_xs_bytes = sizeof(double) * W * apply_rows;

/// Entry (i, j) of the symmetric front stored by its lower triangle (leading dimension ld).
__device__ __forceinline__ double sym_at(const double* F, long long ld, long long i, long long j) {
  return i >= j ? F[i + j * ld] : F[j + i * ld];
}

/// Multiplier acceptance: |l| <= 1/u, written so that u = 0 accepts every finite value and NaN/Inf fail.
__device__ __forceinline__ bool multiplier_ok(double l, double u) {
  return isfinite(l) && fabs(l) * u <= 1.0;
}

/// Symmetric swap of positions a < b of the m x m front (lower storage, leading dimension ld), done by the
/// whole block.
__device__ void sym_swap(double* F, long long m, long long ld, int a, int b, int* vars) {
  for (long long j = threadIdx.x; j < m; j += blockDim.x) {
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
    const double t = *x;
    *x = *y;
    *y = t;
  }
  if (threadIdx.x == 0 && vars) {
    const int t = vars[a];
    vars[a] = vars[b];
    vars[b] = t;
  }
}

/// Apply the permutation src of positions [lo, lo+len): afterwards position lo+t holds what was at
/// lo+src[t]. Done as at most len transpositions; pos/at are len-int scratch arrays.
__device__ void permute_positions(double* F, long long m, long long ld, int* vars, int lo, int len, const int* src, int* pos,
                                  int* at) {
  __shared__ int sa, sb;
  for (int t = threadIdx.x; t < len; t += blockDim.x) {
    pos[t] = t;
    at[t] = t;
  }
  __syncthreads();
  for (int t = 0; t < len; ++t) {
    if (threadIdx.x == 0) {
      const int e = src[t], cur = pos[e];
      sa = t;
      sb = cur;
      if (cur != t) {
        const int other = at[t];
        at[cur] = other;
        pos[other] = cur;
        at[t] = e;
        pos[e] = t;
      }
    }
    __syncthreads();
    if (sa != sb) sym_swap(F, m, ld, lo + min(sa, sb), lo + max(sa, sb), vars);
    __syncthreads();
  }
}

/// Index of the last task whose rb_begin is <= b (row blocks of apply_window and window_colmax).
__device__ __forceinline__ int task_of_row_block(const WindowTask* tasks, int ntasks, long long b) {
  int lo = 0, hi = ntasks - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (tasks[mid].rb_begin <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// grid: one block per apply_rows rows of a front (the row blocks of apply_window); 128 threads. Block b writes
// cmax[b * W + c], the largest |entry| of window column c over its rows (0 for columns >= w). Warp g takes the
// columns c = g, g + 4, ...; its lanes take the rows (consecutive rows of a column are consecutive in memory
// below the window). The largest of a set does not depend on the order it is taken in (fmax drops NaN).
__global__ void __launch_bounds__(apply_rows) window_colmax_kernel(const WindowTask* tasks, int ntasks,
                                                                   const FrontDesc* fronts, const double* fbuf,
                                                                   double* cmax) {
  const long long b = blockIdx.x;
  const WindowTask t = tasks[task_of_row_block(tasks, ntasks, b)];
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const int w = t.w, base = t.k + t.s;
  const long long nrows_other = f.m - t.k - w;
  const long long r0 = (b - t.rb_begin) * apply_rows;
  const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
  for (int c = g; c < W; c += apply_rows / 32) {
    double v = 0.0;
    if (c < w) {
#pragma unroll
      for (int i = 0; i < apply_rows / 32; ++i) {
        const long long rr = r0 + lane + 32 * i;
        if (rr < nrows_other) {
          const long long row = t.k + (rr < t.s ? rr : rr + w);
          v = fmax(v, fabs(sym_at(F, f.ld, row, base + c)));
        }
      }
      for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    if (lane == 0) cmax[b * W + c] = v;
  }
}

__global__ void __launch_bounds__(256) factor_window_kernel(const WindowTask* tasks, const FrontDesc* fronts,
                                                            double* fbuf, double* lt_buf, double* sbuf,
                                                            WindowResult* res, const double* cmax, DenseParams prm) {
  const WindowTask t = tasks[blockIdx.x];
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const long long m = f.m;
  const int w = t.w, base = t.k + t.s;
  const long long ldt = m - t.k;
  double* lt = lt_buf + t.lt_off;

  __shared__ double S[W][W + 1];  // S[r][c]; column c of a processed pivot holds l(r, c) for later rows
  __shared__ int processed[W], order[W], pos_of[W];
  __shared__ double off[W];   // largest |entry| of each window column outside the window (not in posdef mode)
  __shared__ double D[2 * W + 2];
  __shared__ int npiv, stop_pos, fail_pos, fail_local;

  // thread (r, c0) = (tid % 64, tid / 64) handles entries (r, c0 + 4 i) of the window: no integer division
  const int tr = threadIdx.x & (W - 1), tc = threadIdx.x / W;
  constexpr int cstep = 256 / W;
  if (tr < w)
    for (int c = tc; c < w; c += cstep) S[tr][c] = sym_at(F, f.ld, base + tr, base + c);
  const long long nrb = (ldt - w + apply_rows - 1) / apply_rows;  // the window's row blocks in cmax
  for (int c = threadIdx.x; c < W; c += blockDim.x) {
    processed[c] = 0;
    pos_of[c] = W;
    double v = 0.0;
    if (!prm.posdef) {
#pragma unroll 4
      for (long long b = 0; b < nrb; ++b) v = fmax(v, cmax[(t.rb_begin + b) * W + c]);
    }
    off[c] = v;
  }
  if (threadIdx.x == 0) {
    npiv = 0;
    stop_pos = W;  // posdef: position of a pivot that is not positive
    fail_pos = W;  // first pivot position with a multiplier over 1/u
    fail_local = -1;
  }
  __syncthreads();

  // The leading run of 1x1 pivots, one pivot per barrier. While the leftmost candidate k passes the 1x1 test,
  // it is the pivot (the batches below would take it too): every warp makes the test on its own from column k
  // (the same votes as warp 0's below, so the same decision in every warp), and every thread updates its own
  // entries of the rows and columns after k with the same operation as a batch's update. The multipliers go
  // into column k one step later, when no thread reads the column any more. The batches take over at the
  // first candidate that is not such a pivot (a zero, a 2x2 or a skipped candidate), or stop after a pivot
  // whose multipliers fail.
  int run = 0;           // pivots of the run
  bool run_bad = false;  // its last pivot has a multiplier over 1/u
  {
    const int lane = threadIdx.x & 31;
    double l_prev = 0.0;  // this thread's row's multiplier of the previous pivot
    for (int k = 0; k < w; ++k) {
      // every operand of the step loaded first (column k is not written in this step)
      double x[W / cstep], y[W / cstep];
      const bool mine = tr > k && tr < w;
#pragma unroll
      for (int e = 0; e < W / cstep; ++e) {
        const int c = tc + cstep * e;
        if (mine && c > k) {
          x[e] = S[tr][c];
          y[e] = S[c][k];
        }
      }
      const bool ok0 = lane > k && lane < w, ok1 = lane + 32 > k && lane + 32 < w;
      const double c0 = ok0 ? S[lane][k] : 0.0, c1 = ok1 ? S[lane + 32][k] : 0.0;
      const double aii = S[k][k];
      bool pass;
      if (prm.posdef) {
        pass = aii > 0.0;
      } else {
        const double a = fabs(aii);
        bool big = (ok0 && fabs(c0) >= prm.small) || (ok1 && fabs(c1) >= prm.small);
        bool over = (ok0 && !(prm.u * fabs(c0) <= a) && !isnan(c0)) || (ok1 && !(prm.u * fabs(c1) <= a) && !isnan(c1));
        big = __any_sync(0xffffffffu, big) || off[k] >= prm.small || a >= prm.small;
        over = __any_sync(0xffffffffu, over);
        pass = big && !over && a > prm.small && a >= prm.u * off[k];
      }
      if (k > 0 && tc == 0 && tr >= k && tr < w) S[tr][k - 1] = l_prev;  // the previous pivot's multipliers
      if (!pass) break;
      // this thread's row: its multiplier, its test (gathered by the barrier) and its entries' updates
      bool bad = false;
      if (mine) {
        const double l = (tr < 32 ? c0 : c1) / aii;
        bad = !multiplier_ok(l, prm.u);
#pragma unroll
        for (int e = 0; e < W / cstep; ++e) {
          const int c = tc + cstep * e;
          if (c > k && c < w) S[tr][c] = fma(-l, y[e], x[e]);
        }
        l_prev = l;
      }
      run_bad = __syncthreads_or(bad) != 0;
      run = k + 1;
      if (run_bad) break;
    }
    if (run > 0 && (run_bad || run == w) && tc == 0 && tr >= run && tr < w) S[tr][run - 1] = l_prev;
    for (int c = threadIdx.x; c < run; c += blockDim.x) {
      processed[c] = 1;
      order[c] = c;
      pos_of[c] = c;
      D[2 * c] = S[c][c];
      D[2 * c + 1] = 0.0;
    }
    __syncthreads();
  }

  // Pivots are taken in batches. Warp 0 decides them one after another: it brings each candidate column up to
  // date itself (the window's entries as loaded or last updated, minus the batch's pivots so far, applied in
  // pivot order with the operations of the block update), tests it, and for a pivot keeps its column (Cb) and
  // multipliers (Lb) in the batch's slots. Its state is in registers, the same in every lane: the candidates
  // still to test (neither processed nor skipped) and the unprocessed rows as bit masks, the slots' kinds, the
  // pivot count; each lane also holds the multipliers of its two rows. A skipped candidate costs no barrier.
  // Lane 0 publishes the bookkeeping (processed, order, pos_of, D, the slots) for the block, which then applies
  // the batch to every remaining entry, each entry's updates in pivot order, and writes the multipliers into the
  // pivot columns: the same operations in the same order as one pivot at a time (the CPU twin), with two
  // barriers per batch.
  constexpr int B = window_batch;
  __shared__ double Lb[B][W], Cb[B][W];  // slot e: multipliers by row; the pivot column by row before the pivot
  __shared__ int slot_kind[B], slot_col[B], nslots;  // kind: 0 zero, 1 1x1, 2 and 3 the columns of a 2x2
  __shared__ int stop;
  const unsigned long long all_w = w == W ? ~0ULL : (1ULL << w) - 1;
  unsigned long long avail = all_w, unproc = all_w;  // warp 0: candidates to test; unprocessed rows
  int np_w = run;                                    // warp 0: pivots so far
  bool halted = run_bad;                             // warp 0: no further pivot in this window
  if (run > 0) {
    const unsigned long long taken = run >= 64 ? ~0ULL : (1ULL << run) - 1;
    avail &= ~taken;
    unproc &= ~taken;
  }
  for (;;) {
    if (threadIdx.x < 32) {
      const int lane = threadIdx.x;
      int ns = 0;     // slots used by this batch
      int kinds = 0;  // slot e's kind in bits 2e, 2e + 1
      double lreg[2][B];  // the multipliers of the lane's rows (lane, lane + 32), by slot
      // entry (r = lane + 32 h, c) of the window (both unprocessed) after the batch's pivots so far
      auto current = [&](int h, int c) {
        double v = S[lane + 32 * h][c];
#pragma unroll
        for (int e = 0; e < B; ++e) {
          if (e >= ns) break;
          const int k = (kinds >> (2 * e)) & 3;
          if (k == 1) v = fma(-lreg[h][e], Cb[e][c], v);
          else if (k == 2 && e + 1 < B) v -= fma(lreg[h][e], Cb[e][c], lreg[h][e + 1] * Cb[e + 1][c]);
        }
        return v;
      };
      while (!halted && ns + 2 <= B) {
        if (np_w >= w || !avail) {
          halted = true;
          break;
        }
        const int i = __ffsll(static_cast<long long>(avail)) - 1;  // the leftmost candidate
        // column i up to date in the lane's rows
        double ci[2] = {0.0, 0.0};
        bool row_ok[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = lane + 32 * h;
          row_ok[h] = r < w && ((unproc >> r) & 1);
          if (row_ok[h]) ci[h] = current(h, i);
        }
        const double aii = __shfl_sync(0xffffffffu, i < 32 ? ci[0] : ci[1], i & 31);
        int kind = -1, bj = -1;
        double cb[2] = {0.0, 0.0};
        double aji = 0.0, ajj = 0.0;
        if (prm.posdef) {  // Cholesky order, no pivoting: a pivot that is not positive is an error
          if (!(aii > 0.0)) {
            if (lane == 0) {
              stop_pos = np_w;
              fail_local = i;
            }
            halted = true;
            break;
          }
          kind = 1;
        } else {
          // the zero and 1x1 tests on gi = max(largest |entry| of the other rows, off[i]) (NaN entries ignored),
          // decided entry by entry with votes: gi >= small iff an entry is; |aii| >= u gi iff no entry x fails
          // u |x| <= |aii| (u >= 0: the rounded products keep the order; 0 * inf fails, as u gi does)
          const double a = fabs(aii);
          bool big = false, over = false;
#pragma unroll
          for (int h = 0; h < 2; ++h)
            if (row_ok[h] && lane + 32 * h != i) {
              big = big || fabs(ci[h]) >= prm.small;
              over = over || (!(prm.u * fabs(ci[h]) <= a) && !isnan(ci[h]));
            }
          big = __any_sync(0xffffffffu, big) || off[i] >= prm.small || a >= prm.small;
          over = __any_sync(0xffffffffu, over);
          if (!big) {
            kind = 0;  // zero pivot (also catches NaN); confirmed on the other rows by apply_window
          } else if (!over && a > prm.small && a >= prm.u * off[i]) {
            kind = 1;  // one_by_one_ok(aii, gi, u, small)
          } else {
            // the largest |entry| over the unprocessed rows r != i and its row (smallest on ties; NaN never
            // wins), held by every lane
            double best = -1.0;
#pragma unroll
            for (int h = 0; h < 2; ++h)
              if (row_ok[h] && lane + 32 * h != i) best = fmax(best, fabs(ci[h]));
            for (int o = 16; o > 0; o >>= 1) best = fmax(best, __shfl_xor_sync(0xffffffffu, best, o));
            const unsigned at_lo = __ballot_sync(0xffffffffu, row_ok[0] && lane != i && fabs(ci[0]) == best);
            const unsigned at_hi = __ballot_sync(0xffffffffu, row_ok[1] && lane + 32 != i && fabs(ci[1]) == best);
            bj = at_lo ? __ffs(at_lo) - 1 : at_hi ? 32 + __ffs(at_hi) - 1 : -1;
            if (bj >= 0) {
              // 2x2 with bj: column bj up to date; each column's largest entry over the rows other than i and bj
              double gi2 = 0.0, gj2 = 0.0;
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                const int r = lane + 32 * h;
                if (row_ok[h]) {
                  cb[h] = current(h, bj);
                  if (r != i && r != bj) {
                    gi2 = fmax(gi2, fabs(ci[h]));
                    gj2 = fmax(gj2, fabs(cb[h]));
                  }
                }
              }
              for (int o = 16; o > 0; o >>= 1) {
                gi2 = fmax(gi2, __shfl_xor_sync(0xffffffffu, gi2, o));
                gj2 = fmax(gj2, __shfl_xor_sync(0xffffffffu, gj2, o));
              }
              aji = __shfl_sync(0xffffffffu, bj < 32 ? ci[0] : ci[1], bj & 31);
              ajj = __shfl_sync(0xffffffffu, bj < 32 ? cb[0] : cb[1], bj & 31);
              if (two_by_two_ok(aii, aji, ajj, fmax(gi2, off[i]), fmax(gj2, off[bj]), prm.u)) kind = 2;
            }
          }
        }
        if (kind < 0) {  // skipped for this window
          avail &= ~(1ULL << i);
          continue;
        }
        // the pivot: its slot(s), multipliers (one division per row for a 1x1) and bookkeeping
        bool bad = false;
        if (kind == 2) {
          double i11, i21, i22;
          two_by_two_inverse(aii, aji, ajj, i11, i21, i22);
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = lane + 32 * h;
            if (r < w) {
              Cb[ns][r] = ci[h];
              Cb[ns + 1][r] = cb[h];
            }
            double l1 = 0.0, l2 = 0.0;
            if (row_ok[h] && r != i && r != bj) {
              l1 = fma(ci[h], i11, cb[h] * i21);
              l2 = fma(ci[h], i21, cb[h] * i22);
              bad = bad || !(multiplier_ok(l1, prm.u) && multiplier_ok(l2, prm.u));
            }
#pragma unroll
            for (int e = 0; e + 1 < B; ++e)
              if (e == ns) {
                lreg[h][e] = l1;
                lreg[h][e + 1] = l2;
              }
            if (r < w) {
              Lb[ns][r] = l1;
              Lb[ns + 1][r] = l2;
            }
          }
          if (lane == 0) {
            D[2 * np_w] = aii;
            D[2 * np_w + 1] = aji;
            D[2 * np_w + 2] = ajj;
            D[2 * np_w + 3] = 0.0;
          }
        } else {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = lane + 32 * h;
            double l = 0.0;
            if (kind == 1 && row_ok[h] && r != i) {
              l = ci[h] / aii;
              bad = bad || !multiplier_ok(l, prm.u);
            }
#pragma unroll
            for (int e = 0; e < B; ++e)
              if (e == ns) lreg[h][e] = l;
            if (r < w) {
              Cb[ns][r] = ci[h];
              Lb[ns][r] = l;
            }
          }
          if (lane == 0) {
            D[2 * np_w] = kind == 1 ? aii : 0.0;
            D[2 * np_w + 1] = 0.0;
          }
        }
        if (lane == 0) {
          slot_kind[ns] = kind;
          slot_col[ns] = i;
          processed[i] = 1;
          order[np_w] = i;
          pos_of[i] = np_w;
          if (kind == 2) {
            slot_kind[ns + 1] = 3;
            slot_col[ns + 1] = bj;
            processed[bj] = 1;
            order[np_w + 1] = bj;
            pos_of[bj] = np_w + 1;
          }
        }
        kinds |= kind << (2 * ns);
        avail &= ~(1ULL << i);
        unproc &= ~(1ULL << i);
        ++ns;
        ++np_w;
        if (kind == 2) {
          kinds |= 3 << (2 * ns);
          avail &= ~(1ULL << bj);
          unproc &= ~(1ULL << bj);
          ++ns;
          ++np_w;
        }
        if (__any_sync(0xffffffffu, bad)) halted = true;  // no later pivot could be accepted
        __syncwarp();  // the slot's columns are read by every lane from here on
      }
      if (lane == 0) {
        nslots = ns;
        npiv = np_w;
        stop = halted;
      }
    }
    __syncthreads();  // A: the batch is decided
    const int ns = nslots;
    const bool last = stop;  // read before B: warp 0 writes both again after B
    if (ns > 0) {
      // every remaining entry: the batch's updates in pivot order (the row's multipliers and the slots' kinds
      // in registers)
      if (tr < w && !processed[tr]) {
        double lr[B];
        int kd[B];
#pragma unroll
        for (int e = 0; e < B; ++e) {
          kd[e] = e < ns ? slot_kind[e] : 0;
          lr[e] = e < ns ? Lb[e][tr] : 0.0;
        }
        for (int c = tc; c < w; c += cstep) {
          if (processed[c]) continue;
          double v = S[tr][c];
#pragma unroll
          for (int e = 0; e < B; ++e) {
            if (kd[e] == 1) v = fma(-lr[e], Cb[e][c], v);
            else if (kd[e] == 2 && e + 1 < B) v -= fma(lr[e], Cb[e][c], lr[e + 1] * Cb[e + 1][c]);
          }
          S[tr][c] = v;
        }
      }
      // the pivot columns: their multipliers in the rows that were unprocessed at the pivot (for a 2x2, not
      // in its partner's row, which keeps the pivot's off-diagonal entry)
      for (int e = tc; e < ns; e += cstep) {
        const int col = slot_col[e], k = slot_kind[e], pe = pos_of[col];
        const int partner = k == 2 ? slot_col[e + 1] : k == 3 ? slot_col[e - 1] : -1;
        if (tr < w && pos_of[tr] > pe && tr != partner) S[tr][col] = Lb[e][tr];
      }
    }
    __syncthreads();  // B: the batch is applied
    if (last) break;
  }
  const int np = npiv;

  // multipliers inside the window (rows processed after their pivot column)
  for (int pc = tc; pc < np && tr < w; pc += cstep) {
    const int a = tr;
    if (pos_of[a] <= pc) continue;
    const bool partner = D[2 * pc + 1] != 0.0 && pc + 1 < np && order[pc + 1] == a;
    const double l = partner ? 0.0 : S[a][order[pc]];
    if (!multiplier_ok(l, prm.u)) atomicMin(&fail_pos, pc);
  }
  // window rows of the scratch L: row of window column a (relative row s + a)
  for (int pc = tc; pc < np && tr < w; pc += cstep) {
    const int a = tr;
    double l;
    const int pa = pos_of[a];
    if (pc > pa) l = 0.0;
    else if (pc == pa) l = 1.0;
    else if (D[2 * pc + 1] != 0.0 && order[pc + 1] == a) l = 0.0;  // (k+1,k) of a 2x2 pivot
    else l = S[a][order[pc]];
    lt[(t.s + a) + pc * ldt] = l;
  }
  __syncthreads();
  WindowResult& out = res[blockIdx.x];
  if (threadIdx.x == 0) {
    out.np = np;
    out.stop_pos = stop_pos;
    out.fail_pos = fail_pos;
    out.fail_local = fail_local;
  }
  for (int c = threadIdx.x; c < W; c += blockDim.x) {
    out.order[c] = c < np ? order[c] : -1;
    out.pos_of[c] = pos_of[c];
  }
  for (int e = threadIdx.x; e < 2 * W + 2; e += blockDim.x) out.d[e] = e < 2 * np ? D[e] : 0.0;
  // the window's block for apply_window, which reads only the multipliers (below each pivot, in pivot order);
  // entries in the rows of pivots taken earlier in a batch are not brought up to date (the CPU twin's are)
  double* sg = sbuf + t.s_off;
  if (tr < w)
    for (int c = tc; c < w; c += cstep) sg[tr + c * w] = S[tr][c];
}

// grid: one block per apply_rows rows of a front. Every row of the front outside the window gets its
// multipliers L21 = F21 L11^{-T} D^{-1} by forward substitution in pivot order, using the window's
// factorized block; each is checked against 1/u. A thread takes one row; the operations on each entry and
// their order are those of a right-looking substitution one pivot at a time (as the CPU twin), grouped in
// chunks of pivots so that the code stays small (a substitution unrolled over all 64 window columns does not
// fit the instruction cache).
__global__ void __launch_bounds__(apply_rows) apply_window_kernel(const WindowTask* tasks, int ntasks,
                                                                  const FrontDesc* fronts, const double* fbuf,
                                                                  double* lt_buf, const double* sbuf,
                                                                  WindowResult* res, DenseParams prm) {
  const long long b = blockIdx.x;
  const int lo = task_of_row_block(tasks, ntasks, b);
  const WindowTask t = tasks[lo];
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const long long m = f.m;
  const int w = t.w, base = t.k + t.s;
  const long long ldt = m - t.k;
  double* lt = lt_buf + t.lt_off;
  WindowResult& r = res[lo];
  __shared__ double Lp[W][W + 1];  // Lp[j][pc]: multiplier of the j-th pivot's column in the pc-th pivot's column
  __shared__ int order[W];
  __shared__ double D[2 * W + 2];
  __shared__ double Dr[W], Inv[W][3];  // by pivot position: 1 / d of a 1x1; D^{-1} of a 2x2 starting there
  __shared__ int np_s;
  const double* sg = sbuf + t.s_off;
  for (int c = threadIdx.x; c < W; c += blockDim.x) order[c] = r.order[c];
  for (int e = threadIdx.x; e < 2 * W + 2; e += blockDim.x) D[e] = r.d[e];
  if (threadIdx.x == 0) np_s = r.np;
  __syncthreads();
  const int np = np_s;
  for (int pc = threadIdx.x; pc < np; pc += blockDim.x) {  // (also for the second column of a 2x2: unused)
    const double d11 = D[2 * pc], d21 = D[2 * pc + 1];
    Dr[pc] = d11 != 0.0 ? 1.0 / d11 : 0.0;
    if (d21 != 0.0) two_by_two_inverse(d11, d21, D[2 * pc + 2], Inv[pc][0], Inv[pc][1], Inv[pc][2]);
  }
  // (loads in batches before the stores, as for the rows below)
  for (int e0 = threadIdx.x; e0 < W * W; e0 += 8 * apply_rows) {
    double v[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = e0 + i * apply_rows, j = e & (W - 1), pc = e / W;
      v[i] = e < W * W && j < np && pc < np ? sg[order[j] + order[pc] * w] : 0.0;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int e = e0 + i * apply_rows, j = e & (W - 1), pc = e / W;
      if (e < W * W && j < np && pc < np) Lp[j][pc] = v[i];
    }
  }
  __syncthreads();
  const long long nrows_other = ldt - w;
  const long long rr = (b - t.rb_begin) * apply_rows + threadIdx.x;
  if (rr >= nrows_other) return;
  const long long rel = rr < t.s ? rr : rr + w;  // relative to k
  const long long row = t.k + rel;
  // The row's entries by pivot position in this thread's column of xs (shared memory). Pivots are taken in
  // chunks of apply_chunk (one more when the chunk would end inside a 2x2): the chunk's entries are brought up
  // to date among themselves in registers, then every later entry gets the chunk's updates in pivot order.
  // Every entry thus sees the same updates, in the same order and with the same operations, as in a
  // right-looking substitution one pivot at a time.
  extern __shared__ double xs_dyn[];
  double* xs = xs_dyn + threadIdx.x;  // entry j at xs[j * apply_rows]
  // loaded in batches into registers before any is stored: a store between two loads would keep the second
  // load from starting before the first has returned
#pragma unroll
  for (int j0 = 0; j0 < W; j0 += 16) {
    double x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) x[i] = j0 + i < np ? sym_at(F, f.ld, row, base + order[j0 + i]) : 0.0;
#pragma unroll
    for (int i = 0; i < 16; ++i)
      if (j0 + i < np) xs[(j0 + i) * apply_rows] = x[i];
  }
  int first_bad = W;
  // the multiplier of the 1x1 pivot at position p from the row's entry x1 there, stored and checked
  auto finish_1x1 = [&](int p, double x1) {
    // x1 / d from the pivot's reciprocal r: q = x1 r, corrected once by the residual x1 - q d (within one
    // rounding of the quotient; one division per pivot instead of one per row and pivot)
    const double d = D[2 * p];
    double l = 0.0;
    if (d != 0.0) {
      const double rd = Dr[p], q = x1 * rd;
      l = fma(fma(-q, d, x1), rd, q);
    }
    lt[rel + p * ldt] = l;
    // a zero pivot is only a zero pivot if the whole remaining column is below `small`, not just the
    // window's part of it (a zero diagonal block of a KKT matrix is not a zero column)
    const bool ok = d != 0.0 ? multiplier_ok(l, prm.u) : !(fabs(x1) >= prm.small);
    if (first_bad == W && !ok) first_bad = p;
  };
  for (int pc = 0; pc < np;) {
    // the chunk: len pivot positions from pc; bit i of firsts: position pc + i is the first column of a 2x2
    int len = min(apply_chunk, np - pc);
    unsigned firsts = 0;
    bool skip = false;
#pragma unroll
    for (int i = 0; i < apply_chunk; ++i) {
      if (i >= len) break;
      if (skip) skip = false;
      else if (D[2 * (pc + i) + 1] != 0.0) {
        firsts |= 1u << i;
        skip = true;
      }
    }
    if (skip) ++len;  // the chunk's last position starts a 2x2: its second column joins the chunk
    double xc[apply_chunk + 1];
#pragma unroll
    for (int i = 0; i <= apply_chunk; ++i) xc[i] = i < len ? xs[(pc + i) * apply_rows] : 0.0;
    const bool plain = len == apply_chunk && firsts == 0;  // a full chunk of 1x1 pivots
    if (plain) {
#pragma unroll
      for (int i = 0; i < apply_chunk; ++i) {
        const int p = pc + i;
        const double x1 = xc[i];
#pragma unroll
        for (int k = i + 1; k < apply_chunk; ++k) xc[k] = fma(-x1, Lp[pc + k][p], xc[k]);
        finish_1x1(p, x1);
      }
    }
#pragma unroll
    for (int i = 0; i <= apply_chunk; ++i) {
      if (plain) break;
      if (i >= len) break;
      if (i > 0 && ((firsts >> (i - 1)) & 1)) continue;  // the second column of a 2x2
      const int p = pc + i;
      if ((firsts >> i) & 1) {
        const double i11 = Inv[p][0], i21 = Inv[p][1], i22 = Inv[p][2];
        const double x1 = xc[i], x2 = i < apply_chunk ? xc[i + 1] : 0.0;
#pragma unroll
        for (int k = i + 2; k <= apply_chunk; ++k)
          if (k < len) xc[k] -= fma(x1, Lp[pc + k][p], x2 * Lp[pc + k][p + 1]);
        const double l1 = fma(x1, i11, x2 * i21), l2 = fma(x1, i21, x2 * i22);
        lt[rel + p * ldt] = l1;
        lt[rel + (p + 1) * ldt] = l2;
        if (first_bad == W && !(multiplier_ok(l1, prm.u) && multiplier_ok(l2, prm.u))) first_bad = p;
      } else {
        const double x1 = xc[i];
#pragma unroll
        for (int k = i + 1; k <= apply_chunk; ++k)
          if (k < len) xc[k] = fma(-x1, Lp[pc + k][p], xc[k]);
        finish_1x1(p, x1);
      }
    }
    // the later entries: the chunk's pivots in order (a full chunk of 1x1 pivots without a branch per pivot)
    if (plain) {
      for (int j0 = pc + apply_chunk; j0 < np; j0 += 4) {  // four entries at a time, loaded before any store
        double v[4];
#pragma unroll
        for (int a = 0; a < 4; ++a) v[a] = j0 + a < np ? xs[(j0 + a) * apply_rows] : 0.0;
#pragma unroll
        for (int i = 0; i < apply_chunk; ++i)
#pragma unroll
          for (int a = 0; a < 4; ++a) v[a] = fma(-xc[i], Lp[min(j0 + a, W - 1)][pc + i], v[a]);
#pragma unroll
        for (int a = 0; a < 4; ++a)
          if (j0 + a < np) xs[(j0 + a) * apply_rows] = v[a];
      }
      pc += len;
      continue;
    }
    for (int j0 = pc + len; j0 < np; j0 += 4) {
      double v[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) v[a] = j0 + a < np ? xs[(j0 + a) * apply_rows] : 0.0;
#pragma unroll
      for (int i = 0; i <= apply_chunk; ++i) {
        if (i >= len) break;
        if (i > 0 && ((firsts >> (i - 1)) & 1)) continue;
        const int p = pc + i;
        if ((firsts >> i) & 1) {
          const double x2 = i < apply_chunk ? xc[i + 1] : 0.0;
#pragma unroll
          for (int a = 0; a < 4; ++a) {
            const int j = min(j0 + a, W - 1);
            v[a] -= fma(xc[i], Lp[j][p], x2 * Lp[j][p + 1]);
          }
        } else {
#pragma unroll
          for (int a = 0; a < 4; ++a) v[a] = fma(-xc[i], Lp[min(j0 + a, W - 1)][p], v[a]);
        }
      }
#pragma unroll
      for (int a = 0; a < 4; ++a)
        if (j0 + a < np) xs[(j0 + a) * apply_rows] = v[a];
    }
    pc += len;
  }
  if (first_bad < W) atomicMin(&r.fail_pos, first_bad);
}

// commit, first launch (one block per task): the number q of pivots accepted (the leading ones that passed;
// a 2x2 is never split), the permutation of positions [k, k + s + w) that brings them to k.. in pivot order,
// the moved variables and D. The permutation moves as little as it can: position t < q takes the t-th
// accepted pivot; a candidate it displaces (a non-accepted column at a position < q, in ascending order) goes
// to the place an accepted pivot left at a position >= q (ascending); every other position keeps its column.
// So at most 2q positions move, whatever the number s of earlier failed candidates.
// Scratch (commit_scratch_ints): src[len] (new position t holds old src[t]), mv[len] (moved positions,
// ascending; nm of them), inv[len] (inv[i]: index in mv of src[mv[i]]), nm.
__global__ void __launch_bounds__(256) commit_prepare_kernel(const WindowTask* tasks, const FrontDesc* fronts,
                                                             int* vars, double* dbuf, const WindowResult* res,
                                                             int* q_out, int* scratch_buf) {
  const WindowTask t = tasks[blockIdx.x];
  const WindowResult& r = res[blockIdx.x];
  int q = min(r.np, min(r.fail_pos, r.stop_pos));
  if (q > 0 && q < r.np && r.d[2 * (q - 1) + 1] != 0.0) --q;  // never split a 2x2 pivot
  if (threadIdx.x == 0) {
    q_out[2 * blockIdx.x] = q;
    q_out[2 * blockIdx.x + 1] = (r.stop_pos != W && q == r.stop_pos) ? r.fail_local : -1;
  }
  if (q == 0) return;
  const FrontDesc f = fronts[t.front];
  const int len = t.s + t.w, s = t.s;
  int* src = scratch_buf + t.scr_off;
  int* mv = src + len;
  int* inv = mv + len;
  __shared__ int accepted[W];
  __shared__ int nm_s;
  __shared__ int old_vars[2 * W];
  for (int a = threadIdx.x; a < W; a += blockDim.x) accepted[a] = 0;
  for (int e = threadIdx.x; e < len; e += blockDim.x) src[e] = e;
  __syncthreads();
  for (int pc = threadIdx.x; pc < q; pc += blockDim.x) accepted[r.order[pc]] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int pc = 0; pc < q; ++pc) src[pc] = s + r.order[pc];
    int a = 0;
    for (int e = 0; e < q; ++e) {
      if (e >= s && accepted[e - s]) continue;  // an accepted pivot: its new place is set above
      while (!(accepted[a] && s + a >= q)) ++a;  // the next place left by an accepted pivot at >= q
      src[s + a] = e;
      ++a;
    }
    int nm = 0;
    for (int e = 0; e < q; ++e)
      if (src[e] != e) mv[nm++] = e;
    for (int b = max(0, q - s); b < t.w; ++b)
      if (src[s + b] != s + b) mv[nm++] = s + b;
    for (int i = 0; i < nm; ++i) {  // mv is ascending: binary search for the source's index
      const int want = src[mv[i]];
      int lo = 0, hi = nm - 1;
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (mv[mid] < want) lo = mid + 1;
        else hi = mid;
      }
      inv[i] = lo;
    }
    src[3 * len] = nm;
    nm_s = nm;
  }
  __syncthreads();
  const int nm = nm_s;
  int* fv = vars + f.var_off + t.k;
  for (int i = threadIdx.x; i < nm; i += blockDim.x) old_vars[i] = fv[mv[i]];
  __syncthreads();
  for (int i = threadIdx.x; i < nm; i += blockDim.x) fv[mv[i]] = old_vars[inv[i]];
  for (int e = threadIdx.x; e < 2 * q; e += blockDim.x) dbuf[f.d_off + 2 * t.k + e] = r.d[e];
}

// commit, second launch, grid (tasks, spread): the old line (row and column of the symmetric front, all m
// entries) of every moved position, into the line scratch.
__global__ void commit_lines_kernel(const WindowTask* tasks, const FrontDesc* fronts, const double* fbuf,
                                    const int* q_in, const int* scratch_buf, double* line_buf) {
  const WindowTask t = tasks[blockIdx.x];
  if (q_in[2 * blockIdx.x] == 0) return;
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const long long m = f.m;
  const int len = t.s + t.w;
  const int* src = scratch_buf + t.scr_off;
  const int* mv = src + len;
  const long long nm = src[3 * len];
  double* lines = line_buf + t.line_off;
  for_column_segments(nm, m, [&](long long i, long long x) { lines[i * m + x] = sym_at(F, f.ld, t.k + mv[i], x); });
}

// commit, third launch, grid (tasks, spread): the new lines of the moved positions, from the copies. Entry
// (P, x) of moved position P takes old (src(P), src(x)); when both are moved it is written once (by the larger);
// entries of the accepted columns on or below the diagonal are left to write_window_l_kernel.
__global__ void commit_scatter_kernel(const WindowTask* tasks, const FrontDesc* fronts, double* fbuf,
                                      const int* q_in, const int* scratch_buf, const double* line_buf) {
  const WindowTask t = tasks[blockIdx.x];
  const int q = q_in[2 * blockIdx.x];
  if (q == 0) return;
  const FrontDesc f = fronts[t.front];
  double* F = fbuf + f.off;
  const long long m = f.m, k = t.k;
  const int len = t.s + t.w;
  const int* src = scratch_buf + t.scr_off;
  const int* mv = src + len;
  const int* inv = mv + len;
  const long long nm = src[3 * len];
  const double* lines = line_buf + t.line_off;
  for_column_segments(nm, m, [&](long long i, long long x) {
    const long long P = k + mv[i];
    long long xs = x;
    bool xmoved = false;
    if (x >= k && x < k + len) {
      const int sx = src[x - k];
      xmoved = sx != x - k;
      xs = k + sx;
    }
    if (xmoved && x > P) return;
    const long long c = P < x ? P : x, rr = P < x ? x : P;
    if (c >= k && c < k + q) return;
    F[rr + c * f.ld] = lines[static_cast<long long>(inv[i]) * m + xs];
  });
}

// grid: (tasks, spread). After commit_window: the accepted columns are written from the scratch (rows
// relative to k; a permuted row takes the values computed for the row it came from, src in the scratch).
__global__ void write_window_l_kernel(const WindowTask* tasks, const FrontDesc* fronts, double* fbuf,
                                      const double* lt_buf, const int* q_in, const int* scratch_buf) {
  const WindowTask t = tasks[blockIdx.x];
  const int q = q_in[2 * blockIdx.x];
  if (q == 0) return;
  const FrontDesc f = fronts[t.front];
  double* F = fbuf + f.off;
  const long long m = f.m;
  const int len = t.s + t.w;
  const int* src = scratch_buf + t.scr_off;
  const long long ldt = m - t.k;
  const double* lt = lt_buf + t.lt_off;
  for_column_segments(q, ldt, [&](long long pc, long long i) {
    if (i < pc) return;
    const long long srow = i < len ? src[i] : i;
    F[(t.k + i) + (t.k + pc) * f.ld] = lt[srow + pc * ldt];
  });
}

__global__ void permute_range_kernel(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch) {
  const FrontDesc f = *front;
  permute_positions(fbuf + f.off, f.m, f.ld, vars + f.var_off, lo, len, scratch, scratch + len, scratch + 2 * len);
}

// grid: (tasks, spread); the entries of a task are spread over the blocks of grid dimension y.
__global__ void form_w_kernel(const FormWTask* tasks) {
  const FormWTask t = tasks[blockIdx.x];
  for_column_segments(t.q, t.nrow, [&](long long jj, long long r) {
    const int j = static_cast<int>(jj);
    const double* l = t.l + r;
    double v;
    if (t.d[2 * j + 1] != 0.0) {  // first of a 2x2
      v = l[static_cast<long long>(j) * t.ldl] * t.d[2 * j] + l[static_cast<long long>(j + 1) * t.ldl] * t.d[2 * j + 1];
    } else if (j > 0 && t.d[2 * (j - 1) + 1] != 0.0) {  // second of a 2x2
      v = l[static_cast<long long>(j - 1) * t.ldl] * t.d[2 * (j - 1) + 1] + l[static_cast<long long>(j) * t.ldl] * t.d[2 * j];
    } else {
      v = l[static_cast<long long>(j) * t.ldl] * t.d[2 * j];
    }
    t.w[r + jj * (t.ldw > 0 ? t.ldw : t.nrow)] = v;
  });
}

// One 64x64 lower tile of C -= L W^T per block; 256 threads, 4x4 entries each; inner dimension in
// chunks of 16 through shared memory. Each entry is summed in a fixed order by one thread.
__global__ void __launch_bounds__(256) update_kernel(const UpdateTask* tasks, int ntasks) {
  const long long b = blockIdx.x;
  int lo = 0, hi = ntasks - 1;
  while (lo < hi) {  // last task with tile_begin <= b
    const int mid = (lo + hi + 1) / 2;
    if (tasks[mid].tile_begin <= b) lo = mid;
    else hi = mid - 1;
  }
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
  __shared__ double Ls[tile_k][tile + 1];
  __shared__ double Ws[tile_k][tile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  double acc[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[a][c] = 0.0;
  for (int k0 = 0; k0 < t.kdim; k0 += tile_k) {
    for (int e = threadIdx.x; e < tile * tile_k; e += blockDim.x) {
      const int r = e % tile, kk = e / tile;
      const int gk = k0 + kk;
      const int gi = i0 + r, gj = j0 + r;
      Ls[kk][r] = (gk < t.kdim && gi < t.nrow) ? t.l[gi + static_cast<long long>(gk) * t.ldl] : 0.0;
      Ws[kk][r] = (gk < t.kdim && gj < t.ncol) ? t.w[gj + static_cast<long long>(gk) * t.ldw] : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < tile_k; ++kk) {
      double lv[4], wv[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) lv[a] = Ls[kk][tx + 16 * a];
#pragma unroll
      for (int c = 0; c < 4; ++c) wv[c] = Ws[kk][ty + 16 * c];
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[a][c] = fma(lv[a], wv[c], acc[a][c]);
    }
    __syncthreads();
  }
  // all loads of C first, so that they are in flight together (a load after a store to C would wait for it)
  double cv[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int i = i0 + tx + 16 * a, j = j0 + ty + 16 * c;
      cv[a][c] = (i < t.nrow && j < t.ncol && i >= j) ? t.c[i + static_cast<long long>(j) * t.ldc] : 0.0;
    }
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int i = i0 + tx + 16 * a, j = j0 + ty + 16 * c;
      if (i < t.nrow && j < t.ncol && i >= j) t.c[i + static_cast<long long>(j) * t.ldc] = cv[a][c] - acc[a][c];
    }
}

}  // namespace

long long update_tiles(int nrow, int ncol) {
  if (nrow <= 0 || ncol <= 0) return 0;
  const long long nti = (nrow + tile - 1) / tile, ntj = (ncol + tile - 1) / tile;
  long long n = 0;
  for (long long tj = 0; tj < ntj; ++tj) n += nti - tj;
  return n;
}

void launch_window_colmax(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                          const double* fbuf, double* cmax, cudaStream_t s) {
  if (ntasks == 0 || nblocks == 0) return;
  window_colmax_kernel<<<static_cast<unsigned>(nblocks), apply_rows, 0, s>>>(tasks, ntasks, fronts, fbuf, cmax);
  check_launch("window_colmax_kernel");
}

void launch_factor_window(const WindowTask* tasks, int ntasks, const FrontDesc* fronts, double* fbuf, double* lt,
                          double* sbuf, WindowResult* res, const double* cmax, DenseParams prm, cudaStream_t s) {
  if (ntasks == 0) return;
  factor_window_kernel<<<ntasks, 256, 0, s>>>(tasks, fronts, fbuf, lt, sbuf, res, cmax, prm);
  check_launch("factor_window_kernel");
}

void launch_apply_window(const WindowTask* tasks, int ntasks, long long nblocks, const FrontDesc* fronts,
                         const double* fbuf, double* lt, const double* sbuf, WindowResult* res, DenseParams prm,
                         cudaStream_t s) {
  if (ntasks == 0 || nblocks == 0) return;
  check_cuda(cudaFuncSetAttribute(apply_window_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(apply_xs_bytes)),
             "cudaFuncSetAttribute (apply_window_kernel)");
  apply_window_kernel<<<static_cast<unsigned>(nblocks), apply_rows, apply_xs_bytes, s>>>(tasks, ntasks, fronts, fbuf,
                                                                                         lt, sbuf, res, prm);
  check_launch("apply_window_kernel");
}

void launch_commit_window(const WindowTask* tasks, int ntasks, long long max_entries, const FrontDesc* fronts,
                          double* fbuf, int* vars, double* dbuf, const double* lt, const WindowResult* res, int* q,
                          int* scratch, double* lines, cudaStream_t s) {
  if (ntasks == 0) return;
  commit_prepare_kernel<<<ntasks, 256, 0, s>>>(tasks, fronts, vars, dbuf, res, q, scratch);
  check_launch("commit_prepare_kernel");
  const int spread = static_cast<int>(std::max(1LL, std::min(1024LL, max_entries / (256 * 16))));
  const int spread2 = static_cast<int>(std::max(1LL, std::min(1024LL, 2 * max_entries / (256 * 16))));
  commit_lines_kernel<<<dim3(ntasks, spread2), 256, 0, s>>>(tasks, fronts, fbuf, q, scratch, lines);
  check_launch("commit_lines_kernel");
  commit_scatter_kernel<<<dim3(ntasks, spread2), 256, 0, s>>>(tasks, fronts, fbuf, q, scratch, lines);
  check_launch("commit_scatter_kernel");
  write_window_l_kernel<<<dim3(ntasks, spread), 256, 0, s>>>(tasks, fronts, fbuf, lt, q, scratch);
  check_launch("write_window_l_kernel");
}

void launch_permute_range(const FrontDesc* front, double* fbuf, int* vars, int lo, int len, int* scratch,
                          cudaStream_t s) {
  if (len <= 1) return;
  permute_range_kernel<<<1, 256, 0, s>>>(front, fbuf, vars, lo, len, scratch);
  check_launch("permute_range_kernel");
}

void launch_form_w(const FormWTask* tasks, int ntasks, long long max_entries, cudaStream_t s) {
  if (ntasks == 0) return;
  const int spread = static_cast<int>(std::max(1LL, std::min(1024LL, max_entries / (256 * 16))));
  form_w_kernel<<<dim3(ntasks, spread), 256, 0, s>>>(tasks);
  check_launch("form_w_kernel");
}

void launch_update(const UpdateTask* tasks, int ntasks, long long ntiles, cudaStream_t s) {
  if (ntasks == 0 || ntiles == 0) return;
  update_kernel<<<static_cast<unsigned>(ntiles), 256, 0, s>>>(tasks, ntasks);
  check_launch("update_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
