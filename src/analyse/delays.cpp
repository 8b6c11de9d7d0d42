// delays.cpp — structural prediction of delayed pivots (see delays.hpp). One sweep over the nodes in postorder,
// each node testing its own needy variables and the ones delayed into it against their adjacency: O(nnz(A)) in
// all, plus the delayed variables' adjacency once per node they pass through.
#include "analyse/delays.hpp"

#include <omp.h>

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
// the sweep's subtrees that run as tasks hold at most this fraction of the work each
constexpr double kSubtreeParts = 16.0;
}  // namespace

DelayPrediction predict_delays(const Graph& g, const Vector<index_t>& perm, const Partition& part,
                               const Vector<index_t>& colcount, const Vector<char>& needy,
                               const Vector<float>& weight, const Vector<float>& diag) {
  const index_t n = g.n, nsup = part.nsup;
  const size_t us = static_cast<size_t>(nsup);
  // final position of every variable, the node whose front holds it fully summed, and whether it is eliminated
  Vector<index_t> pos(static_cast<size_t>(n)), in_front(static_cast<size_t>(n), -1);
  Vector<char> gone(static_cast<size_t>(n), 0);
  for (index_t k = 0; k < n; ++k) pos[perm[part.old_of_new[k]]] = k;
  // the children of every node, in increasing order (the order in which a serial sweep meets them)
  Vector<index_t> child_ptr(us + 1, 0), child_list(us);
  for (index_t s = 0; s < nsup; ++s)
    if (part.sparent[s] >= 0) ++child_ptr[part.sparent[s] + 1];
  for (index_t s = 0; s < nsup; ++s) child_ptr[s + 1] += child_ptr[s];
  {
    Vector<index_t> next(child_ptr.begin(), child_ptr.end() - 1);
    for (index_t s = 0; s < nsup; ++s)
      if (part.sparent[s] >= 0) child_list[next[part.sparent[s]]++] = s;
  }
  // per node: the variables it passes to its parent (moved, until the parent takes them) and how many it
  // passed and received
  Vector<Vector<index_t>> moved(us);
  Vector<index_t> moved_count(us, 0), delayed_in(us, 0);
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
  // node s: which of its own and delayed variables move on to its parent. It reads and writes the entries of
  // its own variables and of those delayed into it, and reads those of their neighbours, which lie in its
  // subtree or among its ancestors (an edge joins a node's variable to an ancestor's or a descendant's): so
  // disjoint subtrees can be swept side by side, each in postorder, with the same result.
  auto sweep = [&](index_t s, Vector<index_t>& delayed) {
    delayed.clear();
    for (index_t c = child_ptr[s]; c < child_ptr[s + 1]; ++c) {
      Vector<index_t>& up = moved[child_list[c]];
      delayed.insert(delayed.end(), up.begin(), up.end());
      Vector<index_t>().swap(up);
    }
    delayed_in[s] = static_cast<index_t>(delayed.size());
    const index_t first = part.sptr[s], last = part.sptr[s + 1];
    for (index_t k = first; k < last; ++k) in_front[perm[part.old_of_new[k]]] = s;
    for (index_t v : delayed) in_front[v] = s;
    Vector<index_t>& moving = moved[s];
    for (index_t k = first; k < last; ++k) {
      const index_t v = perm[part.old_of_new[k]];
      if (needy[v] && !pivotable(v, s, k)) moving.push_back(v);
    }
    for (index_t k = first; k < last; ++k) gone[perm[part.old_of_new[k]]] = 1;
    for (index_t v : moving) gone[v] = 0;
    const size_t own_moving = moving.size();
    for (index_t v : delayed)
      if (!pivotable(v, s, -1)) moving.push_back(v);
    for (index_t v : delayed) gone[v] = 1;
    for (size_t t = own_moving; t < moving.size(); ++t) gone[moving[t]] = 0;
    moved_count[s] = static_cast<index_t>(moving.size());
  };
  // subtrees of at most 1/kSubtreeParts of the work (the adjacency its variables are tested against) are
  // swept as tasks, the nodes above them afterwards; the split depends on the pattern alone
  Vector<double> work(us, 0.0);
  Vector<index_t> first_node(us);
  double total = 0.0;
  for (index_t s = 0; s < nsup; ++s) {
    first_node[s] = s;
    for (index_t k = part.sptr[s]; k < part.sptr[s + 1]; ++k) {
      const index_t v = perm[part.old_of_new[k]];
      work[s] += static_cast<double>(g.ptr[v + 1] - g.ptr[v] + 1);
    }
    total += work[s];
  }
  for (index_t s = 0; s < nsup; ++s) {
    const index_t p = part.sparent[s];
    if (p >= 0) {
      work[p] += work[s];
      first_node[p] = std::min(first_node[p], first_node[s]);
    }
  }
  const double unit_work = total / kSubtreeParts;
  Vector<char> in_unit(us, 0);
#pragma omp taskgroup
  {
    for (index_t s = 0; s < nsup; ++s) {
      const index_t p = part.sparent[s];
      if (work[s] > unit_work || (p >= 0 && work[p] <= unit_work)) continue;
      const index_t lo = first_node[s];
      std::fill(in_unit.begin() + lo, in_unit.begin() + s + 1, char(1));
#pragma omp task firstprivate(lo, s) shared(sweep) default(none)
      {
        Vector<index_t> delayed;
        for (index_t t = lo; t <= s; ++t) sweep(t, delayed);
      }
    }
  }
  Vector<index_t> delayed;
  for (index_t s = 0; s < nsup; ++s)
    if (!in_unit[s]) sweep(s, delayed);
  // the prediction, node by node in postorder
  DelayPrediction out;
  for (index_t s = 0; s < nsup; ++s) {
    const index_t first = part.sptr[s], last = part.sptr[s + 1];
    const index_t parent = part.sparent[s];
    const double din = static_cast<double>(delayed_in[s]);
    const double nc = last - first;
    const double nrow = nc + colcount[part.old_of_new[last - 1]] - 1;
    const index_t nmoving = moved_count[s];
    const double dout = parent == -1 ? 0.0 : static_cast<double>(nmoving);  // a root keeps its pivots
    const double m = nrow + din, p = nc + din - dout;
    out.nnz += p * m - p * (p - 1) / 2;
    for (double r = m - p; r < m; r += 1.0) out.flops += r * r + 2 * r;
    if (parent != -1) out.delays += static_cast<offset_t>(nmoving);
  }
  return out;
}

}  // namespace detail
}  // namespace ssids
