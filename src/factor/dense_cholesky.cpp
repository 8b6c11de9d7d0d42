// dense_cholesky.cpp — CPU partial Cholesky of one front (positive-definite mode, Hogg et al. 2016 §3.4).
// Contract: dense_ldlt.hpp. Column-major, leading dimension lda, lower triangle only.
//
// Right-looking, blocked by block_size columns: dpotrf on the diagonal block, dtrsm for the rows below
// it, then the lower trapezoid of every column right of the block (the rest of the fully summed block
// and the contribution block) is updated with the tiled dsyrk/dgemm of dense_update.cpp. The partition
// depends only on (m, p, block_size) and BLAS runs single-threaded (parallelism comes from tasks over
// the tiles), so the result is bitwise independent of the thread count.
#include <algorithm>
#include <cstddef>

#include "common/blas.hpp"
#include "factor/dense_internal.hpp"
#include "factor/dense_ldlt.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

int cholesky_partial(int m, int p, double* a, int lda, int block_size) {
  if (m < 0 || p < 0 || p > m) throw Error(flag::bad_input, "dense cholesky: need 0 <= p <= m");
  if (lda < std::max(1, m)) throw Error(flag::bad_input, "dense cholesky: lda < m");
  if (m > 0 && a == nullptr) throw Error(flag::bad_input, "dense cholesky: null front");
  const int nb = std::max(1, block_size);
  auto at = [&](int i, int j) { return a + i + static_cast<std::size_t>(j) * lda; };
  for (int j = 0; j < p; j += nb) {
    const int b = std::min(nb, p - j);
    int info = 0;
    {
      SerialBlasScope serial;  // threaded OpenBLAS gives other bits (dense_internal.hpp)
      info = blas::potrf('L', b, at(j, j), lda);
    }
    if (info > 0) return j + info - 1;
    const int below = m - j - b;
    trsm_right_lower_trans(below, b, at(j, j), lda, at(j + b, j), lda);
    lower_update(below, below, b, at(j + b, j), lda, nullptr, 0, at(j + b, j + b), lda);
  }
  return -1;
}

}  // namespace detail
}  // namespace ssids
