// sap_gpu_layout.cpp — host side of the GPU SaP path: the flat layout of the preconditioner's values, the
// slot of each matrix entry in it, and the host twin of the benchmarks' banded generator (sap_gpu.hpp).
#include <algorithm>
#include <cmath>

#include "sap/band.hpp"
#include "sap/banded_hash.hpp"
#include "sap/sap_gpu.hpp"

namespace ssids {
namespace sap {
namespace detail {

GpuLayout gpu_layout(const BandedPreconditioner& prec) {
  GpuLayout l;
  l.p = prec.partitions();
  l.k = prec.bandwidth();
  l.m = prec.coupling_width();
  l.begin.assign(static_cast<std::size_t>(l.p) + 1, 0);
  l.kb.assign(static_cast<std::size_t>(l.p), 0);
  l.offset.assign(static_cast<std::size_t>(l.p) + 1, 0);
  for (int i = 0; i < l.p; ++i) {
    l.begin[i] = prec.block_begin(i);
    l.kb[i] = prec.block_bandwidth(i);
    l.offset[i + 1] = l.offset[i] + static_cast<std::int64_t>(prec.block_size(i)) * band_ld(l.kb[i]);
  }
  l.begin[l.p] = l.p > 0 ? prec.block_begin(l.p - 1) + prec.block_size(l.p - 1) : 0;
  l.n = l.begin[l.p];
  return l;
}

std::int64_t gpu_slot(const BandedPreconditioner& prec, const GpuLayout& l, index_t r, index_t c) {
  const index_t d = r > c ? r - c : c - r;
  if (d > l.k) return -1;
  const int pr = prec.block_of(r), pc = prec.block_of(c);
  if (pr == pc) {
    const index_t lr = prec.local_position(pr, r - l.begin[pr]), lc = prec.local_position(pr, c - l.begin[pr]);
    const index_t dl = lr > lc ? lr - lc : lc - lr;
    if (dl > l.kb[pr]) return -1;
    return l.offset[pr] + band_at(l.kb[pr], lr, lc);
  }
  if (l.m == 0) return -1;
  const std::int64_t mm = static_cast<std::int64_t>(l.m) * l.m;
  if (pc == pr + 1) {  // B of interface pr: last m rows of block pr, first m columns of block pc
    const index_t lr = r - (l.begin[pc] - l.m), lc = c - l.begin[pc];
    if (lr < 0 || lc >= l.m) return -1;
    return l.coupling(pr) + lr + static_cast<std::int64_t>(lc) * l.m;
  }
  if (pc == pr - 1) {  // C of interface pc: first m rows of block pr, last m columns of block pc
    const index_t lr = r - l.begin[pr], lc = c - (l.begin[pr] - l.m);
    if (lr >= l.m || lc < 0) return -1;
    return l.coupling(pc) + mm + lr + static_cast<std::int64_t>(lc) * l.m;
  }
  return -1;
}

void generate_banded_band(index_t n, index_t k, double d, std::uint64_t seed, double* band) {
  const std::int64_t ld = band_ld(k);
  std::fill(band, band + static_cast<std::int64_t>(n) * ld, 0.0);
  for (index_t i = 0; i < n; ++i) {
    const index_t lo = std::max<index_t>(0, i - k), hi = std::min<index_t>(n - 1, i + k);
    double sum = 0.0;
    for (index_t j = lo; j <= hi; ++j) {
      if (j == i) continue;
      const double v = banded_value(seed, i, j);
      sum += std::fabs(v);
      band[band_at(k, i, j)] = v;
    }
    band[band_at(k, i, i)] = d * sum;
  }
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
