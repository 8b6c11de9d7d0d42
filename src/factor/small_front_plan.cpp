// small_front_plan.cpp — the small-front plan and what deferrals teach it (contract: small_front_plan.hpp).
#include "factor/small_front_plan.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "factor/small_front_core.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

/// Delays a node may pass up before any was seen: a quarter of its fully summed columns, at least 4. Delays it
/// may receive: what its children may pass up, at most its own columns (at least 16). Generous enough that a
/// matrix with few delays never defers, small enough that fronts near max_rows stay small.
int heuristic_out(int p_cap) { return std::min(p_cap, std::max(4, p_cap / 4)); }
int heuristic_in(int ncol, long long children_out) {
  return static_cast<int>(std::min<long long>(children_out, std::max(16, ncol)));
}

int need(const Vector<int>& v, index_t s) { return v.empty() ? 0 : v[s]; }

/// A launch lasts as long as its slowest front's chain of pivot steps. The estimate of a front's chain: its fully
/// summed columns with the delays it may receive, plus a fixed part (zeroing, assembly, outputs) counted as 8 steps.
long long front_steps(const Symbolic& sym, const SmallFrontPlan& pl, index_t s) {
  return sym.ncol(s) + (pl.slots[s].m_cap - sym.nrow(s)) + 8;
}

/// Doubles of a front's slot in the global work area.
long long work_words(int m_cap) { return (small::small_front_bytes(m_cap) + 7) / 8; }

/// The tree estimate's count of a front's chain: its fully summed columns with the delays it is expected to
/// receive (those learned from earlier factorizations, at most its room for them; none before any were seen),
/// plus the same fixed part. The room itself is an upper bound: counted as pivots, it made fronts that receive
/// no delay look up to twice as long, which hid the tree's gain on matrices without delays (bench/NOTES.md).
long long expected_steps(const Symbolic& sym, const SmallFrontPlan& pl, const SmallFrontNeeds& needs, index_t s) {
  return sym.ncol(s) + std::min(pl.slots[s].m_cap - sym.nrow(s), need(needs.delays_in, s)) + 8;
}

/// The order of the small nodes' launches (pl.nodes, launch_ptr, launch_of; work_off and work_size when the fronts
/// in the work area move). Every node comes after its children, in one of two groupings:
/// - by depth: the analysis' levels, deepest first (a node and its parent in consecutive launches);
/// - by height: a node one launch after its latest child (every leaf in the first launch).
/// A launch waits for its slowest front, so the sum over launches of the largest front_steps estimates the phase's
/// time. Depth suits trees whose long chains of pivots lie on one path from a deep leaf; height suits trees
/// whose leaves sit at many depths (KKT systems, forests), where grouping by depth makes heavy fronts of
/// different branches wait for each other. The grouping by height is taken when its estimate is smaller and its
/// launches keep the work area's bounds (medium_level_max_fronts fronts, medium_level_work_bytes bytes).
void choose_launches(const Symbolic& sym, SmallFrontPlan& pl, LaunchGrouping grouping) {
  const index_t nsup = sym.nsup;
  Vector<int> depth_of(nsup, -1), height(nsup, -1);
  int nd = 0, nh = 0;
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
    bool any = false;
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (!pl.small[s]) continue;
      any = true;
      depth_of[s] = nd;
      int h = 0;  // children are on deeper levels: their heights are known
      for (index_t q = sym.child_ptr[s]; q < sym.child_ptr[s + 1]; ++q) h = std::max(h, height[sym.child_list[q]] + 1);
      height[s] = h;
      nh = std::max(nh, h + 1);
    }
    if (any) ++nd;
  }
  auto estimate = [&](const Vector<int>& launch, int n) {
    Vector<long long> most(static_cast<size_t>(n), 0);
    for (index_t s = 0; s < nsup; ++s)
      if (launch[s] >= 0) most[launch[s]] = std::max(most[launch[s]], front_steps(sym, pl, s));
    long long sum = 0;
    for (int L = 0; L < n; ++L) sum += most[L];
    return sum;
  };
  // the work area's slots by height, and whether the launches keep its bounds
  Vector<long long> used(static_cast<size_t>(nh), 0), work_off(nsup, -1);
  Vector<int> medium(static_cast<size_t>(nh), 0);
  bool fits = true;
  for (index_t lev = sym.num_levels - 1; lev >= 0 && fits; --lev)
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (!pl.small[s] || pl.slots[s].work_off < 0) continue;
      const int h = height[s];
      const long long words = work_words(pl.slots[s].m_cap);
      work_off[s] = used[h];
      used[h] += words;
      fits = fits && ++medium[h] <= medium_level_max_fronts && used[h] * 8 <= medium_level_work_bytes;
    }
  const long long by_depth = estimate(depth_of, nd), by_height = fits ? estimate(height, nh) : by_depth;
  pl.by_height = fits && (grouping == LaunchGrouping::by_height ||
                          (grouping != LaunchGrouping::by_depth && by_height < by_depth));
  const Vector<int>& launch = pl.by_height ? height : depth_of;
  const int nl = pl.by_height ? nh : nd;
  if (pl.by_height) {
    pl.work_size = 0;
    for (int h = 0; h < nh; ++h) pl.work_size = std::max(pl.work_size, used[h]);
    for (index_t s = 0; s < nsup; ++s)
      if (pl.small[s]) pl.slots[s].work_off = work_off[s];
  }
  // the nodes launch by launch, each launch's in the analysis' level order (deepest first)
  pl.launch_of = launch;
  pl.launch_ptr.assign(static_cast<size_t>(nl) + 1, 0);
  for (index_t s = 0; s < nsup; ++s)
    if (launch[s] >= 0) ++pl.launch_ptr[launch[s] + 1];
  for (int L = 0; L < nl; ++L) pl.launch_ptr[L + 1] += pl.launch_ptr[L];
  pl.nodes.assign(static_cast<size_t>(pl.launch_ptr[nl]), 0);
  Vector<int> next(pl.launch_ptr.begin(), pl.launch_ptr.end() - 1);
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev)
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      if (launch[s] >= 0) pl.nodes[next[launch[s]]++] = s;
    }
}

/// What a launch costs beside its slowest front, in front_steps' units: the launch, its blocks' start and its tail
/// (10-16 us per launch against 0.6-1.2 us per step on the small matrices' fronts, H100).
constexpr long long launch_steps = 12;

/// The whole small phase as the tree launch is taken only when its estimate is at most 4/5 of the other plans':
/// the estimate overstates what the tree saves where the phase has fronts in the work area (bench/NOTES.md, "The
/// whole small phase as one tree launch": gains measured where the estimate said 0.77 or less, losses at 0.84
/// and above).
constexpr long long whole_margin_num = 4, whole_margin_den = 5;

/// The estimate of the plan's grouped launches over the small nodes not `in` launch 0 (`in` empty: all of them): a
/// launch costs launch_steps and its largest front's steps, or its fronts' steps over two blocks per
/// multiprocessor when that is more. renumber (when given, sized to the launches): the launches that keep some
/// node numbered from 1, the others -1; nkept: how many keep some node.
long long grouped_cost(const Symbolic& sym, const SmallFrontPlan& pl, const SmallFrontNeeds& needs, int blocks,
                       const Vector<unsigned char>& in, Vector<int>* renumber = nullptr, int* nkept = nullptr) {
  const int nl = pl.launches();
  Vector<long long> most(static_cast<size_t>(nl), -1), sum(static_cast<size_t>(nl), 0);
  for (const int s : pl.nodes) {
    if (!in.empty() && in[s]) continue;
    const int L = pl.launch_of[s];
    const long long steps = expected_steps(sym, pl, needs, s);
    most[L] = std::max(most[L], steps);
    sum[L] += steps;
  }
  const long long side_by_side = 2LL * std::max(1, blocks);
  long long cost = 0;
  int kept = 0;
  for (int L = 0; L < nl; ++L) {
    if (renumber) (*renumber)[L] = most[L] < 0 ? -1 : kept + 1;
    if (most[L] < 0) continue;
    ++kept;
    cost += std::max(most[L], sum[L] / side_by_side) + launch_steps;
  }
  if (nkept) *nkept = kept;
  return cost;
}

/// A candidate launch 0 for choose_tree: its nodes, their order and tree links, and the estimate.
struct TreeLaunch {
  Vector<unsigned char> in;  ///< by node: in launch 0
  long long count = 0;
  Vector<int> leaves, pending, parent;  ///< as SmallFrontPlan's tree_leaves, tree_pending, tree_parent
  Vector<int> renumber;  ///< grouped launch -> its number after launch 0 (-1: left without nodes)
  int nupper = 0;
  long long cost = 0;  ///< estimated: launch 0's list schedule, launch_steps, and the grouped launches after it
};

/// Launch 0 made of the small nodes `take(s)` accepts whose children are all in it (pl.nodes lists children
/// first), with the estimate of choose_tree when `schedule`.
template <class Take>
TreeLaunch tree_launch(const Symbolic& sym, const SmallFrontPlan& pl, const SmallFrontNeeds& needs, int blocks,
                       bool schedule, Take take) {
  const index_t nsup = sym.nsup;
  TreeLaunch t;
  t.in.assign(nsup, 0);
  for (const int s : pl.nodes) {
    bool in = take(s);
    for (index_t q = sym.child_ptr[s]; q < sym.child_ptr[s + 1] && in; ++q) in = t.in[sym.child_list[q]];
    t.in[s] = in;
    t.count += in;
  }
  if (t.count == 0) return t;
  t.parent.assign(nsup, -1);
  for (const int s : pl.nodes) {
    const index_t par = sym.sparent[s];
    if (t.in[s] && par >= 0 && pl.small[par] && t.in[par]) t.parent[s] = static_cast<int>(par);
  }
  // the longest chain of steps from each node up to the top of launch 0
  Vector<long long> chain(nsup, 0);
  for (size_t k = pl.nodes.size(); k-- > 0;) {
    const int s = pl.nodes[k];
    if (!t.in[s]) continue;
    const int par = t.parent[s];
    chain[s] = expected_steps(sym, pl, needs, s) + (par >= 0 ? chain[par] : 0);
  }
  t.pending.assign(nsup, 0);
  for (const int s : pl.nodes) {
    if (!t.in[s]) continue;
    t.pending[s] = sym.child_ptr[s + 1] - sym.child_ptr[s];
    if (t.pending[s] == 0) t.leaves.push_back(s);
  }
  std::stable_sort(t.leaves.begin(), t.leaves.end(), [&](int x, int y) { return chain[x] > chain[y]; });
  // the grouped launches that keep other small nodes, numbered from 1
  t.renumber.assign(static_cast<size_t>(pl.launches()), -1);
  t.cost = grouped_cost(sym, pl, needs, blocks, t.in, &t.renumber, &t.nupper);
  if (!schedule) return t;
  // list scheduling: a free block takes the ready front with the longest chain; a front is ready when its last
  // child ends
  using Item = std::pair<long long, int>;
  std::priority_queue<Item> ready;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> running;  // (end, node)
  Vector<int> left(t.pending);
  for (const int s : t.leaves) ready.push({chain[s], s});
  long long now = 0, end = 0;
  int idle = blocks;
  while (!ready.empty() || !running.empty()) {
    for (; idle > 0 && !ready.empty(); --idle) {
      running.push({now + expected_steps(sym, pl, needs, ready.top().second), ready.top().second});
      ready.pop();
    }
    const Item done = running.top();
    running.pop();
    now = done.first;
    end = std::max(end, now);
    ++idle;
    const int par = t.parent[done.second];
    if (par >= 0 && --left[par] == 0) ready.push({chain[par], par});
  }
  t.cost += end + launch_steps;
  return t;
}

/// Launch 0 as one tree (SmallFrontPlan::tree): each front starts as soon as its children have ended; the small
/// nodes not in it keep their grouped launches, in order, after it. Two candidates:
/// - the whole small phase, when every front in the work area can have a slot of its own (any two fronts of one
///   launch may run at the same time), within tree_work_bytes;
/// - the lower part: the small nodes whose subtrees keep every front in shared memory.
/// Taken when `grouping` asks for it (tree: the whole phase where it may be, else the lower part; tree_lower: the
/// lower part), or by the estimate: the whole phase when it is clearly cheaper than the rest (whole_margin_num /
/// whole_margin_den), else the lower part when it is cheaper than the grouped launches. The estimate of launch 0:
/// the blocks run the ready fronts, those with the longest chain above them first, `blocks` at a time (each
/// front's steps as in expected_steps); the grouped launches as in grouped_cost. Where launch 0 has
/// thousands of fronts, so that the schedule is bound by throughput rather than by its longest chain, it errs
/// towards the grouping: the grouped launches' many small blocks per multiprocessor are counted as two
/// (bench/NOTES.md).
void choose_tree(const Symbolic& sym, SmallFrontPlan& pl, const SmallFrontNeeds& needs, LaunchGrouping grouping,
                 int blocks) {
  if (pl.nodes.empty() || grouping == LaunchGrouping::by_depth || grouping == LaunchGrouping::by_height) return;
  const bool estimated = grouping == LaunchGrouping::estimated;
  if (estimated && blocks <= 0) return;
  const bool lower_only = grouping == LaunchGrouping::tree_lower;
  long long own_words = 0;  // the work area when each front in it has its own slot
  for (const int s : pl.nodes)
    if (pl.slots[s].work_off >= 0) own_words += work_words(pl.slots[s].m_cap);
  const bool whole_fits = !lower_only && own_words > 0 && own_words * 8 <= tree_work_bytes;
  TreeLaunch lower = tree_launch(sym, pl, needs, blocks, estimated, [&](int s) { return pl.slots[s].work_off < 0; });
  TreeLaunch whole;
  if (whole_fits) whole = tree_launch(sym, pl, needs, blocks, estimated, [](int) { return true; });
  bool take_whole = whole_fits;
  if (estimated) {
    const long long grouped = grouped_cost(sym, pl, needs, blocks, {});  // the grouped launches as planned
    const bool lower_wins = lower.count > 0 && lower.cost < grouped;
    const long long best_other = lower_wins ? lower.cost : grouped;
    take_whole = whole_fits && whole.cost * whole_margin_den <= best_other * whole_margin_num;
    if (!take_whole && !lower_wins) return;
  } else if (!take_whole && lower.count == 0) {
    return;
  }
  TreeLaunch& t = take_whole ? whole : lower;
  if (take_whole) {  // a slot of its own for each front in the work area
    long long used = 0;
    for (const int s : pl.nodes)
      if (pl.slots[s].work_off >= 0) {
        pl.slots[s].work_off = used;
        used += work_words(pl.slots[s].m_cap);
      }
    pl.work_size = used;
    pl.tree_with_work = used > 0;
  }
  pl.tree = true;
  pl.tree_leaves = std::move(t.leaves);
  pl.tree_pending = std::move(t.pending);
  pl.tree_parent = std::move(t.parent);
  const int nl = pl.launches();
  Vector<int> nodes;
  nodes.reserve(pl.nodes.size());
  for (const int s : pl.nodes)
    if (t.in[s]) {
      pl.launch_of[s] = 0;
      nodes.push_back(s);
    }
  Vector<int> launch_ptr(static_cast<size_t>(t.nupper) + 2, 0);
  launch_ptr[1] = static_cast<int>(nodes.size());
  for (int L = 0; L < nl; ++L) {
    if (t.renumber[L] < 0) continue;
    for (int k = pl.launch_ptr[L]; k < pl.launch_ptr[L + 1]; ++k) {
      const int s = pl.nodes[k];
      if (t.in[s]) continue;
      pl.launch_of[s] = t.renumber[L];
      nodes.push_back(s);
    }
    launch_ptr[t.renumber[L] + 1] = static_cast<int>(nodes.size());
  }
  pl.nodes = std::move(nodes);
  pl.launch_ptr = std::move(launch_ptr);
}

}  // namespace

SmallFrontPlan plan_small_fronts(const Symbolic& sym, bool posdef, int cpu_block_size, const SmallFrontNeeds& needs,
                                 LaunchGrouping grouping, int multiprocessors) {
  SmallFrontPlan pl;
  const index_t nsup = sym.nsup;
  pl.ib = std::min(32, std::max(8, cpu_block_size));
  pl.small.assign(nsup, 0);
  pl.slots.assign(nsup, SmallSlot{0, 0, 0, 0, -1, 0, 0});
  Vector<long long> cb_cap(nsup, 0);
  // level by level, the deepest first (a node's children are on the level below it)
  for (index_t lev = sym.num_levels - 1; lev >= 0; --lev) {
    int medium = 0;  // nodes of this level that would be factorized in the work area
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      const int ncol = sym.ncol(s), nrow = sym.nrow(s);
      long long children_out = 0;
      bool children_small = true;
      for (index_t q = sym.child_ptr[s]; q < sym.child_ptr[s + 1]; ++q) {
        const index_t c = sym.child_list[q];
        children_out += pl.slots[c].dout_cap;
        children_small = children_small && pl.small[c];
      }
      int din = 0, dout = 0;
      if (!posdef) {
        din = static_cast<int>(std::min<long long>(children_out, std::max(heuristic_in(ncol, children_out), need(needs.delays_in, s))));
        const int p_cap = ncol + din;
        dout = sym.sparent[s] < 0 ? 0 : std::min(p_cap, std::max(heuristic_out(p_cap), need(needs.delays_out, s)));
      }
      SmallSlot& sl = pl.slots[s];
      sl.m_cap = nrow + din;
      sl.dout_cap = dout;
      cb_cap[s] = (nrow - ncol) + dout;
      const bool barred = !needs.not_small.empty() && needs.not_small[s];
      pl.small[s] = children_small && !barred && sl.m_cap <= medium_front_max_rows;
      if (pl.small[s] && sl.m_cap > small_front_max_rows) ++medium;
    }
    // fronts in the work area only on levels with few of them (a block per front beats the level loop's batched
    // steps only while the level leaves most multiprocessors idle), and only as many as the area's bound allows
    long long used = 0;
    for (index_t k = sym.level_ptr[lev]; k < sym.level_ptr[lev + 1]; ++k) {
      const index_t s = sym.level_nodes[k];
      SmallSlot& sl = pl.slots[s];
      if (!pl.small[s] || sl.m_cap <= small_front_max_rows) continue;
      const long long words = work_words(sl.m_cap);
      if (medium > medium_level_max_fronts || (used + words) * 8 > medium_level_work_bytes) {
        pl.small[s] = 0;
        continue;
      }
      sl.work_off = used;
      used += words;
    }
    pl.work_size = std::max(pl.work_size, used);
  }
  choose_launches(sym, pl, grouping);
  choose_tree(sym, pl, needs, grouping, multiprocessors);
  // slots of L, rows and D in node order; contribution blocks: persistent area, then the two parity halves
  const int nl = pl.launches();
  long long persistent = 0, half[2] = {0, 0};
  Vector<long long> launch_cb(static_cast<size_t>(nl) + 1, 0);
  for (index_t s = 0; s < nsup; ++s) {
    if (!pl.small[s]) continue;
    SmallSlot& sl = pl.slots[s];
    const int p_cap = sym.ncol(s) + (sl.m_cap - sym.nrow(s));
    sl.l_off = pl.l_size;
    sl.rows_off = pl.rows_size;
    sl.d_off = pl.d_size;
    pl.l_size += static_cast<long long>(sl.m_cap) * p_cap;
    pl.rows_size += sl.m_cap;
    pl.d_size += 2LL * p_cap;
    const long long cb = cb_cap[s] * cb_cap[s];
    const index_t par = sym.sparent[s];
    const int L = pl.launch_of[s];
    if (par >= 0 && pl.small[par] && pl.launch_of[par] == L + 1) {
      sl.cb_off = -1 - launch_cb[L];  // within its launch's half, made absolute below
      launch_cb[L] += cb;
    } else {  // read by the level loop, or by a parent more than one launch later
      sl.cb_off = persistent;
      persistent += cb;
    }
    ++pl.num_small;
  }
  for (int L = 0; L < nl; ++L) half[L % 2] = std::max(half[L % 2], launch_cb[L]);
  for (index_t s = 0; s < nsup; ++s) {
    if (!pl.small[s] || pl.slots[s].cb_off >= 0) continue;
    pl.slots[s].cb_off = persistent + (pl.launch_of[s] % 2 ? half[0] : 0) + (-1 - pl.slots[s].cb_off);
  }
  pl.cb_size = persistent + half[0] + half[1];
  // each launch's shared memory: a whole front for the nodes without a work-area slot; for those with one, room for
  // their fully summed columns and workspace (split) at the slot's largest size, at most what a front of
  // small_front_max_rows rows takes (the kernel splits a front whose actual size fits in that much), or for the
  // whole front when it may come with at most small_front_max_rows rows. A front that can be neither is never
  // split and asks for none: a launch that asks for shared memory it does not use leaves its blocks less L1 cache
  // for the fronts in the work area.
  const long long fast_cap = small::small_front_bytes(small_front_max_rows);
  pl.launch_m_cap.assign(static_cast<size_t>(nl), 0);
  pl.launch_fast_bytes.assign(static_cast<size_t>(nl), 0);
  for (int L = 0; L < nl; ++L)
    for (int k = pl.launch_ptr[L]; k < pl.launch_ptr[L + 1]; ++k) {
      const index_t s = pl.nodes[k];
      const SmallSlot& sl = pl.slots[s];
      pl.launch_m_cap[L] = std::max(pl.launch_m_cap[L], sl.m_cap);
      const int p_cap = sym.ncol(s) + (sl.m_cap - sym.nrow(s));
      const bool may_split =
          small::small_split_bytes(std::max(sym.nrow(s), small_front_max_rows + 1), sym.ncol(s)) <= fast_cap;
      const long long split = may_split ? std::min(small::small_split_bytes(sl.m_cap, p_cap), fast_cap) : 0;
      // a front in the work area's slot that comes with at most small_front_max_rows rows stays whole in `fast`
      const long long whole =
          sym.nrow(s) <= small_front_max_rows ? small::small_front_bytes(std::min(sl.m_cap, small_front_max_rows)) : 0;
      pl.launch_fast_bytes[L] = std::max(pl.launch_fast_bytes[L],
                                         sl.work_off < 0 ? small::small_front_bytes(sl.m_cap) : std::max(split, whole));
    }
  return pl;
}

bool learn_small_front_needs(const Symbolic& sym, const SmallFrontPlan& plan, const SmallResult* res,
                             SmallFrontNeeds& needs, int tries) {
  const index_t nsup = sym.nsup;
  if (needs.delays_in.empty()) {
    needs.delays_in.assign(nsup, 0);
    needs.delays_out.assign(nsup, 0);
    needs.not_small.assign(nsup, 0);
  }
  bool deferred = false;
  for (index_t s = 0; s < nsup; ++s) {
    if (!plan.small[s]) continue;
    const SmallResult& r = res[s];
    const int din = r.p - sym.ncol(s);
    if (r.state == small_done) {
      needs.delays_in[s] = std::max(needs.delays_in[s], din);
      needs.delays_out[s] = std::max(needs.delays_out[s], r.p - r.nelim);
    } else if (r.state == small_deferred) {
      deferred = true;
      if (r.nelim >= 0) {  // ran, but passes up more than its room
        const int out = r.p - r.nelim;
        needs.delays_in[s] = std::max(needs.delays_in[s], din);
        needs.delays_out[s] = std::max(needs.delays_out[s], out);
        // delayed columns tend to travel up the tree: room for as many at every ancestor, so that a chain of
        // nodes learns in one retry instead of one retry per node
        for (index_t an = sym.sparent[s]; an >= 0; an = sym.sparent[an]) {
          needs.delays_in[an] = std::max(needs.delays_in[an], 2 * out);
          needs.delays_out[an] = std::max(needs.delays_out[an], 2 * out);
        }
      } else {  // not run: a child was not done, or it receives more than its room (then r.p is exact)
        bool children_done = true;
        for (index_t q = sym.child_ptr[s]; q < sym.child_ptr[s + 1]; ++q)
          children_done = children_done && res[sym.child_list[q]].state == small_done;
        if (children_done) needs.delays_in[s] = std::max(needs.delays_in[s], din);
      }
      if (tries >= 3) needs.not_small[s] = 1;
    }
  }
  return deferred;
}

long long take_small_results(const Symbolic& sym, const SmallFrontPlan& plan, const SmallResult* res,
                             Vector<GpuNodeInfo>& info, Vector<unsigned char>& by_small) {
  long long taken = 0;
  for (index_t s = 0; s < sym.nsup; ++s) {
    if (!plan.small[s] || res[s].state != small_done) continue;
    const SmallResult& r = res[s];
    const SmallSlot& sl = plan.slots[s];
    GpuNodeInfo& ni = info[s];
    ni.m = r.m;
    ni.p = r.p;
    ni.ndelay = r.p - sym.ncol(s);
    ni.nelim = r.nelim;
    ni.l_off = sl.l_off;
    ni.rows_off = sl.rows_off;
    ni.d_off = sl.d_off;
    ni.front_off = sl.cb_off;  // its contribution block, in the pool
    ni.front_ld = r.m - r.nelim;
    by_small[s] = 1;
    ++taken;
  }
  return taken;
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
