// test_factor.cpp — the CPU multifrontal factorization and solve: hand-checkable cases, seeded random
// indefinite and KKT matrices (backward error, inertia against dense eigenvalues, multiplier bound, Inform
// counts), rank deficiency, posdef mode, thread-count independence, multi-RHS, enquire/alter, refactorize,
// and bad input.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <omp.h>

#include "factor/factor_gpu.hpp"
#include "factor/numeric.hpp"
#include "factor/values_check.hpp"
#include "solve/solve_cpu.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/refine.hpp"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;
using ssids_test::run_pipeline;

namespace {


void check_inertia_against_eigenvalues(const SymmetricMatrix& a, const Inform& inf, std::uint64_t seed) {
  auto eig = ssids_test::eigenvalues(ssids_test::to_dense(a), a.n);
  double emax = 0.0, emin = INFINITY;
  for (double e : eig) {
    emax = std::max(emax, std::fabs(e));
    emin = std::min(emin, std::fabs(e));
  }
  if (a.n == 0 || emax == 0.0 || emin < 1e-8 * emax) return;  // not safely nonsingular: inertia is not a fair test
  auto in = ssids_test::inertia_of(eig, 0.0);
  CAPTURE(seed);
  CHECK(inf.num_neg == in.neg);
  CHECK(inf.num_pos == in.pos);
  CHECK(inf.num_zero == 0);
}

void check_counts(const Factors& f, const Inform& inf, int n) {
  auto dc = ssids_test::count_from_d(f);
  CHECK(dc.neg == inf.num_neg);
  CHECK(dc.pos == inf.num_pos);
  CHECK(dc.zero == inf.num_zero);
  CHECK(dc.two == inf.num_two);
  CHECK(inf.num_neg + inf.num_pos + inf.num_zero == n);
  CHECK(inf.matrix_rank == n - inf.num_zero);
}

}  // namespace

TEST_CASE("hand-checkable 2x2 and 3x3 systems") {
  SUBCASE("diagonal") {
    auto a = ssids_test::from_triplets(3, {0, 1, 2}, {0, 1, 2}, {2.0, -3.0, 4.0});
    auto r = run_pipeline(a, Options(), Mode::indefinite);
    CHECK(r.inform.num_neg == 1);
    CHECK(r.inform.num_pos == 2);
    CHECK(r.backward_error < 1e-15);
    std::vector<index_t> piv(3);
    std::vector<double> d(6);
    r.factors.enquire_indef(piv.data(), d.data());
    // D holds the diagonal entries in pivot order
    for (int i = 0; i < 3; ++i) {
      int pos = std::abs(piv[i]) - 1;
      CHECK(d[2 * pos] == a.val[a.ptr[i]]);
      CHECK(d[2 * pos + 1] == 0.0);
    }
  }
  SUBCASE("zero diagonal forces a 2x2 pivot") {
    auto a = ssids_test::from_triplets(2, {1}, {0}, {3.0});
    Options o;
    o.ordering = Ordering::natural;
    auto r = run_pipeline(a, o, Mode::indefinite);
    CHECK(r.inform.num_two == 1);
    CHECK(r.inform.num_neg == 1);
    CHECK(r.inform.num_pos == 1);
    CHECK(r.backward_error < 1e-15);
    std::vector<index_t> piv(2);
    std::vector<double> d(4);
    r.factors.enquire_indef(piv.data(), d.data());
    CHECK(piv[0] < 0);
    CHECK(piv[1] < 0);
    CHECK(d[0] == 0.0);
    CHECK(d[1] == 3.0);
    CHECK(d[2] == 0.0);
  }
  SUBCASE("3x3 with known solution") {
    // A = [4 1 0; 1 -2 1; 0 1 3]
    auto a = ssids_test::from_triplets(3, {0, 1, 1, 2, 2}, {0, 0, 1, 1, 2}, {4, 1, -2, 1, 3});
    auto r = run_pipeline(a, Options(), Mode::indefinite);
    CHECK(r.inform.num_neg == 1);
    CHECK(r.inform.num_pos == 2);
    for (int i = 0; i < 3; ++i) CHECK(r.x[i] == doctest::Approx(1.0 + (i % 7) / 8.0).epsilon(1e-14));
  }
}

TEST_CASE("empty and 1x1 matrices") {
  SymmetricMatrix e;
  e.n = 0;
  e.ptr.assign(1, 0);
  Inform inf;
  Analysis an = analyse(e.view(), Options(), inf);
  Factors f = factor(an, nullptr, Mode::indefinite, Options(), inf);
  CHECK(inf.num_neg == 0);
  double dummy = 0;
  f.solve(SolveJob::full, 1, &dummy, 1, inf);
  auto one = ssids_test::from_triplets(1, {0}, {0}, {-5.0});
  auto r = run_pipeline(one, Options(), Mode::indefinite);
  CHECK(r.inform.num_neg == 1);
  CHECK(r.x[0] == 1.0);
}

TEST_CASE("seeded random indefinite matrices: backward error - inertia - multipliers - counts") {
  const int sizes[] = {1, 2, 3, 5, 31, 32, 33, 64, 65, 127, 257};
  std::uint64_t seed = 1000;
  for (int n : sizes) {
    for (double density : {0.02, 0.1, 0.5}) {
      for (double u : {0.01, 0.1, 0.5}) {
        ++seed;
        CAPTURE(seed);
        CAPTURE(n);
        CAPTURE(density);
        CAPTURE(u);
        auto a = ssids_test::random_symmetric(n, density, 0.7, 1.0, seed);
        // make sure every row has a diagonal entry in the pattern (possibly with value 0) half of the time
        Options o;
        o.u = u;
        o.nemin = (seed % 3 == 0) ? 1 : 32;
        o.cpu_block_size = (seed % 2 == 0) ? 8 : 128;
        auto r = run_pipeline(a, o, Mode::indefinite, 3);
        check_counts(r.factors, r.inform, n);
        if (r.inform.num_zero == 0) CHECK(r.backward_error < 1e-13);
        CHECK(ssids_test::max_multiplier(r.factors) <= (1.0 / u) * (1 + 1e-10));
        check_inertia_against_eigenvalues(a, r.inform, seed);
      }
    }
  }
}

TEST_CASE("KKT systems with a zero - 2-2 block: 2x2 pivots - delays - inertia") {
  std::uint64_t seed = 7;
  int total_two = 0, total_delay = 0;
  for (int nh : {3, 10, 40, 100, 200}) {
    for (int nc : {1, nh / 3 + 1, nh - 1}) {
      if (nc < 1 || nc >= nh) continue;
      ++seed;
      CAPTURE(seed);
      auto a = ssids_test::random_kkt(nh, nc, 0.05, seed);
      Options o;
      auto r = run_pipeline(a, o, Mode::indefinite, 3);
      check_counts(r.factors, r.inform, a.n);
      CHECK(r.backward_error < 1e-13);
      CHECK(ssids_test::max_multiplier(r.factors) <= 100.0 * (1 + 1e-10));
      check_inertia_against_eigenvalues(a, r.inform, seed);
      total_two += r.inform.num_two;
      total_delay += r.inform.num_delay;
    }
  }
  CHECK(total_two > 0);  // the family does exercise 2x2 pivots
  MESSAGE("2x2 pivots " << total_two << ", delays " << total_delay);
}

TEST_CASE("generated KKT and Stokes problems have the exact inertia") {
  {
    auto a = generate_kkt_qp(600, 250, 0.0, 3);
    auto r = run_pipeline(a, Options(), Mode::indefinite, 3);
    CHECK(r.inform.num_pos == 600);
    CHECK(r.inform.num_neg == 250);
    CHECK(r.backward_error < 1e-13);
  }
  {
    auto a = generate_stokes(12);
    auto r = run_pipeline(a, Options(), Mode::indefinite, 3);
    auto eig = ssids_test::eigenvalues(ssids_test::to_dense(a), a.n);
    auto in = ssids_test::inertia_of(eig, 0.0);
    CHECK(r.inform.num_neg == in.neg);
    CHECK(r.inform.num_pos == in.pos);
    CHECK(r.backward_error < 1e-13);
  }
}

TEST_CASE("shifted 3D Laplacian: inertia equals the analytic count") {
  for (double shift : {0.7, 2.5, 5.9}) {
    CAPTURE(shift);
    auto a = generate_laplace3d(12, shift);
    auto r = run_pipeline(a, Options(), Mode::indefinite, 2);
    std::int64_t nz = 0;
    CHECK(r.inform.num_neg == laplace3d_num_neg(12, shift, &nz));
    CHECK(nz == 0);
    CHECK(r.backward_error < 1e-13);
  }
}

TEST_CASE("planted rank deficiency: rank reported - compatible system solved") {
  // A = B D B^T with B random n x k: rank k
  for (int trial = 0; trial < 3; ++trial) {
    const int n = 40, k = 25 + 5 * trial;
    std::mt19937_64 rng(77 + trial);
    auto uni = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2 - 1; };
    std::vector<double> b(n * k), dd(k);
    for (auto& v : b) v = uni();
    for (int j = 0; j < k; ++j) dd[j] = (j % 3 == 0) ? -1.0 - std::fabs(uni()) : 1.0 + std::fabs(uni());
    std::vector<int> r, c;
    std::vector<double> v;
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) {
        double s = 0;
        for (int t = 0; t < k; ++t) s += b[i + t * n] * dd[t] * b[j + t * n];
        r.push_back(i); c.push_back(j); v.push_back(s);
      }
    auto a = ssids_test::from_triplets(n, r, c, v);
    Options o;
    o.small = 1e-8;  // the exact zeros of this matrix are rounding-level (times pivot growth)
    o.u = 0.1;
    auto res = run_pipeline(a, o, Mode::indefinite, 3);
    CAPTURE(trial);
    CHECK(res.inform.matrix_rank == k);
    CHECK(res.inform.num_zero == n - k);
    CHECK(res.inform.flag == flag::warn_singular);
    CHECK(res.backward_error < 1e-12);
    o.action = false;
    Inform inf;
    auto an = analyse(a.view(), o, inf);
    CHECK_THROWS_AS(factor(an, a.val.data(), Mode::indefinite, o, inf), Error);
  }
  // a structurally zero row and column
  auto z = ssids_test::from_triplets(3, {0, 2}, {0, 2}, {1.0, 2.0});
  auto rz = run_pipeline(z, Options(), Mode::indefinite);
  CHECK(rz.inform.matrix_rank == 2);
}

TEST_CASE("positive-definite mode: Cholesky - and a clear error when not positive definite") {
  auto a = generate_laplace3d(9);
  auto rp = run_pipeline(a, Options(), Mode::posdef);
  CHECK(rp.backward_error < 1e-14);
  CHECK(rp.inform.num_pos == a.n);
  auto ri = run_pipeline(a, Options(), Mode::indefinite);
  CHECK(ri.inform.num_pos == a.n);
  for (int i = 0; i < a.n; ++i) CHECK(rp.x[i] == doctest::Approx(ri.x[i]).epsilon(1e-12));
  std::vector<double> diag(a.n);
  rp.factors.enquire_posdef(diag.data());
  for (double d : diag) CHECK(d > 0);
  CHECK_THROWS_AS(rp.factors.enquire_indef(nullptr, nullptr), Error);
  CHECK_THROWS_AS(ri.factors.enquire_posdef(diag.data()), Error);

  auto b = generate_laplace3d(6, 1.5);
  Inform inf;
  auto an = analyse(b.view(), Options(), inf);
  try {
    factor(an, b.val.data(), Mode::posdef, Options(), inf);
    FAIL("expected not_posdef");
  } catch (const Error& e) {
    CHECK(e.code() == flag::not_posdef);
    CHECK(std::string(e.what()).find("column") != std::string::npos);
  }
}

TEST_CASE("results do not depend on the number of threads") {
  auto a = generate_kkt_qp(3000, 1200, 0.0, 11);
  std::uint64_t h0 = 0, hx0 = 0;
  for (int t : {1, 2, 4}) {
    Options o;
    o.num_threads = t;
    auto r = run_pipeline(a, o, Mode::indefinite, 1);
    auto h = ssids_test::hash_factors(r.factors);
    auto hx = ssids_test::hash_doubles(r.x.data(), r.x.size());
    if (t == 1) {
      h0 = h;
      hx0 = hx;
    }
    CAPTURE(t);
    CHECK(h == h0);
    CHECK(hx == hx0);
  }
}

TEST_CASE("the backward sweep's subtrees side by side give the serial sweep's bits - LDL^T and Cholesky") {
  const int saved = omp_get_max_threads();
  for (Mode mode : {Mode::indefinite, Mode::posdef}) {
    CAPTURE(static_cast<int>(mode));
    // shifted (indefinite) or plain 3D Laplacian, large enough for the parallel sweep
    const SymmetricMatrix a = generate_laplace3d(20, mode == Mode::indefinite ? 0.7 : 0.0);
    Inform inf;
    Options o;
    const Analysis an = analyse(a.view(), o, inf);
    const Factors f = factor(an, a.val.data(), mode, o, inf);
    double entries = 0.0;
    for (const detail::NodeFactor& nd : f.numeric().nodes) entries += static_cast<double>(nd.nrow) * nd.nelim;
    REQUIRE(entries >= detail::kParallelBackwardEntries);
    const int n = a.n, k = 2;
    std::vector<double> x(static_cast<size_t>(n) * k);
    std::mt19937_64 rng(9);
    for (auto& v : x) v = static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5;
    for (SolveJob job : {SolveJob::full, SolveJob::backward, SolveJob::diagonal_backward}) {
      CAPTURE(static_cast<int>(job));
      std::uint64_t h1 = 0;
      for (int threads : {1, 2, 3}) {
        omp_set_num_threads(threads);
        std::vector<double> xt = x;
        f.solve(job, k, xt.data(), n, inf);
        const std::uint64_t h = ssids_test::hash_doubles(xt.data(), xt.size());
        if (threads == 1) h1 = h;
        CAPTURE(threads);
        CHECK(h == h1);
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST_CASE("multi-RHS solves equal single-RHS solves bitwise - for every job") {
  auto a = ssids_test::random_symmetric(150, 0.05, 0.5, 1.0, 4242);
  Inform inf;
  Options o;
  auto an = analyse(a.view(), o, inf);
  auto f = factor(an, a.val.data(), Mode::indefinite, o, inf);
  const int n = a.n, k = 7;
  const offset_t ldx = n + 3;
  std::vector<double> x(ldx * k);
  std::mt19937_64 rng(5);
  for (auto& v : x) v = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  for (int job = 0; job <= 4; ++job) {
    CAPTURE(job);
    std::vector<double> xm = x;
    f.solve(static_cast<SolveJob>(job), k, xm.data(), ldx, inf);
    for (int c = 0; c < k; ++c) {
      std::vector<double> xs(x.begin() + c * ldx, x.begin() + c * ldx + n);
      f.solve(static_cast<SolveJob>(job), 1, xs.data(), n, inf);
      CHECK(ssids_test::hash_doubles(xs.data(), n) == ssids_test::hash_doubles(xm.data() + c * ldx, n));
    }
    // padding rows below n are untouched
    for (int c = 0; c < k; ++c)
      for (offset_t i = n; i < ldx; ++i) CHECK(xm[i + c * ldx] == x[i + c * ldx]);
  }
  // partial solves compose to the full solve
  std::vector<double> x1(x.begin(), x.begin() + n), x2 = x1;
  f.solve(SolveJob::full, 1, x1.data(), n, inf);
  f.solve(SolveJob::forward, 1, x2.data(), n, inf);
  f.solve(SolveJob::diagonal_backward, 1, x2.data(), n, inf);
  for (int i = 0; i < n; ++i) CHECK(x1[i] == x2[i]);
}

TEST_CASE("alter D keeps the pivot order - refactorize with new values") {
  auto a = ssids_test::random_kkt(30, 10, 0.1, 99);
  Inform inf;
  Options o;
  auto an = analyse(a.view(), o, inf);
  auto f = factor(an, a.val.data(), Mode::indefinite, o, inf);
  std::vector<index_t> piv(a.n);
  std::vector<double> d(2 * a.n);
  f.enquire_indef(piv.data(), d.data());
  Factors g = f;  // copies share data; alter must not change f
  std::vector<double> d2 = d;
  for (auto& v : d2) v *= 2.0;
  g.alter(d2.data());
  std::vector<double> d3(2 * a.n);
  g.enquire_indef(nullptr, d3.data());
  CHECK(d3 == d2);
  std::vector<double> d4(2 * a.n);
  f.enquire_indef(nullptr, d4.data());
  CHECK(d4 == d);
  // solving with D doubled halves the solution of the diagonal job
  std::vector<double> x1(a.n, 1.0), x2(a.n, 1.0);
  f.solve(SolveJob::diagonal, 1, x1.data(), a.n, inf);
  g.solve(SolveJob::diagonal, 1, x2.data(), a.n, inf);
  for (int i = 0; i < a.n; ++i) CHECK(x2[i] == doctest::Approx(0.5 * x1[i]).epsilon(1e-14));

  // refactorize: same analysis, new values
  SymmetricMatrix a2 = a;
  for (auto& v : a2.val) v *= 3.0;
  Inform inf2;
  auto f2 = factor(an, a2.val.data(), Mode::indefinite, o, inf2);
  std::vector<double> b = ssids_test::make_rhs(a2), x(a.n);
  RefineOptions ro;
  ro.max_steps = 2;
  auto rep = solve_refined(a2, f2, 1, b.data(), a.n, x.data(), a.n, ro, inf2);
  CHECK(rep.backward_error < 1e-13);
  CHECK(inf2.num_neg == inf.num_neg);
}

TEST_CASE("the host values check: NaN and Inf found at every position - extreme finite values pass") {
  auto a = ssids_test::random_symmetric(30, 0.4, 1.0, 1.0, 3);
  Options o;
  o.backend = Backend::cpu;
  Inform inf;
  auto an = analyse(a.view(), o, inf);
  const detail::Symbolic& sym = an.symbolic();
  REQUIRE(static_cast<size_t>(sym.nnz_in) == a.val.size());
  // the largest and smallest magnitudes, subnormals and signed zeros: finite, whatever the position in a vector
  const double extremes[] = {DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324, -4.9e-324, 0.0, -0.0, 1.0};
  std::vector<double> v(a.val.size());
  for (size_t k = 0; k < v.size(); ++k) v[k] = extremes[k % 8];
  CHECK_NOTHROW(detail::check_values_finite(sym, v.data()));
  for (double badv : {std::nan(""), -std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    for (size_t k = 0; k < v.size(); ++k) {
      auto w = v;
      w[k] = badv;
      std::string msg;
      int code = 0;
      try {
        detail::check_values_finite(sym, w.data());
      } catch (const Error& e) {
        code = e.code();
        msg = e.what();
      }
      CHECK(code == flag::nan_inf);
      CHECK(msg.find("position " + std::to_string(k) + " ") != std::string::npos);
    }
  }
}

TEST_CASE("bad input gives documented errors and leaves the caller's arrays untouched") {
  auto a = ssids_test::random_symmetric(20, 0.2, 1.0, 1.0, 3);
  Inform inf;
  Options o;
  auto an = analyse(a.view(), o, inf);
  auto f = factor(an, a.val.data(), Mode::indefinite, o, inf);
  std::vector<double> x(40, 1.0);
  auto code = [&](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.code();
    }
    return 0;
  };
  CHECK(code([&] { f.solve(SolveJob::full, 0, x.data(), 20, inf); }) == flag::bad_ldx);
  CHECK(code([&] { f.solve(SolveJob::full, 1, x.data(), 19, inf); }) == flag::bad_ldx);
  CHECK(code([&] { f.solve(static_cast<SolveJob>(7), 1, x.data(), 20, inf); }) == flag::bad_job);
  CHECK(code([&] { f.solve(SolveJob::full, 1, nullptr, 20, inf); }) == flag::missing_data);
  for (double v : x) CHECK(v == 1.0);
  Factors empty;
  CHECK(code([&] { empty.solve(SolveJob::full, 1, x.data(), 20, inf); }) == flag::call_sequence);
  Analysis none;
  CHECK(code([&] { factor(none, a.val.data(), Mode::indefinite, o, inf); }) == flag::call_sequence);
  CHECK(code([&] { factor(an, nullptr, Mode::indefinite, o, inf); }) == flag::missing_values);
  std::vector<double> bad(a.val.begin(), a.val.end());
  bad[3] = NAN;
  CHECK(code([&] { factor(an, bad.data(), Mode::indefinite, o, inf); }) == flag::nan_inf);
  bad[3] = INFINITY;
  CHECK(code([&] { factor(an, bad.data(), Mode::indefinite, o, inf); }) == flag::nan_inf);
  CHECK(std::isinf(bad[3]));  // caller's values untouched
  if (!detail::gpu_available()) {
    Options g = o;
    g.backend = Backend::gpu;
    CHECK(code([&] { factor(an, a.val.data(), Mode::indefinite, g, inf); }) == flag::no_cuda);
  }
}
