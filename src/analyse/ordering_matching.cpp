// ordering_matching.cpp — matching-based ordering (see ordering_matching.hpp).
//
// Hogg & Scott, "Pivoting strategies for tough sparse indefinite systems", ACM TOMS 40(1), 2013, §3, after
// Duff & Pralet 2005: a maximum-product matching m (Duff & Koster 2001) of the symmetric matrix puts large
// entries on a_{m(j), j}; with the symmetrized matching scaling those entries are 1 and no entry exceeds 1.
// The matching permutation splits into cycles (and, when structurally singular, open chains); consecutive
// members (j, m(j)) of a cycle are good 2x2 pivots.
//
// 1. Pairs. Only a variable whose scaled diagonal is below kSmallDiagonal ("needy") needs a 2x2 partner; two
//    variables with good diagonals are never paired, which would only constrain the ordering. Each cycle or
//    chain is split into consecutive pairs by a small dynamic programme that covers as many needy variables
//    as possible with as few pairs as possible.
// 2. Compressed order: each pair becomes one vertex (weight 2, union of the neighbours) of a compressed graph
//    ordered (METIS or AMD in analyse, step 4) and expanded pair by pair, so a needy variable and its
//    partner are adjacent, the first the child of the second in the elimination tree, and normally in the
//    same front: the 2x2 pivot is there and zero diagonals need (almost) no delayed pivots.
// 3. Fill check. A pair must sit in a separator as soon as either of its variables must. On saddle-point
//    matrices whose plain separators consist of variables with a nonzero diagonal (Stokes, Maxwell: lines of
//    velocity or edge unknowns) every multiplier partner is dragged into the separator with them: predicted
//    flops x1.9 on stokes64, x1.3 tuma2, x1.25 Lshape_matrices3, x3.2 ncvxqp1 (nnz(L) +12% to +43%). So the
//    uncompressed graph is ordered as well and both orders are predicted (column counts of the elimination
//    tree, supernodes amalgamated as analyse does), each with the delayed pivots its needy variables are
//    predicted to cause (delays.hpp): the plain order leaves them to threshold pivoting, which costs little on
//    ncvxqp1 (1.3e9 flops with 6500 delays against 2.8e9 flops compressed) and a lot on the kkt-qp problems
//    (4.9e8 flops with 11 000 delays against 3.7e8 compressed). The compressed order is kept unless its
//    predicted flops or nnz(L) exceed the plain order's by more than compressed_slack (20%). Otherwise the
//    plain order is returned (no pairs, `compressed` false) with the matching scaling.
//    The plain candidate needs the pattern only: its orders are computed beside the matching (a task), the
//    compressed one's after it; the thorough orderings of the two candidates then run side by side.
// 4. Which ordering. On small inputs one METIS call costs more than SPRAL's whole analyse of the same matrix
//    (1.2 ms for the 700-vertex compressed graph of case118_10, where its 2-way separators are computed with
//    several trials per level), while AMD takes a tenth of that and, on small KKT matrices, predicts fewer
//    flops. So up to kCheapOrderMaxVariables variables both candidates are ordered by the cheap ordering
//    (AMD) first; METIS follows only when the cheap plain order predicts a factorization that is large for
//    the graph (flops per edge above kCheapOrderFlopsPerEdge: 3D and saddle-point problems, where nested
//    dissection can save more factorization time than it costs), and each candidate then keeps the order of
//    fewer predicted flops (without delays: pattern and pairs decide, not the rest of the values).
//
// Structurally singular: unmatched variables are singletons; open chains are split like cycles.
// Cost: the matching, two AMD calls on small inputs, two METIS calls side by side (one on the compressed
// graph, skipped when there are no pairs) unless AMD sufficed, a symbolic prediction O(nnz alpha(n)) with its
// delay prediction O(nnz) per order.
// Conventions: 0-based inside; perm[k] = variable at pivot position k.
#include "analyse/ordering_matching.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>

#include <omp.h>

#include "analyse/delays.hpp"
#include "analyse/dense_rows.hpp"
#include "analyse/etree.hpp"
#include "analyse/matching_sparse_part.hpp"
#include "analyse/nested_dissection.hpp"
#include "analyse/profile.hpp"
#include "analyse/supernodes.hpp"
#include "analyse/tasks.hpp"
#include "common/matching.hpp"
#include "scaling/scaling.hpp"

namespace ssids {
namespace detail {

namespace {

/// Scaled |a_jj| below this: the variable cannot be a 1x1 pivot under the default threshold u = 0.01 (every
/// scaled entry is at most 1, matched entries are 1).
constexpr double kSmallDiagonal = 0.01;
/// Dynamic programme weight of a covered needy variable; > 2 so that covering one always beats the unit cost
/// of the pair that covers it.
constexpr long kCover = 4;

/// A candidate order with what analyse needs next: perm postordered by its elimination tree, the tree and the
/// column counts, and the predicted nnz(L) and flops without delays, as analyse predicts them (supernodes
/// amalgamated by the rule, flops per supernode as in tree_stats.cpp).
struct Candidate {
  Vector<index_t> perm, parent, colcount;
  Partition part;  ///< the supernodes of the prediction (for the delay prediction)
  double nnz = 0.0, flops = 0.0;
  DelayPrediction delayed;  ///< the same with the delays its needy variables are predicted to cause
};

/// The part of the prediction that needs the pattern only (everything but `delayed`).
Candidate predict_pattern(const Graph& g, Vector<index_t> perm, const AmalgamationRule& rule) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  Vector<index_t> invp(un);
  for (index_t k = 0; k < n; ++k) invp[perm[k]] = k;
  const Vector<index_t> parent = elimination_tree(g, perm, invp);
  const Vector<index_t> post = tree_postorder(parent);
  Candidate c;
  Vector<index_t> new_of_old(un);
  c.perm.resize(un);
  c.parent.resize(un);
  for (index_t k = 0; k < n; ++k) new_of_old[post[k]] = k;
  for (index_t k = 0; k < n; ++k) {
    c.perm[k] = perm[post[k]];
    const index_t p = parent[post[k]];
    c.parent[k] = p == -1 ? -1 : new_of_old[p];
  }
  for (index_t k = 0; k < n; ++k) invp[c.perm[k]] = k;
  c.colcount = column_counts(g, c.perm, invp, c.parent);
  c.part = find_supernodes(c.parent, c.colcount, rule);
  const Partition& part = c.part;
  for (index_t s = 0; s < part.nsup; ++s) {
    // the node's row list is its columns plus the structure of its last (topmost) column
    const double nc = part.sptr[s + 1] - part.sptr[s];
    const double nr = nc + c.colcount[part.old_of_new[part.sptr[s + 1] - 1]] - 1;
    c.nnz += nc * nr - nc * (nc - 1) / 2;
    for (double m = nr - nc; m < nr; m += 1.0) c.flops += m * m + 2 * m;
  }
  return c;
}

/// The delays the values (mp) are predicted to cause in c's order.
void add_delays(const Graph& g, Candidate& c, const MatchingPairs& mp) {
  c.delayed = predict_delays(g, c.perm, c.part, c.colcount, mp.needy, mp.weight, mp.diag);
}

Candidate predict(const Graph& g, Vector<index_t> perm, const AmalgamationRule& rule, const MatchingPairs& mp) {
  Candidate c = predict_pattern(g, std::move(perm), rule);
  add_delays(g, c, mp);
  return c;
}

/// Splits every cycle and chain of the matching into pairs (see step 1); returns the number of pairs.
index_t split_matching(const MatchingResult& m, const Vector<char>& needy, Vector<index_t>& partner) {
  const index_t n = static_cast<index_t>(needy.size());
  partner.assign(needy.size(), -1);
  index_t pairs = 0;
  Vector<char> seen(needy.size(), 0);
  Vector<index_t> seq;
  Vector<long> best;
  Vector<char> take;
  auto gain = [&](index_t x, index_t y) { return kCover * (needy[x] + needy[y]) - 1; };
  // best split of the path seq[lo .. hi) into disjoint consecutive pairs; written to partner when apply
  auto path = [&](size_t lo, size_t hi, bool apply) {
    const size_t len = hi - lo;
    best.assign(len + 1, 0);
    take.assign(len + 1, 0);
    for (size_t i = 2; i <= len; ++i) {
      const long with = best[i - 2] + gain(seq[lo + i - 2], seq[lo + i - 1]);
      take[i] = with > best[i - 1];
      best[i] = take[i] ? with : best[i - 1];
    }
    if (apply)
      for (size_t i = len; i >= 2;) {
        if (!take[i]) {
          --i;
          continue;
        }
        const index_t x = seq[lo + i - 2], y = seq[lo + i - 1];
        partner[x] = y;
        partner[y] = x;
        ++pairs;
        i -= 2;
      }
    return best[len];
  };
  // the sequence start, m(start), m(m(start)), ...; a cycle also links its last member with the first: the
  // better of "that link unused" (a path) and "used" (a pair plus the path without both ends)
  auto split = [&](index_t start, bool cycle) {
    seq.clear();
    for (index_t x = start; x != -1 && !seen[x]; x = m.row_of_col[x]) {
      seen[x] = 1;
      seq.push_back(x);
    }
    const size_t len = seq.size();
    if (cycle && len >= 3 && path(1, len - 1, false) + gain(seq[0], seq[len - 1]) > path(0, len, false)) {
      partner[seq[0]] = seq[len - 1];
      partner[seq[len - 1]] = seq[0];
      ++pairs;
      path(1, len - 1, true);
    } else {
      path(0, len, true);
    }
  };
  // chains start at an index nothing maps to (its row is unmatched); what is left are cycles
  for (index_t j = 0; j < n; ++j)
    if (m.col_of_row[j] == -1 && !seen[j]) split(j, false);
  for (index_t j = 0; j < n; ++j)
    if (!seen[j]) split(j, true);
  return pairs;
}

/// Step 2: the compressed graph, one vertex per pair (weight 2, the union of the neighbours) or singleton.
struct CompressedGraph {
  Graph cg;
  Vector<index_t> vwgt;           ///< 1 or 2
  Vector<index_t> first, second;  ///< the variables of each vertex (second: -1 for a singleton)
  Vector<index_t> last;           ///< variables left out of cg, ordered after it (the dense ones)
};

/// `dense`: g's dense vertices (dense_vertices). When none of them is in a pair, they are left out of the
/// compressed graph (with their edges) and ordered after it, in that order, as the orderings would order them
/// (dense_rows.hpp); that spares the passes over their adjacency here and in the ordering.
CompressedGraph compress(const Graph& g, const Vector<index_t>& partner, const Vector<index_t>& dense) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  CompressedGraph c;
  Vector<index_t> cid(un, -1);
  const bool leave_out =
      !dense.empty() && std::all_of(dense.begin(), dense.end(), [&](index_t d) { return partner[d] == -1; });
  if (leave_out) {
    c.last = dense;
    for (index_t d : dense) cid[d] = -2;  // no vertex of cg; edges to it are skipped
  }
  c.first.resize(un);
  c.second.assign(un, -1);
  index_t nc = 0;
  for (index_t j = 0; j < n; ++j) {
    if (cid[j] != -1) continue;
    cid[j] = nc;
    c.first[nc] = j;
    if (partner[j] != -1) {
      cid[partner[j]] = nc;
      c.second[nc] = partner[j];
    }
    ++nc;
  }
  c.first.resize(static_cast<size_t>(nc));
  c.second.resize(static_cast<size_t>(nc));
  c.vwgt.resize(static_cast<size_t>(nc));
  Graph& cg = c.cg;
  cg.n = nc;
  cg.ptr.assign(static_cast<size_t>(nc) + 1, 0);
  cg.adj.reserve(static_cast<size_t>(g.num_edges()));
  Vector<index_t> mark(static_cast<size_t>(nc), -1);
  for (index_t v = 0; v < nc; ++v) {
    c.vwgt[v] = c.second[v] == -1 ? 1 : 2;
    mark[v] = v;
    for (index_t x : {c.first[v], c.second[v]}) {
      if (x == -1) continue;
      for (offset_t e = g.ptr[x]; e < g.ptr[x + 1]; ++e) {
        const index_t d = cid[g.adj[e]];
        if (d >= 0 && mark[d] != v) {
          mark[d] = v;
          cg.adj.push_back(d);
        }
      }
    }
    cg.ptr[v + 1] = static_cast<offset_t>(cg.adj.size());
  }
  return c;
}

/// The order of the compressed graph by `order`, expanded pair by pair.
Vector<index_t> compressed_order(const CompressedGraph& c, OrderFn order) {
  const Vector<index_t> cperm = order(c.cg, c.vwgt.data());
  Vector<index_t> perm;
  perm.reserve(c.first.size() + c.first.size() + c.last.size());
  for (index_t k = 0; k < c.cg.n; ++k) {
    const index_t v = cperm[k];
    perm.push_back(c.first[v]);
    if (c.second[v] != -1) perm.push_back(c.second[v]);
  }
  perm.insert(perm.end(), c.last.begin(), c.last.end());
  return perm;
}

/// Which candidate the cheap orders' predictions (with delays) already decide, by a margin wide enough that
/// the thorough orders are not expected to reverse it: the compressed one when it is predicted to cost at
/// most (1 + slack) / kClearMargin of the plain one's flops and nnz(L), the plain one when the compressed
/// one is predicted above (1 + slack) * kClearMargin of either; else undecided (both are ordered again).
enum class Choice { undecided, compressed, plain };
constexpr double kClearMargin = 1.5;

Choice clear_choice(const DelayPrediction& c, const DelayPrediction& p, double slack) {
  const double hi = (1.0 + slack) * kClearMargin, lo = (1.0 + slack) / kClearMargin;
  if (c.flops > hi * p.flops || c.nnz > hi * p.nnz) return Choice::plain;
  if (c.flops <= lo * p.flops && c.nnz <= lo * p.nnz) return Choice::compressed;
  return Choice::undecided;
}

}  // namespace

MatchingPairs matching_pairs(const Graph& g, const CscView& a, AnalyseProfile* profile) {
  {
    const Vector<index_t> dense = dense_vertices(g);
    MatchingPairs out;
    if (!dense.empty() && matching_pairs_sparse_part(g, a, dense, out, profile)) return out;
  }
  FullSymmetric f;
  MatchingPairs out = matching_pairs_of_values(a, f, profile);
  PhaseTimer timer(profile);
  add_scaled_weights(g, f, out);
  timer.lap("pairs");
  return out;
}

MatchingPairs matching_pairs_of_values(const CscView& a, FullSymmetric& f, AnalyseProfile* profile) {
  PhaseTimer timer(profile);
  Vector<double> neg_log_abs;
  f = full_from_view(a, &neg_log_abs);
  MatchingCosts costs(f.n, f.ptr.data(), std::move(neg_log_abs));
  timer.lap("full matrix");
  return matching_pairs_of_full(f, &costs, profile);
}

MatchingPairs matching_pairs_of_full(const FullSymmetric& f, MatchingCosts* costs, AnalyseProfile* profile) {
  MatchingResult m;
  MatchingPairs out = matching_scaling_of_full(f, m, costs, profile);
  PhaseTimer timer(profile);
  Vector<double> diag(static_cast<size_t>(f.n), 0.0);  // missing diagonal entries are zero
  for (index_t j = 0; j < f.n; ++j) {  // f's rows increase within a column (full_from_view)
    const index_t* first = f.row.data() + f.ptr[j];
    const index_t* last = f.row.data() + f.ptr[j + 1];
    const index_t* d = std::lower_bound(first, last, j);
    if (d != last && *d == j) diag[j] = std::fabs(f.val[static_cast<size_t>(d - f.row.data())]);
  }
  add_pairs(diag, m, out);
  timer.lap("pairs");
  return out;
}

MatchingPairs matching_scaling_of_full(const FullSymmetric& f, MatchingResult& m, MatchingCosts* costs,
                                       AnalyseProfile* profile) {
  PhaseTimer timer(profile);
  MatchingPairs out;
  ScalingInfo info;
  out.scale = matching_scaling(f, info, &m, costs);
  timer.lap("matching");
  out.matched = info.matched;
  out.structurally_singular = info.structurally_singular;
  return out;
}

void add_pairs(const Vector<double>& diag, const MatchingResult& m, MatchingPairs& mp) {
  const index_t n = static_cast<index_t>(diag.size());
  mp.needy.resize(diag.size());
  for (index_t j = 0; j < n; ++j) mp.needy[j] = diag[j] * mp.scale[j] * mp.scale[j] < kSmallDiagonal;
  mp.pairs = split_matching(m, mp.needy, mp.partner);
}

void add_scaled_weights(const Graph& g, const FullSymmetric& f, MatchingPairs& mp) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  // column v of f scattered by row, then read along g's adjacency
  mp.weight.assign(static_cast<size_t>(g.num_edges()), 0.0f);
  mp.diag.assign(un, 0.0f);
  Vector<float> col(un, 0.0f);
  for (index_t v = 0; v < n; ++v) {
    for (offset_t k = f.ptr[v]; k < f.ptr[v + 1]; ++k)
      col[f.row[k]] = static_cast<float>(std::fabs(f.val[k]) * mp.scale[f.row[k]] * mp.scale[v]);
    mp.diag[v] = col[v];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) mp.weight[e] = col[g.adj[e]];
    for (offset_t k = f.ptr[v]; k < f.ptr[v + 1]; ++k) col[f.row[k]] = 0.0f;
  }
}

EdgeMagnitudes edge_magnitudes(const Graph& g, const FullSymmetric& f) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  EdgeMagnitudes m;
  m.edge.resize(static_cast<size_t>(g.num_edges()));
  m.diag.resize(un);
  Vector<double> col(un, 0.0);  // column v of |f| scattered by row, then read along g's adjacency
  for (index_t v = 0; v < n; ++v) {
    for (offset_t k = f.ptr[v]; k < f.ptr[v + 1]; ++k) col[f.row[k]] = std::fabs(f.val[k]);
    m.diag[v] = col[v];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) m.edge[e] = col[g.adj[e]];
    for (offset_t k = f.ptr[v]; k < f.ptr[v + 1]; ++k) col[f.row[k]] = 0.0;
  }
  return m;
}

void add_scaled_weights(const Graph& g, const EdgeMagnitudes& m, MatchingPairs& mp) {
  const index_t n = g.n;
  // as add_scaled_weights(g, f, mp) computes them: |a_vu| s_u s_v in that order, 0 where f has no entry
  auto scaled = [&mp](double a, index_t u, index_t v) {
    return a == 0.0 ? 0.0f : static_cast<float>(a * mp.scale[u] * mp.scale[v]);
  };
  mp.weight.resize(static_cast<size_t>(g.num_edges()));
  mp.diag.resize(static_cast<size_t>(n));
  for (index_t v = 0; v < n; ++v) {
    mp.diag[v] = scaled(m.diag[v], v, v);
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) mp.weight[e] = scaled(m.edge[e], g.adj[e], v);
  }
}

MatchingOrder order_matching(const Graph& g, const std::function<MatchingPairs()>& pairs_of_values,
                             const CandidateOrderings& orderings, double compressed_slack, const AmalgamationRule& rule,
                             AnalyseProfile* profile, const PlainCandidate* plain) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  PhaseTimer timer(profile);
  const bool timed = profile != nullptr;
  MatchingPairs mp;
  bool with_pairs = false;  // else the compressed graph would be the graph itself
  CompressedGraph comp;
  // the candidates' own phase times, added to the profile after they ran (side by side)
  AnalyseProfile prof_c, prof_p;
  AnalyseProfile* pc = timed ? &prof_c : nullptr;
  AnalyseProfile* pp = timed ? &prof_p : nullptr;
  auto compressed_by = [&](OrderFn order, AnalyseProfile* prof, const char* phase) {
    PhaseTimer t(prof);
    Vector<index_t> perm = compressed_order(comp, order);
    t.lap(phase);
    Candidate c = predict(g, std::move(perm), rule, mp);
    t.lap("predictions");
    return c;
  };
  auto plain_order = [&](OrderFn order, AnalyseProfile* prof, const char* phase) {
    PhaseTimer t(prof);
    Vector<index_t> perm = order(g, nullptr);
    t.lap(phase);
    return perm;
  };
  auto plain_predicted = [&](Vector<index_t> perm, AnalyseProfile* prof) {  // pattern part only
    PhaseTimer t(prof);
    Candidate c = predict_pattern(g, std::move(perm), rule);
    t.lap("predictions");
    return c;
  };
  const Vector<index_t> none;
  const Vector<index_t>& known_cheap = plain ? plain->cheap : none;
  const Vector<index_t>& known_thorough = plain ? plain->thorough : none;
  // The cheap ordering first on small inputs: both candidates by it, then the thorough one only when the
  // cheap plain order predicts a costly factorization (pattern only, so a re-analysis decides the same), and
  // only for the candidates the cheap orders leave in question. Without the cheap ordering both candidates
  // take the thorough one.
  const bool cheap = orderings.cheap && n <= kCheapOrderMaxVariables;
  bool thorough = !cheap;
  bool gpu_bound = false;  // the thorough orders replace the cheap ones (CandidateOrderings::cheap_flops_limit)
  // Which candidates the thorough ordering is for (clear_choice); the cheap candidates must be predicted first.
  auto decide = [&](const Candidate& cc, const Candidate& cp, bool& need_c, bool& need_p) {
    need_c = with_pairs;
    need_p = true;
    if (cheap && thorough && with_pairs && !gpu_bound) {
      const Choice clear = clear_choice(cc.delayed, cp.delayed, compressed_slack);
      need_c = clear != Choice::plain;
      need_p = clear != Choice::compressed;
    }
  };
  Candidate cc, cp;              // the candidates as ordered so far
  Candidate cc_thorough;         // the compressed candidate by the thorough ordering, when ordered ahead
  bool cc_thorough_done = false, cp_delays_done = false;
  Candidate cp_thorough;         // the plain graph's thorough order (pattern part predicted), when ordered ahead
  bool cp_thorough_done = false, cp_thorough_delays = false;  // ... and its delays predicted
  // The plain candidate needs the pattern only: its orders are computed beside the matching (two tasks,
  // tasks.hpp). Where the thorough ordering is one METIS call (graphs of at most kNdLeafVertices; above,
  // nested dissection spreads over the whole team, and the two candidates' calls run side by side after the
  // matching), each side may also start it early, so that the second thread is not idle: the plain side
  // without the cheap ordering, or when the pattern asks for the thorough ordering while the matching is still
  // running or before the pairs side has chosen without it (wasted when the compressed candidate then wins
  // clearly, which can lengthen the wall time by up to that call's time); the pairs side without the cheap
  // ordering, or when the plain side has already decided that the thorough ordering runs and the choice shows
  // that the compressed candidate needs it.
  // Every order is a function of the graph or the pairs alone and the choice is made after both tasks, so the
  // result is the same whatever ran early, on any number of threads.
  std::atomic<bool> matched{false}, plain_ready{false};
  std::atomic<bool> values_ok{false};  // mp holds the values' side's result (read only from then on)
  std::atomic<bool> decided{false}, decided_need_p{false};  // the pairs side's early choice, when it made one
  const bool concurrent = omp_get_num_threads() > 1;  // in a team of threads (tasks.hpp): a second one may help
  // a thorough ordering may start before the choice: on graphs of one METIS call, and on graphs with dense
  // vertices, whose values' side (both triangles, the matching weights: linear in the dense rows' entries,
  // which the orderings never see) would otherwise leave the second thread idle for longer than the plain
  // candidate's nested dissection takes
  const Vector<index_t> dense = dense_vertices(g);
  const bool ahead = n <= kNdLeafVertices || !dense.empty();
  auto pairs_side = [&] {
    try {
      mp = pairs_of_values();
    } catch (...) {  // bad values: nothing is ordered ahead for them
      matched.store(true, std::memory_order_release);
      throw;
    }
    values_ok.store(true, std::memory_order_release);
    matched.store(true, std::memory_order_release);
    with_pairs = mp.pairs > 0;
    if (!with_pairs) return;
    PhaseTimer t(pc);
    comp = compress(g, mp.partner, dense);
    t.lap("compressed graph");
    if (!cheap) {
      if (!ahead) return;
      cc_thorough = compressed_by(orderings.thorough, pc, "METIS compressed");
      cc_thorough_done = true;
      return;
    }
    cc = compressed_by(orderings.cheap, pc, "AMD compressed");
    if (!ahead || !plain_ready.load(std::memory_order_acquire) || !thorough) return;
    add_delays(g, cp, mp);  // the plain side is done with cp
    cp_delays_done = true;
    bool need_c = false, need_p = false;
    decide(cc, cp, need_c, need_p);
    decided_need_p.store(need_p, std::memory_order_release);
    decided.store(true, std::memory_order_release);
    if (!need_c) return;
    cc_thorough = compressed_by(orderings.thorough, pc, "METIS compressed");
    cc_thorough_done = true;
  };
  auto order_plain_ahead = [&] {  // with the pattern part of its prediction
    cp_thorough = plain_predicted(plain_order(orderings.thorough, pp, "METIS plain"), pp);
    // its delays too when the values are known by now, rather than after both sides
    if (values_ok.load(std::memory_order_acquire)) {
      PhaseTimer t(pp);
      add_delays(g, cp_thorough, mp);
      t.lap("predictions");
      cp_thorough_delays = true;
    }
    cp_thorough_done = true;
  };
  auto plain_side = [&] {
    if (!cheap) {
      if (ahead && known_thorough.empty()) order_plain_ahead();
      return;
    }
    cp = plain_predicted(known_cheap.empty() ? plain_order(orderings.cheap, pp, "AMD plain") : known_cheap, pp);
    // per edge of the graph without its dense rows, which the orderings keep out (their edges would make
    // a KKT matrix with a few dense constraints look sparse)
    gpu_bound = cp.flops >= orderings.cheap_flops_limit;
    thorough = gpu_bound || cp.flops > kCheapOrderFlopsPerEdge *
                                           static_cast<double>(std::max<offset_t>(1, sparse_part_edges(g)));
    plain_ready.store(true, std::memory_order_release);
    // ahead while the matching runs, or after it unless the pairs side has already chosen without the plain
    // graph's thorough order (else it would run after the pairs side's METIS call, not beside it)
    if (thorough && ahead && concurrent && known_thorough.empty() &&
        (!matched.load(std::memory_order_acquire) || !decided.load(std::memory_order_acquire) ||
         decided_need_p.load(std::memory_order_acquire)))
      order_plain_ahead();
  };
  // the matching on the calling thread: a loaded machine may leave the task waiting for a second thread.
  // With dense vertices the values' side (without the dense rows) and the compressed candidate take less time
  // than the plain candidate's nested dissection, which starts at once: that one runs on the calling thread,
  // so that the other thread, done with its side, can take its tasks (a thread waiting for a task cannot run
  // that task's own tasks, which would leave it idle for the rest of the plain candidate's ordering)
  if (dense.empty())
    fork_join(plain_side, pairs_side);
  else
    fork_join(pairs_side, plain_side);
  MatchingOrder out;
  out.scale = std::move(mp.scale);
  out.matched = mp.matched;
  out.structurally_singular = mp.structurally_singular;
  out.candidate_partner = mp.partner;
  if (cheap) {
    out.plain.cheap = cp.perm;
    if (!cp_delays_done) add_delays(g, cp, mp);
  }
  bool need_c = false, need_p = false;
  decide(cc, cp, need_c, need_p);
  if (thorough) {
    // the candidates that need it by the thorough ordering at once (tasks.hpp); each keeps the cheap order
    // when that predicts no more flops
    auto keep_better = [&](Candidate& kept, Candidate c) {
      if (gpu_bound || kept.perm.empty() || c.flops < kept.flops) kept = std::move(c);
    };
    auto order_c = [&] {
      if (!need_c) return;
      keep_better(cc, cc_thorough_done ? std::move(cc_thorough)
                                       : compressed_by(orderings.thorough, pc, "METIS compressed"));
    };
    auto order_p = [&] {
      if (!need_p) return;
      const bool ahead_with_delays = known_thorough.empty() && cp_thorough_done && cp_thorough_delays;
      Candidate c = !known_thorough.empty() ? plain_predicted(known_thorough, pp)
                    : cp_thorough_done      ? std::move(cp_thorough)
                                            : plain_predicted(plain_order(orderings.thorough, pp, "METIS plain"), pp);
      if (!ahead_with_delays) add_delays(g, c, mp);
      out.plain.thorough = c.perm;
      keep_better(cp, std::move(c));
    };
    // one of them alone on the calling thread: as a task it could go to the other thread, and a thread
    // waiting for a task cannot run that task's own tasks (nested dissection's parts), so they would run
    // one after another
    const bool c_left = need_c && !cc_thorough_done;
    const bool p_left = need_p && known_thorough.empty() && !cp_thorough_done;
    if (c_left && p_left) {
      fork_join(order_c, order_p);
    } else {
      order_c();
      order_p();
    }
  }
  out.thorough = thorough;
  if (timed) {  // the candidates ran side by side with the matching: their own times, and the wall time of all
    for (const auto& ph : prof_c.phases) profile->add(ph.name, ph.seconds);
    for (const auto& ph : prof_p.phases) profile->add(ph.name, ph.seconds);
    timer.lap("candidates (wall)");
  }
  if (with_pairs) {
    out.predicted_flops_compressed = cc.flops;
    out.predicted_nnz_compressed = cc.nnz;
    out.delayed_compressed = cc.delayed;
    // compared with the delays each is predicted to cause: the plain order leaves the needy variables to
    // threshold pivoting, the compressed one pairs them
    const DelayPrediction &dc = cc.delayed, &dp = cp.delayed;
    out.compressed = dc.flops <= (1.0 + compressed_slack) * dp.flops && dc.nnz <= (1.0 + compressed_slack) * dp.nnz;
  }
  out.predicted_flops_plain = cp.flops;
  out.predicted_nnz_plain = cp.nnz;
  out.delayed_plain = cp.delayed;
  Candidate& chosen = out.compressed ? cc : cp;
  out.perm = std::move(chosen.perm);
  out.parent = std::move(chosen.parent);
  out.colcount = std::move(chosen.colcount);
  if (out.compressed) {
    out.partner = std::move(mp.partner);
    out.num_pairs = mp.pairs;
  } else {
    out.partner.assign(un, -1);
  }
  return out;
}

MatchingOrder matching_order(const Graph& g, const CscView& a, const CandidateOrderings& orderings,
                             double compressed_slack, const AmalgamationRule& rule, AnalyseProfile* profile) {
  return order_matching(g, [&] { return matching_pairs(g, a, profile); }, orderings, compressed_slack, rule, profile);
}

}  // namespace detail
}  // namespace ssids
