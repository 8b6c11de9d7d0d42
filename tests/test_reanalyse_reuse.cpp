// test_reanalyse_reuse.cpp — reuse of an analysis for the same input: the exact check of the input, reuse under
// every ordering, the matching ordering along an interior-point-like sequence (the result equals a fresh
// analysis, bitwise), the keep_compatible policy (exact inertia, small backward error), and the C interface's
// cache of analyses (bounds, eviction, threads, an IPOPT-like caller that frees its handles).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "analyse/analysis_cache.hpp"
#include "analyse/reanalyse.hpp"
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
using detail::ReuseKind;

namespace {

/// Everything an analysis decided, for bitwise comparisons (the matching scaling included).
struct Shape {
  Vector<index_t> perm, sptr, sparent, rlist;
  Vector<double> scale;
  offset_t num_factor = 0, num_flops = 0;
  bool operator==(const Shape& o) const {
    return perm == o.perm && sptr == o.sptr && sparent == o.sparent && rlist == o.rlist && scale == o.scale &&
           num_factor == o.num_factor && num_flops == o.num_flops;
  }
};
Shape shape_of(const Analysis& an) {
  const detail::Symbolic& s = an.symbolic();
  return Shape{s.perm, s.sptr, s.sparent, s.rlist, s.matching_scale, s.num_factor, s.num_flops};
}

bool same_input(const Analysis& an, const SymmetricMatrix& m, const Options& o, const index_t* order = nullptr) {
  return detail::same_input(an.symbolic(), m.view(), o, order);
}

struct PolicyGuard {  // sets the process-wide policy for one test case, and restores it
  detail::MatchingReuse saved = detail::matching_reuse();
  explicit PolicyGuard(detail::MatchingReuse p) { detail::set_matching_reuse(p); }
  ~PolicyGuard() { detail::set_matching_reuse(saved); }
};

/// Options of the matching ordering with its scaling, on `threads` threads (0: OpenMP's default).
Options matching_options(int threads = 0) {
  Options o;
  o.ordering = Ordering::matching;
  o.scaling = Scaling::from_ordering;
  o.num_threads = threads;
  return o;
}

/// One step of a sequence of one pattern: `prev` becomes the re-analysis of `a`; returns what it reused.
ReuseKind reanalyse_step(Analysis& prev, const SymmetricMatrix& a, const Options& o) {
  Inform inf;
  ReuseKind kind = ReuseKind::none;
  prev = detail::reanalyse_kind(prev, a.view(), o, inf, nullptr, &kind);
  return kind;
}

}  // namespace

TEST_CASE("reanalyse: the exact input check sees every change of the arrays") {
  const SymmetricMatrix a = ssids_test::random_symmetric(120, 0.05, 1.0, 1.0, 11);
  Options o;
  Inform inf;
  const Analysis an = analyse(a.view(), o, inf);
  CHECK(same_input(an, a, o));
  // two rows of one column swapped: same pattern, but the values land elsewhere
  SymmetricMatrix b = a;
  index_t col = 0;
  while (b.ptr[col + 1] - b.ptr[col] < 3) ++col;
  std::swap(b.row[b.ptr[col] + 1], b.row[b.ptr[col] + 2]);
  CHECK_FALSE(same_input(an, b, o));
  // one row index moved to another row: another pattern with the same n and entry count
  b = a;
  b.row[b.ptr[col] + 1] = (b.row[b.ptr[col] + 1] + 1) % a.n;
  CHECK_FALSE(same_input(an, b, o));
  // an entry given in the upper triangle instead: the same pairs, but the mirrored count differs
  const SymmetricMatrix u = ssids_test::from_triplets(3, {0, 1, 2, 2}, {0, 1, 2, 0}, {4, 4, 4, 1});
  const Analysis au = analyse(u.view(), o, inf);
  std::vector<offset_t> p{0, 1, 2, 4};
  std::vector<index_t> r{0, 1, 0, 2};  // column 2 holds (0, 2), an upper-triangle entry
  CHECK_FALSE(detail::same_input(au.symbolic(), CscView{3, p.data(), r.data(), nullptr, 0}, o, nullptr));
  // out-of-range entries: any out-of-range value is the same input, an in-range one is not
  std::vector<offset_t> pp{0, 3, 4, 5};
  std::vector<index_t> r1{0, 2, 9, 1, 2}, r2{0, 2, -4, 1, 2}, r3{0, 2, 1, 1, 2};
  const Analysis ao = analyse(CscView{3, pp.data(), r1.data(), nullptr, 0}, o, inf);
  CHECK(detail::same_input(ao.symbolic(), CscView{3, pp.data(), r2.data(), nullptr, 0}, o, nullptr));
  CHECK_FALSE(detail::same_input(ao.symbolic(), CscView{3, pp.data(), r3.data(), nullptr, 0}, o, nullptr));
  // the shaping options and the user order
  Options o2 = o;
  o2.nemin = 8;
  CHECK_FALSE(same_input(an, a, o2));
  o2 = o;
  o2.amalgamation_zeros = 0.1;
  CHECK_FALSE(same_input(an, a, o2));
  o2 = o;
  o2.num_threads = 3;  // not a shaping option
  CHECK(same_input(an, a, o2));
  Options ou = o;
  ou.ordering = Ordering::user;
  std::vector<index_t> order(static_cast<size_t>(a.n));
  for (index_t i = 0; i < a.n; ++i) order[i] = a.n - 1 - i;
  const Analysis user = analyse(a.view(), ou, inf, order.data());
  CHECK(same_input(user, a, ou, order.data()));
  std::swap(order[0], order[1]);
  CHECK_FALSE(same_input(user, a, ou, order.data()));
}

TEST_CASE("reanalyse: METIS - AMD - natural and user orders reuse the whole analysis") {
  const SymmetricMatrix a = generate_laplace3d(12, 0.5);
  std::vector<index_t> order(static_cast<size_t>(a.n));
  for (index_t i = 0; i < a.n; ++i) order[i] = (i * 7) % a.n;  // 7 is prime to 1728
  for (Ordering ord : {Ordering::metis, Ordering::amd, Ordering::natural, Ordering::user}) {
    Options o;
    o.ordering = ord;
    Inform i1, i2;
    const index_t* ordp = ord == Ordering::user ? order.data() : nullptr;
    const Analysis first = analyse(a.view(), o, i1, ordp);
    SymmetricMatrix b = a;
    for (double& v : b.val) v = -2.0 * v + 0.25;
    ReuseKind kind = ReuseKind::none;
    const Analysis again = detail::reanalyse_kind(first, b.view(), o, i2, ordp, &kind);
    CHECK(kind == ReuseKind::whole);
    CHECK(&again.symbolic() == &first.symbolic());
    CHECK(i2.num_factor == i1.num_factor);
    CHECK(i2.flag == i1.flag);
  }
}

TEST_CASE("reanalyse: the matching ordering along an interior-point sequence equals fresh analyses bitwise") {
  PolicyGuard guard(detail::MatchingReuse::exact);
  // the larger problem is ordered by AMD and METIS, the smaller one by AMD alone (ordering_matching.hpp)
  for (const auto& size : {std::pair<index_t, index_t>{2500, 1500}, {600, 300}}) {
    const index_t nvar = size.first, ncon = size.second;
    CAPTURE(nvar);
    Options o;
    o.ordering = Ordering::matching;
    o.scaling = Scaling::from_ordering;
    Analysis prev;
    int same_pairs = 0, plain = 0;
    for (index_t t = 0; t < 16; ++t) {
      const SymmetricMatrix a = generate_kkt_ipm(nvar, ncon, t, 5);
      Inform fi, ri;
      const Analysis fresh = analyse(a.view(), o, fi);
      CHECK(fresh.symbolic().matching_choice->thorough == (nvar > 1000));
      ReuseKind kind = ReuseKind::none;
      const Analysis re = detail::reanalyse_kind(prev, a.view(), o, ri, nullptr, &kind);
      if (t > 0) CHECK(kind != ReuseKind::none);
      same_pairs += kind == ReuseKind::same_pairs;
      plain += kind == ReuseKind::plain_candidate;
      CHECK_MESSAGE(shape_of(re) == shape_of(fresh), "iteration " << t);
      CHECK(ri.flag == fi.flag);
      CHECK(ri.num_factor == fi.num_factor);
      prev = re;
    }
    CHECK(same_pairs > 0);  // the sequence exercises both reuse paths
    CHECK(plain > 0);
  }
}

TEST_CASE("reanalyse: the matching ordering on another pattern equals a fresh analysis - on 1 and 3 threads") {
  // the re-analysis computes the graph and the pairs beside the input check (as tasks from 5 000 variables);
  // for another input they serve the fresh analysis
  const SymmetricMatrix a = generate_kkt_ipm(3500, 2000, 3, 5);
  SymmetricMatrix b = a;  // one row index moved: another pattern with the same n and entry count
  index_t col = 0;
  while (b.ptr[col + 1] - b.ptr[col] < 3 || b.row[b.ptr[col] + 1] + 1 >= b.row[b.ptr[col] + 2]) ++col;
  b.row[b.ptr[col] + 1] += 1;
  for (int threads : {1, 3}) {
    CAPTURE(threads);
    const Options o = matching_options(threads);
    Inform i0, fi, ri;
    const Analysis first = analyse(a.view(), o, i0);
    const Analysis fresh = analyse(b.view(), o, fi);
    ReuseKind kind = ReuseKind::whole;
    const Analysis re = detail::reanalyse_kind(first, b.view(), o, ri, nullptr, &kind);
    CHECK(kind == ReuseKind::none);
    CHECK(shape_of(re) == shape_of(fresh));
    CHECK(ri.num_factor == fi.num_factor);
    CHECK(ri.flag == fi.flag);
    // the values' error of the same pattern is reported as analyse reports it
    SymmetricMatrix c = a;
    c.val[7] = std::nan("");
    CHECK_THROWS_AS(detail::reanalyse_kind(first, c.view(), o, ri, nullptr, &kind), Error);
    CHECK(ri.flag == flag::nan_inf);
  }
}

TEST_CASE("reanalyse: keep_compatible along a sequence is bitwise the same on 1 and 3 threads") {
  PolicyGuard guard(detail::MatchingReuse::keep_compatible);
  const index_t nvar = 3500, ncon = 2000;  // above 5 000 variables: the re-analysis runs its parts as tasks
  std::vector<Shape> shapes[2];
  std::vector<ReuseKind> kinds[2];
  for (int run = 0; run < 2; ++run) {
    const Options o = matching_options(run == 0 ? 1 : 3);
    Analysis prev;
    for (index_t t = 0; t < 12; ++t) {
      kinds[run].push_back(reanalyse_step(prev, generate_kkt_ipm(nvar, ncon, t, 7), o));
      shapes[run].push_back(shape_of(prev));
    }
  }
  CHECK(kinds[0] == kinds[1]);
  for (size_t t = 0; t < shapes[0].size(); ++t) {
    CAPTURE(t);
    CHECK(shapes[0][t] == shapes[1][t]);
  }
  CHECK(std::count(kinds[0].begin(), kinds[0].end(), ReuseKind::kept_order) > 0);
}

TEST_CASE("reanalyse: keep_compatible keeps the order when it can - exact inertia and small backward error") {
  PolicyGuard guard(detail::MatchingReuse::keep_compatible);
  int kept = 0;
  const index_t nvar = 2500, ncon = 1500;
  Options o;
  o.ordering = Ordering::matching;
  o.scaling = Scaling::from_ordering;
  Analysis prev;
  for (index_t t = 0; t < 16; ++t) {
    const SymmetricMatrix a = generate_kkt_ipm(nvar, ncon, t, 5);
    Inform ri;
    ReuseKind kind = ReuseKind::none;
    prev = detail::reanalyse_kind(prev, a.view(), o, ri, nullptr, &kind);
    if (t > 0) CHECK(kind != ReuseKind::none);
    kept += kind == ReuseKind::kept_order;
    const auto r = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);  // fresh, for reference
    Inform fi;
    const Factors f = factor(prev, a.val.data(), Mode::indefinite, o, fi);
    CHECK(fi.num_neg == ncon);
    CHECK(fi.num_pos == nvar);
    std::vector<double> x = ssids_test::make_rhs(a);
    const std::vector<double> b = x;
    f.solve(SolveJob::full, 1, x.data(), a.n, fi);
    CHECK(scaled_backward_error(a, x.data(), b.data(), 1, a.n) < 1e-10);
    CHECK(r.inform.num_neg == ncon);
  }
  CHECK(kept > 0);
}

TEST_CASE("reanalyse: keep_compatible's rent-or-buy rule") {
  const double chosen = 1e6;
  const offset_t edges = 1000;  // budget kReorderFlopsPerEdge * edges
  const double budget = detail::kReorderFlopsPerEdge * static_cast<double>(edges);
  double excess = -1.0;
  CHECK(detail::keep_order(chosen, 0.9 * chosen, 0.0, edges, excess));  // cheaper than chosen: no excess
  CHECK(excess == 0.0);
  CHECK(detail::keep_order(chosen, 1.1 * chosen, 0.0, edges, excess));
  CHECK(excess == doctest::Approx(0.1 * chosen));
  // one re-analysis above the slack re-orders whatever the budget left
  CHECK_FALSE(detail::keep_order(chosen, (1.0 + detail::kKeepSlack) * chosen * 1.01, 0.0, edges, excess));
  // within the slack, but the excess summed over the kept re-analyses would exceed the budget
  CHECK(detail::keep_order(chosen, 1.1 * chosen, budget - 0.1 * chosen, edges, excess));
  CHECK_FALSE(detail::keep_order(chosen, 1.1 * chosen, budget - 0.05 * chosen, edges, excess));
  // a small excess is paid for many times before the order is replaced
  double kept = 0.0;
  int kept_count = 0;
  while (detail::keep_order(chosen, 1.05 * chosen, kept, edges, excess) && kept_count < 1000) {
    kept += excess;
    ++kept_count;
  }
  CHECK(kept_count == static_cast<int>(budget / (0.05 * chosen)));
}

TEST_CASE("reanalyse: keep_compatible sums the kept re-analyses' excess and starts again with a new order") {
  PolicyGuard guard(detail::MatchingReuse::keep_compatible);
  const Options o = matching_options();
  for (const auto& size : {std::pair<index_t, index_t>{2500, 1500}, {600, 300}}) {
    const index_t nvar = size.first, ncon = size.second;
    CAPTURE(nvar);
    Analysis prev;
    double last = 0.0;
    for (index_t t = 0; t < 16; ++t) {
      const SymmetricMatrix a = generate_kkt_ipm(nvar, ncon, t, 5);
      const ReuseKind kind = reanalyse_step(prev, a, o);
      const double excess = prev.symbolic().kept_excess_flops;
      CAPTURE(t);
      if (kind == ReuseKind::kept_order) {
        CHECK(excess >= last);
      } else if (kind == ReuseKind::same_pairs) {
        CHECK(excess == last);
      } else {  // ordered (partly) again: nothing kept yet
        CHECK(excess == 0.0);
      }
      // the sum stays within the budget of the graph (both triangles' off-diagonal entries of the input)
      offset_t edges = 0;
      for (index_t j = 0; j < a.n; ++j)
        for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) edges += a.row[k] != j ? 2 : 0;
      const double budget = detail::kReorderFlopsPerEdge * static_cast<double>(edges);
      CHECK(excess <= budget);
      last = excess;
      if (t == 13) CHECK(kind == ReuseKind::plain_candidate);  // the budget was spent: ordered again
      if (t == 12) {
        // the same analysis with its budget spent: the next re-analysis whose pairs differ orders again
        CHECK(kind == ReuseKind::kept_order);
        auto spent = std::make_shared<detail::Symbolic>(prev.symbolic());
        spent->kept_excess_flops = budget;
        prev = Analysis(spent);
        last = budget;
      }
    }
  }
}

TEST_CASE("reanalyse: the matching ordering needs the values and rejects NaN even for a known pattern") {
  const SymmetricMatrix a = generate_kkt_ipm(300, 200, 3, 2);
  Options o;
  o.ordering = Ordering::matching;
  Inform inf;
  const Analysis first = analyse(a.view(), o, inf);
  CscView v = a.view();
  v.val = nullptr;
  CHECK_THROWS_AS(reanalyse(first, v, o, inf), Error);
  CHECK(inf.flag == flag::missing_values);
  SymmetricMatrix b = a;
  b.val[5] = std::nan("");
  CHECK_THROWS_AS(reanalyse(first, b.view(), o, inf), Error);
  CHECK(inf.flag == flag::nan_inf);
}

TEST_CASE("analysis cache: an IPOPT-like caller that frees its handles gets the reuse and the same answers") {
  PolicyGuard guard(detail::MatchingReuse::exact);  // same answers; keep_compatible is tested above
  const index_t nvar = 2000, ncon = 1200;
  spral_ssids_options o;
  spral_ssids_default_options(&o);
  o.array_base = 1;
  o.ordering = 2;
  o.scaling = 3;
  o.use_gpu = false;
  // the sequence without the cache, then with it: the same statistics and the same inertia
  std::vector<spral_ssids_inform> with, without;
  int reused = 0;
  for (int pass = 0; pass < 2; ++pass) {
    detail::clear_analysis_cache();
    detail::set_analysis_cache_limits(pass == 0 ? 0 : 4, std::int64_t{512} << 20);
    for (index_t t = 0; t < 8; ++t) {
      const SymmetricMatrix a = generate_kkt_ipm(nvar, ncon, t, 9);
      std::vector<int> ptr(a.ptr.begin(), a.ptr.end()), row(a.row.begin(), a.row.end());
      for (int& p : ptr) ++p;
      for (int& r : row) ++r;
      void *akeep = nullptr, *fkeep = nullptr;
      spral_ssids_inform inf;
      spral_ssids_analyse_ptr32(false, a.n, nullptr, ptr.data(), row.data(), a.val.data(), &akeep, &o, &inf);
      REQUIRE(inf.flag >= 0);
      if (pass == 1 && t > 0) reused += detail::last_cached_reuse() != ReuseKind::none;
      spral_ssids_factor_ptr32(false, ptr.data(), row.data(), a.val.data(), nullptr, akeep, &fkeep, &o, &inf);
      REQUIRE(inf.flag >= 0);
      CHECK(inf.num_neg == ncon);
      spral_ssids_free(&akeep, &fkeep);
      (pass == 0 ? without : with).push_back(inf);
    }
  }
  CHECK(reused == 7);
  CHECK(detail::analysis_cache_size() == 1);
  for (size_t t = 0; t < with.size(); ++t) {
    CHECK(with[t].num_factor == without[t].num_factor);
    CHECK(with[t].num_flops == without[t].num_flops);
    CHECK(with[t].num_delay == without[t].num_delay);
    CHECK(with[t].num_sup == without[t].num_sup);
  }
  detail::clear_analysis_cache();
}

TEST_CASE("analysis cache: a re-analysis updates in place only an analysis nothing else references") {
  PolicyGuard guard(detail::MatchingReuse::exact);
  detail::clear_analysis_cache();
  detail::set_analysis_cache_limits(4, std::int64_t{512} << 20);
  const SymmetricMatrix m0 = generate_kkt_ipm(600, 400, 0, 5), m1 = generate_kkt_ipm(600, 400, 1, 5);
  const Options o = matching_options();
  Inform inf;
  ReuseKind kind = ReuseKind::none;
  const Analysis a0 = detail::analyse_cached(m0.view(), o, inf, nullptr, &kind);
  CHECK(kind == ReuseKind::none);
  const Vector<double> scale0 = a0.symbolic().matching_scale;
  // a0 is still held: the re-analysis copies it and leaves it as it was
  Analysis a1 = detail::analyse_cached(m1.view(), o, inf, nullptr, &kind);
  REQUIRE(kind == ReuseKind::same_pairs);
  CHECK((a1.symbolic_ptr().get() != a0.symbolic_ptr().get()));
  CHECK(a0.symbolic().matching_scale == scale0);
  CHECK(shape_of(a1) == shape_of(analyse(m1.view(), o, inf)));
  // a1 released (the cache alone holds it): updated in place, the same answer as a fresh analysis
  const detail::Symbolic* held = a1.symbolic_ptr().get();
  a1 = Analysis();
  Analysis a2 = detail::analyse_cached(m0.view(), o, inf, nullptr, &kind);
  REQUIRE(kind == ReuseKind::same_pairs);
  CHECK((a2.symbolic_ptr().get() == held));
  CHECK(a2.symbolic().matching_scale == scale0);
  CHECK(detail::analysis_cache_size() == 1);
  // a failed re-analysis of an entry taken out of the cache puts it back
  const detail::Symbolic* held2 = a2.symbolic_ptr().get();
  a2 = Analysis();
  SymmetricMatrix bad = m1;
  bad.val[3] = std::nan("");
  CHECK_THROWS_AS(detail::analyse_cached(bad.view(), o, inf, nullptr, &kind), Error);
  CHECK(detail::analysis_cache_size() == 1);
  const Analysis a3 = detail::analyse_cached(m1.view(), o, inf, nullptr, &kind);
  CHECK(kind == ReuseKind::same_pairs);
  CHECK((a3.symbolic_ptr().get() == held2));
  detail::clear_analysis_cache();
}

TEST_CASE("analysis cache: bounded in entries and bytes - least recently used first out - off with 0") {
  detail::clear_analysis_cache();
  Options o;
  Inform inf;
  std::vector<SymmetricMatrix> mats;
  for (int k = 0; k < 6; ++k) mats.push_back(generate_laplace2d(20 + k));
  detail::set_analysis_cache_limits(3, std::int64_t{1} << 30);
  for (const auto& m : mats) detail::analyse_cached(m.view(), o, inf, nullptr);
  CHECK(detail::analysis_cache_size() == 3);
  ReuseKind kind = ReuseKind::none;
  detail::analyse_cached(mats[5].view(), o, inf, nullptr, &kind);
  CHECK(kind == ReuseKind::whole);
  detail::analyse_cached(mats[0].view(), o, inf, nullptr, &kind);  // evicted long ago
  CHECK(kind == ReuseKind::none);
  // a byte bound below one analysis keeps nothing
  Inform i2;
  const std::int64_t one = detail::analysis_bytes(analyse(mats[0].view(), o, i2));
  detail::set_analysis_cache_limits(3, one - 1);
  CHECK(detail::analysis_cache_size() == 0);
  detail::analyse_cached(mats[0].view(), o, inf, nullptr, &kind);
  CHECK(detail::analysis_cache_size() == 0);
  detail::set_analysis_cache_limits(0, 0);
  detail::analyse_cached(mats[1].view(), o, inf, nullptr, &kind);
  CHECK(kind == ReuseKind::none);
  CHECK(detail::analysis_cache_size() == 0);
  detail::set_analysis_cache_limits(4, std::int64_t{512} << 20);
}

TEST_CASE("analysis cache: threads analysing different and equal patterns at once get fresh answers") {
  detail::clear_analysis_cache();
  detail::set_analysis_cache_limits(4, std::int64_t{512} << 20);
  std::vector<SymmetricMatrix> mats;
  for (int k = 0; k < 3; ++k) mats.push_back(generate_kkt_ipm(800 + 100 * k, 500, 4, 3 + k));
  Options o;
  o.ordering = Ordering::matching;
  std::vector<Shape> ref;
  for (const auto& m : mats) {
    Inform inf;
    ref.push_back(shape_of(analyse(m.view(), o, inf)));
  }
  std::vector<int> ok(12, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t)
    threads.emplace_back([&, t] {
      Inform inf;
      ok[t] = shape_of(detail::analyse_cached(mats[t % 3].view(), o, inf, nullptr)) == ref[t % 3];
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 12; ++t) CHECK(ok[t] == 1);
  detail::clear_analysis_cache();
}

TEST_CASE("kkt-ipm generator: one pattern for every iteration - barrier terms that spread - exact inertia") {
  const SymmetricMatrix a0 = generate_kkt_ipm(400, 250, 0, 3), a9 = generate_kkt_ipm(400, 250, 9, 3);
  CHECK(a0.n == 650);
  CHECK(a0.ptr == a9.ptr);
  CHECK(a0.row == a9.row);
  CHECK(a0.val != a9.val);
  // the spec gives the same matrix
  const SymmetricMatrix s9 = load_symmetric("gen:kkt-ipm:400:250:9:3");
  CHECK(s9.val == a9.val);
  // the diagonal spreads: the largest ratio of H's diagonal between the last and the first iteration grows
  double spread0 = 0, spread9 = 0;
  for (index_t j = 0; j < 400; ++j) {
    spread0 = std::max(spread0, a0.val[a0.ptr[j]]);
    spread9 = std::max(spread9, a9.val[a9.ptr[j]]);
  }
  CHECK(spread9 > 1e4 * spread0);
  for (const SymmetricMatrix* m : {&a0, &a9}) {
    Options o;
    o.ordering = Ordering::matching;
    o.scaling = Scaling::from_ordering;
    const auto r = ssids_test::run_pipeline(*m, o, Mode::indefinite, 1);
    CHECK(r.inform.num_pos == 400);
    CHECK(r.inform.num_neg == 250);
  }
  CHECK_THROWS_AS(load_symmetric("gen:kkt-ipm:400:250:-1"), Error);
  CHECK_THROWS_AS(load_symmetric("gen:kkt-ipm:400:250"), Error);
}
