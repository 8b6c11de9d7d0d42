// factor_tables.cpp — see factor_tables.hpp. Every node writes its own ranges (its pivot positions and row
// list, placed by prefix sums), so nodes run in parallel; the counts are reductions of integers.
#include "factor/factor_tables.hpp"

#include <algorithm>

#include "factor/pivot_tests.hpp"

namespace ssids {
namespace detail {

GpuFactorCounts fill_host_tables(index_t n, const Vector<GpuNodeInfo>& info, const int* rows, const double* d,
                                 bool posdef, NumericFactors& out) {
  const index_t nsup = static_cast<index_t>(info.size());
  out.nodes.resize(static_cast<size_t>(nsup));
  if (!posdef) {  // every pivot's two entries of each are written below (no zero fill first)
    out.d.resize(2 * static_cast<size_t>(n));
    out.dinv.resize(2 * static_cast<size_t>(n));
  }
  Vector<index_t> pos(static_cast<size_t>(nsup) + 1, 0);
  Vector<offset_t> rp(static_cast<size_t>(nsup) + 1, 0);
  for (index_t s = 0; s < nsup; ++s) {
    pos[s + 1] = pos[s] + info[s].nelim;
    rp[s + 1] = rp[s] + info[s].m;
  }
  GpuFactorCounts c;
  c.eliminated = pos[nsup];
  if (c.eliminated > n) return c;  // the caller reports the inconsistency; nothing is written out of range
  out.rows.resize(static_cast<size_t>(rp[nsup]));
  offset_t num_factor = 0, num_flops = 0;
  int num_delay = 0, maxfront = 0, num_two = 0, num_neg = 0, num_pos = 0, num_zero = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : num_factor, num_flops, num_delay, num_two, num_neg, \
                                                             num_pos, num_zero) reduction(max : maxfront) \
    if (rp[nsup] >= 50000)  // a team only where there is work for it (waking one costs tens of microseconds)
  for (index_t s = 0; s < nsup; ++s) {
    const GpuNodeInfo& ni = info[s];
    const index_t p0 = pos[s];
    NodeFactor& nfac = out.nodes[s];
    nfac.nelim = ni.nelim;
    nfac.nrow = ni.m;
    nfac.ndelay_in = ni.ndelay;
    nfac.pos = p0;
    nfac.row_ptr = rp[s];
    nfac.lptr = ni.l_off;
    std::copy(rows + ni.rows_off, rows + ni.rows_off + ni.m, out.rows.begin() + rp[s]);
    for (index_t k = 0; k < ni.nelim; ++k) out.pivot_var[p0 + k] = rows[ni.rows_off + k];
    if (!posdef) {
      const double* dn = d + ni.d_off;
      for (index_t k = 0; k < ni.nelim;) {
        const int np = diag_pivot_entries(dn, k, &out.d[2 * (p0 + k)], &out.dinv[2 * (p0 + k)]);
        const double d11 = dn[2 * k];
        if (np == 2) {
          const double d21 = dn[2 * k + 1], d22 = dn[2 * k + 2];
          ++num_two;
          const double det = d11 * d22 - d21 * d21;
          if (det < 0) {
            ++num_neg;
            ++num_pos;
          } else if (d11 + d22 > 0) {
            num_pos += 2;
          } else {
            num_neg += 2;
          }
        } else {  // the signs of consecutive 1x1 pivots follow no pattern: counted without branches
          num_pos += d11 > 0;
          num_neg += d11 < 0;
          num_zero += d11 == 0;
        }
        k += np;
      }
    }
    num_delay += ni.p - ni.nelim;
    maxfront = std::max(maxfront, ni.m);
    const offset_t m = ni.m, ne = ni.nelim;
    num_factor += m * ne - ne * (ne - 1) / 2;
    // pivot k leaves b = m - k - 1 rows below it and costs b^2 + 2b: the sums over b in [m - ne, m) in closed form
    auto sum_b = [](offset_t x) { return x * (x - 1) / 2; };                // b over [0, x)
    auto sum_b2 = [](offset_t x) { return (x - 1) * x * (2 * x - 1) / 6; };  // b^2 over [0, x)
    num_flops += sum_b2(m) - sum_b2(m - ne) + 2 * (sum_b(m) - sum_b(m - ne));
  }
  c.num_factor = num_factor;
  c.num_flops = num_flops;
  c.num_delay = num_delay;
  c.maxfront = maxfront;
  c.num_two = num_two;
  c.num_neg = num_neg;
  c.num_pos = num_pos;
  c.num_zero = num_zero;
  return c;
}

}  // namespace detail
}  // namespace ssids
