// reorder.cpp — DB (maximum-product matching + scaling), Cuthill–McKee with pseudo-peripheral start nodes,
// and the drop-off bandwidth. Li, Serban, Negrut 2015: §2.2.1 (DB as min-weight bipartite matching, Eq. (12);
// CM on the symmetrized pattern), §3.2 (DB-S4: permutation and I-matrix scaling), §3.3 (several CM start
// nodes, keep the best). The matching itself is the shared ssids::detail::max_product_matching.
// Conventions: see reorder.hpp (order[new] = old, position[old] = new, 0-based).
#include "sap/reorder.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/matching.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace sap {
namespace detail {

namespace {

/// Turn a list of directed edges (both directions already present) into a Graph: sort, dedupe, then order
/// each adjacency list by (degree, index).
Graph finalize_graph(index_t n, Vector<offset_t>& count_ptr, Vector<index_t>& adj) {
  Graph g;
  g.n = n;
  g.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  // dedupe per node (in place, compacting)
  offset_t out = 0;
  for (index_t v = 0; v < n; ++v) {
    const offset_t b = count_ptr[v], e = count_ptr[v + 1];
    std::sort(adj.begin() + b, adj.begin() + e);
    const offset_t start = out;
    for (offset_t p = b; p < e; ++p)
      if (p == b || adj[p] != adj[p - 1]) adj[out++] = adj[p];
    g.ptr[v] = start;
  }
  g.ptr[n] = out;
  adj.resize(static_cast<std::size_t>(out));
  g.adj = std::move(adj);
  for (index_t v = 0; v < n; ++v) {
    auto b = g.adj.begin() + g.ptr[v], e = g.adj.begin() + g.ptr[v + 1];
    std::sort(b, e, [&](index_t x, index_t y) {
      const index_t dx = g.degree(x), dy = g.degree(y);
      return dx != dy ? dx < dy : x < y;
    });
  }
  return g;
}

}  // namespace

Graph graph_of_csr(const CsrMatrix& a, const index_t* row_map) {
  const index_t n = a.nrow;
  Vector<offset_t> ptr(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    const index_t r = row_map ? row_map[i] : i;
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      const index_t c = a.col[p];
      if (c == r) continue;
      ++ptr[r + 1];
      ++ptr[c + 1];
    }
  }
  for (index_t v = 0; v < n; ++v) ptr[v + 1] += ptr[v];
  Vector<index_t> adj(static_cast<std::size_t>(ptr[n]));
  Vector<offset_t> next(ptr.begin(), ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    const index_t r = row_map ? row_map[i] : i;
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      const index_t c = a.col[p];
      if (c == r) continue;
      adj[next[r]++] = c;
      adj[next[c]++] = r;
    }
  }
  return finalize_graph(n, ptr, adj);
}

Graph graph_of_pairs(index_t n, offset_t m, const index_t* pi, const index_t* pj) {
  Vector<offset_t> ptr(static_cast<std::size_t>(n) + 1, 0);
  for (offset_t t = 0; t < m; ++t) {
    if (pi[t] == pj[t]) continue;
    ++ptr[pi[t] + 1];
    ++ptr[pj[t] + 1];
  }
  for (index_t v = 0; v < n; ++v) ptr[v + 1] += ptr[v];
  Vector<index_t> adj(static_cast<std::size_t>(ptr[n]));
  Vector<offset_t> next(ptr.begin(), ptr.end() - 1);
  for (offset_t t = 0; t < m; ++t) {
    if (pi[t] == pj[t]) continue;
    adj[next[pi[t]]++] = pj[t];
    adj[next[pj[t]]++] = pi[t];
  }
  return finalize_graph(n, ptr, adj);
}

index_t graph_bandwidth(const Graph& g, const index_t* position) {
  index_t bw = 0;
  for (index_t v = 0; v < g.n; ++v) {
    const index_t pv = position ? position[v] : v;
    for (offset_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p) {
      const index_t w = g.adj[p];
      const index_t pw = position ? position[w] : w;
      bw = std::max(bw, pv > pw ? pv - pw : pw - pv);
    }
  }
  return bw;
}

Vector<index_t> cuthill_mckee(const Graph& g, int starts, index_t* bandwidth) {
  const index_t n = g.n;
  starts = std::max(starts, 1);
  Vector<index_t> order(static_cast<std::size_t>(n)), position(static_cast<std::size_t>(n), -1);
  Vector<index_t> comp;                    // nodes of the current component
  Vector<index_t> trial, best;             // CM orders of the component
  Vector<index_t> stamp(static_cast<std::size_t>(n), -1);  // BFS visit marks, by trial number
  Vector<char> tried(static_cast<std::size_t>(n), 0);
  Vector<index_t> local_pos(static_cast<std::size_t>(n), -1);
  index_t filled = 0;
  int trial_id = 0;

  for (index_t root = 0; root < n; ++root) {
    if (position[root] >= 0) continue;
    // collect the component of root (BFS), pick its min-degree node as the first start
    comp.clear();
    comp.push_back(root);
    position[root] = filled;  // temporary mark; overwritten below
    for (std::size_t h = 0; h < comp.size(); ++h) {
      const index_t v = comp[h];
      for (offset_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p)
        if (position[g.adj[p]] < 0) {
          position[g.adj[p]] = filled;
          comp.push_back(g.adj[p]);
        }
    }
    const index_t cn = static_cast<index_t>(comp.size());
    index_t start = comp[0];
    for (index_t v : comp)
      if (g.degree(v) < g.degree(start)) start = v;

    index_t best_bw = -1;
    for (int s = 0; s < starts && start >= 0; ++s) {
      // CM from `start`: BFS with neighbours in ascending degree (pre-sorted adjacency)
      ++trial_id;
      tried[start] = 1;
      trial.clear();
      trial.push_back(start);
      stamp[start] = trial_id;
      index_t last_level_begin = 0, level_end = 1;
      for (index_t h = 0; h < static_cast<index_t>(trial.size()); ++h) {
        if (h == level_end) {
          last_level_begin = level_end;
          level_end = static_cast<index_t>(trial.size());
        }
        const index_t v = trial[h];
        for (offset_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p) {
          const index_t w = g.adj[p];
          if (stamp[w] != trial_id) {
            stamp[w] = trial_id;
            trial.push_back(w);
          }
        }
      }
      // bandwidth of this component order
      for (index_t t = 0; t < cn; ++t) local_pos[trial[t]] = t;
      index_t bw = 0;
      for (index_t t = 0; t < cn; ++t) {
        const index_t v = trial[t];
        for (offset_t p = g.ptr[v]; p < g.ptr[v + 1]; ++p) bw = std::max(bw, std::abs(t - local_pos[g.adj[p]]));
      }
      if (best_bw < 0 || bw < best_bw) {
        best_bw = bw;
        best.assign(trial.begin(), trial.end());
      }
      // next start: the min-degree untried node of the last level (pseudo-peripheral search)
      start = -1;
      for (index_t t = last_level_begin; t < cn; ++t) {
        const index_t v = trial[t];
        if (!tried[v] && (start < 0 || g.degree(v) < g.degree(start))) start = v;
      }
    }
    for (index_t t = 0; t < cn; ++t) {
      order[filled + t] = best[t];
      position[best[t]] = filled + t;
    }
    filled += cn;
  }

  const index_t bw_cm = graph_bandwidth(g, position.data());
  const index_t bw_nat = graph_bandwidth(g, nullptr);
  if (bw_cm >= bw_nat) {
    for (index_t v = 0; v < n; ++v) order[v] = v;
    if (bandwidth) *bandwidth = bw_nat;
  } else if (bandwidth) {
    *bandwidth = bw_cm;
  }
  return order;
}

DbResult diagonal_boosting(const CsrMatrix& a, bool scaling) {
  const index_t n = a.nrow;
  // CSC copy of A (the matching works on columns)
  Vector<offset_t> cptr(static_cast<std::size_t>(n) + 1, 0);
  for (offset_t p = 0; p < a.nnz(); ++p) ++cptr[a.col[p] + 1];
  for (index_t j = 0; j < n; ++j) cptr[j + 1] += cptr[j];
  Vector<index_t> crow(static_cast<std::size_t>(a.nnz()));
  Vector<double> cval(static_cast<std::size_t>(a.nnz()));
  {
    Vector<offset_t> next(cptr.begin(), cptr.end() - 1);
    for (index_t i = 0; i < n; ++i)
      for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
        const offset_t q = next[a.col[p]]++;
        crow[q] = i;
        cval[q] = a.val[p];
      }
  }
  ssids::detail::MatchingResult m = ssids::detail::max_product_matching(n, cptr.data(), crow.data(), cval.data());
  if (m.matched < n)
    throw Error(flag::singular, "SaP diagonal boosting: the matrix is structurally singular (a maximum matching covers " +
                                    std::to_string(m.matched) + " of " + std::to_string(n) +
                                    " columns; no row permutation gives a zero-free diagonal)");
  DbResult r;
  r.order.assign(m.row_of_col.begin(), m.row_of_col.end());
  r.row_scale.assign(static_cast<std::size_t>(n), 1.0);
  r.col_scale.assign(static_cast<std::size_t>(n), 1.0);
  if (scaling && m.row_log_scale.size() == static_cast<std::size_t>(n) &&
      m.col_log_scale.size() == static_cast<std::size_t>(n)) {
    for (index_t i = 0; i < n; ++i) r.row_scale[i] = std::exp(m.row_log_scale[i]);
    for (index_t j = 0; j < n; ++j) r.col_scale[j] = std::exp(m.col_log_scale[j]);
  }
  // log of the diagonal product, from the CSC copy
  for (index_t j = 0; j < n; ++j)
    for (offset_t p = cptr[j]; p < cptr[j + 1]; ++p)
      if (crow[p] == r.order[j]) r.log_product += std::log(std::fabs(cval[p]));
  return r;
}

index_t drop_bandwidth(const double* mass, index_t n, index_t struct_max, double drop, double* kept_fraction) {
  double total = 0.0;
  for (index_t d = 0; d < n; ++d) total += mass[d];
  if (drop <= 0.0 || total <= 0.0) {
    if (kept_fraction) *kept_fraction = 1.0;
    return struct_max;
  }
  const double need = (1.0 - drop) * total;
  double kept = 0.0;
  index_t k = 0;
  for (; k < n; ++k) {
    kept += mass[k];
    if (kept >= need) break;
  }
  k = std::min(k, struct_max);
  if (kept_fraction) *kept_fraction = std::min(1.0, kept / total);
  return k;
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
