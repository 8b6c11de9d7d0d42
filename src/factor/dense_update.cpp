// dense_update.cpp — the BLAS-3 trailing update C -= L W^T of a lower trapezoid, tiled for OpenMP tasks.
//
// This is where a big front spends nearly all of its flops (the generated element, Hogg et al. 2016 §3.3;
// on the CPU we call dgemm/dsyrk instead of a custom kernel). Column-major, lower triangle only: no
// entry above C's diagonal is read or written, because callers keep other data (nothing, by the
// contract of dense_ldlt.hpp, but the upper triangle is not ours) there.
//
// Tiling: columns in tiles of `tile_cols`; each column tile gives one task for its diagonal block and
// one task per `tile_rows` rows below it. The partition depends only on (nrow, ncol), never on the
// thread count, and each entry of C is computed by exactly one single-threaded BLAS call of that
// partition, so the result is the same bits whether the tiles run serially or as tasks on any number
// of threads (run_tasks in dense_internal.hpp).
#include <algorithm>
#include <array>

#include "common/blas.hpp"
#include "factor/dense_internal.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

namespace {

constexpr int tile_cols = 256;  ///< columns per tile (a multiple of diag_sub)
constexpr int tile_rows = 512;  ///< rows per off-diagonal tile
constexpr int diag_sub = 32;    ///< sub-block width inside a diagonal tile when W != L

/// One unit of work: columns [c0, c1) and rows [r0, r1) of C; r0 == c0 marks a diagonal block
/// (then r1 == c1 and only its lower triangle is touched).
struct Tile {
  int c0, c1, r0, r1;
};

/// Diagonal block: lower triangle of C(c0:c1, c0:c1) -= L(c0:c1, :) W(c0:c1, :)^T.
/// For W = L this is one dsyrk. Otherwise the block is cut into diag_sub-wide column strips: the part
/// of a strip below its own small diagonal block is a dgemm, the small block itself is formed in a
/// local buffer (beta = 0) and only its lower triangle is subtracted, so the upper triangle is untouched.
void diagonal_tile(int c0, int c1, int k, const double* l, int ldl, const double* w, int ldw, double* c, int ldc) {
  const int n = c1 - c0;
  double* cd = c + c0 + static_cast<std::size_t>(c0) * ldc;
  const double* ld = l + c0;
  if (w == nullptr) {
    blas::syrk('L', 'N', n, k, -1.0, ld, ldl, 1.0, cd, ldc);
    return;
  }
  const double* wd = w + c0;
  std::array<double, diag_sub * diag_sub> buf;
  for (int s0 = 0; s0 < n; s0 += diag_sub) {
    const int s1 = std::min(n, s0 + diag_sub);
    const int sn = s1 - s0;
    // rows below the strip's diagonal block, inside this tile
    blas::gemm('N', 'T', n - s1, sn, k, -1.0, ld + s1, ldl, wd + s0, ldw, 1.0,
               cd + s1 + static_cast<std::size_t>(s0) * ldc, ldc);
    blas::gemm('N', 'T', sn, sn, k, 1.0, ld + s0, ldl, wd + s0, ldw, 0.0, buf.data(), diag_sub);
    for (int j = 0; j < sn; ++j) {
      double* col = cd + s0 + static_cast<std::size_t>(s0 + j) * ldc;
      for (int i = j; i < sn; ++i) col[i] -= buf[i + static_cast<std::size_t>(j) * diag_sub];
    }
  }
}

void run_tile(const Tile& t, int k, const double* l, int ldl, const double* w, int ldw, double* c, int ldc) {
  if (t.r0 == t.c0) {
    diagonal_tile(t.c0, t.c1, k, l, ldl, w, ldw, c, ldc);
    return;
  }
  const double* wt = (w == nullptr) ? l : w;
  const int ldwt = (w == nullptr) ? ldl : ldw;
  blas::gemm('N', 'T', t.r1 - t.r0, t.c1 - t.c0, k, -1.0, l + t.r0, ldl, wt + t.c0, ldwt, 1.0,
             c + t.r0 + static_cast<std::size_t>(t.c0) * ldc, ldc);
}

}  // namespace

void lower_update(int nrow, int ncol, int k, const double* l, int ldl, const double* w, int ldw, double* c, int ldc) {
  if (k <= 0 || ncol <= 0 || nrow <= 0) return;
  Vector<Tile> tiles;
  for (int c0 = 0; c0 < ncol; c0 += tile_cols) {
    const int c1 = std::min(ncol, c0 + tile_cols);
    tiles.push_back({c0, c1, c0, c1});
    for (int r0 = c1; r0 < nrow; r0 += tile_rows) tiles.push_back({c0, c1, r0, std::min(nrow, r0 + tile_rows)});
  }
  const Tile* tp = tiles.data();
  run_tasks(static_cast<int>(tiles.size()), 2.0 * nrow * ncol * k, [=](int t) { run_tile(tp[t], k, l, ldl, w, ldw, c, ldc); });
}

void trsm_right_lower_trans(int nrow, int b, const double* l, int ldl, double* x, int ldx) {
  if (nrow <= 0 || b <= 0) return;
  const int ntiles = (nrow + tile_rows - 1) / tile_rows;
  run_tasks(ntiles, static_cast<double>(nrow) * b * b, [=](int t) {
    const int r0 = t * tile_rows;
    blas::trsm('R', 'L', 'T', 'N', std::min(tile_rows, nrow - r0), b, 1.0, l, ldl, x + r0, ldx);
  });
}

}  // namespace detail
}  // namespace ssids
