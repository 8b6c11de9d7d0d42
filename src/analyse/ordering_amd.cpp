// ordering_amd.cpp — approximate minimum degree ordering (see ordering_amd.hpp).
//
// Amestoy, Davis & Duff, "An approximate minimum degree ordering algorithm", SIAM J. Matrix Anal. Appl.
// 17(4), 1996. The elimination is simulated on the quotient graph: an eliminated pivot p becomes an element
// whose variable list L_p replaces the cliques it would create. Every (super)variable i keeps a list E_i of
// adjacent elements and A_i of adjacent variables. Per pivot:
//   1. L_p = (A_p u the lists of the elements in E_p) minus p; those elements are absorbed into p (§2).
//   2. |L_e \ L_p| for every element e adjacent to L_p, by subtracting (the "w(e)" pass, §4).
//   3. For i in L_p: drop absorbed elements from E_i (an element with L_e inside L_p is absorbed at once:
//      aggressive absorption), drop from A_i whatever is in L_p or eliminated, add p to E_i, and set the
//      approximate external degree d_i = min(d_i_old + |L_p\i|, |A_i| + |L_p\i| + sum_e |L_e\L_p|) (eq. 4.1).
//      A variable whose only neighbour is p goes with p at once (mass elimination).
//   4. Indistinguishable variables of L_p (same E and A) are merged into supervariables, found through a
//      hash of their lists (§3); then d_i <= (variables left) - |i| caps the degree.
// Weights: nv[i] variables per supervariable; all degrees and sizes are weighted.
// Conventions: 0-based; lists are per-node Vectors (no in-place workspace or garbage collection), dead
// entries are dropped lazily. Output: pivots in elimination order, each followed by the variables merged into
// it or mass-eliminated with it.
#include "analyse/ordering_amd.hpp"

#include <algorithm>
#include <utility>

namespace ssids {
namespace detail {

namespace {

enum : char { kVariable = 0, kElement = 1, kDead = 2 };

template <class T>
void release(Vector<T>& v) {
  Vector<T>().swap(v);
}

}  // namespace

Vector<index_t> amd_order(const Graph& g, const index_t* vwgt) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  Vector<index_t> perm;
  perm.reserve(un);
  if (n == 0) return perm;

  Vector<char> kind(un, kVariable);
  Vector<offset_t> nv(un, 1), deg(un, 0), esize(un, 0), wval(un, 0);
  Vector<Vector<index_t>> elist(un), alist(un), evars(un);
  Vector<index_t> mnext(un, -1), mtail(un);   // member lists: v, mnext[v], ... ; mtail[head] = last
  Vector<std::uint64_t> mark(un, 0), wmark(un, 0);
  std::uint64_t stamp = 0;
  offset_t total = 0;
  for (index_t v = 0; v < n; ++v) {
    nv[v] = vwgt ? std::max<index_t>(1, vwgt[v]) : 1;
    total += nv[v];
    mtail[v] = v;
  }
  for (index_t v = 0; v < n; ++v) {
    alist[v].assign(g.adj.begin() + g.ptr[v], g.adj.begin() + g.ptr[v + 1]);
    for (index_t u : alist[v]) deg[v] += nv[u];
  }
  // degree buckets (doubly linked lists)
  Vector<index_t> bhead(static_cast<size_t>(total) + 1, -1), bnext(un, -1), bprev(un, -1);
  auto bucket_insert = [&](index_t v) {
    const offset_t d = deg[v];
    bprev[v] = -1;
    bnext[v] = bhead[d];
    if (bhead[d] != -1) bprev[bhead[d]] = v;
    bhead[d] = v;
  };
  auto bucket_remove = [&](index_t v) {
    if (bprev[v] != -1) bnext[bprev[v]] = bnext[v];
    else bhead[deg[v]] = bnext[v];
    if (bnext[v] != -1) bprev[bnext[v]] = bprev[v];
    bnext[v] = bprev[v] = -1;
  };
  auto append_members = [&](index_t to, index_t from) {
    mnext[mtail[to]] = from;
    mtail[to] = mtail[from];
  };
  for (index_t v = 0; v < n; ++v) bucket_insert(v);

  offset_t mindeg = 0, nelim = 0;
  Vector<index_t> lp;
  Vector<std::pair<std::uint64_t, index_t>> hashed;
  while (nelim < total) {
    while (bhead[mindeg] == -1) ++mindeg;
    const index_t p = bhead[mindeg];
    bucket_remove(p);

    // 1. L_p; absorb the elements of E_p
    const std::uint64_t lp_stamp = ++stamp;
    lp.clear();
    mark[p] = lp_stamp;
    for (index_t e : elist[p]) {
      if (kind[e] != kElement) continue;
      for (index_t v : evars[e])
        if (kind[v] == kVariable && mark[v] != lp_stamp) {
          mark[v] = lp_stamp;
          lp.push_back(v);
        }
      kind[e] = kDead;
      release(evars[e]);
    }
    for (index_t v : alist[p])
      if (kind[v] == kVariable && mark[v] != lp_stamp) {
        mark[v] = lp_stamp;
        lp.push_back(v);
      }
    release(elist[p]);
    release(alist[p]);
    kind[p] = kElement;
    nelim += nv[p];
    offset_t lp_weight = 0;
    for (index_t i : lp) {
      bucket_remove(i);
      lp_weight += nv[i];
    }

    // 2. wval[e] = |L_e \ L_p| for the elements adjacent to L_p
    const std::uint64_t w_stamp = ++stamp;
    for (index_t i : lp)
      for (index_t e : elist[i]) {
        if (kind[e] != kElement) continue;
        if (wmark[e] != w_stamp) {
          wmark[e] = w_stamp;
          wval[e] = esize[e];
        }
        wval[e] -= nv[i];
      }

    // 3. prune lists, approximate degrees, mass elimination
    size_t kept = 0;
    hashed.clear();
    for (index_t i : lp) {
      offset_t sum_e = 0, sum_a = 0;
      std::uint64_t h = static_cast<std::uint64_t>(p);
      Vector<index_t>& ei = elist[i];
      size_t t = 0;
      for (index_t e : ei) {
        if (kind[e] != kElement) continue;
        if (wval[e] <= 0) {  // L_e inside L_p: aggressive absorption into p
          kind[e] = kDead;
          release(evars[e]);
          continue;
        }
        sum_e += wval[e];
        h += static_cast<std::uint64_t>(e);
        ei[t++] = e;
      }
      ei.resize(t);
      ei.push_back(p);
      Vector<index_t>& ai = alist[i];
      t = 0;
      for (index_t v : ai) {
        if (kind[v] != kVariable || mark[v] == lp_stamp) continue;
        sum_a += nv[v];
        h += static_cast<std::uint64_t>(v);
        ai[t++] = v;
      }
      ai.resize(t);
      const offset_t ext = lp_weight - nv[i];
      if (ei.size() == 1 && ai.empty()) {  // adjacent to p only: eliminate together with p
        kind[i] = kDead;
        nelim += nv[i];
        append_members(p, i);
        release(ei);
        release(ai);
        continue;
      }
      deg[i] = std::min(deg[i] + ext, sum_a + sum_e + ext);
      lp[kept++] = i;
      hashed.push_back({h, i});
    }
    lp.resize(kept);

    // 4. supervariables: equal hash first, then equal lists
    std::sort(hashed.begin(), hashed.end());
    for (size_t a = 0; a < hashed.size();) {
      size_t b = a;
      while (b < hashed.size() && hashed[b].first == hashed[a].first) ++b;
      for (size_t x = a; x + 1 < b; ++x) {
        const index_t i = hashed[x].second;
        if (kind[i] != kVariable) continue;
        const std::uint64_t s = ++stamp;
        for (index_t e : elist[i]) mark[e] = s;
        for (index_t v : alist[i]) mark[v] = s;
        for (size_t y = x + 1; y < b; ++y) {
          const index_t j = hashed[y].second;
          if (kind[j] != kVariable || elist[j].size() != elist[i].size() || alist[j].size() != alist[i].size())
            continue;
          bool same = true;
          for (index_t e : elist[j]) same = same && mark[e] == s;
          for (index_t v : alist[j]) same = same && mark[v] == s;
          if (!same) continue;
          nv[i] += nv[j];
          deg[i] -= nv[j];
          kind[j] = kDead;
          append_members(i, j);
          release(elist[j]);
          release(alist[j]);
        }
      }
      a = b;
    }

    // 5. degrees back into the buckets; L_p keeps the surviving principal variables
    Vector<index_t>& ep = evars[p];
    ep.clear();
    offset_t ew = 0;
    for (index_t i : lp) {
      if (kind[i] != kVariable) continue;
      deg[i] = std::max<offset_t>(0, std::min(deg[i], total - nelim - nv[i]));
      bucket_insert(i);
      mindeg = std::min(mindeg, deg[i]);
      ep.push_back(i);
      ew += nv[i];
    }
    esize[p] = ew;
    if (ep.empty()) {
      kind[p] = kDead;
      release(ep);
    }
    for (index_t v = p; v != -1; v = mnext[v]) perm.push_back(v);
  }
  return perm;
}

}  // namespace detail
}  // namespace ssids
