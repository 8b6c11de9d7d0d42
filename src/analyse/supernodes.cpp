// supernodes.cpp — fundamental supernodes and amalgamation (see supernodes.hpp).
//
// Conventions: 0-based pivot positions of a postordered elimination tree, so a fundamental supernode is a
// run of consecutive columns. Liu, Ng & Peyton, "On finding supernodes for sparse matrix computations",
// SIAM J. Matrix Anal. Appl. 14 (1993): column j+1 extends j's supernode iff parent(j) = j+1, j is the only
// child of j+1 and colcount(j) = colcount(j+1) + 1. Amalgamation follows SPRAL SSIDS's documented meaning of
// options%nemin: a child is merged into its parent if both have fewer than nemin eliminated variables.
// Relaxed amalgamation (in the spirit of Ashcraft & Grimes 1989 and CHOLMOD's relaxed supernodes) also
// merges a child whose merge leaves at most a fraction `max_zero_fraction` of the merged node's entries as
// explicit zeros: on a GPU, one tall front with many pivots beats a chain of thin ones (fewer contribution
// blocks to write and read, larger inner dimension for the updates).
#include "analyse/supernodes.hpp"

#include <algorithm>

namespace ssids {
namespace detail {

namespace {
/// Entries of the lower trapezoid of a node with nc pivots and nr rows (nr >= nc).
double trapezoid_entries(double nc, double nr) { return nc * nr - nc * (nc - 1) / 2; }

/// Groups of a forest whose member f was merged into merged_into[f] > f (-1: f is the top of its group):
/// top[f] is f's group top, node_of_top[t] numbers the tops in increasing order (-1 elsewhere); out gets
/// nsup = the number of groups and zeroed sptr and sparent = -1 of that size. Decreasing order sees a merge
/// target before the members merged into it.
void number_groups(const Vector<index_t>& merged_into, Vector<index_t>& top, Vector<index_t>& node_of_top,
                   Partition& out) {
  const index_t m = static_cast<index_t>(merged_into.size());
  top.resize(static_cast<size_t>(m));
  node_of_top.assign(static_cast<size_t>(m), -1);
  for (index_t f = m - 1; f >= 0; --f) top[f] = merged_into[f] == -1 ? f : top[merged_into[f]];
  index_t count = 0;
  for (index_t f = 0; f < m; ++f)
    if (top[f] == f) node_of_top[f] = count++;
  out.nsup = count;
  out.sptr.assign(static_cast<size_t>(count) + 1, 0);
  out.sparent.assign(static_cast<size_t>(count), -1);
}
}  // namespace

AmalgamationRule amalgamation_rule(const Options& options) {
  const bool spral = options.amalgamation == Amalgamation::spral;
  return AmalgamationRule{options.nemin, spral ? 0.0 : std::clamp(options.amalgamation_zeros, 0.0, 0.5), spral};
}

Partition find_supernodes_spral(const Vector<index_t>& parent, const Vector<index_t>& colcount, int nemin) {
  const index_t n = static_cast<index_t>(parent.size());
  nemin = std::max(nemin, 1);
  Partition out;
  out.sptr.assign(1, 0);
  if (n == 0) return out;
  // children of every column, increasing, then stably sorted by decreasing column count: the order in which
  // SPRAL offers them to their parent
  Vector<index_t> cptr(static_cast<size_t>(n) + 1, 0), clist(static_cast<size_t>(n));
  for (index_t j = 0; j < n; ++j)
    if (parent[j] != -1) ++cptr[parent[j] + 1];
  for (index_t j = 0; j < n; ++j) cptr[j + 1] += cptr[j];
  {
    Vector<index_t> next(cptr.begin(), cptr.end() - 1);
    for (index_t j = 0; j < n; ++j)
      if (parent[j] != -1) clist[next[parent[j]]++] = j;
  }
  // Columns are visited in increasing order, so a child has absorbed its own children before its parent
  // considers it; nelim[v] counts the columns of the group whose top is v. The columns merged into v are
  // kept in a list in the order they merged (mhead/mnext), which fixes the pivot order within a node.
  Vector<index_t> nelim(static_cast<size_t>(n), 1), merged_into(static_cast<size_t>(n), -1);
  Vector<index_t> mhead(static_cast<size_t>(n), -1), mtail(static_cast<size_t>(n), -1);
  Vector<index_t> mnext(static_cast<size_t>(n), -1);
  for (index_t p = 0; p < n; ++p) {
    auto first = clist.begin() + cptr[p], last = clist.begin() + cptr[p + 1];
    std::stable_sort(first, last, [&](index_t a, index_t b) { return colcount[a] > colcount[b]; });
    for (auto it = first; it != last; ++it) {
      const index_t c = *it;
      const bool chain = colcount[p] == colcount[c] - 1 && nelim[p] == 1;
      const bool small_pair = nelim[p] < nemin && nelim[c] < nemin;
      if (!chain && !small_pair) continue;
      merged_into[c] = p;
      nelim[p] += nelim[c];
      (mtail[p] == -1 ? mhead[p] : mnext[mtail[p]]) = c;
      mtail[p] = c;
    }
  }
  // Nodes are the group tops in increasing order (a postorder of the contracted tree). Within a node a
  // column comes after the columns merged into it, those in the order they merged, each after its own:
  // SPRAL's numbering, so that the pivot order (and what enquire returns by pivot position) is SPRAL's.
  Vector<index_t> top, node_of_top;
  number_groups(merged_into, top, node_of_top, out);
  out.old_of_new.resize(static_cast<size_t>(n));
  Vector<index_t> stack_v, stack_c;  // depth-first walk of a group: vertex, next merged child to visit
  index_t k = 0;
  for (index_t t = 0; t < n; ++t) {
    if (top[t] != t) continue;
    const index_t s = node_of_top[t];
    if (parent[t] != -1) out.sparent[s] = node_of_top[top[parent[t]]];
    stack_v.assign(1, t);
    stack_c.assign(1, mhead[t]);
    while (!stack_v.empty()) {
      const index_t c = stack_c.back();
      if (c != -1) {
        stack_c.back() = mnext[c];
        stack_v.push_back(c);
        stack_c.push_back(mhead[c]);
      } else {
        out.old_of_new[k++] = stack_v.back();
        stack_v.pop_back();
        stack_c.pop_back();
      }
    }
    out.sptr[s + 1] = k;
  }
  return out;
}

Partition find_supernodes(const Vector<index_t>& parent, const Vector<index_t>& colcount, int nemin,
                          double max_zero_fraction) {
  const index_t n = static_cast<index_t>(parent.size());
  nemin = std::max(nemin, 1);
  Partition out;
  out.sptr.assign(1, 0);
  if (n == 0) return out;

  // 1. fundamental supernodes: fs[f] .. fs[f+1]-1
  Vector<index_t> nchild(static_cast<size_t>(n), 0);
  for (index_t j = 0; j < n; ++j)
    if (parent[j] != -1) ++nchild[parent[j]];
  Vector<index_t> fs;
  fs.reserve(static_cast<size_t>(n) + 1);
  Vector<index_t> col_node(static_cast<size_t>(n));
  for (index_t j = 0; j < n; ++j) {
    const bool extends = j > 0 && parent[j - 1] == j && nchild[j] == 1 && colcount[j - 1] == colcount[j] + 1;
    if (!extends) fs.push_back(j);
    col_node[j] = static_cast<index_t>(fs.size()) - 1;
  }
  const index_t nf = static_cast<index_t>(fs.size());
  fs.push_back(n);
  Vector<index_t> fparent(static_cast<size_t>(nf));
  for (index_t f = 0; f < nf; ++f) {
    const index_t p = parent[fs[f + 1] - 1];
    fparent[f] = p == -1 ? -1 : col_node[p];
  }

  // 2. amalgamation. Nodes are visited in increasing (post)order, so when f is visited all its children
  // have already decided; f is still the top of its group, whose size is ncols[f] columns by nrows[f] rows
  // (merged children's columns come first, so the group has their columns plus the top's rows) with
  // zeros[f] explicit zeros. A child's contribution rows are a subset of its parent's rows, so merging child
  // c into p adds nrows[p] - (nrows[c] - ncols[c]) zero rows to each of c's columns.
  Vector<index_t> ncols(static_cast<size_t>(nf)), nrows(static_cast<size_t>(nf)),
      merged_into(static_cast<size_t>(nf), -1);
  Vector<double> zeros(static_cast<size_t>(nf), 0.0);
  const bool relax = max_zero_fraction > 0 && nemin > 1;  // nemin = 1: fundamental supernodes, no merging
  for (index_t f = 0; f < nf; ++f) {
    ncols[f] = fs[f + 1] - fs[f];
    nrows[f] = colcount[fs[f]];
  }
  for (index_t f = 0; f < nf; ++f) {
    const index_t p = fparent[f];
    if (p == -1) continue;
    const double added = static_cast<double>(ncols[f]) * (nrows[p] - (nrows[f] - ncols[f]));
    const double merged_zeros = zeros[f] + zeros[p] + added;
    const bool small_pair = ncols[f] < nemin && ncols[p] < nemin;
    const bool few_zeros =
        relax &&
        merged_zeros <= max_zero_fraction * trapezoid_entries(ncols[f] + ncols[p], ncols[f] + nrows[p]);
    if (small_pair || few_zeros) {
      merged_into[f] = p;
      ncols[p] += ncols[f];
      nrows[p] += ncols[f];
      zeros[p] = merged_zeros;
    }
  }
  // 3. final nodes = group tops in increasing order. A group is a connected subtree of the fundamental tree
  // and each top's subtree is a contiguous range of the fundamental postorder, so this is a postorder of the
  // contracted tree. Within a node, columns keep their old (topological) order, so merged children come first.
  Vector<index_t> top, node_of_top;
  number_groups(merged_into, top, node_of_top, out);
  const index_t nsup = out.nsup;
  for (index_t f = 0; f < nf; ++f) out.sptr[node_of_top[top[f]] + 1] += fs[f + 1] - fs[f];
  for (index_t s = 0; s < nsup; ++s) out.sptr[s + 1] += out.sptr[s];
  for (index_t f = 0; f < nf; ++f)
    if (top[f] == f && fparent[f] != -1) out.sparent[node_of_top[f]] = node_of_top[top[fparent[f]]];
  out.old_of_new.resize(static_cast<size_t>(n));
  Vector<index_t> next(out.sptr.begin(), out.sptr.end() - 1);
  for (index_t f = 0; f < nf; ++f) {
    index_t& k = next[node_of_top[top[f]]];
    for (index_t j = fs[f]; j < fs[f + 1]; ++j) out.old_of_new[k++] = j;
  }
  return out;
}

}  // namespace detail
}  // namespace ssids
