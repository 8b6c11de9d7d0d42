// spike.cpp — partitioned banded preconditioner: SaP-D (block diagonal) and SaP-C (truncated SPIKE).
// Li, Serban, Negrut 2015: partition sizes §3.1; spikes Eq. (2); truncated reduced system Eq. (6)-(9) with
// N_i = M_i = 0; corrected block solves Eq. (10); V_i^(b) from the bottom corners of the LU factors and
// W_{i+1}^(t) from the top corners of a UL factorization (§2.1, after Eq. (10)); pivot boosting §2.2.
// Storage conventions: spike.hpp. Blocks are independent: factor and apply loop over them with OpenMP.
#include "sap/spike.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/blas.hpp"
#include "sap/band.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace sap {
namespace detail {

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void BandedPreconditioner::plan(index_t n, index_t k, int partitions, Variant variant) {
  n_ = n;
  k_ = k;
  variant_ = variant;
  long p = std::max(1, partitions);
  if (n == 0) p = 0;
  else {
    if (k > 0) p = std::min<long>(p, std::max<long>(1, n / (2L * k)));
    p = std::min<long>(p, n);
  }
  begin_.assign(static_cast<std::size_t>(p) + 1, 0);
  if (p > 0) {
    const index_t q = static_cast<index_t>(n / p), rem = static_cast<index_t>(n % p);
    for (long i = 0; i < p; ++i) begin_[i + 1] = begin_[i] + q + (i < rem ? 1 : 0);
  }
  kb_.assign(static_cast<std::size_t>(p), k);
  part_of_.assign(static_cast<std::size_t>(n), 0);
  for (long i = 0; i < p; ++i)
    for (index_t r = begin_[i]; r < begin_[i + 1]; ++r) part_of_[r] = static_cast<int>(i);
  m_ = (variant == Variant::coupled && p > 1) ? k : 0;
  band_.assign(static_cast<std::size_t>(p), Vector<double>());
  order_.assign(static_cast<std::size_t>(p), Vector<index_t>());
  position_.assign(static_cast<std::size_t>(p), Vector<index_t>());
  const std::size_t ni = p > 1 ? static_cast<std::size_t>(p - 1) : 0;
  cb_.assign(ni, Vector<double>());
  cc_.assign(ni, Vector<double>());
  v_.assign(ni, Vector<double>());
  w_.assign(ni, Vector<double>());
  rbar_.assign(ni, Vector<double>());
  piv_.assign(ni, Vector<index_t>());
}

void BandedPreconditioner::set_block_order(int i, Vector<index_t> order, index_t k_i) {
  if (m_ > 0) throw Error(flag::unimplemented, "SaP: third-stage reordering is not available for the coupled variant");
  kb_[i] = k_i;
  position_[i].assign(order.size(), 0);
  for (std::size_t t = 0; t < order.size(); ++t) position_[i][order[t]] = static_cast<index_t>(t);
  order_[i] = std::move(order);
}

void BandedPreconditioner::allocate() {
  const int p = partitions();
  for (int i = 0; i < p; ++i)
    band_[i].assign(static_cast<std::size_t>(block_size(i)) * static_cast<std::size_t>(band_ld(kb_[i])), 0.0);
  const std::size_t mm = static_cast<std::size_t>(m_) * m_;
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(p) && m_ > 0; ++i) {
    cb_[i].assign(mm, 0.0);
    cc_[i].assign(mm, 0.0);
  }
}

bool BandedPreconditioner::add(index_t r, index_t c, double v) {
  const index_t d = r > c ? r - c : c - r;
  if (d > k_) return false;
  const int pr = part_of_[r], pc = part_of_[c];
  if (pr == pc) {
    index_t lr = r - begin_[pr], lc = c - begin_[pr];
    if (!position_[pr].empty()) {
      lr = position_[pr][lr];
      lc = position_[pr][lc];
      const index_t dl = lr > lc ? lr - lc : lc - lr;
      if (dl > kb_[pr]) return false;
    }
    band_[pr][band_at(kb_[pr], lr, lc)] += v;
    return true;
  }
  if (m_ == 0) return false;
  if (pc == pr + 1) {  // B of interface pr
    const index_t lr = r - (begin_[pc] - m_), lc = c - begin_[pc];
    cb_[pr][lr + static_cast<std::size_t>(lc) * m_] += v;
    return true;
  }
  if (pc == pr - 1) {  // C of interface pc
    const index_t lr = r - begin_[pr], lc = c - (begin_[pr] - m_);
    cc_[pc][lr + static_cast<std::size_t>(lc) * m_] += v;
    return true;
  }
  return false;
}

SpikeStats BandedPreconditioner::factor(double boost_epsilon, bool use_ul) {
  SpikeStats st;
  const int p = partitions();
  const index_t m = m_;
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  Vector<double> boost(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    const double nrm = band_max_abs(block_size(i), kb_[i], band_[i].data());
    boost[i] = boost_epsilon * (nrm > 0 ? nrm : 1.0);
  }
  int boosted = 0, boosted_ul = 0;
  double t0 = now();
  // SaP-C, UL option: W_{i}^(t) of interface i-1 from the top corner of a UL factorization of block i,
  // computed on a copy before the in-place LU overwrites the values.
  if (m > 0 && use_ul) {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : boosted_ul)
    for (int i = 1; i < p; ++i) {
      Vector<double> ul(band_[i]);
      boosted_ul += band_ul(block_size(i), kb_[i], ul.data(), boost[i]);
      w_[i - 1] = cc_[i - 1];
      spike_top_from_ul(kb_[i], ul.data(), m, w_[i - 1].data());
    }
  }
  const double t_ul = now() - t0;
  t0 = now();
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : boosted)
  for (int i = 0; i < p; ++i) boosted += band_lu(block_size(i), kb_[i], band_[i].data(), boost[i]);
  st.time_lu = now() - t0;
  t0 = now();
  if (m > 0) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < p - 1; ++i) {
      // right spike bottom of block i: V_i^(b) = U_bb^{-1} L_bb^{-1} B_i
      v_[i] = cb_[i];
      spike_bottom_from_lu(block_size(i), kb_[i], band_[i].data(), m, v_[i].data());
      if (!use_ul) {
        w_[i] = cc_[i];
        Vector<double> work(static_cast<std::size_t>(block_size(i + 1)));
        spike_top_from_lu(block_size(i + 1), kb_[i + 1], band_[i + 1].data(), m, w_[i].data(), work.data());
      }
      // reduced system R̄_i = I - W_{i+1}^(t) V_i^(b), Eq. (9a), dense LU with partial pivoting
      rbar_[i].assign(mm, 0.0);
      for (index_t t = 0; t < m; ++t) rbar_[i][t + static_cast<std::size_t>(t) * m] = 1.0;
      blas::gemm('N', 'N', m, m, m, -1.0, w_[i].data(), m, v_[i].data(), m, 1.0, rbar_[i].data(), m);
      piv_[i].assign(static_cast<std::size_t>(m), 0);
      dense_lu(m, rbar_[i].data(), piv_[i].data(), boost_epsilon > 0 ? boost_epsilon : 1e-300);
    }
  }
  st.time_spikes = t_ul + (now() - t0);
  st.boosted = boosted;
  st.boosted_ul = boosted_ul;
  return st;
}

void BandedPreconditioner::apply(const double* r, double* z) const {
  const int p = partitions();
  const index_t m = m_;
  auto block_solve = [&](int i, const double* rhs, double* out) {
    const index_t ni = block_size(i), b0 = begin_[i];
    if (position_[i].empty()) {
      std::copy(rhs + b0, rhs + b0 + ni, out + b0);
      band_lu_solve(ni, kb_[i], band_[i].data(), out + b0);
    } else {
      Vector<double> y(static_cast<std::size_t>(ni));
      for (index_t t = 0; t < ni; ++t) y[position_[i][t]] = rhs[b0 + t];
      band_lu_solve(ni, kb_[i], band_[i].data(), y.data());
      for (index_t t = 0; t < ni; ++t) out[b0 + t] = y[position_[i][t]];
    }
  };
  if (m == 0) {  // SaP-D: x ≈ g = D^{-1} r (Eq. (3))
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < p; ++i) block_solve(i, r, z);
    return;
  }
  // SaP-C. Step 1: g = D^{-1} r.
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < p; ++i) block_solve(i, r, z);
  // Step 2: per interface, Eq. (9b)-(9c): x~_{i+1}^(t) and x~_i^(b).
  const std::size_t ni = static_cast<std::size_t>(p - 1), sm = static_cast<std::size_t>(m);
  Vector<double> xt(ni * sm), xb(ni * sm);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < p - 1; ++i) {
    const double* gb = z + begin_[i + 1] - m;  // g_i^(b)
    const double* gt = z + begin_[i + 1];      // g_{i+1}^(t)
    double* t_ = xt.data() + i * sm;
    double* b_ = xb.data() + i * sm;
    std::copy(gt, gt + m, t_);
    blas::gemv('N', m, m, -1.0, w_[i].data(), m, gb, 1, 1.0, t_, 1);
    dense_lu_solve(m, rbar_[i].data(), piv_[i].data(), t_);
    std::copy(gb, gb + m, b_);
    blas::gemv('N', m, m, -1.0, v_[i].data(), m, t_, 1, 1.0, b_, 1);
  }
  // Step 3: corrected block solves, Eq. (10).
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < p; ++i) {
    const index_t nb = block_size(i), b0 = begin_[i];
    double* out = z + b0;
    std::copy(r + b0, r + b0 + nb, out);
    if (i > 0) blas::gemv('N', m, m, -1.0, cc_[i - 1].data(), m, xb.data() + (i - 1) * sm, 1, 1.0, out, 1);
    if (i < p - 1) blas::gemv('N', m, m, -1.0, cb_[i].data(), m, xt.data() + i * sm, 1, 1.0, out + nb - m, 1);
    band_lu_solve(nb, kb_[i], band_[i].data(), out);
  }
}

std::int64_t BandedPreconditioner::predicted_bytes(bool use_ul, int threads) const {
  const int p = partitions();
  std::int64_t bands = 0, largest = 0;
  for (int i = 0; i < p; ++i) {
    const std::int64_t b = 8 * static_cast<std::int64_t>(block_size(i)) * band_ld(kb_[i]);
    bands += b;
    largest = std::max(largest, b);
  }
  const std::int64_t m = m_, interfaces = p > 1 ? p - 1 : 0;
  std::int64_t coupling = m > 0 ? interfaces * (5 * 8 * m * m + static_cast<std::int64_t>(sizeof(index_t)) * m) : 0;
  if (m > 0 && use_ul) coupling += std::min<std::int64_t>(std::max(threads, 1), interfaces) * largest;
  return bands + coupling;
}

std::int64_t BandedPreconditioner::bytes() const {
  std::int64_t b = 0;
  for (const auto& v : band_) b += static_cast<std::int64_t>(v.size()) * 8;
  for (std::size_t i = 0; i < cb_.size(); ++i)
    b += 8 * static_cast<std::int64_t>(cb_[i].size() + cc_[i].size() + v_[i].size() + w_[i].size() + rbar_[i].size());
  return b;
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
