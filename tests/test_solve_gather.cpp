// test_solve_gather.cpp — the GPU solve plan's gather map (cuda/solve_gather.hpp: OpenMP over nodes) against a
// plain sequential construction from its definition, on analyses of generated problems, with the rows of
// each node in analysis order and shuffled (as pivoting leaves them). Host code of CUDA builds: it runs
// without a device.
#include <doctest/doctest.h>

#ifdef SSIDS_TEST_HAVE_CUDA
#include <algorithm>
#include <random>
#include <vector>

#include "analyse/symbolic.hpp"
#include "cuda/solve_gather.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"

namespace {

using ssids::index_t;

/// Per node of an analysis without delays: m rows, the ncol first eliminated; rows are the node's columns
/// then its row list (optionally each part shuffled, as pivoting leaves them).
struct NodeRows {
  std::vector<int> m, ne, rows;
  std::vector<long long> rows_off, buf_off;
  long long total = 0;
  /// reverse: the nodes' work-buffer rows laid out last node first (not in node order)
  NodeRows(const ssids::detail::Symbolic& sym, bool shuffle, bool reverse = false) {
    const index_t nsup = sym.nsup;
    m.resize(nsup);
    ne.resize(nsup);
    rows_off.resize(nsup);
    buf_off.resize(nsup);
    std::mt19937 rng(7);
    for (index_t s = 0; s < nsup; ++s) {
      m[s] = static_cast<int>(sym.nrow(s));
      ne[s] = static_cast<int>(sym.ncol(s));
      rows_off[s] = static_cast<long long>(rows.size());
      buf_off[s] = total;
      total += m[s];
      for (index_t j = 0; j < sym.ncol(s); ++j) rows.push_back(sym.sptr[s] + j);
      for (long long k = sym.rptr[s] + sym.ncol(s); k < sym.rptr[s + 1]; ++k) rows.push_back(sym.rlist[k]);
      if (shuffle) {
        std::shuffle(rows.begin() + rows_off[s], rows.begin() + rows_off[s] + ne[s], rng);
        std::shuffle(rows.begin() + rows_off[s] + ne[s], rows.end(), rng);
      }
    }
    if (reverse) {
      long long b = 0;
      for (index_t s = nsup - 1; s >= 0; --s) {
        buf_off[s] = b;
        b += m[s];
      }
    }
  }
  ssids::detail::SolveGatherInput input() const {
    return ssids::detail::SolveGatherInput{m.data(), ne.data(), rows_off.data(), buf_off.data(), rows.data(), total};
  }
};

void check_gather(const ssids::SymmetricMatrix& a, bool shuffle, bool reverse = false) {
  ssids::Options opt;
  ssids::Inform inf;
  const ssids::Analysis an = ssids::analyse(a.view(), opt, inf);
  const ssids::detail::Symbolic& sym = an.symbolic();
  const index_t nsup = sym.nsup;
  const NodeRows nr(sym, shuffle, reverse);
  const std::vector<int>&m = nr.m, &ne = nr.ne, &rows = nr.rows;
  const std::vector<long long>&rows_off = nr.rows_off, &buf_off = nr.buf_off;
  const long long total = nr.total;
  REQUIRE(static_cast<long long>(rows.size()) == total);
  const ssids::detail::SolveGather g = ssids::detail::build_solve_gather(sym, nr.input());
  // the definition, sequentially: per parent row, the children's rows of the same variable, in child order
  std::vector<std::vector<int>> expect(static_cast<size_t>(total));
  std::vector<int> children, pos(static_cast<size_t>(sym.n), -1);
  for (index_t s = 0; s < nsup; ++s) {
    for (int i = 0; i < m[s]; ++i) pos[rows[rows_off[s] + i]] = i;
    REQUIRE(g.child_begin[s] == static_cast<int>(children.size()));
    for (index_t k = sym.child_ptr[s]; k < sym.child_ptr[s + 1]; ++k) {
      const index_t ch = sym.child_list[k];
      if (m[ch] == ne[ch]) continue;
      children.push_back(ch);
      for (int r = ne[ch]; r < m[ch]; ++r) {
        const int p = pos[rows[rows_off[ch] + r]];
        REQUIRE(p >= 0);
        expect[buf_off[s] + p].push_back(static_cast<int>(buf_off[ch] + r));
      }
    }
    REQUIRE(g.child_end[s] == static_cast<int>(children.size()));
    for (int i = 0; i < m[s]; ++i) pos[rows[rows_off[s] + i]] = -1;
  }
  CHECK(std::vector<int>(g.children.begin(), g.children.end()) == children);
  REQUIRE(g.gptr.size() == static_cast<size_t>(total) + 1);
  CHECK(g.gptr[0] == 0);
  long long mismatches = 0, entries = 0;
  for (long long r = 0; r < total; ++r) {
    const std::vector<int> got(g.gsrc.begin() + g.gptr[r], g.gsrc.begin() + g.gptr[r + 1]);
    if (got != expect[r]) ++mismatches;
    entries += static_cast<long long>(expect[r].size());
  }
  CHECK(mismatches == 0);
  CHECK(entries > 0);
  CHECK(static_cast<long long>(g.gsrc.size()) == entries);
}

}  // namespace

TEST_CASE("solve gather map: equal to the sequential definition (rows in analysis order and shuffled)") {
  for (const bool shuffle : {false, true}) {
    CAPTURE(shuffle);
    check_gather(ssids::generate_laplace3d(12), shuffle);
    check_gather(ssids::generate_kkt_qp(600, 250, 1e-8, 3), shuffle);
    check_gather(ssids::generate_stokes(10), shuffle);
  }
}

TEST_CASE("solve gather map: work-buffer rows not in node order (the sequential prefix sum)") {
  check_gather(ssids::generate_laplace3d(10), true, true);
  check_gather(ssids::generate_kkt_qp(400, 150, 1e-8, 5), false, true);
}

TEST_CASE("solve gather map: a child row missing from its parent is an internal error") {
  ssids::Options opt;
  ssids::Inform inf;
  const ssids::SymmetricMatrix a = ssids::generate_laplace2d(8);
  const ssids::Analysis an = ssids::analyse(a.view(), opt, inf);
  const ssids::detail::Symbolic& sym = an.symbolic();
  const index_t nsup = sym.nsup;
  NodeRows nr(sym, false);
  // a child's first passed-up row replaced by a variable its parent does not hold (its own first column)
  index_t child = -1;
  for (index_t s = 0; s < nsup && child < 0; ++s)
    if (nr.m[s] > nr.ne[s]) child = s;
  REQUIRE(child >= 0);
  nr.rows[nr.rows_off[child] + nr.ne[child]] = sym.sptr[child];
  CHECK_THROWS_AS(ssids::detail::build_solve_gather(sym, nr.input()), ssids::Error);
}
#endif

#ifdef SSIDS_TEST_HAVE_CUDA
TEST_CASE("solve gather map: a reused workspace gives the same map as fresh memory") {
  ssids::detail::SolveGatherWorkspace ws;
  for (const auto& a : {ssids::generate_laplace3d(9), ssids::generate_stokes(8), ssids::generate_laplace3d(9)}) {
    ssids::Options opt;
    ssids::Inform inf;
    const ssids::Analysis an = ssids::analyse(a.view(), opt, inf);
    for (const bool shuffle : {true, false}) {
      const NodeRows nr(an.symbolic(), shuffle);
      ssids::detail::build_solve_gather_into(an.symbolic(), nr.input(), ws);
      const ssids::detail::SolveGather fresh = ssids::detail::build_solve_gather(an.symbolic(), nr.input());
      CHECK(ws.g.children == fresh.children);
      CHECK(ws.g.child_begin == fresh.child_begin);
      CHECK(ws.g.child_end == fresh.child_end);
      CHECK(ws.g.gptr == fresh.gptr);
      CHECK(ws.g.gsrc == fresh.gsrc);
      CHECK(!fresh.gsrc.empty());
      for (const auto& p : ws.pos)
        CHECK(std::count(p.begin(), p.end(), -1) == static_cast<long>(p.size()));  // maps left clean
    }
  }
}
#endif
