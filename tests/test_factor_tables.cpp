// test_factor_tables.cpp — the host tables of a GPU factorization (factor/factor_tables.hpp: OpenMP over nodes)
// against a plain sequential construction on random node outcomes: row lists, pivot order, D and D^{-1}
// (1x1, 2x2 and zero pivots), and the counts, with the inertia of each 2x2 block from its eigenvalues. Host
// code: it runs in every build. Also parallel_copy, the host side of the GPU values upload.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/parallel_copy.hpp"
#include "factor/factor_tables.hpp"

namespace {

using ssids::index_t;
using ssids::offset_t;
using ssids::detail::GpuNodeInfo;

struct Outcome {
  index_t n = 0;
  ssids::Vector<GpuNodeInfo> info;
  std::vector<int> rows;
  std::vector<double> d;
};

/// nsup nodes of random sizes; D per node: 1x1 pivots (some zero) and 2x2 blocks (d21 != 0), shuffled rows.
Outcome make_outcome(int nsup, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<std::uint64_t>(k)); };
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  Outcome o;
  long long l_off = 0;
  for (int s = 0; s < nsup; ++s) {
    GpuNodeInfo ni;
    ni.m = 1 + pick(s % 50 == 0 ? 700 : 60);
    ni.p = 1 + pick(ni.m);
    ni.nelim = pick(ni.p + 1);
    ni.ndelay = pick(ni.p + 1);
    ni.l_off = l_off;
    l_off += static_cast<long long>(ni.m) * ni.nelim;
    ni.rows_off = static_cast<long long>(o.rows.size());
    for (int i = 0; i < ni.m; ++i) o.rows.push_back(pick(1000000));
    ni.d_off = static_cast<long long>(o.d.size());
    for (int k = 0; k < ni.nelim; ++k) {
      if (k + 1 < ni.nelim && pick(3) == 0) {  // a 2x2 block
        o.d.push_back(u(rng));
        o.d.push_back(0.5 + std::fabs(u(rng)));
        o.d.push_back(u(rng));
        o.d.push_back(0.0);
        ++k;
      } else {
        o.d.push_back(pick(10) == 0 ? 0.0 : u(rng));
        o.d.push_back(0.0);
      }
    }
    o.n += ni.nelim;
    o.info.push_back(ni);
  }
  return o;
}

/// every_kind: the outcome is big enough to hold 2x2, zero and negative pivots (checked, so the test can fail).
void check_tables(const Outcome& o, bool posdef, bool every_kind = true) {
  ssids::detail::NumericFactors out;
  out.pivot_var.resize(o.n);
  const ssids::detail::GpuFactorCounts c =
      ssids::detail::fill_host_tables(o.n, o.info, o.rows.data(), o.d.data(), posdef, out);
  REQUIRE(c.eliminated == o.n);
  REQUIRE(out.nodes.size() == o.info.size());
  // sequentially, from the definitions
  index_t pos = 0;
  offset_t rp = 0, nfac = 0, flops = 0;
  int delays = 0, maxfront = 0, two = 0, neg = 0, pos_count = 0, zero = 0;
  long long bad = 0;
  for (std::size_t s = 0; s < o.info.size(); ++s) {
    const GpuNodeInfo& ni = o.info[s];
    const auto& nf = out.nodes[s];
    bad += nf.nelim != ni.nelim || nf.nrow != ni.m || nf.ndelay_in != ni.ndelay || nf.pos != pos || nf.row_ptr != rp ||
           nf.lptr != ni.l_off;
    for (int i = 0; i < ni.m; ++i) bad += out.rows[rp + i] != o.rows[ni.rows_off + i];
    for (int k = 0; k < ni.nelim; ++k) bad += out.pivot_var[pos + k] != o.rows[ni.rows_off + k];
    const double* dn = o.d.data() + ni.d_off;
    for (int k = 0; k < ni.nelim && !posdef; ++k) {
      const double d11 = dn[2 * k], d21 = dn[2 * k + 1];
      if (d21 != 0.0) {
        const double d22 = dn[2 * k + 2];
        bad += out.d[2 * (pos + k)] != d11 || out.d[2 * (pos + k) + 1] != d21 || out.d[2 * (pos + k) + 2] != d22;
        // D^{-1} D = I, and the signs of the eigenvalues of the block
        const double i11 = out.dinv[2 * (pos + k)], i21 = out.dinv[2 * (pos + k) + 1], i22 = out.dinv[2 * (pos + k) + 2];
        const double scale = std::fabs(d11) + std::fabs(d21) + std::fabs(d22);
        const double e11 = i11 * d11 + i21 * d21 - 1.0, e21 = i21 * d11 + i22 * d21, e22 = i21 * d21 + i22 * d22 - 1.0;
        bad += std::fabs(e11) + std::fabs(e21) + std::fabs(e22) > 1e-10 * scale * (std::fabs(i11) + std::fabs(i21) + std::fabs(i22));
        const double mean = 0.5 * (d11 + d22), rad = std::sqrt(0.25 * (d11 - d22) * (d11 - d22) + d21 * d21);
        for (const double ev : {mean - rad, mean + rad}) (ev > 0 ? pos_count : neg) += 1;
        ++two;
        ++k;
      } else {
        bad += out.d[2 * (pos + k)] != d11 || out.dinv[2 * (pos + k)] != (d11 != 0.0 ? 1.0 / d11 : 0.0);
        if (d11 > 0) ++pos_count;
        else if (d11 < 0) ++neg;
        else ++zero;
      }
    }
    delays += ni.p - ni.nelim;
    maxfront = std::max(maxfront, ni.m);
    for (int k = 0; k < ni.nelim; ++k) {
      nfac += ni.m - k;
      const offset_t below = ni.m - k - 1;
      flops += below * below + 2 * below;
    }
    pos += ni.nelim;
    rp += ni.m;
  }
  CHECK(bad == 0);
  CHECK(out.rows.size() == static_cast<std::size_t>(rp));
  CHECK(c.num_factor == nfac);
  CHECK(c.num_flops == flops);
  CHECK(c.num_delay == delays);
  CHECK(c.maxfront == maxfront);
  if (!posdef) {
    CHECK(c.num_two == two);
    CHECK(c.num_neg == neg);
    CHECK(c.num_pos == pos_count);
    CHECK(c.num_zero == zero);
    if (every_kind) {
      CHECK(two > 0);
      CHECK(zero > 0);
      CHECK(neg > 0);
    }
  } else {
    CHECK(out.d.empty());
  }
}

}  // namespace

TEST_CASE("GPU factor host tables: equal to the sequential construction (1x1, 2x2 and zero pivots, posdef)") {
  const Outcome o = make_outcome(3000, 11);
  check_tables(o, false);
  check_tables(o, true);
  check_tables(make_outcome(1, 12), false, false);
}

TEST_CASE("GPU factor host tables: more pivots than variables is reported, nothing written out of range") {
  Outcome o = make_outcome(50, 13);
  ssids::detail::NumericFactors out;
  out.pivot_var.resize(o.n - 1);
  const auto c = ssids::detail::fill_host_tables(o.n - 1, o.info, o.rows.data(), o.d.data(), false, out);
  CHECK(c.eliminated == o.n);
  CHECK(out.rows.empty());
}

// parallel_copy (common/parallel_copy.hpp): the host side of the GPU factorization's values upload, which copies
// large host values into pinned chunks with several threads.
TEST_CASE("parallel_copy: every element once, for sizes around the pieces and any team size") {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(32768),
                        std::size_t(32769), std::size_t(262143), std::size_t(300001)}) {
    std::vector<double> src(n), dst(n + 2, -1.0);
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<double>(i) + 0.5;
    for (int threads : {-1, 0, 1, 2, 3, 16}) {
      for (std::size_t min_piece : {std::size_t(1), std::size_t(1000), std::size_t(1) << 15}) {
        CAPTURE(n);
        CAPTURE(threads);
        CAPTURE(min_piece);
        std::fill(dst.begin(), dst.end(), -1.0);
        ssids::detail::parallel_copy(dst.data() + 1, src.data(), n, threads, min_piece);
        CHECK(dst.front() == -1.0);  // nothing written outside [1, n + 1)
        CHECK(dst.back() == -1.0);
        bool same = true;
        for (std::size_t i = 0; i < n; ++i) same = same && dst[i + 1] == src[i];
        CHECK(same);
      }
    }
  }
}
