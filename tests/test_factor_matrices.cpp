// test_factor_matrices.cpp — every shared symmetric test matrix (ssids_test::matrix_files(), MANIFEST.tsv)
// through the CPU factorization: scaled backward error after refinement (1e-13, or 1e-10 for matrices the
// MANIFEST marks singular or nearly singular), inertia against the MANIFEST's num_neg_reference, Inform
// counts against D, the multiplier bound 1/u, posdef mode on the SPD matrices (backward error, agreement with
// the indefinite solution), and bitwise independence of the thread count on KKT matrices.
// Skips when there is no matrix folder; fails when the folder holds no matrix.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_factor.hpp"
#include "support_manifest.hpp"

using namespace ssids;

namespace {

struct TestMatrix {
  std::string name;
  const ssids_test::ManifestEntry* entry = nullptr;  ///< null when the MANIFEST has no line for it
  SymmetricMatrix a;
  bool singular = false;
};

/// Visit every symmetric matrix of the shared folder (MANIFEST symmetry column, else the file's banner).
/// Returns false (after skip()) when there is no folder; fails when the folder holds no matrix.
template <class F>
bool for_each_symmetric(F&& visit) {
  if (ssids_test::matrices_dir().empty()) {
    ssids_test::skip("no test matrix folder");
    return false;
  }
  const auto files = ssids_test::matrix_files();
  REQUIRE_MESSAGE(!files.empty(), "the matrix folder " << ssids_test::matrices_dir() << " holds no matrix");
  static const auto manifest = ssids_test::read_manifest(ssids_test::matrices_dir());
  int visited = 0;
  for (const auto& path : files) {
    TestMatrix m;
    m.name = ssids_test::base_name(path);
    auto it = manifest.find(m.name);
    m.entry = it == manifest.end() ? nullptr : &it->second;
    if (m.entry && m.entry->symmetry != "symmetric") continue;
    CAPTURE(path);
    MatrixReport rep;
    try {
      m.a = read_symmetric(path, &rep);
    } catch (const Error& e) {
      if (!m.entry && e.code() == flag::not_symmetric) continue;  // an unlisted general file
      throw;
    }
    if (!m.entry && !rep.symmetric_file) continue;
    m.singular = ssids_test::marked_singular(m.name, m.entry);
    ++visited;
    visit(m);
  }
  CHECK_MESSAGE(visited > 0, "no symmetric matrix in " << ssids_test::matrices_dir());
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("factor matrices: indefinite mode on every shared symmetric matrix") {
  const Options opt;  // defaults: METIS, nemin 32, u = 0.01
  const double ubound = (1.0 / opt.u) * (1.0 + 1e-10);
  int count = 0;
  MESSAGE("matrix                                   n      nnz(L)  delays   2x2      +      -    0   rank   berr     time");
  const bool ran = for_each_symmetric([&](const TestMatrix& m) {
    CAPTURE(m.name);
    const auto t0 = std::chrono::steady_clock::now();
    ssids_test::PipelineResult r = ssids_test::run_pipeline(m.a, opt, Mode::indefinite, 3);
    const double t = seconds_since(t0);
    const Inform& inf = r.inform;
    char line[256];
    std::snprintf(line, sizeof line, "%-36s %7d %11lld %7d %5d %6d %6d %4d %6d %8.1e %6.2fs%s", m.name.c_str(), m.a.n,
                  static_cast<long long>(inf.num_factor), inf.num_delay, inf.num_two, inf.num_pos, inf.num_neg,
                  inf.num_zero, inf.matrix_rank, r.backward_error, t, m.singular ? "  (singular)" : "");
    MESSAGE(line);
    ++count;

    // backward error
    CHECK(std::isfinite(r.backward_error));
    CHECK(r.backward_error < (m.singular ? 1e-10 : 1e-13));

    // inertia against the reference
    if (m.entry && m.entry->num_neg_reference >= 0 && !m.singular) {
      CHECK(inf.num_neg == m.entry->num_neg_reference);
      CHECK(inf.num_zero == 0);
      CHECK(inf.num_pos == m.a.n - m.entry->num_neg_reference);
    }

    // Inform counts against D
    const ssids_test::DCounts dc = ssids_test::count_from_d(r.factors);
    CHECK(dc.neg == inf.num_neg);
    CHECK(dc.pos == inf.num_pos);
    CHECK(dc.zero == inf.num_zero);
    CHECK(dc.two == inf.num_two);
    CHECK(inf.num_neg + inf.num_pos + inf.num_zero == m.a.n);
    CHECK(inf.matrix_rank == m.a.n - inf.num_zero);
    CHECK(inf.num_delay >= 0);
    CHECK(inf.num_factor >= m.a.nnz());
    if (inf.num_zero == 0) CHECK(inf.flag == 0);
    else CHECK(inf.flag == flag::warn_singular);

    // threshold pivoting bounds the multipliers by 1/u
    const double lmax = ssids_test::max_multiplier(r.factors);
    CAPTURE(lmax);
    CHECK(lmax <= ubound);
  });
  if (ran) MESSAGE(count << " symmetric matrices factorized");
}

TEST_CASE("factor matrices: posdef mode on the SPD matrices agrees with indefinite mode") {
  int count = 0;
  const bool ran = for_each_symmetric([&](const TestMatrix& m) {
    if (!m.entry || m.entry->kind.rfind("SPD", 0) != 0) return;
    CAPTURE(m.name);
    ++count;
    const Options opt;
    const auto t0 = std::chrono::steady_clock::now();
    ssids_test::PipelineResult pd = ssids_test::run_pipeline(m.a, opt, Mode::posdef, 3);
    const double t = seconds_since(t0);
    ssids_test::PipelineResult id = ssids_test::run_pipeline(m.a, opt, Mode::indefinite, 3);
    CHECK(pd.factors.mode() == Mode::posdef);
    CHECK(pd.inform.num_pos == m.a.n);
    CHECK(pd.inform.num_neg == 0);
    CHECK(pd.inform.num_zero == 0);
    CHECK(pd.inform.matrix_rank == m.a.n);
    CHECK(pd.backward_error < 1e-13);
    // the diagonal of the Cholesky factor is positive
    std::vector<double> diag(m.a.n);
    pd.factors.enquire_posdef(diag.data());
    CHECK(*std::min_element(diag.begin(), diag.end()) > 0.0);
    // Both solutions approximate the same x; compare relative to max|x|. The forward error of a solution with
    // backward error b is up to about cond(A) * b, so for the worst-conditioned matrices (plat362 and ex10hs,
    // cond2 ~ 1e11..5e11 per the MANIFEST) 1e-8 is out of reach: there the tolerance is 10 * cond2 * berr.
    const std::vector<double> xt = [&] {
      std::vector<double> v(m.a.n);
      for (int i = 0; i < m.a.n; ++i) v[i] = 1.0 + (i % 7) / 8.0;  // x_true of ssids_test::make_rhs
      return v;
    }();
    double xmax = 0.0, dmax = 0.0, epd = 0.0, eid = 0.0;
    for (int i = 0; i < m.a.n; ++i) {
      xmax = std::max(xmax, std::fabs(id.x[i]));
      dmax = std::max(dmax, std::fabs(id.x[i] - pd.x[i]));
      epd = std::max(epd, std::fabs(pd.x[i] - xt[i]));
      eid = std::max(eid, std::fabs(id.x[i] - xt[i]));
    }
    const double rel = dmax / xmax;
    double tol = 1e-8;
    const auto c = m.entry->known_properties.find("cond2=");
    if (c != std::string::npos) {
      const double cond2 = std::atof(m.entry->known_properties.c_str() + c + 6);
      tol = std::max(tol, 10.0 * cond2 * std::max({pd.backward_error, id.backward_error, 1e-16}));
    }
    MESSAGE(m.name << ": posdef berr " << pd.backward_error << ", indefinite berr " << id.backward_error
                   << ", max|x_pd - x_indef| / max|x| = " << rel << " (tolerance " << tol << "); forward error "
                   << epd / xmax << " (posdef), " << eid / xmax << " (indefinite); posdef " << t << " s");
    CHECK(rel <= tol);
    CHECK(epd / xmax <= tol);
    CHECK(eid / xmax <= tol);
  });
  if (!ran) return;
  MESSAGE(count << " SPD matrices");
  CHECK(count > 0);
}

TEST_CASE("factor matrices: factors and solutions bitwise identical with 1 and 2 threads") {
  // KKT matrices (delays and 2x2 pivots make these the interesting ones); the larger ones are left out to
  // keep the run time down.
  int count = 0;
  const bool ran = for_each_symmetric([&](const TestMatrix& m) {
    if (!m.entry || m.entry->kind.find("KKT") == std::string::npos || m.a.n > 6000) return;
    CAPTURE(m.name);
    ++count;
    std::uint64_t h1 = 0, hx1 = 0;
    Inform inf1;
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      Options o;
      o.num_threads = threads;
      ssids_test::PipelineResult r = ssids_test::run_pipeline(m.a, o, Mode::indefinite, 1);
      const std::uint64_t h = ssids_test::hash_factors(r.factors);
      const std::uint64_t hx = ssids_test::hash_doubles(r.x.data(), r.x.size());
      if (threads == 1) {
        h1 = h;
        hx1 = hx;
        inf1 = r.inform;
        continue;
      }
      CHECK(h == h1);
      CHECK(hx == hx1);
      CHECK(r.inform.num_delay == inf1.num_delay);
      CHECK(r.inform.num_two == inf1.num_two);
      CHECK(r.inform.num_neg == inf1.num_neg);
      CHECK(r.inform.num_factor == inf1.num_factor);
      CHECK(r.inform.num_flops == inf1.num_flops);
    }
  });
  if (!ran) return;
  MESSAGE(count << " KKT matrices compared");
  CHECK(count >= 3);
}
