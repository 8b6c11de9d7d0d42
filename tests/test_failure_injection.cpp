// test_failure_injection.cpp — host allocation failure injection (issue 11, item 3).
//
// For a few small matrices and each phase (Matrix Market parse, analyse, factor, solve): count the host
// allocations of one clean call (host_allocation_count()), then for every k in [0, count] make the (k+1)-th
// allocation fail (inject_host_allocation_failure(k)) and run the call again. Each run must either throw
// ssids::Error(flag::allocation) (with inform.flag set to it where the phase has an Inform) or succeed when
// the injected allocation was not reached; no other exception may escape. After each run injection is
// switched off and the same call must work and give the right answer (the library recovered). Under the
// sanitizer build (SSIDS_SANITIZE=address,undefined) LeakSanitizer checks at exit that no failure path
// leaked. Only allocations made through ssids::Allocator are injected (std::string messages, the
// shared_ptr control blocks of other code, METIS and OpenBLAS internals are not).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <spral_ssids.h>

#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/memory.hpp"
#include "ssids/sap.hpp"
#include "ssids/ssids_sap.h"
#include "ssids/tridiag.hpp"
#include "support.hpp"

using namespace ssids;

namespace {

/// Injection is off again when a test case ends, even on a failed CHECK.
struct InjectionOff {
  ~InjectionOff() { inject_host_allocation_failure(-1); }
};

/// Allocations made by one call of f (injection off).
long count_allocations(const std::function<void()>& f) {
  inject_host_allocation_failure(-1);
  const long before = host_allocation_count();
  f();
  return host_allocation_count() - before;
}

/// Run f with the (k+1)-th allocation failing for every k in [0, count] (every `stride`-th k when count is
/// large); `recovered` checks the library afterwards with injection off. Returns how many runs failed.
int sweep(const std::string& what, long count, const std::function<void(Inform&)>& f, const std::function<void()>& recovered,
          bool check_inform = true) {
  const long stride = std::max(1L, count / 300);
  int failures = 0;
  for (long k = 0; k <= count; k += stride) {
    CAPTURE(what);
    CAPTURE(k);
    Inform inform;
    inject_host_allocation_failure(k);
    try {
      f(inform);
    } catch (const Error& e) {
      CHECK(e.code() == flag::allocation);
      if (check_inform) CHECK(inform.flag == flag::allocation);
      ++failures;
    } catch (const std::exception& e) {
      FAIL("an exception other than ssids::Error escaped: " << std::string(e.what()));
    }
    inject_host_allocation_failure(-1);
    recovered();
  }
  MESSAGE(what << ": " << count << " allocations, " << failures << " injected failures reported cleanly");
  return failures;
}

/// Small test matrices: indefinite random, 2D Laplacian (posdef), one that needs delayed pivots.
std::vector<SymmetricMatrix> matrices() {
  std::vector<SymmetricMatrix> m;
  m.push_back(ssids_test::random_symmetric(40, 0.12, 1.0, 3.0, 11));
  std::vector<int> r, c;
  std::vector<double> v;
  const int g = 7;
  for (int i = 0; i < g; ++i)
    for (int j = 0; j < g; ++j) {
      const int p = i * g + j;
      r.push_back(p), c.push_back(p), v.push_back(4.0);
      if (i + 1 < g) r.push_back(p + g), c.push_back(p), v.push_back(-1.0);
      if (j + 1 < g) r.push_back(p + 1), c.push_back(p), v.push_back(-1.0);
    }
  m.push_back(ssids_test::from_triplets(g * g, r, c, v));
  m.push_back(ssids_test::random_symmetric(60, 0.08, 0.3, 1.0, 7));  // zero diagonals: 2x2 pivots, delays
  return m;
}

std::vector<double> rhs_for_ones(const SymmetricMatrix& a) {
  std::vector<double> one(a.n, 1.0), b(a.n);
  symmetric_multiply(a, one.data(), b.data());
  return b;
}

}  // namespace

TEST_CASE("failure injection: analyse, factor and solve report flag::allocation and recover") {
  InjectionOff off;
  int idx = 0;
  for (const SymmetricMatrix& a : matrices()) {
    CAPTURE(idx);
    ++idx;
    Options opt;
    opt.ordering = idx == 2 ? Ordering::amd : Ordering::metis;
    opt.nemin = 4;  // several supernodes even for small matrices: more allocation sites
    opt.num_threads = 2;
    const Mode mode = idx == 2 ? Mode::posdef : Mode::indefinite;
    Inform inform;
    const Analysis ref = analyse(a.view(), opt, inform);
    const std::vector<double> b = rhs_for_ones(a);

    auto check_solution = [&](const Factors& f) {
      std::vector<double> x = b;
      Inform in;
      f.solve(SolveJob::full, 1, x.data(), a.n, in);
      CHECK(scaled_backward_error(a, x.data(), b.data(), 1, a.n) < 1e-12);
    };

    // analyse
    long n_an = count_allocations([&] { Inform in; analyse(a.view(), opt, in); });
    CHECK(n_an > 0);
    sweep("analyse", n_an, [&](Inform& in) { analyse(a.view(), opt, in); },
          [&] {
            Inform in;
            Analysis an = analyse(a.view(), opt, in);
            CHECK(an.num_sup() == ref.num_sup());
            CHECK(an.num_factor() == ref.num_factor());
          });

    // factor
    long n_f = count_allocations([&] { Inform in; factor(ref, a.val.data(), mode, opt, in); });
    CHECK(n_f > 0);
    int fails = sweep("factor", n_f, [&](Inform& in) { factor(ref, a.val.data(), mode, opt, in); },
                      [&] {
                        Inform in;
                        check_solution(factor(ref, a.val.data(), mode, opt, in));
                      },
                      false);  // factor() does not set inform.flag on a thrown error (analyse() does)
    CHECK(fails > 0);

    // solve (one and three right-hand sides), on factors that stay valid across the failures
    const Factors f = factor(ref, a.val.data(), mode, opt, inform);
    for (int nrhs : {1, 3}) {
      std::vector<double> x(static_cast<std::size_t>(a.n) * nrhs);
      auto reset = [&] {
        for (int r = 0; r < nrhs; ++r) std::copy(b.begin(), b.end(), x.begin() + static_cast<std::ptrdiff_t>(r) * a.n);
      };
      long n_s = count_allocations([&] { reset(); Inform in; f.solve(SolveJob::full, nrhs, x.data(), a.n, in); });
      sweep("solve", n_s,
            [&](Inform& in) {
              reset();
              f.solve(SolveJob::full, nrhs, x.data(), a.n, in);
            },
            [&] { check_solution(f); }, false);
    }
  }
}

TEST_CASE("failure injection: the Matrix Market reader reports flag::allocation and recovers") {
  InjectionOff off;
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n4 4 7\n1 1 4\n2 1 1\n1 2 1\n2 2 4\n3 3 2\n4 3 -1\n3 4 -1\n";
  const std::string dense = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n";
  auto sym = [&] {
    SymmetricMatrix a = parse_symmetric(text.data(), text.size());
    CHECK(a.n == 4);
    CHECK(a.nnz() == 5);
  };
  auto gen = [&] {
    CsrMatrix a = parse_general(text.data(), text.size());
    CHECK(a.nnz() == 7);
  };
  auto den = [&] {
    DenseMatrix d = parse_dense(dense.data(), dense.size());
    CHECK(d.val.size() == 4);
  };
  CHECK(sweep("parse_symmetric", count_allocations(sym), [&](Inform&) { sym(); }, sym, false) > 0);
  CHECK(sweep("parse_general", count_allocations(gen), [&](Inform&) { gen(); }, gen, false) > 0);
  CHECK(sweep("parse_dense", count_allocations(den), [&](Inform&) { den(); }, den, false) > 0);
}

// The C interfaces convert allocation failures into flag -50 (issue 11, item 3): sweep the coordinate-form
// analyse (its CSC conversion and the permuted values go through ssids::Allocator), factor and solve of the
// SPRAL-compatible interface, and the SaP entry point. After each failed call the handle exists (as in
// SPRAL, it is made before anything can fail) but is unusable, and the next call with injection off gives
// the right answer.
TEST_CASE("failure injection: the C interfaces report flag -50 and recover") {
  InjectionOff off;
  const SymmetricMatrix a = matrices()[2];  // 2x2 pivots and delays
  std::vector<int> rc, cc;
  std::vector<double> vc;
  for (index_t j = 0; j < a.n; ++j)  // coordinate form, 1-based, upper triangle (mirrored by analyse)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      rc.push_back(j + 1);
      cc.push_back(a.row[k] + 1);
      vc.push_back(a.val[k]);
    }
  spral_ssids_options o;
  spral_ssids_default_options(&o);
  o.array_base = 1;
  o.use_gpu = false;
  o.nemin = 4;
  const std::vector<double> b = rhs_for_ones(a);
  auto run = [&](bool expect_ok) {
    void *akeep = nullptr, *fkeep = nullptr;
    spral_ssids_inform inf;
    int flag_seen = 0;
    spral_ssids_analyse_coord(a.n, nullptr, static_cast<int64_t>(rc.size()), rc.data(), cc.data(), nullptr, &akeep, &o,
                              &inf);
    if (inf.flag < 0) {
      flag_seen = inf.flag;
      if (akeep) {  // unusable: factor says so
        spral_ssids_factor(false, nullptr, nullptr, vc.data(), nullptr, akeep, &fkeep, &o, &inf);
        CHECK(inf.flag == flag::call_sequence);
      }
    } else {
      spral_ssids_factor(false, nullptr, nullptr, vc.data(), nullptr, akeep, &fkeep, &o, &inf);
      if (inf.flag < 0) {
        flag_seen = inf.flag;
        if (fkeep) {  // unusable: solve says so
          std::vector<double> x = b;
          spral_ssids_solve1(0, x.data(), akeep, fkeep, &o, &inf);
          CHECK(inf.flag == flag::call_sequence);
        }
      } else {
        std::vector<double> x = b;
        spral_ssids_solve1(0, x.data(), akeep, fkeep, &o, &inf);
        if (inf.flag < 0) {
          flag_seen = inf.flag;
        } else if (expect_ok) {  // (the check allocates too: only with injection off)
          CHECK(scaled_backward_error(a, x.data(), b.data(), 1, a.n) < 1e-12);
        }
      }
    }
    spral_ssids_free(&akeep, &fkeep);
    if (expect_ok) CHECK(flag_seen == 0);
    return flag_seen;
  };
  const long count = count_allocations([&] { CHECK(run(false) == 0); });
  CHECK(count > 0);
  int failures = 0;
  for (long k = 0; k <= count; k += std::max(1L, count / 300)) {
    CAPTURE(k);
    inject_host_allocation_failure(k);
    const int f = run(false);
    inject_host_allocation_failure(-1);
    CHECK((f == 0 || f == flag::allocation));
    if (f != 0) ++failures;
    run(true);
  }
  CHECK(failures > 0);
  MESSAGE("C interface: " << count << " allocations, " << failures << " injected failures reported as -50");

  // SaP: the C entry point over a small nonsymmetric banded system
  const CsrMatrix g = generate_banded(200, 3, 1.0, 5);
  std::vector<int64_t> gp(g.ptr.begin(), g.ptr.end());
  std::vector<int> gc(g.col.begin(), g.col.end());
  std::vector<double> gv(g.val.begin(), g.val.end()), gb(200, 1.0);
  ssids_sap_options so;
  ssids_sap_default_options(&so);
  so.partitions = 4;
  so.rtol = 1e-10;
  auto sap = [&] {
    std::vector<double> x(200, 0.0);
    ssids_sap_inform inf;
    const int f = ssids_sap_solve(200, gp.data(), gc.data(), gv.data(), gb.data(), x.data(), &so, &inf);
    if (f == 0) CHECK(inf.relative_residual <= 1e-10);
    return f;
  };
  const long sap_count = count_allocations([&] { CHECK(sap() == 0); });
  int sap_failures = 0;
  for (long k = 0; k <= sap_count; k += std::max(1L, sap_count / 300)) {
    CAPTURE(k);
    inject_host_allocation_failure(k);
    const int f = sap();
    inject_host_allocation_failure(-1);
    CHECK((f == 0 || f == flag::allocation));
    if (f != 0) ++sap_failures;
    CHECK(sap() == 0);
  }
  CHECK(sap_failures > 0);
  MESSAGE("ssids_sap_solve: " << sap_count << " allocations, " << sap_failures << " injected failures reported as -50");
}

// The C++ generators and the SaP C++ entry points turn a failed host allocation into Error(allocation)
// like the rest of the library (they used to let std::bad_alloc escape).
TEST_CASE("failure injection: generators and the SaP solver report flag::allocation and recover") {
  InjectionOff off;
  auto lap = [] {
    const auto m = generate_laplace3d(5, 0.5);  // outside CHECK: CHECK would swallow the exception
    CHECK(m.n == 125);
  };
  auto stokes = [] {
    const auto m = generate_stokes(6);
    CHECK(m.n > 0);
  };
  auto kkt = [] {
    const auto m = generate_kkt_qp(40, 15, 1e-8, 3);
    CHECK(m.n == 55);
  };
  auto band = [] {
    const auto m = generate_banded(300, 4, 1.0, 5);
    CHECK(m.nrow == 300);
  };
  auto spec = [] {
    const auto m = load_symmetric("gen:laplace2d:6");
    CHECK(m.n == 36);
  };
  CHECK(sweep("generate_laplace3d", count_allocations(lap), [&](Inform&) { lap(); }, lap, false) > 0);
  CHECK(sweep("generate_stokes", count_allocations(stokes), [&](Inform&) { stokes(); }, stokes, false) > 0);
  CHECK(sweep("generate_kkt_qp", count_allocations(kkt), [&](Inform&) { kkt(); }, kkt, false) > 0);
  CHECK(sweep("generate_banded", count_allocations(band), [&](Inform&) { band(); }, band, false) > 0);
  CHECK(sweep("load_symmetric", count_allocations(spec), [&](Inform&) { spec(); }, spec, false) > 0);

  const CsrMatrix a = generate_banded(400, 3, 1.0, 9);
  std::vector<double> xt(400, 1.0), b(400, 0.0);
  for (int i = 0; i < a.nrow; ++i)
    for (auto e = a.ptr[i]; e < a.ptr[i + 1]; ++e) b[i] += a.val[e] * xt[a.col[e]];
  sap::SapOptions so;
  so.partitions = 4;
  so.rtol = 1e-10;
  auto sapsolve = [&] {
    std::vector<double> x(400, 0.0);
    sap::SapInform si;
    const sap::Status st = sap::solve(a, b.data(), x.data(), so, si);
    CHECK(st == sap::Status::converged);
    double err = 0;
    for (double v : x) err = std::max(err, std::fabs(v - 1.0));
    CHECK(err < 1e-6);
  };
  CHECK(sweep("sap::solve", count_allocations(sapsolve), [&](Inform&) { sapsolve(); }, sapsolve, false) > 0);
}

// The tridiagonal solver's CPU backends and the splitting iteration go through ssids::Allocator too.
TEST_CASE("failure injection: the tridiagonal solver reports flag::allocation and recovers") {
  InjectionOff off;
  const int n = 1000;
  std::vector<double> dl(n, -1.0), d(n, 4.0), du(n, -1.0), b(n, 2.0);
  for (auto be : {tridiag::Backend::thomas, tridiag::Backend::pcr_cpu}) {
    auto run = [&] {
      tridiag::Options o;
      o.block_rows = 64;
      const tridiag::Solver s = tridiag::Solver::factor(n, dl.data(), d.data(), du.data(), be, o);
      std::vector<double> x = b;
      s.solve(1, x.data(), n);
      CHECK(tridiag::backward_error(n, dl.data(), d.data(), du.data(), 1, x.data(), n, b.data(), n) < 1e-15);
    };
    CHECK(sweep(std::string("tridiag ") + (be == tridiag::Backend::thomas ? "thomas" : "pcr_cpu"),
                count_allocations(run), [&](Inform&) { run(); }, run, false) > 0);
  }
  // quasi-tridiagonal: T plus one far coupling per row
  CsrMatrix a;
  a.nrow = a.ncol = n;
  a.ptr.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    if (i > 0) a.col.push_back(i - 1), a.val.push_back(-1.0);
    a.col.push_back(i), a.val.push_back(4.0);
    if (i + 1 < n) a.col.push_back(i + 1), a.val.push_back(-1.0);
    a.col.push_back((i + n / 2) % n), a.val.push_back(0.25);
    a.ptr[i + 1] = static_cast<offset_t>(a.col.size());
  }
  auto split_run = [&] {
    const tridiag::Splitting sp = tridiag::split(a);
    const tridiag::Solver t =
        tridiag::Solver::factor(n, sp.dl.data(), sp.d.data(), sp.du.data(), tridiag::Backend::thomas);
    std::vector<double> x(n, 0.0);
    const tridiag::SplittingResult r = tridiag::splitting_solve(t, sp.s, b.data(), x.data());
    CHECK(r.status == tridiag::SplittingStatus::converged);
  };
  CHECK(sweep("tridiag split and splitting_solve", count_allocations(split_run), [&](Inform&) { split_run(); },
              split_run, false) > 0);
}
