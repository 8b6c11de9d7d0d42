// test_analyse_parallel.cpp — analyse on several threads: METIS calls that run side by side give the orders
// they give alone (metis_random.hpp), nested dissection by tasks is a valid order whatever the threads, and the
// analysis (order, tree, predictions) is bitwise the same for 1 to 4 threads with every ordering.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "analyse/metis_random.hpp"
#include "analyse/nested_dissection.hpp"
#include "analyse/ordering.hpp"
#include "analyse/ordering_amd.hpp"
#include "analyse/ordering_matching.hpp"
#include "analyse/symbolic.hpp"
#include "analyse/tasks.hpp"
#include "analyse/validate.hpp"
#include "ssids/analyse.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"

using namespace ssids;

namespace {

detail::Graph graph_of(const SymmetricMatrix& a) {
  detail::InputCheck check;
  return detail::clean_pattern(a.view(), check);
}

bool is_permutation(const Vector<index_t>& p) {
  std::vector<char> seen(p.size(), 0);
  for (index_t v : p) {
    if (v < 0 || static_cast<size_t>(v) >= p.size() || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

/// Everything an analysis decided, for bitwise comparisons.
struct Shape {
  Vector<index_t> perm, sptr, sparent, rlist;
  offset_t num_factor = 0, num_flops = 0;
  bool operator==(const Shape& o) const {
    return perm == o.perm && sptr == o.sptr && sparent == o.sparent && rlist == o.rlist &&
           num_factor == o.num_factor && num_flops == o.num_flops;
  }
};
Shape shape_of(const Analysis& an) {
  const detail::Symbolic& s = an.symbolic();
  return Shape{s.perm, s.sptr, s.sparent, s.rlist, s.num_factor, s.num_flops};
}

// The matching ordering's orderings, recording whether the plain graph (no vertex weights) was ordered by METIS
// before the matching had finished.
std::atomic<bool> g_matched{false}, g_plain_metis_early{false};
Vector<index_t> recording_metis(const detail::Graph& g, const index_t* vwgt) {
  if (!vwgt && !g_matched.load()) g_plain_metis_early = true;
  return detail::metis_order(g, vwgt);
}
Vector<index_t> plain_amd(const detail::Graph& g, const index_t* vwgt) { return detail::amd_order(g, vwgt); }

}  // namespace

TEST_CASE("metis random: the private generator gives the C library's rand sequence") {
#ifdef __GLIBC__
  for (unsigned seed : {0u, 1u, 4321u, 123456789u, 2147483648u, 4294967295u}) {
    std::srand(seed);
    detail::GlibcRandom g(seed);
    bool same = true;
    for (int k = 0; k < 20000 && same; ++k) same = std::rand() == g.next();
    CHECK_MESSAGE(same, "seed " << seed);
  }
#else
  ssids_test::skip("the generator replicates glibc's rand");
#endif
}

TEST_CASE("metis random: METIS calls run concurrently on x86-64 and AArch64 with glibc") {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
  CHECK(detail::metis_concurrent());
#else
  ssids_test::skip("the rebinding is for ELF/glibc on x86-64 and AArch64");
#endif
}

TEST_CASE("metis random: concurrent METIS calls give the orders of calls made one at a time") {
  std::vector<SymmetricMatrix> mats;
  for (int k = 0; k < 6; ++k) mats.push_back(ssids_test::random_kkt(300 + 50 * k, 120 + 20 * k, 0.02, 40 + k));
  mats.push_back(generate_laplace3d(14, 0.0));
  mats.push_back(generate_stokes(20));
  std::vector<detail::Graph> graphs;
  std::vector<Vector<index_t>> alone;
  for (const auto& m : mats) {
    graphs.push_back(graph_of(m));
    alone.push_back(detail::metis_order(graphs.back()));
  }
  const int ng = static_cast<int>(graphs.size());
  std::vector<char> same(static_cast<size_t>(4 * ng), 0);
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
  for (int t = 0; t < 4 * ng; ++t) same[t] = detail::metis_order(graphs[t % ng]) == alone[t % ng];
  for (int t = 0; t < 4 * ng; ++t) CHECK_MESSAGE(same[t], "graph " << t % ng);
}

TEST_CASE("nested dissection: a valid order independent of the threads - and METIS's own at or below the leaf size") {
  for (int k = 0; k < 4; ++k) {
    const SymmetricMatrix a = k < 2 ? ssids_test::random_kkt(900 + 300 * k, 500, 0.004, 7 + k)
                                    : generate_laplace3d(10 + 3 * k, 0.0);
    const detail::Graph g = graph_of(a);
    CHECK(detail::nested_dissection_order(g, nullptr, g.n) == detail::metis_order(g));
    std::vector<index_t> w(static_cast<size_t>(g.n));
    for (index_t v = 0; v < g.n; ++v) w[v] = 1 + v % 3;
    for (const index_t* vw : {static_cast<const index_t*>(nullptr), static_cast<const index_t*>(w.data())}) {
      Vector<index_t> ref;
      detail::in_task_team(1, [&] { ref = detail::nested_dissection_order(g, vw, 64); });
      CHECK(is_permutation(ref));
      for (int threads : {2, 3, 4}) {
        Vector<index_t> p;
        detail::in_task_team(threads, [&] { p = detail::nested_dissection_order(g, vw, 64); });
        CHECK_MESSAGE(p == ref, "matrix " << k << ", " << threads << " threads");
      }
    }
  }
}

TEST_CASE("nested dissection: graphs with identical vertices are compressed and expanded") {
  // three unknowns per grid point: every group of three has the same closed neighbourhood
  const SymmetricMatrix s = generate_laplace2d(40);
  std::vector<int> r, c;
  std::vector<double> v;
  for (index_t j = 0; j < s.n; ++j)
    for (offset_t k = s.ptr[j]; k < s.ptr[j + 1]; ++k)
      for (int x = 0; x < 3; ++x)
        for (int y = 0; y < 3; ++y) {
          const int i3 = 3 * s.row[k] + x, j3 = 3 * j + y;
          if (i3 < j3) continue;
          r.push_back(i3);
          c.push_back(j3);
          v.push_back(i3 == j3 ? 10.0 : -0.1);
        }
  const SymmetricMatrix a = ssids_test::from_triplets(3 * s.n, r, c, v);
  const detail::Graph g = graph_of(a);
  Vector<index_t> p1, p2;
  detail::in_task_team(1, [&] { p1 = detail::nested_dissection_order(g, nullptr, 500); });
  detail::in_task_team(3, [&] { p2 = detail::nested_dissection_order(g, nullptr, 500); });
  REQUIRE(is_permutation(p1));
  CHECK(p1 == p2);
  // the members of a group stay together
  Vector<index_t> pos = detail::inverse_permutation(p1);
  int apart = 0;
  for (index_t q = 0; q < s.n; ++q) {
    const index_t lo = std::min({pos[3 * q], pos[3 * q + 1], pos[3 * q + 2]});
    const index_t hi = std::max({pos[3 * q], pos[3 * q + 1], pos[3 * q + 2]});
    apart += hi - lo != 2;
  }
  CHECK(apart == 0);
}

TEST_CASE("analyse: the analysis is bitwise the same for 1 to 4 threads with every ordering") {
  // all above kParallelMinVariables; the first above kNdLeafVertices (nested dissection by tasks)
  const std::vector<SymmetricMatrix> mats = {generate_laplace3d(34, 0.0), generate_kkt_qp(12000, 8000, 0.0, 3),
                                             generate_stokes(90)};
  for (size_t m = 0; m < mats.size(); ++m) {
    for (Ordering ord : {Ordering::metis, Ordering::matching, Ordering::amd}) {
      Options o;
      o.ordering = ord;
      o.num_threads = 1;
      Inform inf;
      const Shape ref = shape_of(analyse(mats[m].view(), o, inf));
      for (int threads : {2, 3, 4}) {
        o.num_threads = threads;
        CHECK_MESSAGE(shape_of(analyse(mats[m].view(), o, inf)) == ref,
                      "matrix " << m << ", ordering " << static_cast<int>(ord) << ", " << threads << " threads");
      }
    }
  }
}

TEST_CASE("matching ordering: the plain candidate ordered beside a slow matching - the result of one thread") {
  // the plain candidate's orders need the pattern only and start beside the matching; METIS may order the
  // plain graph before the pairs are known (ordering_matching.cpp). A matching slowed down by 50 ms makes that
  // happen on 2 threads; the result must be the one thread's, with METIS and AMD, and with METIS alone (GPU)
  const std::vector<SymmetricMatrix> mats = {generate_stokes3d(8), generate_kkt_qp(1500, 600, 1e-8, 7),
                                             generate_stokes(20)};
  for (size_t m = 0; m < mats.size(); ++m) {
    const SymmetricMatrix& a = mats[m];
    const detail::Graph g = graph_of(a);
    for (bool with_amd : {true, false}) {
      CAPTURE(m);
      CAPTURE(with_amd);
      const detail::CandidateOrderings orderings(recording_metis, with_amd ? plain_amd : nullptr);
      auto run = [&](int threads, int sleep_ms) {
        g_matched = false;
        g_plain_metis_early = false;
        detail::MatchingOrder mo;
        auto pairs = [&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
          detail::MatchingPairs mp = detail::matching_pairs(g, a.view());
          g_matched = true;
          return mp;
        };
        detail::in_task_team(threads, [&] {
          mo = detail::order_matching(g, pairs, orderings, 0.2, detail::AmalgamationRule{}, nullptr);
        });
        return mo;
      };
      const detail::MatchingOrder ref = run(1, 0);
      if (with_amd) CHECK_FALSE(g_plain_metis_early.load());  // one thread: METIS only where it is needed
      const detail::MatchingOrder mo = run(2, 50);
      // METIS ordered the plain graph during the matching exactly where the pattern asks for it
      CHECK(g_plain_metis_early.load() == ref.thorough);
      CHECK(mo.perm == ref.perm);
      CHECK(mo.partner == ref.partner);
      CHECK(mo.scale == ref.scale);
      CHECK(mo.parent == ref.parent);
      CHECK(mo.colcount == ref.colcount);
      CHECK(mo.compressed == ref.compressed);
      CHECK(mo.thorough == ref.thorough);
      CHECK(mo.plain.cheap == ref.plain.cheap);
      CHECK(mo.plain.thorough == ref.plain.thorough);
      CHECK(mo.delayed_plain.flops == ref.delayed_plain.flops);
      CHECK(mo.delayed_compressed.flops == ref.delayed_compressed.flops);
      MESSAGE("matrix " << m << std::string(with_amd ? " AMD+METIS" : " METIS") << ": thorough " << ref.thorough
                        << ", compressed " << ref.compressed << ", plain METIS early " << g_plain_metis_early.load());
    }
  }
}
