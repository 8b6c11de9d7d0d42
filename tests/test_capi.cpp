// test_capi.cpp — the SPRAL-compatible C interface (spral_ssids.h) called from C++: every reachable flag
// value, 0- and 1-based input giving identical results (CSC int64, CSC int32 and coordinate forms), order
// and scale in/out, solve jobs, enquire/alter, handle rules (wrong order -> -1, NULL frees harmless), and the
// shared KKT matrices against the C++ API (same inertia, backward error < 1e-12, CPU).
// Matrices are lower triangles; the C calls see 0-based arrays unless a test says otherwise.
#include <doctest/doctest.h>

#include <spral.h>
#include <spral_ssids.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "capi/capi_inform.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "ssids/memory.hpp"
#include "factor/factor_gpu.hpp"
#include "support.hpp"
#include "support_factor.hpp"
#include "support_manifest.hpp"

namespace {

/// A small lower-triangle CSC matrix with its arrays in both bases.
struct Csc {
  int n = 0;
  std::vector<int64_t> ptr;
  std::vector<int> row;
  std::vector<double> val;
  Csc rebased(int base) const {
    Csc c = *this;
    for (auto& p : c.ptr) p += base;
    for (auto& r : c.row) r += base;
    return c;
  }
};

/// SPRAL's documentation matrix (one negative eigenvalue); b = A (1,2,3,4,5).
Csc doc_matrix() {
  return {5, {0, 2, 5, 7, 8, 9}, {0, 1, 1, 2, 4, 2, 3, 3, 4}, {2.0, 1.0, 4.0, 1.0, 1.0, 3.0, 2.0, -1.0, 2.0}};
}
const std::vector<double> doc_rhs = {4.0, 17.0, 19.0, 2.0, 12.0};

spral_ssids_options cpu_options(int base = 0) {
  spral_ssids_options o;
  spral_ssids_default_options(&o);
  o.array_base = base;
  o.use_gpu = false;
  return o;
}

/// Owns the two handles of one test.
struct Handles {
  void* akeep = nullptr;
  void* fkeep = nullptr;
  ~Handles() { spral_ssids_free(&akeep, &fkeep); }
};

int analyse_flag(const Csc& a, const spral_ssids_options& o, int* order = nullptr, bool with_val = false) {
  Handles h;
  spral_ssids_inform inf;
  spral_ssids_analyse(true, a.n, order, a.ptr.data(), a.row.data(), with_val ? a.val.data() : nullptr, &h.akeep, &o,
                      &inf);
  return inf.flag;
}

/// analyse + factor; returns factor's flag (or analyse's when it failed).
int factor_flag(const Csc& a, const spral_ssids_options& o, bool posdef, Handles& h, spral_ssids_inform& inf,
                double* scale = nullptr) {
  spral_ssids_analyse(true, a.n, nullptr, a.ptr.data(), a.row.data(), a.val.data(), &h.akeep, &o, &inf);
  if (inf.flag < 0) return inf.flag;
  spral_ssids_factor(posdef, a.ptr.data(), a.row.data(), a.val.data(), scale, h.akeep, &h.fkeep, &o, &inf);
  return inf.flag;
}

double max_abs_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double m = 0.0;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(x[i] - y[i]));
  return m;
}

}  // namespace

TEST_CASE("capi: get_spral_version names the mirrored SPRAL release") {
  char v[11];
  std::memset(v, 'x', sizeof(v));
  get_spral_version(v);
  CHECK(std::string(v) == SPRAL_VERSION);
  CHECK(std::string(v) == "2025.09.18");
  get_spral_version(nullptr);  // harmless
}

TEST_CASE("capi: documentation example solves and reports inertia") {
  const Csc a = doc_matrix();
  const auto o = cpu_options();
  Handles h;
  spral_ssids_inform inf;
  REQUIRE(factor_flag(a, o, false, h, inf) == 0);
  CHECK(inf.num_neg == 1);
  CHECK(inf.matrix_rank == 5);
  CHECK(inf.num_sup >= 1);
  CHECK(inf.num_factor >= 9);
  std::vector<double> x = doc_rhs;
  spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
}

TEST_CASE("capi: 0- and 1-based input give identical results in every input form") {
  const Csc a0 = doc_matrix();
  std::vector<std::vector<double>> sols;
  std::vector<std::vector<int>> pivs, orders;
  for (int base = 0; base <= 1; ++base) {
    const Csc a = a0.rebased(base);
    const auto o = cpu_options(base);
    for (int form = 0; form < 3; ++form) {
      CAPTURE(base);
      CAPTURE(form);
      Handles h;
      spral_ssids_inform inf;
      std::vector<int> order(a.n, -7);
      if (form == 0) {
        spral_ssids_analyse(true, a.n, order.data(), a.ptr.data(), a.row.data(), nullptr, &h.akeep, &o, &inf);
      } else if (form == 1) {
        std::vector<int> p32(a.ptr.begin(), a.ptr.end());
        spral_ssids_analyse_ptr32(true, a.n, order.data(), p32.data(), a.row.data(), nullptr, &h.akeep, &o, &inf);
      } else {
        std::vector<int> col;
        for (int j = 0; j < a.n; ++j)
          for (int64_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) col.push_back(j + base);
        // reverse the entries: the coordinate form must not depend on their order
        std::vector<int> r(a.row.rbegin(), a.row.rend()), c(col.rbegin(), col.rend());
        std::vector<double> v(a.val.rbegin(), a.val.rend());
        spral_ssids_analyse_coord(a.n, order.data(), static_cast<int64_t>(r.size()), r.data(), c.data(), v.data(),
                                  &h.akeep, &o, &inf);
        REQUIRE(inf.flag == 0);
        spral_ssids_factor(false, nullptr, nullptr, v.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
      }
      REQUIRE(inf.flag == 0);
      if (form != 2) {
        if (form == 1) {
          std::vector<int> p32(a.ptr.begin(), a.ptr.end());
          spral_ssids_factor_ptr32(false, p32.data(), a.row.data(), a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
        } else {
          spral_ssids_factor(false, a.ptr.data(), a.row.data(), a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
        }
      }
      REQUIRE(inf.flag == 0);
      CHECK(inf.num_neg == 1);
      std::vector<double> x = doc_rhs;
      spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
      REQUIRE(inf.flag == 0);
      std::vector<int> piv(a.n);
      spral_ssids_enquire_indef(h.akeep, h.fkeep, &o, &inf, piv.data(), nullptr);
      REQUIRE(inf.flag == 0);
      for (auto& v : order) v -= base;  // compare in 0-based terms
      for (auto& v : piv) v += v > 0 ? -base : base;
      // order is a permutation of 0..n-1 after removing the base
      std::vector<int> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      for (int i = 0; i < a.n; ++i) CHECK(sorted[i] == i);
      sols.push_back(x);
      pivs.push_back(piv);
      orders.push_back(order);
    }
  }
  for (size_t k = 1; k < sols.size(); ++k) {
    CAPTURE(k);
    CHECK(std::memcmp(sols[k].data(), sols[0].data(), sols[0].size() * sizeof(double)) == 0);
    CHECK(pivs[k] == pivs[0]);
    CHECK(orders[k] == orders[0]);
  }
  CHECK(max_abs_diff(sols[0], {1, 2, 3, 4, 5}) < 1e-12);
}

TEST_CASE("capi: user order in and out, array_base adjusted") {
  const Csc a0 = doc_matrix();
  for (int base = 0; base <= 1; ++base) {
    CAPTURE(base);
    const Csc a = a0.rebased(base);
    auto o = cpu_options(base);
    o.ordering = 0;
    std::vector<int> order = {4 + base, 3 + base, 2 + base, 1 + base, 0 + base};  // reverse order
    Handles h;
    spral_ssids_inform inf;
    spral_ssids_analyse(true, a.n, order.data(), a.ptr.data(), a.row.data(), nullptr, &h.akeep, &o, &inf);
    REQUIRE(inf.flag == 0);
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < a.n; ++i) CHECK(sorted[i] == i + base);
    spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    REQUIRE(inf.flag == 0);
    std::vector<double> x = doc_rhs;
    spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
    CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
  }
}

TEST_CASE("capi: partial solves compose to the full solve - several right-hand sides") {
  const Csc a = doc_matrix();
  const auto o = cpu_options();
  Handles h;
  spral_ssids_inform inf;
  REQUIRE(factor_flag(a, o, false, h, inf) == 0);
  std::vector<double> x = doc_rhs;
  for (int job : {1, 2, 3}) {
    spral_ssids_solve1(job, x.data(), h.akeep, h.fkeep, &o, &inf);
    REQUIRE(inf.flag == 0);
  }
  CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
  std::vector<double> y = doc_rhs;
  spral_ssids_solve1(1, y.data(), h.akeep, h.fkeep, &o, &inf);
  spral_ssids_solve1(4, y.data(), h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  CHECK(max_abs_diff(y, {1, 2, 3, 4, 5}) < 1e-12);
  // two columns, ldx = 7
  std::vector<double> xx(14, -1.0);
  for (int i = 0; i < 5; ++i) xx[i] = doc_rhs[i], xx[7 + i] = 2 * doc_rhs[i];
  spral_ssids_solve(0, 2, xx.data(), 7, h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  for (int i = 0; i < 5; ++i) {
    CHECK(std::fabs(xx[i] - (i + 1)) < 1e-12);
    CHECK(std::fabs(xx[7 + i] - 2 * (i + 1)) < 1e-12);
  }
  CHECK(xx[5] == -1.0);  // padding rows untouched
}

TEST_CASE("capi: enquire_indef and alter round trip - posdef enquire") {
  const Csc a = doc_matrix();
  const auto o = cpu_options();
  Handles h;
  spral_ssids_inform inf;
  REQUIRE(factor_flag(a, o, false, h, inf) == 0);
  std::vector<double> d(10);
  std::vector<int> piv(5);
  spral_ssids_enquire_indef(h.akeep, h.fkeep, &o, &inf, piv.data(), d.data());
  REQUIRE(inf.flag == 0);
  int neg = 0;  // negative eigenvalues of D^{-1} (as SPRAL, d holds the inverse), 2x2 blocks included
  for (int k = 0; k < 5; ++k) {
    if (d[2 * k + 1] != 0.0) {
      const double det = d[2 * k] * d[2 * k + 2] - d[2 * k + 1] * d[2 * k + 1];
      neg += det < 0.0 ? 1 : (d[2 * k] < 0.0 ? 2 : 0);
      ++k;
    } else {
      neg += d[2 * k] < 0.0;
    }
  }
  CHECK(neg == 1);
  // alter with D^{-1} doubled: the solution doubles
  for (auto& v : d) v *= 2.0;
  spral_ssids_alter(d.data(), h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  std::vector<double> x = doc_rhs;
  spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
  CHECK(max_abs_diff(x, {2, 4, 6, 8, 10}) < 1e-12);
  std::vector<double> d2(10);
  spral_ssids_enquire_indef(h.akeep, h.fkeep, &o, &inf, nullptr, d2.data());
  CHECK(d2 == d);  // alter keeps D^{-1} exactly as given

  // positive definite: diag(2, 3, 4) with an off-diagonal
  Csc p{3, {0, 2, 3, 4}, {0, 1, 1, 2}, {4.0, 1.0, 3.0, 5.0}};
  Handles hp;
  REQUIRE(factor_flag(p, o, true, hp, inf) == 0);
  std::vector<double> ld(3);
  spral_ssids_enquire_posdef(hp.akeep, hp.fkeep, &o, &inf, ld.data());
  REQUIRE(inf.flag == 0);
  std::sort(ld.begin(), ld.end());
  CHECK(ld[2] == doctest::Approx(std::sqrt(5.0)).epsilon(1e-14));  // variable 2 is decoupled
}

TEST_CASE("capi: scale in and out") {
  const Csc a = doc_matrix();
  std::vector<double> ref;
  for (int scaling : {1, 2, 4}) {
    CAPTURE(scaling);
    auto o = cpu_options();
    o.scaling = scaling;
    Handles h;
    spral_ssids_inform inf;
    std::vector<double> scale(5, 0.0);
    REQUIRE(factor_flag(a, o, false, h, inf, scale.data()) == 0);
    for (double s : scale) CHECK((s > 0.0 && std::isfinite(s)));
    std::vector<double> x = doc_rhs;
    spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
    CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
    // feeding the returned scaling back as a user scaling (scaling <= 0 with scale) gives the same factors
    auto ou = cpu_options();
    ou.scaling = 0;
    Handles hu;
    REQUIRE(factor_flag(a, ou, false, hu, inf, scale.data()) == 0);
    std::vector<double> xu = doc_rhs;
    spral_ssids_solve1(0, xu.data(), hu.akeep, hu.fkeep, &ou, &inf);
    CHECK(std::memcmp(x.data(), xu.data(), sizeof(double) * 5) == 0);
  }
}

TEST_CASE("capi: handles — wrong order returns -1, NULL frees harmless, reuse of live handles") {
  const Csc a = doc_matrix();
  const auto o = cpu_options();
  spral_ssids_inform inf;
  void* akeep = nullptr;
  void* fkeep = nullptr;
  std::vector<double> x = doc_rhs;
  spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, akeep, &fkeep, &o, &inf);
  CHECK(inf.flag == -1);
  spral_ssids_solve1(0, x.data(), akeep, fkeep, &o, &inf);
  CHECK(inf.flag == -1);
  spral_ssids_enquire_indef(akeep, fkeep, &o, &inf, nullptr, nullptr);
  CHECK(inf.flag == -1);
  spral_ssids_enquire_posdef(akeep, fkeep, &o, &inf, x.data());
  CHECK(inf.flag == -1);
  spral_ssids_alter(x.data(), akeep, fkeep, &o, &inf);
  CHECK(inf.flag == -1);
  spral_ssids_analyse(true, a.n, nullptr, a.ptr.data(), a.row.data(), nullptr, &akeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  spral_ssids_solve1(0, x.data(), akeep, fkeep, &o, &inf);  // solve before factor
  CHECK(inf.flag == -1);
  int not_a_handle = 0;
  spral_ssids_solve1(0, x.data(), akeep, &not_a_handle, &o, &inf);  // a pointer that is no handle
  CHECK(inf.flag == -1);
  spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, akeep, &fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  void* const first = fkeep;
  spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, akeep, &fkeep, &o, &inf);  // refactor
  REQUIRE(inf.flag == 0);
  CHECK(fkeep == first);  // the live handle is reused, not leaked
  void* const afirst = akeep;
  spral_ssids_analyse(true, a.n, nullptr, a.ptr.data(), a.row.data(), nullptr, &akeep, &o, &inf);
  CHECK(akeep == afirst);
  CHECK(spral_ssids_free_fkeep(&fkeep) == 0);
  CHECK(fkeep == nullptr);
  CHECK(spral_ssids_free_fkeep(&fkeep) == 0);  // twice: harmless
  spral_ssids_solve1(0, x.data(), akeep, first, &o, &inf);  // a freed handle
  CHECK(inf.flag == -1);
  CHECK(spral_ssids_free(&akeep, &fkeep) == 0);
  CHECK(akeep == nullptr);
  CHECK(spral_ssids_free(nullptr, nullptr) == 0);
  void* garbage = &not_a_handle;  // freeing something that is no handle only clears it
  CHECK(spral_ssids_free_akeep(&garbage) == 0);
  CHECK(garbage == nullptr);
}

TEST_CASE("capi: error flags") {
  const Csc a = doc_matrix();
  const auto o = cpu_options();
  spral_ssids_inform inf;

  SUBCASE("-2 n < 0, ne < 0; ne = 0 is an empty (structurally singular) matrix") {
    CHECK(analyse_flag({-1, {0}, {}, {}}, o) == -2);
    Handles h;
    int r = 0, c = 0;
    spral_ssids_analyse_coord(3, nullptr, -1, &r, &c, nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == -2);
    spral_ssids_analyse_coord(3, nullptr, 0, &r, &c, nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == 6);  // SPRAL's C wrapper crashes here
    CHECK(inf.matrix_rank == 0);
    spral_ssids_factor(false, nullptr, nullptr, nullptr, nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == 0);
    CHECK(inf.matrix_rank == 0);
  }
  SUBCASE("-3 bad ptr") {
    Csc b = a;
    b.ptr[2] = 1;  // decreasing
    CHECK(analyse_flag(b, o) == -3);
    CHECK(analyse_flag(a, cpu_options(1)) == -3);  // 0-based arrays with array_base 1: ptr[0] < 1
    CHECK(analyse_flag(a, cpu_options(2)) == -3);  // any base but 0 is Fortran indexing, as in SPRAL
  }
  SUBCASE("-4 all out of range") {
    Csc b{2, {0, 1, 2}, {7, 9}, {1.0, 1.0}};
    CHECK(analyse_flag(b, o) == -4);
    Handles h;
    std::vector<int> r = {5, 6}, c = {5, 6};
    spral_ssids_analyse_coord(2, nullptr, 2, r.data(), c.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == -4);
  }
  SUBCASE("-5 singular with action false, +7 with action true") {
    Csc s{3, {0, 2, 3, 3}, {0, 1, 1}, {1.0, 1.0, 1.0}};  // rank 1 on 2x2 block, zero column 2
    auto oa = o;
    oa.action = false;
    Handles h1, h2;
    CHECK(factor_flag(s, oa, false, h1, inf) == -5);
    CHECK(factor_flag(s, o, false, h2, inf) == 7);
    CHECK(inf.matrix_rank < 3);
  }
  SUBCASE("-6 not positive definite") {
    Handles h;
    CHECK(factor_flag(a, o, true, h, inf) == -6);
  }
  SUBCASE("-7 ptr or row missing, val missing in factor") {
    Handles h;
    spral_ssids_analyse(true, a.n, nullptr, nullptr, a.row.data(), nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == -7);
    spral_ssids_analyse(true, a.n, nullptr, a.ptr.data(), nullptr, nullptr, &h.akeep, &o, &inf);
    CHECK(inf.flag == -7);
    // as in SPRAL the handle exists after a failed analyse, and cannot be factorized
    REQUIRE(h.akeep != nullptr);
    spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == -1);
    // check = false: factor needs ptr and row again
    spral_ssids_analyse(false, a.n, nullptr, a.ptr.data(), a.row.data(), nullptr, &h.akeep, &o, &inf);
    REQUIRE(inf.flag == 0);
    spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == -7);
    spral_ssids_factor(false, a.ptr.data(), a.row.data(), a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == 0);
  }
  SUBCASE("-8 bad user order") {
    auto ou = o;
    ou.ordering = 0;
    std::vector<int> order = {0, 1, 1, 3, 4};
    CHECK(analyse_flag(a, ou, order.data()) == -8);
  }
  SUBCASE("-9 val missing for the matching ordering; +8 (factor) matching ordering without its scaling") {
    auto om = o;
    om.ordering = 2;
    CHECK(analyse_flag(a, om) == -9);
    CHECK(analyse_flag(a, om, nullptr, true) == 0);
    Handles h8;
    CHECK(factor_flag(a, om, false, h8, inf) == 8);
    std::vector<double> x8 = doc_rhs;
    spral_ssids_solve1(0, x8.data(), h8.akeep, h8.fkeep, &om, &inf);
    CHECK(inf.flag == 8);  // solve repeats factor's warning
    CHECK(max_abs_diff(x8, {1, 2, 3, 4, 5}) < 1e-12);
    om.scaling = 3;
    CHECK(analyse_flag(a, om, nullptr, true) == 0);
    Handles h;
    CHECK(factor_flag(a, om, false, h, inf) == 0);
    std::vector<double> x = doc_rhs;
    spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &om, &inf);
    CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
  }
  SUBCASE("-10 ldx < n or nrhs < 1; -11 bad job") {
    Handles h;
    REQUIRE(factor_flag(a, o, false, h, inf) == 0);
    std::vector<double> x(10, 1.0);
    spral_ssids_solve(0, 1, x.data(), 4, h.akeep, h.fkeep, &o, &inf);
    CHECK(inf.flag == -10);
    spral_ssids_solve(0, 0, x.data(), 5, h.akeep, h.fkeep, &o, &inf);
    CHECK(inf.flag == -10);
    spral_ssids_solve1(5, x.data(), h.akeep, h.fkeep, &o, &inf);
    CHECK(inf.flag == -11);
    spral_ssids_solve1(-1, x.data(), h.akeep, h.fkeep, &o, &inf);
    CHECK(inf.flag == -11);
  }
  SUBCASE("-13 / -14 enquire on the wrong kind of factors") {
    Handles hi, hp;
    REQUIRE(factor_flag(a, o, false, hi, inf) == 0);
    std::vector<double> d(10);
    spral_ssids_enquire_posdef(hi.akeep, hi.fkeep, &o, &inf, d.data());
    CHECK(inf.flag == -13);
    Csc p{2, {0, 1, 2}, {0, 1}, {2.0, 3.0}};
    REQUIRE(factor_flag(p, o, true, hp, inf) == 0);
    spral_ssids_enquire_indef(hp.akeep, hp.fkeep, &o, &inf, nullptr, d.data());
    CHECK(inf.flag == -14);
    spral_ssids_alter(d.data(), hp.akeep, hp.fkeep, &o, &inf);
    CHECK(inf.flag == -14);
  }
  SUBCASE("-15 scaling 3 without the matching ordering") {
    auto os = o;
    os.scaling = 3;
    Handles h;
    CHECK(factor_flag(a, os, false, h, inf) == -15);
  }
  SUBCASE("-8 ordering out of range (3, 4: extensions); scaling above 4 is equilibration, as in SPRAL") {
    auto ob = o;
    ob.ordering = 9;
    CHECK(analyse_flag(a, ob) == -8);
    ob.ordering = -1;
    CHECK(analyse_flag(a, ob) == -8);
    ob.ordering = 4;
    CHECK(analyse_flag(a, ob) == 0);
    ob = o;
    ob.scaling = 5;
    Handles h5, h4;
    std::vector<double> s5(5), s4(5);
    CHECK(factor_flag(a, ob, false, h5, inf, s5.data()) == 0);
    ob.scaling = 4;
    CHECK(factor_flag(a, ob, false, h4, inf, s4.data()) == 0);
    CHECK(s5 == s4);
  }
  SUBCASE("-20 zero, NaN or infinite user scaling (ssids extension)") {
    Handles h;
    std::vector<double> scale = {1.0, 1.0, 0.0, 1.0, 1.0};
    CHECK(factor_flag(a, o, false, h, inf, scale.data()) == -20);
  }
  SUBCASE("pivot_method and u out of range are clamped as SPRAL clamps them") {
    // pivot_method: min(3, max(1, value)); u: [0, 0.5]. Each clamped call gives bitwise the factors of the
    // clamped value.
    auto solve_with = [&](int pivot_method, double u) {
      auto oc = o;
      oc.pivot_method = pivot_method;
      oc.u = u;
      Handles h;
      spral_ssids_inform fi;
      REQUIRE(factor_flag(a, oc, false, h, fi) == 0);
      std::vector<double> x = doc_rhs;
      spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &oc, &fi);
      REQUIRE(fi.flag == 0);
      CHECK(max_abs_diff(x, {1, 2, 3, 4, 5}) < 1e-12);
      return x;
    };
    for (int pm : {-7, 0, 4, 1000}) {
      CAPTURE(pm);
      CHECK(solve_with(pm, o.u) == solve_with(2, o.u));
    }
    CHECK(solve_with(2, 7.0) == solve_with(2, 0.5));
    CHECK(solve_with(2, -1.0) == solve_with(2, 0.0));
  }
  SUBCASE("-21 NaN value") {
    Csc b = a;
    b.val[3] = std::nan("");
    Handles h;
    CHECK(factor_flag(b, o, false, h, inf) == -21);
  }
  SUBCASE("-50 allocation failure: the handle exists but cannot be factorized") {
    Handles h;
    ssids::inject_host_allocation_failure(0);
    spral_ssids_analyse(true, a.n, nullptr, a.ptr.data(), a.row.data(), nullptr, &h.akeep, &o, &inf);
    ssids::inject_host_allocation_failure(-1);
    CHECK(inf.flag == -50);
    spral_ssids_factor(false, nullptr, nullptr, a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
    CHECK(inf.flag == -1);
  }
}

TEST_CASE("capi: statistics with SPRAL's definitions - values SPRAL 2025.09.18 reported") {
  // Pinned from runs of SPRAL itself (the differential tests, label spral, compare them live where SPRAL is
  // installed): the 7x7 grid Laplacian in the order (17 i mod 49), nemin 32 and 4.
  const ssids::SymmetricMatrix a = ssids::generate_laplace2d(7);
  auto o = cpu_options();
  o.ordering = 0;
  std::vector<int> order(a.n);
  for (int i = 0; i < a.n; ++i) order[i] = (i * 17) % a.n;
  struct Pinned { int nemin, num_sup, maxdepth, maxfront, maxsupernode; int64_t num_factor, num_flops; };
  for (const Pinned& p : {Pinned{32, 2, 2, 46, 46, 1096, 33588}, Pinned{4, 10, 4, 15, 13, 439, 4581}}) {
    CAPTURE(p.nemin);
    o.nemin = p.nemin;
    Handles h;
    spral_ssids_inform inf;
    std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
    std::vector<int> row(a.row.begin(), a.row.end()), ord = order;
    spral_ssids_analyse(true, a.n, ord.data(), ptr.data(), row.data(), nullptr, &h.akeep, &o, &inf);
    REQUIRE(inf.flag == 0);
    for (int pass = 0; pass < 3; ++pass) {  // analyse, factor, solve report the same tree
      CAPTURE(pass);
      CHECK(inf.num_sup == p.num_sup);
      CHECK(inf.maxdepth == p.maxdepth);
      CHECK(inf.maxfront == p.maxfront);
      CHECK(inf.maxsupernode == p.maxsupernode);
      CHECK(inf.num_factor == p.num_factor);
      CHECK(inf.num_flops == p.num_flops);
      CHECK(inf.matrix_rank == a.n);
      if (pass == 0) {
        spral_ssids_factor(true, nullptr, nullptr, a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
      } else if (pass == 1) {
        std::vector<double> x(a.n, 1.0);
        spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
      }
      REQUIRE(inf.flag == 0);
    }
  }
  // A KKT system smaller than nemin is one front (SPRAL's nemin rule merges it whole): num_flops is
  // sum_{k=1..n} k^2 for n = 28 (the "5176 against 170" was this tree against our relaxed one)
  const ssids::SymmetricMatrix k = ssids::generate_kkt_qp(20, 8, 0.0, 1);
  Handles h;
  spral_ssids_inform inf;
  auto ok = cpu_options();
  std::vector<int64_t> ptr(k.ptr.begin(), k.ptr.end());
  std::vector<int> row(k.row.begin(), k.row.end());
  spral_ssids_analyse(true, k.n, nullptr, ptr.data(), row.data(), nullptr, &h.akeep, &ok, &inf);
  CHECK(inf.flag == 4);  // the (2,2) block has no diagonal
  CHECK(inf.num_sup == 1);
  CHECK(inf.maxfront == 28);
  CHECK(inf.num_factor == 28 * 29 / 2);
  CHECK(inf.num_flops == 28 * 29 * 57 / 6);
  spral_ssids_factor(false, nullptr, nullptr, k.val.data(), nullptr, h.akeep, &h.fkeep, &ok, &inf);
  CHECK(inf.flag == 4);  // analyse's warning carries over
  CHECK(inf.num_neg == 8);
  std::vector<double> x(k.n, 1.0);
  spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &ok, &inf);
  CHECK(inf.flag == 4);
  CHECK(inf.num_neg == 8);  // solve reports the factorization's inertia (IPOPT reads it there)
  CHECK(inf.num_flops == 28 * 29 * 57 / 6);
}

TEST_CASE("capi: CUDA and cuBLAS statuses reach cuda_error and cublas_error") {
  spral_ssids_inform inf;
  std::memset(&inf, 0, sizeof(inf));
  ssids::capi::inform_from_error(ssids::Error(ssids::flag::cuda, "kernel failed", 719), inf);
  CHECK(inf.flag == -51);
  CHECK(inf.cuda_error == 719);
  CHECK(inf.cublas_error == 0);
  std::memset(&inf, 0, sizeof(inf));
  ssids::capi::inform_from_error(ssids::Error(ssids::flag::cublas, "gemm failed", 14), inf);
  CHECK(inf.flag == -52);
  CHECK(inf.cublas_error == 14);
  CHECK(inf.cuda_error == 0);
  std::memset(&inf, 0, sizeof(inf));
  ssids::capi::inform_from_error(ssids::Error(ssids::flag::allocation, "out of memory"), inf);
  CHECK(inf.flag == -50);
  CHECK(inf.cuda_error == 0);
}

TEST_CASE("capi: input warnings +1..+6 and the counts") {
  const auto o = cpu_options();
  // 3x3, entries chosen per case; all matrices nonsingular once cleaned
  auto flag_of = [&](const Csc& m, spral_ssids_inform& inf) {
    Handles h;
    spral_ssids_analyse(true, m.n, nullptr, m.ptr.data(), m.row.data(), nullptr, &h.akeep, &o, &inf);
    return inf.flag;
  };
  spral_ssids_inform inf;
  CHECK(flag_of({3, {0, 3, 4, 5}, {0, 1, 9, 1, 2}, {1, 1, 1, 1, 1}}, inf) == 1);
  CHECK(inf.matrix_outrange == 1);
  CHECK(flag_of({3, {0, 3, 4, 5}, {0, 1, 1, 1, 2}, {1, 1, 1, 1, 1}}, inf) == 2);
  CHECK(inf.matrix_dup == 2);  // SPRAL counts a duplicate of CSC input twice
  CHECK(flag_of({3, {0, 4, 5, 6}, {0, 1, 1, 9, 1, 2}, {1, 1, 1, 1, 1, 1}}, inf) == 3);
  CHECK(flag_of({3, {0, 2, 3, 4}, {0, 1, 2, 2}, {1, 1, 1, 1}}, inf) == 4);  // column 1 has no diagonal
  CHECK(inf.matrix_missing_diag == 0);  // SPRAL reports the warning, never the count
  CHECK(flag_of({3, {0, 3, 4, 5}, {0, 1, 1, 2, 2}, {1, 1, 1, 1, 1}}, inf) == 5);
  // coordinate form: an out-of-range column counts too
  Handles h;
  std::vector<int> r = {0, 1, 2, 1, 0}, c = {0, 1, 2, 0, 8};
  spral_ssids_analyse_coord(3, nullptr, 5, r.data(), c.data(), nullptr, &h.akeep, &o, &inf);
  CHECK(inf.flag == 1);
  CHECK(inf.matrix_outrange == 1);
  // upper-triangle entries of CSC input are out of range (coordinate input mirrors them)
  CHECK(flag_of({3, {0, 1, 3, 4}, {0, 0, 1, 2}, {1, 1, 1, 1}}, inf) == 1);
  CHECK(inf.matrix_outrange == 1);
  CHECK(inf.num_sup == 3);  // what is left is diagonal
  // +6: a column without any entry
  CHECK(flag_of({3, {0, 1, 1, 2}, {0, 2}, {1, 1}}, inf) == 6);
  CHECK(inf.matrix_rank == 2);
  CHECK(inf.num_sup == 2);
  // +6: structurally singular, detected by the matching ordering
  auto om = o;
  om.ordering = 2;
  om.scaling = 3;
  Csc s2{3, {0, 3, 3, 3}, {0, 1, 2}, {1.0, 1.0, 1.0}};  // variables 1 and 2 couple only to 0
  Handles h6;
  spral_ssids_analyse(true, s2.n, nullptr, s2.ptr.data(), s2.row.data(), s2.val.data(), &h6.akeep, &om, &inf);
  CHECK(inf.flag == 6);
}

namespace {

/// One shared KKT matrix through the C API (1-based copies of the pattern, as a Fortran caller would pass
/// them) against the C++ API with default options and SPRAL's amalgamation (as the C interface builds it): same inertia, bitwise the same solution, and a scaled
/// backward error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) below 1e-12 from a plain solve.
///
/// Two matrices are exceptions, documented with measurements (README, "Accuracy on KKT systems"): with
/// SPRAL's default threshold u = 0.01 the factors of mm_CONT-050_kkt and mm_CONT-201_kkt grow by
/// || |L||D||L^T| ||_inf / ||A||_inf = 2.4e5 and 1.2e7 although every |l_ij| <= 1/u, so a plain solve gives
/// 3.2e-12 and 7.1e-10 (SPRAL 2025.09.18's own SSIDS gives 4.8e-12 and 2.5e-10 on the same ordering). For
/// them the test asserts the measured level (with head room for other CPUs and BLAS builds), that one
/// refinement step done through the C API reaches 1e-12, and that a plain solve reaches 1e-12 with u = 0.1
/// (SPRAL's documented remedy), on the CPU.
struct GrowthLimited {
  const char* name;
  double plain_bound;  ///< about 5x the measured plain-solve backward error with u = 0.01
};
constexpr GrowthLimited growth_limited[] = {{"mm_CONT-050_kkt.mtx.gz", 2e-11}, {"mm_CONT-201_kkt.mtx.gz", 4e-9}};

/// Analyse, factor and solve A x = b through the C API with options o on 1-based copies of a; returns x.
std::vector<double> solve_through_capi(const ssids::SymmetricMatrix& a, const spral_ssids_options& o,
                                       const std::vector<double>& b, Handles& h, spral_ssids_inform& inf) {
  std::vector<int64_t> ptr(a.ptr.begin(), a.ptr.end());
  std::vector<int> row(a.row.begin(), a.row.end());
  for (auto& p : ptr) ++p;
  for (auto& r : row) ++r;
  spral_ssids_analyse(false, a.n, nullptr, ptr.data(), row.data(), nullptr, &h.akeep, &o, &inf);
  REQUIRE(inf.flag >= 0);
  spral_ssids_factor(false, ptr.data(), row.data(), a.val.data(), nullptr, h.akeep, &h.fkeep, &o, &inf);
  REQUIRE(inf.flag >= 0);
  const spral_ssids_inform factor_inform = inf;
  std::vector<double> x = b;
  spral_ssids_solve1(0, x.data(), h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  inf = factor_inform;
  return x;
}

void check_kkt(const std::string& name, bool gpu = false) {
  const std::string dir = ssids_test::matrices_dir();
  const auto manifest = dir.empty() ? decltype(ssids_test::read_manifest(dir)){} : ssids_test::read_manifest(dir);
  auto it = manifest.find(name);
  if (it == manifest.end()) {
    ssids_test::skip("matrix " + name + " not in the shared matrices");
    return;
  }
  REQUIRE(it->second.kind.find("KKT") != std::string::npos);
  const ssids::SymmetricMatrix a = ssids::read_symmetric(dir + "/" + name);
  ssids::Options opt;
  opt.amalgamation = ssids::Amalgamation::spral;  // the C interface builds SPRAL's tree
  opt.u = static_cast<double>(0.01f);             // and SPRAL's default u is the float constant 0.01
  opt.backend = gpu ? ssids::Backend::gpu : ssids::Backend::cpu;
  ssids_test::PipelineResult ref = ssids_test::run_pipeline(a, opt, ssids::Mode::indefinite, 0);

  auto o = cpu_options(1);
  if (gpu) {  // use_gpu with no minimum work: the C layer picks the GPU for every matrix
    o.use_gpu = true;
    o.min_gpu_work = 0;
  }
  Handles h;
  spral_ssids_inform inf;
  const std::vector<double> b = ssids_test::make_rhs(a);
  std::vector<double> x = solve_through_capi(a, o, b, h, inf);
  CHECK(inf.num_neg == ref.inform.num_neg);
  CHECK(inf.matrix_rank == ref.inform.matrix_rank);
  CHECK(inf.num_two == ref.inform.num_two);
  if (it->second.num_neg_reference >= 0 && !ssids_test::marked_singular(name, &it->second))
    CHECK(inf.num_neg == it->second.num_neg_reference);
  CHECK(std::memcmp(x.data(), ref.x.data(), sizeof(double) * a.n) == 0);  // same factors, same answer
  const double be = ssids::scaled_backward_error(a, x.data(), b.data(), 1, a.n);
  MESSAGE(name << ": backward error " << be << " (plain solve, u = 0.01)");
  if (ssids_test::marked_singular(name, &it->second)) return;

  const GrowthLimited* gl = nullptr;
  for (const GrowthLimited& g : growth_limited)
    if (name == g.name) gl = &g;
  if (!gl) {
    CHECK(be < 1e-12);
    return;
  }
  if (!gpu) CHECK(be < gl->plain_bound);  // the GPU path pivots differently: only the remedies are checked
  // remedy 1: one refinement step through the C API, x += A^{-1} (b - A x)
  std::vector<double> r(a.n);
  ssids::symmetric_multiply(a, x.data(), r.data());
  for (int i = 0; i < a.n; ++i) r[i] = b[i] - r[i];
  spral_ssids_solve1(0, r.data(), h.akeep, h.fkeep, &o, &inf);
  REQUIRE(inf.flag == 0);
  for (int i = 0; i < a.n; ++i) x[i] += r[i];
  const double be1 = ssids::scaled_backward_error(a, x.data(), b.data(), 1, a.n);
  MESSAGE(name << ": backward error " << be1 << " (one refinement step)");
  CHECK(be1 < 1e-12);
  if (gpu) return;
  // remedy 2: u = 0.1 bounds |l_ij| by 10 and the growth with it; a plain solve is enough
  auto o1 = o;
  o1.u = 0.1;
  Handles h1;
  spral_ssids_inform inf1;
  const std::vector<double> x1 = solve_through_capi(a, o1, b, h1, inf1);
  CHECK(inf1.num_neg == ref.inform.num_neg);
  const double be01 = ssids::scaled_backward_error(a, x1.data(), b.data(), 1, a.n);
  MESSAGE(name << ": backward error " << be01 << " (plain solve, u = 0.1)");
  CHECK(be01 < 1e-12);
}

}  // namespace

TEST_CASE("capi: KKT matrices through the C API on the GPU" * doctest::test_suite("gpu")) {
  std::string why;
  if (!ssids::detail::gpu_available(&why)) {
    ssids_test::skip("no GPU: " + why);
    return;
  }
  for (const char* name : {"case118_10.mtx.gz", "hangGlider_2.mtx.gz", "sqd_qpcboei1_2x2_it5.mtx.gz",
                           "ACTIVSg200_AC_10.mtx.gz", "mm_CONT-050_kkt.mtx.gz", "sqd_cvxqp1_m_2x2_it10.mtx.gz",
                           "case1354pegase_30.mtx.gz", "sqd_aug3dqp_3x3_it5.mtx.gz", "mm_CONT-201_kkt.mtx.gz"}) {
    CAPTURE(name);
    check_kkt(name, true);
  }
}

// The MANIFEST's KKT matrices, one test case each; ncvxqp1 (about 30 s on 2 cores, many delayed pivots) is "slow".
TEST_CASE("capi: KKT case118_10") { check_kkt("case118_10.mtx.gz"); }
TEST_CASE("capi: KKT hangGlider_2") { check_kkt("hangGlider_2.mtx.gz"); }
TEST_CASE("capi: KKT sqd_qpcboei1_2x2_it5") { check_kkt("sqd_qpcboei1_2x2_it5.mtx.gz"); }
TEST_CASE("capi: KKT ACTIVSg200_AC_10") { check_kkt("ACTIVSg200_AC_10.mtx.gz"); }
TEST_CASE("capi: KKT mm_CONT-050_kkt") { check_kkt("mm_CONT-050_kkt.mtx.gz"); }
TEST_CASE("capi: KKT sqd_cvxqp1_m_2x2_it10") { check_kkt("sqd_cvxqp1_m_2x2_it10.mtx.gz"); }
TEST_CASE("capi: KKT ncvxqp1" * doctest::test_suite("slow")) { check_kkt("ncvxqp1.mtx.gz"); }
TEST_CASE("capi: KKT case1354pegase_30") { check_kkt("case1354pegase_30.mtx.gz"); }
TEST_CASE("capi: KKT sqd_aug3dqp_3x3_it5") { check_kkt("sqd_aug3dqp_3x3_it5.mtx.gz"); }
TEST_CASE("capi: KKT mm_CONT-201_kkt") { check_kkt("mm_CONT-201_kkt.mtx.gz"); }

TEST_CASE("capi: every KKT matrix of the MANIFEST has a test case above") {
  const std::string dir = ssids_test::matrices_dir();
  if (dir.empty()) {
    ssids_test::skip("no shared test matrices");
    return;
  }
  const std::vector<std::string> covered = {"case118_10.mtx.gz", "hangGlider_2.mtx.gz", "sqd_qpcboei1_2x2_it5.mtx.gz",
      "ACTIVSg200_AC_10.mtx.gz", "mm_CONT-050_kkt.mtx.gz", "sqd_cvxqp1_m_2x2_it10.mtx.gz", "ncvxqp1.mtx.gz",
      "case1354pegase_30.mtx.gz", "sqd_aug3dqp_3x3_it5.mtx.gz", "mm_CONT-201_kkt.mtx.gz"};
  for (const auto& [name, e] : ssids_test::read_manifest(dir)) {
    if (e.kind.find("KKT") == std::string::npos) continue;
    CAPTURE(name);
    CHECK(std::find(covered.begin(), covered.end(), name) != covered.end());
  }
}
