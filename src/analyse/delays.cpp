// delays.cpp — structural prediction of delayed pivots (see delays.hpp). One sweep over the nodes in postorder,
// each node testing its own needy variables and the ones delayed into it against their adjacency: O(nnz(A)) in
// all, plus the delayed variables' adjacency once per node they pass through.
#include "analyse/delays.hpp"

#include <algorithm>

namespace ssids {
namespace detail {

namespace {
constexpr double kThreshold = 0.01;  // Options::u's default
constexpr double kTiny = 1e-30;
// the pivot search pairs a column with the largest entry of its fully summed block; count a 2x2 pivot only
// when that entry is at least this fraction of the column's largest (measured: 0.1 predicts too few delays
// for plain orders, e.g. 5548 against 37163 on mm_CONT-201_kkt, and picks the plain order where it factorizes
// slower; 0.5 picks the faster candidate on every matrix of the KKT set and the kkt-qp/kkt-ipm problems)
constexpr double kPairFraction = 0.5;
}  // namespace

DelayPrediction predict_delays(const Graph& g, const Vector<index_t>& perm, const Partition& part,
                               const Vector<index_t>& colcount, const Vector<char>& needy,
                               const Vector<float>& weight, const Vector<float>& diag) {
  const index_t n = g.n;
  DelayPrediction out;
  // final position of every variable, the node whose front holds it fully summed, and whether it is eliminated
  Vector<index_t> pos(static_cast<size_t>(n)), in_front(static_cast<size_t>(n), -1);
  Vector<char> gone(static_cast<size_t>(n), 0);
  for (index_t k = 0; k < n; ++k) pos[perm[part.old_of_new[k]]] = k;
  Vector<Vector<index_t>> delayed(static_cast<size_t>(part.nsup));  // delayed into each node
  Vector<index_t> moving;
  // can v be eliminated in front s, after the eliminated columns and (k >= 0: v is the own column at position
  // k) the own columns before it, or in a 2x2 pivot with a variable still fully summed in s?
  // can v be eliminated in front s after the eliminated columns and (k >= 0: v is the own column at position
  // k) the non-needy own columns before it, or in a 2x2 pivot with a variable fully summed in s: a later own
  // column, a delayed one, or a needy own column before it (which waited for a partner)?
  auto pivotable = [&](index_t v, index_t s, index_t k) {
    double update = 0.0, later = 0.0;
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
      const index_t u = g.adj[e];
      const double w = weight[e];
      if (gone[u] || (k >= 0 && in_front[u] == s && pos[u] < k && !needy[u]))
        update += needy[u] ? 0.0 : w * w / std::max(static_cast<double>(diag[u]), kTiny);
      else
        later = std::max(later, w);
    }
    if (later == 0.0 || update >= kThreshold * later) return true;
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
      const index_t u = g.adj[e];
      if (!gone[u] && in_front[u] == s && (k < 0 || pos[u] > k || needy[u]) && weight[e] >= kPairFraction * later)
        return true;
    }
    return false;
  };
  for (index_t s = 0; s < part.nsup; ++s) {
    const index_t first = part.sptr[s], last = part.sptr[s + 1];
    for (index_t k = first; k < last; ++k) in_front[perm[part.old_of_new[k]]] = s;
    for (index_t v : delayed[s]) in_front[v] = s;
    moving.clear();
    for (index_t k = first; k < last; ++k) {
      const index_t v = perm[part.old_of_new[k]];
      if (needy[v] && !pivotable(v, s, k)) moving.push_back(v);
    }
    for (index_t k = first; k < last; ++k) gone[perm[part.old_of_new[k]]] = 1;
    for (index_t v : moving) gone[v] = 0;
    const size_t own_moving = moving.size();
    for (index_t v : delayed[s])
      if (!pivotable(v, s, -1)) moving.push_back(v);
    for (index_t v : delayed[s]) gone[v] = 1;
    for (size_t t = own_moving; t < moving.size(); ++t) gone[moving[t]] = 0;
    const double din = static_cast<double>(delayed[s].size());
    const double nc = last - first;
    const double nrow = nc + colcount[part.old_of_new[last - 1]] - 1;
    const index_t parent = part.sparent[s];
    const double dout = parent == -1 ? 0.0 : static_cast<double>(moving.size());  // a root keeps its pivots
    const double m = nrow + din, p = nc + din - dout;
    out.nnz += p * m - p * (p - 1) / 2;
    for (double r = m - p; r < m; r += 1.0) out.flops += r * r + 2 * r;
    if (parent != -1) {
      out.delays += static_cast<offset_t>(moving.size());
      for (index_t v : moving) delayed[parent].push_back(v);
    }
    Vector<index_t>().swap(delayed[s]);
  }
  return out;
}

}  // namespace detail
}  // namespace ssids
