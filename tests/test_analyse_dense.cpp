// test_analyse_dense.cpp — dense rows are ordered last by every fill-reducing ordering (linear fill where
// eliminating them early would fill everything), the factorization keeps the exact inertia, the matching
// ordering's analysis of a large dense-row KKT matrix is the same on one and two threads, and the predicted
// memory of analyse and factor is checked before allocating (a clear allocation error with the bytes).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "analyse/dense_rows.hpp"
#include "analyse/memory_check.hpp"
#include "analyse/nested_dissection.hpp"
#include "analyse/symbolic.hpp"
#include "analyse/validate.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/spral_ssids.h"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;

namespace {

detail::Graph graph_of(const SymmetricMatrix& a) {
  detail::InputCheck check;
  return detail::clean_pattern(a.view(), check);
}

/// Arrow matrix: a tridiagonal band plus row/column `hub` coupled to every variable (diagonally dominant).
SymmetricMatrix arrow(int n, int hub) {
  std::vector<int> r, c;
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    r.push_back(i), c.push_back(i), v.push_back(4.0 + (i == hub ? n : 0));
    if (i + 1 < n) r.push_back(i + 1), c.push_back(i), v.push_back(-1.0);
    if (i != hub && std::abs(i - hub) > 1) r.push_back(std::max(i, hub)), c.push_back(std::min(i, hub)), v.push_back(0.5);
  }
  return ssids_test::from_triplets(n, r, c, v);
}

struct AvailableGuard {  // restores the machine's own figure
  ~AvailableGuard() { detail::set_available_host_bytes_for_testing(-1); }
};

}  // namespace

TEST_CASE("dense rows: detected above max(16, 10 sqrt(n)) and numbered last") {
  const SymmetricMatrix a = arrow(3000, 0);
  const detail::Graph g = graph_of(a);
  const Vector<index_t> dense = detail::dense_vertices(g);
  REQUIRE(dense.size() == 1);
  CHECK(dense[0] == 0);
  CHECK(detail::dense_vertices(graph_of(generate_laplace3d(12, 0.0))).empty());
  // the identity as the inner order: the dense vertex moves to the end, the rest keep their order
  auto identity = [](const detail::Graph& h, const index_t*) {
    Vector<index_t> p(static_cast<size_t>(h.n));
    for (index_t k = 0; k < h.n; ++k) p[k] = k;
    return p;
  };
  const Vector<index_t> p = detail::order_dense_last(g, nullptr, +identity);
  CHECK(p.back() == 0);
  for (index_t k = 0; k + 1 < g.n; ++k) CHECK(p[k] == k + 1);
}

TEST_CASE("dense rows: METIS - AMD and the matching ordering put them last - fill stays linear") {
  const SymmetricMatrix a = arrow(4000, 1234);
  Options natural;
  natural.ordering = Ordering::natural;
  Inform inf;
  // eliminated first, the hub fills everything after it
  const offset_t quadratic = analyse(arrow(4000, 0).view(), natural, inf).num_factor();
  CHECK(quadratic > 4000LL * 1900);
  for (Ordering ord : {Ordering::metis, Ordering::amd, Ordering::matching}) {
    Options o;
    o.ordering = ord;
    const Analysis an = analyse(a.view(), o, inf);
    CHECK(an.order()[1234] == 3999);
    CHECK(an.num_factor() < 40 * 4000);  // linear (amalgamation pads the band's supernodes)
  }
}

TEST_CASE("dense rows: a QP with dense linking constraints keeps its exact inertia with every ordering") {
  const index_t nvar = 3000, ncon = 1500, nd = 6;
  const SymmetricMatrix a = generate_kkt_dense(nvar, ncon, nd, 4);
  const SymmetricMatrix rest = generate_kkt_qp(nvar, ncon, 0.0, 4);
  Inform inf;
  const offset_t base = analyse(rest.view(), Options{}, inf).num_factor();
  for (Ordering ord : {Ordering::metis, Ordering::amd, Ordering::matching}) {
    Options o;
    o.ordering = ord;
    o.scaling = ord == Ordering::matching ? Scaling::from_ordering : Scaling::matching;
    const auto r = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
    CHECK(r.inform.num_neg == ncon + nd);
    CHECK(r.inform.num_pos == nvar);
    CHECK(r.backward_error < 1e-12);
    const Vector<index_t> order = r.analysis.order();
    // among the last (a dense row paired with a variable by the matching ordering goes last with it)
    for (index_t d = 0; d < nd; ++d) CHECK(order[nvar + ncon + d] >= a.n - 3 * nd);
    // the dense rows add about one row of L each, not a fill of the rest
    CHECK(r.analysis.num_factor() < 2 * base + static_cast<offset_t>(nd) * a.n);
  }
}

TEST_CASE("dense rows: the matching ordering above the leaf size - dense rows last - one and two threads alike") {
  // n above kNdLeafVertices: nested dissection by tasks, and the plain candidate ordered beside the matching
  // (ordering_matching.cpp); the matching takes the dense columns last (common/matching.cpp)
  const index_t nvar = 24000, ncon = 12000, nd = 8;
  const SymmetricMatrix a = generate_kkt_dense(nvar, ncon, nd, 5);
  REQUIRE(a.n > detail::kNdLeafVertices);
  Options o;
  o.ordering = Ordering::matching;
  o.scaling = Scaling::from_ordering;
  o.num_threads = 1;
  Inform inf;
  const Analysis one = analyse(a.view(), o, inf);
  o.num_threads = 2;
  const auto r = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
  const detail::Symbolic &s1 = one.symbolic(), &s2 = r.analysis.symbolic();
  CHECK(s1.perm == s2.perm);
  CHECK(s1.sptr == s2.sptr);
  CHECK(s1.matching_scale == s2.matching_scale);
  CHECK(s2.matched == a.n);
  CHECK_FALSE(s2.structurally_singular);
  const Vector<index_t> order = r.analysis.order();
  for (index_t d = 0; d < nd; ++d) CHECK(order[nvar + ncon + d] >= a.n - 2 * nd);
  CHECK(r.inform.num_neg == ncon + nd);
  CHECK(r.inform.num_pos == nvar);
  CHECK(r.backward_error < 1e-12);
}

TEST_CASE("memory check: analyse and factor fail with an allocation error that gives the predicted bytes") {
  AvailableGuard guard;
  const SymmetricMatrix a = generate_laplace3d(14, 0.0);
  Options o;
  Inform inf;
  detail::set_available_host_bytes_for_testing(1000);
  bool thrown = false;
  try {
    analyse(a.view(), o, inf);
  } catch (const Error& e) {
    thrown = true;
    CHECK(e.code() == flag::allocation);
    CHECK(std::string(e.what()).find("predicted") != std::string::npos);
    CHECK(std::string(e.what()).find("bytes") != std::string::npos);
  }
  CHECK(thrown);
  CHECK(inf.flag == flag::allocation);
  // analyse fits; the factorization (memory_host) does not
  detail::set_available_host_bytes_for_testing(-1);
  const Analysis an = analyse(a.view(), o, inf);
  detail::set_available_host_bytes_for_testing(an.memory_host() - 1);
  CHECK_THROWS_AS(factor(an, a.val.data(), Mode::indefinite, o, inf), Error);
  detail::set_available_host_bytes_for_testing(an.memory_host() + (std::int64_t{1} << 20));
  CHECK_NOTHROW(factor(an, a.val.data(), Mode::indefinite, o, inf));
  // through the C interface: flag -50, and (SPRAL's semantics) a handle that later calls refuse
  detail::set_available_host_bytes_for_testing(1000);
  spral_ssids_options co;
  spral_ssids_default_options(&co);
  co.use_gpu = false;
  std::vector<int> ptr(a.ptr.begin(), a.ptr.end()), row(a.row.begin(), a.row.end());
  void* akeep = nullptr;
  spral_ssids_inform ci;
  spral_ssids_analyse_ptr32(false, a.n, nullptr, ptr.data(), row.data(), nullptr, &akeep, &co, &ci);
  CHECK(ci.flag == flag::allocation);
  detail::set_available_host_bytes_for_testing(-1);
  void* fkeep = nullptr;
  spral_ssids_inform fi;
  spral_ssids_factor_ptr32(false, ptr.data(), row.data(), a.val.data(), nullptr, akeep, &fkeep, &co, &fi);
  CHECK(fi.flag == flag::call_sequence);
  spral_ssids_free_fkeep(&fkeep);
  spral_ssids_free_akeep(&akeep);
  CHECK(akeep == nullptr);
}

TEST_CASE("memory check: the machine's figure is positive where it can be read") {
  const std::int64_t avail = detail::available_host_bytes();
#if defined(__linux__)
  CHECK(avail > 0);
#else
  CHECK(avail >= -1);
#endif
}

TEST_CASE("memory check: a recent reading serves small predictions only - a large one reads again") {
  const std::int64_t avail = detail::available_host_bytes();
  const char* off = std::getenv("SSIDS_MEMORY_CHECK");
  if (avail <= 0 || (off && std::string(off) == "0")) return;  // nothing to check against, or checks off
  CHECK_NOTHROW(detail::check_host_memory(1, "test: a small prediction"));  // a reading, kept for a second
  CHECK_NOTHROW(detail::check_host_memory(1, "test: a small prediction"));  // served by it
  // larger than a quarter of that reading: read again, and more than the machine has fails at once
  CHECK_THROWS_AS(detail::check_host_memory(avail / 2 + 2 * avail, "test: too much"), Error);
  CHECK_NOTHROW(detail::check_host_memory(1, "test: a small prediction"));
}

TEST_CASE("kkt-dense generator: dense rows last - every variable coupled - spec and argument errors") {
  const SymmetricMatrix a = load_symmetric("gen:kkt-dense:500:200:3:2");
  CHECK(a.n == 703);
  // every variable column holds the three dense rows, the last rows of the matrix
  for (index_t j = 0; j < 500; ++j) {
    int dense = 0;
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) dense += a.row[k] >= 700;
    CHECK(dense == 3);
  }
  const detail::Graph g = graph_of(a);
  CHECK(detail::dense_vertices(g).size() == 3);
  CHECK_THROWS_AS(load_symmetric("gen:kkt-dense:500:400:200"), Error);  // NCON + NDENSE > NVAR
  CHECK_THROWS_AS(load_symmetric("gen:kkt-dense:500:200:-1"), Error);
}
