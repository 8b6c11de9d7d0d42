// test_dense.cpp — the CPU dense partial factorizations (src/factor/dense_ldlt.hpp).
//
// Tier 1: tiny fronts with known factors. Tier 2: seeded random fronts whose sizes straddle the window
// (32) and panel (32 / 128) boundaries, of several kinds (indefinite, SPD, zero-diagonal KKT, fully
// summed block negligible against the rows below, exactly singular), checked by properties:
// reconstruction P^T A P = L D L^T + [0 0; 0 S], |l_ij| <= 1/u, stats against d, inertia against dense
// eigenvalues, untouched padding/upper triangle, determinism serial vs OpenMP tasks on 1/2/4 threads.
// Dense matrices here are column-major, full (both triangles) unless stated.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/blas.hpp"
#include "factor/dense_internal.hpp"
#include "factor/dense_ldlt.hpp"
#include "factor/pivot_tests.hpp"
#include "ssids/error.hpp"
#include "support.hpp"

using ssids::detail::DenseLdltOptions;
using ssids::detail::DenseLdltStats;
using ssids::detail::DenseLdltTrace;

namespace {

const double nan_sentinel = std::numeric_limits<double>::quiet_NaN();

enum class Kind { indefinite, spd, kkt, kkt_far, tiny_fs, singular, some_delayed };
const char* kind_name(Kind k) {
  switch (k) {
    case Kind::indefinite: return "indefinite";
    case Kind::spd: return "spd";
    case Kind::kkt: return "kkt";
    case Kind::kkt_far: return "kkt_far";
    case Kind::tiny_fs: return "tiny_fs";
    case Kind::singular: return "singular";
    case Kind::some_delayed: return "some_delayed";
  }
  return "?";
}

/// A seeded random full symmetric m x m matrix of the given kind (p = fully summed columns).
/// `zero_cols` receives the fully summed columns set exactly to zero (singular kind) or made negligible
/// inside the fully summed block (some_delayed kind: they can never pass while rows below exist).
std::vector<double> make_matrix(Kind kind, int m, int p, std::uint64_t seed, std::vector<int>* zero_cols = nullptr) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<double> a(static_cast<size_t>(m) * m);
  auto at = [&](int i, int j) -> double& { return a[i + static_cast<size_t>(j) * m]; };
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i) at(i, j) = at(j, i) = uni(rng);
  switch (kind) {
    case Kind::indefinite: break;
    case Kind::spd:
      for (int j = 0; j < m; ++j) at(j, j) = m + 1.0 + std::fabs(uni(rng));
      break;
    case Kind::kkt:  // zero diagonal in the fully summed block: every first pivot must be a 2x2
      for (int j = 0; j < p; ++j) at(j, j) = 0.0;
      break;
    case Kind::kkt_far: {  // [0 B^T; B 0] fully summed block: partners are p/2 columns away
      const int h = p / 2;
      for (int j = 0; j < p; ++j)
        for (int i = 0; i < p; ++i)
          if ((i < h) == (j < h)) at(i, j) = 0.0;
      break;
    }
    case Kind::tiny_fs:  // fully summed block negligible against the rows below it
      for (int j = 0; j < p; ++j)
        for (int i = 0; i < p; ++i) at(i, j) *= 1e-8;
      break;
    case Kind::singular: {
      std::vector<int> cols;
      for (int j = 0; j < p; ++j)
        if (rng() % 5 == 0) cols.push_back(j);
      for (int j : cols)
        for (int i = 0; i < m; ++i) at(i, j) = at(j, i) = 0.0;
      if (zero_cols) *zero_cols = cols;
      break;
    }
    case Kind::some_delayed: {
      std::vector<int> cols;
      for (int j = 0; j < p; ++j)
        if (rng() % 4 == 0) cols.push_back(j);
      for (int j : cols)
        for (int i = 0; i < p; ++i) {
          at(i, j) *= 1e-9;
          if (i != j) at(j, i) = at(i, j);
        }
      if (zero_cols) *zero_cols = cols;
      break;
    }
  }
  return a;
}

/// The front as the kernel sees it: lower triangle of `full` with leading dimension lda; the upper
/// triangle and the padding rows hold NaN so that any read of them poisons the result.
std::vector<double> make_front(const std::vector<double>& full, int m, int lda) {
  std::vector<double> f(static_cast<size_t>(lda) * std::max(m, 1), nan_sentinel);
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i) f[i + static_cast<size_t>(j) * lda] = full[i + static_cast<size_t>(j) * m];
  return f;
}

/// Every position outside the lower triangle of the m x m front is still the NaN sentinel.
bool outside_untouched(const std::vector<double>& f, int m, int lda) {
  for (int j = 0; j < std::max(m, 1); ++j)
    for (int i = 0; i < lda; ++i) {
      if (i >= j && i < m) continue;
      const double x = f[i + static_cast<size_t>(j) * lda];
      if (std::memcmp(&x, &nan_sentinel, sizeof x) != 0) return false;
    }
  return true;
}

double frobenius(const std::vector<double>& x) {
  double s = 0.0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

struct LdltRun {
  std::vector<double> front;
  std::vector<int> perm;
  std::vector<double> d;
  DenseLdltStats stats;
  DenseLdltTrace trace;
  int nelim = -1;
  bool operator==(const LdltRun& o) const {
    return nelim == o.nelim && perm == o.perm && front.size() == o.front.size() &&
           std::memcmp(front.data(), o.front.data(), front.size() * sizeof(double)) == 0 &&
           std::memcmp(d.data(), o.d.data(), d.size() * sizeof(double)) == 0 && stats.num_two == o.stats.num_two &&
           stats.num_neg == o.stats.num_neg && stats.num_pos == o.stats.num_pos && stats.num_zero == o.stats.num_zero;
  }
};

LdltRun run_ldlt(const std::vector<double>& full, int m, int p, int lda, const DenseLdltOptions& opt) {
  LdltRun r;
  r.front = make_front(full, m, lda);
  r.perm.assign(std::max(p, 1), -7);
  r.d.assign(2 * std::max(p, 1), nan_sentinel);
  r.nelim = ssids::detail::ldlt_threshold_partial_traced(m, p, r.front.data(), lda, r.perm.data(), r.d.data(), opt,
                                                         r.stats, r.trace);
  return r;
}

/// The same run inside an OpenMP parallel region of `threads` threads (one thread calls, the others
/// execute its tasks).
LdltRun run_ldlt_in_parallel(const std::vector<double>& full, int m, int p, int lda, const DenseLdltOptions& opt,
                             int threads) {
  LdltRun r;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    r = run_ldlt(full, m, p, lda, opt);
  }
  return r;
}

/// Checks every documented property of one LDL^T result against the input `full`.
void check_ldlt(const std::vector<double>& full, int m, int p, int lda, const DenseLdltOptions& opt,
                const LdltRun& r) {
  const int ne = r.nelim;
  REQUIRE(ne >= 0);
  REQUIRE(ne <= p);
  if (m == p) CHECK(ne == p);
  CHECK(outside_untouched(r.front, m, lda));
  // perm is a permutation of 0..p-1
  std::vector<int> q(m);
  {
    std::vector<char> seen(p, 0);
    bool ok = true;
    for (int i = 0; i < p; ++i) {
      if (r.perm[i] < 0 || r.perm[i] >= p || seen[r.perm[i]]) ok = false;
      else seen[r.perm[i]] = 1;
    }
    REQUIRE(ok);
    for (int i = 0; i < m; ++i) q[i] = i < p ? r.perm[i] : i;
  }
  auto f = [&](int i, int j) { return r.front[i + static_cast<size_t>(j) * lda]; };
  // L (m x ne, unit diagonal), D, stats recount, |l| bound, stored unit diagonal / zero (k+1,k)
  std::vector<double> l(static_cast<size_t>(m) * std::max(ne, 1), 0.0), ld(l.size(), 0.0);
  DenseLdltStats cnt;
  bool stored_ok = true;
  double lmax = 0.0;
  for (int k = 0; k < ne;) {
    const bool two = r.d[2 * k + 1] != 0.0;
    REQUIRE((!two || k + 1 < ne));
    const int w = two ? 2 : 1;
    for (int t = k; t < k + w; ++t) {
      if (f(t, t) != 1.0) stored_ok = false;
      for (int i = t; i < m; ++i) l[i + static_cast<size_t>(t) * m] = (i == t) ? 1.0 : f(i, t);
    }
    if (two) {
      if (f(k + 1, k) != 0.0 || r.d[2 * k + 3] != 0.0) stored_ok = false;
      const double a11 = r.d[2 * k], a21 = r.d[2 * k + 1], a22 = r.d[2 * k + 2];
      const double det = a11 * a22 - a21 * a21;
      ++cnt.num_two;
      if (det < 0) { ++cnt.num_neg; ++cnt.num_pos; }
      else if (a11 + a22 > 0) cnt.num_pos += 2;
      else cnt.num_neg += 2;
      for (int i = k; i < m; ++i) {
        const double x = l[i + static_cast<size_t>(k) * m], y = l[i + static_cast<size_t>(k + 1) * m];
        ld[i + static_cast<size_t>(k) * m] = x * a11 + y * a21;
        ld[i + static_cast<size_t>(k + 1) * m] = x * a21 + y * a22;
      }
      for (int i = k + 2; i < m; ++i) lmax = std::max({lmax, std::fabs(f(i, k)), std::fabs(f(i, k + 1))});
    } else {
      const double dk = r.d[2 * k];
      if (dk > 0) ++cnt.num_pos;
      else if (dk < 0) ++cnt.num_neg;
      else ++cnt.num_zero;
      for (int i = k; i < m; ++i) ld[i + static_cast<size_t>(k) * m] = l[i + static_cast<size_t>(k) * m] * dk;
      for (int i = k + 1; i < m; ++i) lmax = std::max(lmax, std::fabs(f(i, k)));
    }
    k += w;
  }
  CHECK(stored_ok);
  CHECK(r.stats.num_two == cnt.num_two);
  CHECK(r.stats.num_neg == cnt.num_neg);
  CHECK(r.stats.num_pos == cnt.num_pos);
  CHECK(r.stats.num_zero == cnt.num_zero);
  for (int k = ne; k < p; ++k) {  // untouched d beyond nelim is documented as zero-filled by us
    CHECK(r.d[2 * k] == 0.0);
  }
  if (opt.u > 0 && r.trace.num_relaxed == 0 && r.trace.num_forced == 0) {
    CAPTURE(lmax);
    CHECK(lmax <= (1.0 / opt.u) * (1.0 + 1e-10));
  }
  // R = P^T A P - L D L^T - [0 0; 0 S]
  std::vector<double> res(static_cast<size_t>(m) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) res[i + static_cast<size_t>(j) * m] = full[q[i] + static_cast<size_t>(q[j]) * m];
  if (m > 0 && ne > 0) {
    ssids::detail::SerialBlasScope serial;  // threaded BLAS in this loop only costs spinning threads
    ssids::blas::gemm('N', 'T', m, m, ne, -1.0, ld.data(), m, l.data(), m, 1.0, res.data(), m);
  }
  for (int j = ne; j < m; ++j)
    for (int i = ne; i < m; ++i) res[i + static_cast<size_t>(j) * m] -= i >= j ? f(i, j) : f(j, i);
  // A zero pivot drops its column's entries (each <= small, or < 2 small when forced): allow that much.
  const double dropped = 2.0 * opt.small * std::sqrt(2.0 * m) * r.stats.num_zero;
  const double scale = std::max(frobenius(full), 1e-300);
  const double rel = frobenius(res) / scale;
  CAPTURE(rel);
  CAPTURE(dropped);
  CHECK(frobenius(res) <= 1e-12 * scale + dropped);
}

std::vector<int> p_values(int m) {
  std::vector<int> ps = {0, 1, 2, m / 3, m / 2, m - 2, m - 1, m, 31, 32, 33, 63, 64, 65, 127, 128, 129};
  std::vector<int> out;
  for (int p : ps)
    if (p >= 0 && p <= m && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  std::sort(out.begin(), out.end());
  return out;
}

const int sizes[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 257};

}  // namespace

TEST_CASE("dense ldlt: tiny fronts with known factors") {
  DenseLdltOptions opt;
  SUBCASE("1x1") {
    std::vector<double> a = {4.0};
    LdltRun r = run_ldlt(a, 1, 1, 1, opt);
    CHECK(r.nelim == 1);
    CHECK(r.d[0] == 4.0);
    CHECK(r.front[0] == 1.0);
    CHECK(r.stats.num_pos == 1);
  }
  SUBCASE("two 1x1 pivots") {
    std::vector<double> a = {2.0, 1.0, 1.0, 2.0};
    LdltRun r = run_ldlt(a, 2, 2, 2, opt);
    CHECK(r.nelim == 2);
    CHECK(r.d[0] == 2.0);
    CHECK(r.d[1] == 0.0);
    CHECK(r.front[1] == 0.5);
    CHECK(r.d[2] == 1.5);
    CHECK(r.stats.num_pos == 2);
  }
  SUBCASE("a 2x2 pivot") {
    std::vector<double> a = {0.0, 1.0, 1.0, 0.0};
    LdltRun r = run_ldlt(a, 2, 2, 2, opt);
    CHECK(r.nelim == 2);
    CHECK(r.d[0] == 0.0);
    CHECK(r.d[1] == 1.0);
    CHECK(r.d[2] == 0.0);
    CHECK(r.front[1] == 0.0);
    CHECK(r.stats.num_two == 1);
    CHECK(r.stats.num_neg == 1);
    CHECK(r.stats.num_pos == 1);
  }
  SUBCASE("zero root front: zero pivots") {
    std::vector<double> a(9, 0.0);
    LdltRun r = run_ldlt(a, 3, 3, 3, opt);
    CHECK(r.nelim == 3);
    CHECK(r.stats.num_zero == 3);
    check_ldlt(a, 3, 3, 3, opt, r);
  }
  SUBCASE("negligible pivot is delayed") {
    // [1e-10 1 1; 1 0 0; 1 0 0], p = 1: |a11| < u * 1
    std::vector<double> a = {1e-10, 1, 1, 1, 0, 0, 1, 0, 0};
    LdltRun r = run_ldlt(a, 3, 1, 3, opt);
    CHECK(r.nelim == 0);
    CHECK(r.front[0] == 1e-10);
  }
  SUBCASE("a failed candidate succeeds after another pivot") {
    // [1e-3 1; 1 1e6], u = 0.5: the 1x1 on 1e-3 fails, the 2x2 fails the theta test, 1e6 passes; then
    // the updated 1e-3 - 1e-6 has no off-diagonal left and passes
    std::vector<double> a = {1e-3, 1.0, 1.0, 1e6};
    DenseLdltOptions o;
    o.u = 0.5;
    LdltRun r = run_ldlt(a, 2, 2, 2, o);
    CHECK(r.nelim == 2);
    CHECK(r.perm[0] == 1);
    CHECK(r.d[0] == 1e6);
    CHECK(r.stats.num_two == 0);
    check_ldlt(a, 2, 2, 2, o, r);
  }
  SUBCASE("root front that needs the relaxed pass") {
    // Entries just above `small` with diagonals at `small`: every 1x1 is negligible and every 2x2
    // (det = -1.25e-40) fails the u = 0.5 threshold test against the third row, so the root pass with
    // u = 0 takes a 2x2 (for u <= 0.5 a full search can only fail like this, near `small`).
    const double s = 1e-20, t = 1.5e-20;
    std::vector<double> a = {s, t, t, t, s, t, t, t, s};
    DenseLdltOptions o;
    o.u = 0.5;
    LdltRun r = run_ldlt(a, 3, 3, 3, o);
    CHECK(r.nelim == 3);
    CHECK(r.trace.num_relaxed > 0);
    CHECK(r.stats.num_two == 1);
    check_ldlt(a, 3, 3, 3, o, r);
    // the same block with a fourth, not fully summed row: nothing passes, all three are delayed
    std::vector<double> b = {s, t, t, 0, t, s, t, 0, t, t, s, 0, 0, 0, 0, 1};
    LdltRun q = run_ldlt(b, 4, 3, 4, o);
    CHECK(q.nelim == 0);
  }
  SUBCASE("m = 0 and p = 0") {
    std::vector<double> a;
    LdltRun r = run_ldlt(a, 0, 0, 1, opt);
    CHECK(r.nelim == 0);
    std::vector<double> b = {1.0, 2.0, 2.0, 3.0};
    LdltRun s = run_ldlt(b, 2, 0, 2, opt);
    CHECK(s.nelim == 0);
    CHECK(s.front[1] == 2.0);
  }
  SUBCASE("bad arguments throw") {
    std::vector<double> a(4, 1.0);
    int perm[2];
    double d[4];
    DenseLdltStats st;
    CHECK_THROWS_AS(ssids::detail::ldlt_threshold_partial(2, 3, a.data(), 2, perm, d, opt, st), ssids::Error);
    CHECK_THROWS_AS(ssids::detail::ldlt_threshold_partial(2, 2, a.data(), 1, perm, d, opt, st), ssids::Error);
    CHECK_THROWS_AS(ssids::detail::cholesky_partial(2, 3, a.data(), 2, 32), ssids::Error);
  }
}

TEST_CASE("dense ldlt: random fronts - properties") {
  const Kind kinds[] = {Kind::indefinite, Kind::spd,      Kind::kkt,         Kind::kkt_far,
                        Kind::tiny_fs,    Kind::singular, Kind::some_delayed};
  const double us[] = {0.01, 0.1, 0.5};
  const int nbs[] = {32, 128};
  long cases = 0, relaxed_cases = 0, widened_cases = 0;
  for (int m : sizes)
    for (int p : p_values(m))
      for (Kind kind : kinds)
        for (int ui = 0; ui < 3; ++ui)
          for (int nb : nbs) {
            if (kind == Kind::tiny_fs && (p == m || p == 0)) continue;
            // keep the big cases to a subset of (u, nb) pairs to stay fast
            if (m >= 127 && ((ui + nb / 32 + p) % 2) != 0) continue;
            const std::uint64_t seed = 1000003ull * m + 1009ull * p + 17ull * static_cast<int>(kind) + 3ull * ui + nb;
            const int lda = m + static_cast<int>(seed % 3);
            DenseLdltOptions opt;
            opt.u = us[ui];
            opt.block_size = nb;
            std::vector<int> zero_cols;
            std::vector<double> full = make_matrix(kind, m, p, seed, &zero_cols);
            CAPTURE(seed);
            CAPTURE(m);
            CAPTURE(p);
            const std::string kname = kind_name(kind);
            CAPTURE(kname);
            CAPTURE(opt.u);
            CAPTURE(nb);
            CAPTURE(lda);
            LdltRun r = run_ldlt(full, m, p, lda, opt);
            check_ldlt(full, m, p, lda, opt, r);
            ++cases;
            if (r.trace.num_relaxed > 0) ++relaxed_cases;
            if (r.trace.num_widen > 0) ++widened_cases;
            if (kind == Kind::tiny_fs) {  // every candidate fails; nothing may change
              CHECK(r.nelim == 0);
              const std::vector<double> untouched = make_front(full, m, lda);
              CHECK(std::memcmp(r.front.data(), untouched.data(), untouched.size() * sizeof(double)) == 0);
              for (int i = 0; i < p; ++i) CHECK(r.perm[i] == i);
            }
            if (kind == Kind::spd) CHECK(r.stats.num_neg == 0);
            if ((kind == Kind::kkt || kind == Kind::kkt_far) && r.nelim > 0 && p >= 2) CHECK(r.d[1] != 0.0);
            if (kind == Kind::singular) CHECK(r.stats.num_zero == static_cast<int>(zero_cols.size()));
            if (kind == Kind::some_delayed && m > p) CHECK(r.nelim <= p - static_cast<int>(zero_cols.size()));
            // inertia of root fronts against dense eigenvalues (only where they are clearly away from 0)
            if (m == p && m > 0) {
              std::vector<double> ev;
              {
                ssids::detail::SerialBlasScope serial;
                ev = ssids_test::eigenvalues(full, m);
              }
              double big = 0.0;
              for (double e : ev) big = std::max(big, std::fabs(e));
              bool clear = true;
              for (double e : ev)
                if (std::fabs(e) > 1e-12 * big && std::fabs(e) < 1e-6 * big) clear = false;
              if (clear && big > 0.0) {
                ssids_test::Inertia in = ssids_test::inertia_of(ev, 1e-9 * big);
                CHECK(r.stats.num_neg == in.neg);
                CHECK(r.stats.num_pos == in.pos);
                CHECK(r.stats.num_zero == in.zero);
              }
            }
            // determinism: a second run is bitwise equal
            if (m >= 63 && ui == 0) CHECK(r == run_ldlt(full, m, p, lda, opt));
          }
  MESSAGE("random ldlt cases: " << cases << ", relaxed root pass: " << relaxed_cases << ", widened: " << widened_cases);
  CHECK(widened_cases > 0);
}

TEST_CASE("dense ldlt: window widening finds far 2x2 partners") {
  const int m = 200, p = 128;
  DenseLdltOptions opt;
  opt.block_size = 32;
  std::vector<double> full = make_matrix(Kind::kkt_far, m, p, 77);
  LdltRun r = run_ldlt(full, m, p, m, opt);
  check_ldlt(full, m, p, m, opt, r);
  CHECK(r.trace.num_widen > 0);
  CHECK(r.nelim > p / 2);
  CHECK(r.stats.num_two > 0);
}

TEST_CASE("dense ldlt: bitwise identical serial and with OpenMP tasks on 1 - 2 - 4 threads") {
  struct Case { int m, p, nb; Kind kind; };
  const Case cases[] = {{800, 400, 128, Kind::indefinite}, {700, 700, 32, Kind::kkt}, {600, 300, 64, Kind::spd},
                        {257, 257, 128, Kind::singular}};
  for (const Case& c : cases) {
    const std::uint64_t seed = 4242 + c.m;
    CAPTURE(seed);
    CAPTURE(c.m);
    CAPTURE(c.p);
    DenseLdltOptions opt;
    opt.block_size = c.nb;
    opt.u = 0.1;
    std::vector<double> full = make_matrix(c.kind, c.m, c.p, seed);
    LdltRun serial = run_ldlt(full, c.m, c.p, c.m + 1, opt);
    check_ldlt(full, c.m, c.p, c.m + 1, opt, serial);
    for (int t : {1, 2, 4}) {
      CAPTURE(t);
      CHECK(serial == run_ldlt_in_parallel(full, c.m, c.p, c.m + 1, opt, t));
    }
  }
  // two fronts factored concurrently by two threads, each spawning tasks (the multifrontal pattern)
  DenseLdltOptions opt;
  std::vector<double> f1 = make_matrix(Kind::indefinite, 600, 300, 1), f2 = make_matrix(Kind::kkt, 500, 500, 2);
  LdltRun s1 = run_ldlt(f1, 600, 300, 600, opt), s2 = run_ldlt(f2, 500, 500, 500, opt);
  LdltRun p1, p2;
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < 2; ++i) {
      if (i == 0) p1 = run_ldlt(f1, 600, 300, 600, opt);
      else p2 = run_ldlt(f2, 500, 500, 500, opt);
    }
  }
  CHECK(s1 == p1);
  CHECK(s2 == p2);
}

namespace {

/// Cholesky result checks: reconstruction A = L L^T + [0 0; 0 S] (L: m x p lower with its diagonal).
void check_cholesky(const std::vector<double>& full, int m, int p, int lda, const std::vector<double>& f) {
  CHECK(outside_untouched(f, m, lda));
  std::vector<double> l(static_cast<size_t>(m) * std::max(p, 1), 0.0);
  for (int j = 0; j < p; ++j)
    for (int i = j; i < m; ++i) l[i + static_cast<size_t>(j) * m] = f[i + static_cast<size_t>(j) * lda];
  std::vector<double> res(full);
  if (p > 0) {
    ssids::detail::SerialBlasScope serial;
    ssids::blas::gemm('N', 'T', m, m, p, -1.0, l.data(), m, l.data(), m, 1.0, res.data(), m);
  }
  for (int j = p; j < m; ++j)
    for (int i = p; i < m; ++i)
      res[i + static_cast<size_t>(j) * m] -= i >= j ? f[i + static_cast<size_t>(j) * lda] : f[j + static_cast<size_t>(i) * lda];
  const double rel = frobenius(res) / std::max(frobenius(full), 1e-300);
  CAPTURE(rel);
  CHECK(rel <= 1e-13);
}

}  // namespace

TEST_CASE("dense cholesky: reconstruction - failure index - threads") {
  for (int m : sizes)
    for (int p : p_values(m))
      for (int nb : {32, 128}) {
        const std::uint64_t seed = 31ull * m + 7ull * p + nb;
        CAPTURE(seed);
        CAPTURE(m);
        CAPTURE(p);
        CAPTURE(nb);
        std::vector<double> full = make_matrix(Kind::spd, m, p, seed);
        const int lda = m + 2;
        std::vector<double> f = make_front(full, m, lda);
        CHECK(ssids::detail::cholesky_partial(m, p, f.data(), lda, nb) == -1);
        check_cholesky(full, m, p, lda, f);
      }
  // A = L0 D0 L0^T with D0 positive except D0[q] = -1: the pivots are D0, so the first failure is q.
  for (int m : {5, 40, 130, 300})
    for (int q : {0, 1, m / 2, m - 1})
      for (int nb : {32, 128}) {
        CAPTURE(m);
        CAPTURE(q);
        CAPTURE(nb);
        std::mt19937_64 rng(m * 1000 + q);
        std::uniform_real_distribution<double> uni(-0.1, 0.1);
        std::vector<double> l0(static_cast<size_t>(m) * m, 0.0), full(static_cast<size_t>(m) * m, 0.0);
        for (int j = 0; j < m; ++j) {
          l0[j + static_cast<size_t>(j) * m] = 1.0;
          for (int i = j + 1; i < m; ++i) l0[i + static_cast<size_t>(j) * m] = uni(rng) / std::sqrt(m);
        }
        std::vector<double> ld(l0);
        for (int j = 0; j < m; ++j) {
          const double dj = (j == q) ? -1.0 : 1.0 + std::fabs(uni(rng));
          for (int i = 0; i < m; ++i) ld[i + static_cast<size_t>(j) * m] *= dj;
        }
        ssids::blas::gemm('N', 'T', m, m, m, 1.0, ld.data(), m, l0.data(), m, 0.0, full.data(), m);
        std::vector<double> f = make_front(full, m, m);
        CHECK(ssids::detail::cholesky_partial(m, m, f.data(), m, nb) == q);
        // factoring only the columns before q succeeds
        std::vector<double> g = make_front(full, m, m);
        CHECK(ssids::detail::cholesky_partial(m, q, g.data(), m, nb) == -1);
        check_cholesky(full, m, q, m, g);
      }
  // bitwise: serial vs tasks
  const int m = 900, p = 450;
  std::vector<double> full = make_matrix(Kind::spd, m, p, 5);
  std::vector<double> f = make_front(full, m, m);
  REQUIRE(ssids::detail::cholesky_partial(m, p, f.data(), m, 128) == -1);
  for (int t : {1, 2, 4}) {
    CAPTURE(t);
    std::vector<double> g = make_front(full, m, m);
    int ret = 0;
#pragma omp parallel num_threads(t)
    {
#pragma omp single
      ret = ssids::detail::cholesky_partial(m, p, g.data(), m, 128);
    }
    CHECK(ret == -1);
    CHECK(std::memcmp(f.data(), g.data(), f.size() * sizeof(double)) == 0);
  }
}
