// test_reanalyse.cpp — cheap re-analysis: an unchanged pattern returns the previous analysis (same object,
// same statistics, same factors), a changed pattern or changed options analyse afresh, and the matching
// ordering (value-dependent) recomputes at least its scaling.
#include <doctest/doctest.h>

#include <chrono>

#include "ssids/analyse.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;

TEST_CASE("reanalyse: an unchanged pattern reuses the analysis") {
  SymmetricMatrix a = generate_laplace3d(24, 1.3);
  Options o;
  Inform i1, i2;
  auto t0 = std::chrono::steady_clock::now();
  Analysis first = analyse(a.view(), o, i1);
  auto t1 = std::chrono::steady_clock::now();
  SymmetricMatrix b = a;  // same pattern, new values
  for (auto& v : b.val) v *= 1.5;
  Analysis again = reanalyse(first, b.view(), o, i2);
  auto t2 = std::chrono::steady_clock::now();
  CHECK(&again.symbolic() == &first.symbolic());
  CHECK(i2.num_factor == i1.num_factor);
  CHECK(i2.num_sup == i1.num_sup);
  CHECK(i2.flag == i1.flag);
  const double ta = std::chrono::duration<double>(t1 - t0).count(), tr = std::chrono::duration<double>(t2 - t1).count();
  MESSAGE("analyse " << ta << " s, reanalyse " << tr << " s (" << 100.0 * tr / ta << "%)");
  // factors from the reused analysis equal those from a fresh one
  Inform fi;
  Analysis fresh = analyse(b.view(), o, fi);
  auto f1 = factor(again, b.val.data(), Mode::indefinite, o, fi);
  auto f2 = factor(fresh, b.val.data(), Mode::indefinite, o, fi);
  CHECK(ssids_test::hash_factors(f1) == ssids_test::hash_factors(f2));
  // 1-based arrays with the same pattern are the same pattern
  Vector<offset_t> p1(a.ptr.begin(), a.ptr.end());
  Vector<index_t> r1(a.row.begin(), a.row.end());
  for (auto& v : p1) ++v;
  for (auto& v : r1) ++v;
  CscView v1{a.n, p1.data(), r1.data(), a.val.data(), 1};
  Inform i3;
  CHECK(&reanalyse(first, v1, o, i3).symbolic() == &first.symbolic());
}

TEST_CASE("reanalyse: a changed pattern or changed options analyse afresh") {
  SymmetricMatrix a = ssids_test::random_symmetric(200, 0.05, 1.0, 1.0, 5);
  Options o;
  Inform inf;
  Analysis first = analyse(a.view(), o, inf);
  // one entry fewer
  SymmetricMatrix b = ssids_test::random_symmetric(200, 0.05, 1.0, 1.0, 6);
  Analysis other = reanalyse(first, b.view(), o, inf);
  CHECK(&other.symbolic() != &first.symbolic());
  Inform direct;
  CHECK(analyse(b.view(), o, direct).num_factor() == other.num_factor());
  Options o2 = o;
  o2.nemin = 1;
  CHECK(&reanalyse(first, a.view(), o2, inf).symbolic() != &first.symbolic());
  o2 = o;
  o2.ordering = Ordering::natural;
  CHECK(&reanalyse(first, a.view(), o2, inf).symbolic() != &first.symbolic());
  // the matching ordering depends on the values: its scaling is always recomputed, so never the same object
  // (test_reanalyse_reuse.cpp checks what it reuses)
  Options om = o;
  om.ordering = Ordering::matching;
  Analysis m1 = analyse(a.view(), om, inf);
  CHECK(&reanalyse(m1, a.view(), om, inf).symbolic() != &m1.symbolic());
  // an empty previous analysis just analyses
  CHECK(reanalyse(Analysis(), a.view(), o, inf).num_factor() == first.num_factor());
}
