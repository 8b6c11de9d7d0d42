// test_matching_dense.cpp — the matching ordering's values side on a matrix with dense rows runs on the sparse
// part (analyse/matching_sparse_part.hpp): the matching never sees the dense rows' entries, the scaling is
// still valid on every entry with a matched entry at 1 in every sparse row, dense rows are never paired, the
// scaled magnitudes along the graph are those of the whole matrix, the factorization keeps the exact inertia,
// and a re-analysis of the same pattern computes the same values side as a fresh one. Large clean inputs: the
// graph and the amap built in two halves side by side are the serial, general path's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "analyse/dense_rows.hpp"
#include "analyse/maps.hpp"
#include "analyse/ordering_matching.hpp"
#include "analyse/tasks.hpp"
#include "analyse/symbolic.hpp"
#include "analyse/validate.hpp"
#include "common/matching.hpp"
#include "scaling/scaling.hpp"
#include "ssids/analyse.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;

namespace {

detail::Graph graph_of(const SymmetricMatrix& a) {
  detail::InputCheck check;
  return detail::clean_pattern(a.view(), check);
}

/// A KKT matrix [H B^T D^T; B 0 0; D 0 E]: H tridiagonal and diagonally dominant (nvar), B with two entries a
/// row (ncon), and nd dense rows D coupling every variable with magnitudes spread over six orders; E couples
/// consecutive dense rows and gives the first one a small diagonal entry.
SymmetricMatrix dense_kkt(int nvar, int ncon, int nd, std::uint64_t seed) {
  std::vector<int> r, c;
  std::vector<double> v;
  std::uint64_t x = seed;
  auto next = [&x] {  // uniform in [0, 1)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) / 9007199254740992.0;
  };
  auto add = [&](int i, int j, double a) { r.push_back(i), c.push_back(j), v.push_back(a); };
  for (int i = 0; i < nvar; ++i) {
    add(i, i, 3.0 + next());
    if (i + 1 < nvar) add(i + 1, i, -0.5 - next());
  }
  for (int k = 0; k < ncon; ++k) {
    add(nvar + k, k, 1.0 + next());
    add(nvar + k, (k * 7 + 3) % nvar, -0.5 - next());
  }
  const int d0 = nvar + ncon;
  for (int d = 0; d < nd; ++d)
    for (int j = 0; j < nvar; ++j) add(d0 + d, j, (next() < 0.5 ? -1.0 : 1.0) * std::pow(10.0, 6.0 * next() - 3.0));
  for (int d = 0; d + 1 < nd; ++d) add(d0 + d + 1, d0 + d, 0.7);
  if (nd > 0) add(d0, d0, -1e-2);
  return ssids_test::from_triplets(d0 + nd, r, c, v);
}

/// Every scaled entry |s_i a_ij s_j| at most 1 (+ rounding); returns the largest scaled entry of every row.
std::vector<double> check_scaling_bound(const SymmetricMatrix& a, const Vector<double>& s) {
  std::vector<double> rowmax(static_cast<size_t>(a.n), 0.0);
  for (index_t j = 0; j < a.n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      const index_t i = a.row[k];
      const double t = std::fabs(a.val[k]) * s[i] * s[j];
      CHECK(t <= 1.0 + 1e-12);
      rowmax[i] = std::max(rowmax[i], t);
      rowmax[j] = std::max(rowmax[j], t);
    }
  return rowmax;
}

/// The same matrix stored as its upper triangle (column j holds the rows i <= j): not the clean lower triangle
/// the sparse part's path takes.
SymmetricMatrix as_upper(const SymmetricMatrix& a) {
  SymmetricMatrix u;
  u.n = a.n;
  u.ptr.assign(static_cast<size_t>(a.n) + 1, 0);
  for (offset_t k = 0; k < a.nnz(); ++k) ++u.ptr[a.row[k] + 1];
  for (index_t i = 0; i < a.n; ++i) u.ptr[i + 1] += u.ptr[i];
  u.row.resize(a.row.size());
  u.val.resize(a.val.size());
  Vector<offset_t> next(u.ptr.begin(), u.ptr.end() - 1);
  for (index_t j = 0; j < a.n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      const offset_t q = next[a.row[k]]++;
      u.row[q] = j;
      u.val[q] = a.val[k];
    }
  return u;
}

}  // namespace

TEST_CASE("matching with dense rows: the sparse part alone is matched - valid scaling - dense rows never paired") {
  const int nvar = 3000, ncon = 1000, nd = 4;
  const SymmetricMatrix a = dense_kkt(nvar, ncon, nd, 11);
  const detail::Graph g = graph_of(a);
  const Vector<index_t> dense = detail::dense_vertices(g);
  REQUIRE(dense.size() == static_cast<size_t>(nd));
  // entries of both triangles, all and those of the sparse part
  Vector<char> is_dense(static_cast<size_t>(a.n), 0);
  for (index_t d : dense) is_dense[d] = 1;
  offset_t all = 0, sparse = 0;
  for (index_t j = 0; j < a.n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      const offset_t both = a.row[k] == j ? 1 : 2;
      all += both;
      if (!is_dense[j] && !is_dense[a.row[k]]) sparse += both;
    }
  const offset_t before = detail::matching_entries_for_testing();
  const detail::MatchingPairs mp = detail::matching_pairs(g, a.view());
  // the matching saw the sparse part only (the whole matrix's matching would have seen `all`)
  CHECK(detail::matching_entries_for_testing() - before == sparse);
  CHECK(sparse < all / 2);
  CHECK(mp.matched == a.n);
  CHECK_FALSE(mp.structurally_singular);
  const std::vector<double> rowmax = check_scaling_bound(a, mp.scale);
  for (index_t i = 0; i < a.n; ++i)
    if (!is_dense[i]) CHECK(rowmax[i] >= 1.0 - 1e-12);  // its matched entry
  // the dense rows: the largest scale the bound allows towards the sparse part, lowered for the dense-dense
  // entries in the order of elimination (the first dense row by nothing before it but its diagonal)
  CHECK(rowmax[dense[0]] == doctest::Approx(1.0).epsilon(1e-12));
  for (index_t d : dense) CHECK(mp.partner[d] == -1);
  index_t paired = 0;
  for (index_t i = 0; i < a.n; ++i)
    if (mp.partner[i] != -1) {
      CHECK(mp.partner[mp.partner[i]] == i);
      ++paired;
    }
  CHECK(paired == 2 * mp.pairs);
  CHECK(mp.pairs > 0);
  // the scaled magnitudes along the graph: those the whole matrix gives with this scaling, bit for bit
  detail::MatchingPairs ref;
  ref.scale = mp.scale;
  detail::add_scaled_weights(g, detail::full_from_view(a.view()), ref);
  CHECK(mp.weight == ref.weight);
  CHECK(mp.diag == ref.diag);
  // dense rows have no diagonal entry (all but the first): needy, as their scaled diagonal is 0
  for (int d = 1; d < nd; ++d) CHECK(mp.needy[dense[d]]);
}

TEST_CASE("matching with dense rows: input other than a clean lower triangle - the whole matrix is matched") {
  const SymmetricMatrix a = dense_kkt(3000, 1000, 4, 12);
  const SymmetricMatrix u = as_upper(a);
  const detail::Graph g = graph_of(u);
  REQUIRE(detail::dense_vertices(g).size() == 4);
  const offset_t before = detail::matching_entries_for_testing();
  const detail::MatchingPairs mp = detail::matching_pairs(g, u.view());
  offset_t all = 0;  // entries of both triangles
  for (index_t j = 0; j < a.n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) all += a.row[k] == j ? 1 : 2;
  CHECK(detail::matching_entries_for_testing() - before == all);
  CHECK(mp.matched == a.n);
  check_scaling_bound(a, mp.scale);
}

TEST_CASE("matching with dense rows: exact inertia against METIS - one and two threads alike - reanalyse agrees") {
  const SymmetricMatrix a = dense_kkt(3000, 1000, 4, 13);
  Options metis;
  metis.ordering = Ordering::metis;
  metis.scaling = Scaling::none;
  const auto ref = ssids_test::run_pipeline(a, metis, Mode::indefinite, 2);
  Options o;
  o.ordering = Ordering::matching;
  o.scaling = Scaling::from_ordering;
  o.num_threads = 2;
  const auto r = ssids_test::run_pipeline(a, o, Mode::indefinite, 0);
  CHECK(r.inform.num_neg == ref.inform.num_neg);
  CHECK(r.inform.num_pos == ref.inform.num_pos);
  CHECK(r.inform.num_zero == ref.inform.num_zero);
  CHECK(r.inform.num_neg + r.inform.num_pos == a.n);
  CHECK(r.backward_error < 1e-12);
  Inform inf;
  o.num_threads = 1;
  const Analysis one = analyse(a.view(), o, inf);
  CHECK(one.symbolic().perm == r.analysis.symbolic().perm);
  CHECK(one.symbolic().matching_scale == r.analysis.symbolic().matching_scale);
  // a re-analysis of the same pattern with other values computes the values side as a fresh analysis does
  SymmetricMatrix b = a;
  for (size_t k = 0; k < b.val.size(); k += 3) b.val[k] *= 1.5;
  o.num_threads = 2;
  const Analysis fresh = analyse(b.view(), o, inf);
  const Analysis again = reanalyse(r.analysis, b.view(), o, inf);
  CHECK(again.symbolic().matching_scale == fresh.symbolic().matching_scale);
  CHECK(again.symbolic().matched == a.n);
}

TEST_CASE("large clean input: the graph read in two halves is the general path's - the amap covers every entry") {
  const SymmetricMatrix a = generate_kkt_dense(30000, 15000, 8, 3);
  REQUIRE(a.nnz() >= detail::kCleanSplitEntries);
  REQUIRE(a.nnz() >= detail::kAmapSplitEntries);
  detail::InputCheck c1, c2;
  detail::Graph g1, g2;
  detail::in_task_team(2, [&] { g1 = detail::clean_pattern(a.view(), c1); });
  g2 = detail::clean_pattern(as_upper(a).view(), c2);  // mirrored: the general path, the same cleaned triangle
  CHECK(g1.ptr == g2.ptr);
  CHECK(g1.adj == g2.adj);
  CHECK(c1.nnz == c2.nnz);
  CHECK(c1.missing_diag == c2.missing_diag);
  CHECK(c1.upper == 0);
  for (Ordering ord : {Ordering::metis, Ordering::matching}) {
    Options o;
    o.ordering = ord;
    o.num_threads = 2;
    Inform inf;
    const Analysis an = analyse(a.view(), o, inf);
    const detail::Symbolic& s = an.symbolic();
    Vector<index_t> col(static_cast<size_t>(a.nnz()));
    for (index_t j = 0; j < a.n; ++j)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) col[k] = j;
    Vector<char> seen(static_cast<size_t>(a.nnz()), 0);
    bool ok = true;
    for (index_t v = 0; v < s.nsup; ++v)
      for (offset_t e = s.amap_ptr[v]; e < s.amap_ptr[v + 1]; ++e) {
        const detail::AEntry& m = s.amap[e];
        ok = ok && (e == s.amap_ptr[v] || s.amap[e - 1].src < m.src) && !seen[m.src];
        seen[m.src] = 1;
        const index_t r = s.perm[s.rlist[s.rptr[v] + m.lrow]], c = s.perm[s.sptr[v] + m.lcol];
        const index_t i = a.row[m.src], j = col[m.src];
        ok = ok && ((r == i && c == j) || (r == j && c == i));
      }
    CHECK(ok);
    CHECK(std::count(seen.begin(), seen.end(), char(1)) == a.nnz());
  }
}
