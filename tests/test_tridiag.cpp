// test_tridiag.cpp — ssids::tridiag on the CPU: Thomas against a dense solve, the partitioned cyclic reduction
// (the CPU twin of the GPU solver) against Thomas on sizes straddling block boundaries and several block sizes,
// many right-hand sides, tiny-pivot and argument errors, and the quasi-tridiagonal splitting iteration
// (converging, not converging, iteration limit). Every numerical test checks a backward error.
#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/tridiag.hpp"
#include "tridiag/tridiag_internal.hpp"
#include "support_tridiag.hpp"

using namespace ssids;
using namespace ssids_test;

namespace {

using ssids_test::expect_error;

const int kSizes[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 129, 257, 1000, 4097, 100003};

double berr(const Tri& t, const std::vector<double>& x, const std::vector<double>& b, int nrhs = 1,
            offset_t ld = -1) {
  if (ld < 0) ld = t.n;
  return tridiag::backward_error(t.n, t.dl.data(), t.d.data(), t.du.data(), nrhs, x.data(), ld, b.data(), ld);
}

}  // namespace

TEST_CASE("thomas agrees with a dense solve") {
  for (int n : kSizes) {
    if (n > 300) continue;
    CAPTURE(n);
    const Tri t = random_tri(n, 100 + n);
    const std::vector<double> b = random_vec(n, 200 + n);
    std::vector<double> xd = b, x = b;
    dense_solve(t, xd);
    auto s = tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::thomas);
    s.solve(1, x.data(), n);
    CHECK(rel_diff(x.data(), xd.data(), n) <= 1e-13);
    CHECK(berr(t, x, b) <= 1e-15);
    CHECK(berr(t, xd, b) <= 1e-15);
  }
}

TEST_CASE("pcr cpu twin agrees with thomas across block boundaries") {
  for (int bsz : {4, 8, 32, 64, 512}) {
    for (int n : kSizes) {
      CAPTURE(bsz);
      CAPTURE(n);
      const Tri t = random_tri(n, 300 + n);
      const std::vector<double> b = random_vec(n, 400 + n);
      std::vector<double> xt = b, xp = b;
      tridiag::Options o;
      o.block_rows = bsz;
      tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::thomas, o).solve(1, xt.data(), n);
      tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o).solve(1, xp.data(), n);
      CHECK(rel_diff(xp.data(), xt.data(), n) <= 1e-13);
      CHECK(berr(t, xp, b) <= 1e-15);
      CHECK(berr(t, xt, b) <= 1e-15);
    }
  }
}

TEST_CASE("pcr cpu twin agrees with a dense solve on weakly dominant systems") {
  for (int n : {5, 33, 65, 129, 257}) {
    CAPTURE(n);
    const Tri t = random_tri(n, 500 + n, 0.01);  // margin 1% of the off-diagonal sum
    const std::vector<double> b = random_vec(n, 600 + n);
    std::vector<double> xd = b, xp = b;
    dense_solve(t, xd);
    tridiag::Options o;
    o.block_rows = 16;
    tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o).solve(1, xp.data(), n);
    CHECK(rel_diff(xp.data(), xd.data(), n) <= 1e-11);
    CHECK(berr(t, xp, b) <= 1e-14);
  }
}

TEST_CASE("one-shot chunked solve (the GPU one-shot's cpu twin) agrees with thomas - tiny pivots leave b unchanged") {
  for (int n : kSizes) {
    CAPTURE(n);
    const Tri t = random_tri(n, 500 + n);
    const std::vector<double> b = random_vec(n, 600 + n);
    std::vector<double> xt = b, xo = b;
    tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::thomas).solve(1, xt.data(), n);
    ssids::detail::chunk_solve_cpu(n, t.dl.data(), t.d.data(), t.du.data(), xo.data(), tridiag::Options());
    CHECK(rel_diff(xo.data(), xt.data(), n) <= 1e-13);
    CHECK(berr(t, xo, b) <= 1e-15);
  }
  for (int n : {2, 9, 40, 1000}) {
    for (int where : {0, 1, n / 2, n - 1}) {
      CAPTURE(n);
      CAPTURE(where);
      Tri t = random_tri(n, 700 + n);
      zero_row(t, where);
      const std::vector<double> b = random_vec(n, 800 + n);
      std::vector<double> x = b;
      int code = 0;
      try {
        ssids::detail::chunk_solve_cpu(n, t.dl.data(), t.d.data(), t.du.data(), x.data(), tridiag::Options());
      } catch (const Error& e) {
        code = e.code();
      }
      CHECK(code == flag::singular);
      CHECK(std::memcmp(x.data(), b.data(), b.size() * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("many right-hand sides reuse the reduction") {
  for (auto be : {tridiag::Backend::thomas, tridiag::Backend::pcr_cpu}) {
    for (int n : {1, 33, 1000, 4097}) {
      CAPTURE(n);
      const int nrhs = 5;
      const offset_t ld = n + 3;
      const Tri t = random_tri(n, 700 + n);
      const std::vector<double> b = random_vec(static_cast<std::size_t>(ld) * nrhs, 800 + n);
      tridiag::Options o;
      o.block_rows = 64;
      auto s = tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), be, o);
      std::vector<double> x = b;
      s.solve(nrhs, x.data(), ld);
      CHECK(berr(t, x, b, nrhs, ld) <= 1e-15);
      for (int k = 0; k < nrhs; ++k) {
        std::vector<double> one(b.begin() + k * ld, b.begin() + k * ld + n);
        s.solve(1, one.data(), n);
        CHECK(std::memcmp(one.data(), x.data() + k * ld, n * sizeof(double)) == 0);
        for (offset_t i = n; i < ld; ++i) CHECK(x[k * ld + i] == b[k * ld + i]);  // padding untouched
      }
      std::vector<double> again = b;  // a second solve with the same factors is identical
      s.solve(nrhs, again.data(), ld);
      CHECK(again == x);
    }
  }
}

TEST_CASE("zero and tiny pivots are reported as errors") {
  for (auto be : {tridiag::Backend::thomas, tridiag::Backend::pcr_cpu}) {
    for (int n : {1, 2, 3, 40, 1000}) {
      for (int where : {0, 1, n / 2, n - 1}) {
        if (where >= n) continue;
        CAPTURE(n);
        CAPTURE(where);
        Tri t = random_tri(n, 900 + n);
        // row `where` decoupled with a zero diagonal: the matrix is singular
        zero_row(t, where);
        tridiag::Options o;
        o.block_rows = 8;
        CHECK(expect_error([&] { tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), be, o); }) ==
              flag::singular);
        t.d[where] = 1e-300;  // tiny relative to the matrix (for n = 1 the matrix is only that entry)
        if (n > 1)
          CHECK(expect_error([&] { tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), be, o); }) ==
              flag::singular);
        t.d[where] = NAN;
        CHECK(expect_error([&] { tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), be, o); }) ==
              flag::singular);
      }
    }
  }
  // a nonsingular but not dominant matrix whose first Thomas pivot is zero: reported, never NaN
  std::vector<double> dl{0, 1}, d{0, 0}, du{1, 0};
  CHECK(expect_error([&] { tridiag::Solver::factor(2, dl.data(), d.data(), du.data(), tridiag::Backend::thomas); }) ==
        flag::singular);
  CHECK(expect_error([&] { tridiag::Solver::factor(2, dl.data(), d.data(), du.data(), tridiag::Backend::pcr_cpu); }) ==
        flag::singular);
}

TEST_CASE("bad arguments are reported") {
  const Tri t = random_tri(10, 1);
  auto f = [&](int n, int bsz) {
    tridiag::Options o;
    o.block_rows = bsz;
    return expect_error(
        [&] { tridiag::Solver::factor(n, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu, o); });
  };
  CHECK(f(0, 64) == flag::bad_n);
  CHECK(f(10, 3) == flag::bad_input);
  CHECK(f(10, 2) == flag::bad_input);
  CHECK(f(10, 1024) == flag::bad_input);
  CHECK(f(10, 48) == flag::bad_input);
  CHECK(f(10, 4) == 0);
  auto s = tridiag::Solver::factor(10, t.dl.data(), t.d.data(), t.du.data(), tridiag::Backend::pcr_cpu);
  std::vector<double> b(20, 1.0);
  CHECK(expect_error([&] { s.solve(1, b.data(), 9); }) == flag::bad_ldx);
  CHECK(expect_error([&] { s.solve(0, b.data(), 10); }) == flag::bad_ldx);
  CHECK(expect_error([&] { s.solve_device(1, b.data(), 10, nullptr); }) == flag::no_cuda);
  tridiag::Solver empty;
  CHECK(expect_error([&] { empty.solve(1, b.data(), 10); }) == flag::call_sequence);
}

TEST_CASE("split separates the tridiagonal part") {
  const Tri t = random_tri(50, 11);
  const CsrMatrix a = quasi_tri(t, 2, 0.5, 12);
  const tridiag::Splitting sp = tridiag::split(a);
  REQUIRE(sp.n == 50);
  CHECK(std::equal(sp.d.begin(), sp.d.end(), t.d.begin(), t.d.end()));
  CHECK(std::equal(sp.dl.begin(), sp.dl.end(), t.dl.begin(), t.dl.end()));
  CHECK(std::equal(sp.du.begin(), sp.du.end(), t.du.begin(), t.du.end()));
  CHECK(sp.s.nnz() + 3 * 50 - 2 == a.nnz());
  for (int i = 0; i < 50; ++i)
    for (auto p = sp.s.ptr[i]; p < sp.s.ptr[i + 1]; ++p) CHECK(std::abs(sp.s.col[p] - i) > 1);
}

TEST_CASE("quasi tridiagonal iteration converges on dominant systems") {
  for (int n : {4, 65, 1000, 100003}) {
    CAPTURE(n);
    const Tri t = random_tri(n, 1300 + n);
    const CsrMatrix a = quasi_tri(t, 2, 0.8, 1400 + n);
    const std::vector<double> b = random_vec(n, 1500 + n);
    const tridiag::Splitting sp = tridiag::split(a);
    tridiag::SplittingOptions so;
    so.tolerance = 1e-13;
    int iters[2];
    int k = 0;
    std::vector<double> xs[2];
    for (auto be : {tridiag::Backend::thomas, tridiag::Backend::pcr_cpu}) {
      tridiag::Options o;
      o.block_rows = 128;
      auto ts = tridiag::Solver::factor(n, sp.dl.data(), sp.d.data(), sp.du.data(), be, o);
      std::vector<double> x(n);
      const tridiag::SplittingResult r = tridiag::splitting_solve(ts, sp.s, b.data(), x.data(), so);
      CHECK(r.status == tridiag::SplittingStatus::converged);
      CHECK(r.iterations >= 1);
      CHECK(r.iterations < 200);
      CHECK(r.step_norm <= so.tolerance * r.solution_norm);
      CHECK(csr_backward_error(a, x.data(), b.data()) <= 1e-12);
      iters[k] = r.iterations;
      xs[k++] = x;
    }
    CHECK(std::abs(iters[0] - iters[1]) <= 1);
    CHECK(rel_diff(xs[1].data(), xs[0].data(), n) <= 1e-11);
  }
}

TEST_CASE("quasi tridiagonal iteration reports divergence and the iteration limit") {
  const int n = 2000;
  const Tri t = random_tri(n, 77, 0.2);
  for (auto be : {tridiag::Backend::thomas, tridiag::Backend::pcr_cpu}) {
    // S much larger than T's dominance margin: rho(T^-1 S) > 1
    const CsrMatrix a = quasi_tri(t, 3, 40.0, 78);
    const tridiag::Splitting sp = tridiag::split(a);
    const std::vector<double> b = random_vec(n, 79);
    auto ts = tridiag::Solver::factor(n, sp.dl.data(), sp.d.data(), sp.du.data(), be);
    std::vector<double> x(n);
    tridiag::SplittingResult r = tridiag::splitting_solve(ts, sp.s, b.data(), x.data());
    CHECK(r.status == tridiag::SplittingStatus::not_converging);
    CHECK(r.iterations < 100);
    CHECK(r.iterations > tridiag::SplittingOptions{}.stall_iterations);
    CHECK(csr_backward_error(a, x.data(), b.data()) > 1e-3);  // not a solution
    // iteration limit on a converging system
    const CsrMatrix a2 = quasi_tri(t, 2, 0.9, 80);
    const tridiag::Splitting sp2 = tridiag::split(a2);
    auto ts2 = tridiag::Solver::factor(n, sp2.dl.data(), sp2.d.data(), sp2.du.data(), be);
    tridiag::SplittingOptions so;
    so.max_iterations = 3;
    so.tolerance = 1e-15;
    r = tridiag::splitting_solve(ts2, sp2.s, b.data(), x.data(), so);
    CHECK(r.status == tridiag::SplittingStatus::iteration_limit);
    CHECK(r.iterations == 3);
    CHECK(csr_backward_error(a2, x.data(), b.data()) < 1.0);
    CHECK(std::string(tridiag::status_name(r.status)) == "iteration limit");
  }
}
