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
// Storage: A_i and E_i share one slot of i's original adjacency size (step 3 never grows them); the variable
// lists L_e of the elements are appended to one pool that is compacted when full. Dead entries are dropped
// lazily. Output: pivots in elimination order, each followed by the variables merged into
// it or mass-eliminated with it.
#include "analyse/ordering_amd.hpp"

#include <algorithm>
#include <utility>

#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

enum : char { kVariable = 0, kElement = 1, kDead = 2 };

}  // namespace

Vector<index_t> amd_order(const Graph& g, const index_t* vwgt) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  Vector<index_t> perm;
  perm.reserve(un);
  if (n == 0) return perm;

  Vector<char> kind(un, kVariable);
  Vector<offset_t> nv(un, 1), deg(un, 0), esize(un, 0), wval(un, 0);
  // A_i and E_i of variable i share one slot of the size of i's adjacency: lists[vstart[i] ..) holds A_i
  // (alen[i] entries) followed by E_i (elen[i] entries). A step that adds the pivot p to E_i has removed p
  // from A_i, or an element absorbed into p from E_i, so a list never outgrows its slot.
  Vector<index_t> lists(g.adj.begin(), g.adj.end());
  Vector<offset_t> vstart(g.ptr.begin(), g.ptr.end() - 1);
  Vector<index_t> alen(un), elen(un, 0);
  // L_e of the live elements, appended to `pool`; compacted when full (live lists hold at most nnz + n)
  Vector<index_t> pool;
  Vector<offset_t> pstart(un, 0);
  Vector<index_t> plen(un, 0);
  pool.reserve(static_cast<size_t>(g.num_edges()) + un);
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
    alen[v] = static_cast<index_t>(g.ptr[v + 1] - g.ptr[v]);
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) deg[v] += nv[g.adj[e]];
  }
  auto alist_begin = [&](index_t v) { return lists.data() + vstart[v]; };
  auto elist_begin = [&](index_t v) { return lists.data() + vstart[v] + alen[v]; };
  auto evars_begin = [&](index_t e) { return pool.data() + pstart[e]; };
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
  // room for `need` more pool entries: the live elements' lists moved to the front, in element order, into a
  // pool at least twice their size (so compactions stay rare)
  Vector<index_t> moved;
  auto pool_reserve = [&](size_t need) {
    if (pool.size() + need <= pool.capacity()) return;
    size_t live = 0;
    for (index_t e = 0; e < n; ++e)
      if (kind[e] == kElement) live += static_cast<size_t>(plen[e]);
    moved.clear();
    moved.reserve(std::max(pool.capacity(), 2 * (live + need)));
    for (index_t e = 0; e < n; ++e) {
      if (kind[e] != kElement) continue;
      const offset_t from = pstart[e];
      pstart[e] = static_cast<offset_t>(moved.size());
      moved.insert(moved.end(), pool.begin() + from, pool.begin() + from + plen[e]);
    }
    pool.swap(moved);
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
    for (const index_t* ep = elist_begin(p); ep != elist_begin(p) + elen[p]; ++ep) {
      const index_t e = *ep;
      if (kind[e] != kElement) continue;
      for (const index_t* vp = evars_begin(e); vp != evars_begin(e) + plen[e]; ++vp)
        if (kind[*vp] == kVariable && mark[*vp] != lp_stamp) {
          mark[*vp] = lp_stamp;
          lp.push_back(*vp);
        }
      kind[e] = kDead;
      plen[e] = 0;
    }
    for (const index_t* vp = alist_begin(p); vp != alist_begin(p) + alen[p]; ++vp)
      if (kind[*vp] == kVariable && mark[*vp] != lp_stamp) {
        mark[*vp] = lp_stamp;
        lp.push_back(*vp);
      }
    alen[p] = elen[p] = 0;
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
      for (const index_t* ep = elist_begin(i); ep != elist_begin(i) + elen[i]; ++ep) {
        const index_t e = *ep;
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
      index_t* slot = alist_begin(i);
      const index_t na = alen[i], ne = elen[i];
      index_t t = 0;
      for (index_t k = 0; k < na; ++k) {  // A_i: drop what is in L_p or no longer a variable
        const index_t v = slot[k];
        if (kind[v] != kVariable || mark[v] == lp_stamp) continue;
        sum_a += nv[v];
        h += static_cast<std::uint64_t>(v);
        slot[t++] = v;
      }
      const index_t new_na = t;
      for (index_t k = na; k < na + ne; ++k) {  // E_i, moved up behind A_i
        const index_t e = slot[k];
        if (kind[e] != kElement) continue;
        if (wval[e] <= 0) {  // L_e inside L_p: aggressive absorption into p
          kind[e] = kDead;
          plen[e] = 0;
          continue;
        }
        sum_e += wval[e];
        h += static_cast<std::uint64_t>(e);
        slot[t++] = e;
      }
      // p replaces at least one entry dropped above (p itself from A_i, or an element of E_p from E_i)
      if (t >= g.ptr[i + 1] - g.ptr[i]) throw Error(flag::unknown, "amd: a variable's lists outgrew its slot");
      slot[t++] = p;
      alen[i] = new_na;
      elen[i] = t - new_na;
      const offset_t ext = lp_weight - nv[i];
      if (elen[i] == 1 && alen[i] == 0) {  // adjacent to p only: eliminate together with p
        kind[i] = kDead;
        nelim += nv[i];
        append_members(p, i);
        elen[i] = 0;
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
        const index_t len_i = alen[i] + elen[i];
        for (const index_t* q = alist_begin(i); q != alist_begin(i) + len_i; ++q) mark[*q] = s;
        for (size_t y = x + 1; y < b; ++y) {
          const index_t j = hashed[y].second;
          if (kind[j] != kVariable || elen[j] != elen[i] || alen[j] != alen[i]) continue;
          bool same = true;
          for (const index_t* q = alist_begin(j); q != alist_begin(j) + len_i; ++q) same = same && mark[*q] == s;
          if (!same) continue;
          nv[i] += nv[j];
          deg[i] -= nv[j];
          kind[j] = kDead;
          append_members(i, j);
          alen[j] = elen[j] = 0;
        }
      }
      a = b;
    }

    // 5. degrees back into the buckets; L_p keeps the surviving principal variables
    pool_reserve(lp.size());
    pstart[p] = static_cast<offset_t>(pool.size());
    offset_t ew = 0;
    for (index_t i : lp) {
      if (kind[i] != kVariable) continue;
      deg[i] = std::max<offset_t>(0, std::min(deg[i], total - nelim - nv[i]));
      bucket_insert(i);
      mindeg = std::min(mindeg, deg[i]);
      pool.push_back(i);
      ew += nv[i];
    }
    plen[p] = static_cast<index_t>(pool.size() - static_cast<size_t>(pstart[p]));
    esize[p] = ew;
    if (plen[p] == 0) kind[p] = kDead;
    for (index_t v = p; v != -1; v = mnext[v]) perm.push_back(v);
  }
  return perm;
}

}  // namespace detail
}  // namespace ssids
