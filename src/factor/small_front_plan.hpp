// small_front_plan.hpp — which nodes the small-front kernel factorizes (cuda/small_fronts.cu), with room for how
// many delays, and where their outputs go (plain C++: planned on the host, also run by the CPU twin's tests).
//
// A node is small when its front, with the delays its slot allows, has at most medium_front_max_rows rows and all
// its children are small: the small nodes are whole subtrees at the bottom of the assembly tree. Fronts of at most
// small_front_max_rows rows are factorized in shared memory; bigger ones have a slot in a global work area
// (reused by every launch, or of their own in a tree launch) and keep there the columns after their fully summed
// ones, or the whole front when the fully summed columns do not fit in shared memory. They are factorized in
// launches, each node after its children, before the level loop takes the other nodes: grouped by depth or by
// height (whichever the plan estimates faster), and where the estimate favours it, first as one tree launch in
// which each front starts when its children have ended (SmallFrontPlan::tree): every small node, or the nodes
// whose subtrees stay in shared memory.
// Room for delays: a node may pass up dout_cap delayed columns and receive din_cap (both learned upward from
// what earlier factorizations needed); a node that would need more is deferred, and the factorization retries
// with a plan that gives it more room, or hands it to the level loop.
// Contribution blocks: a small node whose parent is small and in the next launch leaves its block in the half of a
// ping-pong area that belongs to its launch's parity (the parent reads it before the next launch of that parity
// writes); any other node (parent not small, a root, or a parent more launches later) leaves it in the persistent
// area, where the level loop or the parent reads it later.
#pragma once
#include "analyse/symbolic.hpp"
#include "cuda/front_tasks.hpp"
#include "factor/factor_tables.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// Largest front of the small-front kernel (in the global work area above small_front_max_rows). Above it, a
/// front's updates need more than one multiprocessor and go to the level loop's batched kernels.
constexpr int medium_front_max_rows = 512;
/// Most fronts of one level in the work area: a level with more of them goes to the level loop whole.
constexpr int medium_level_max_fronts = 64;
/// Most bytes of global work area the fronts of one level may take (further nodes of the level, and their
/// ancestors, go to the level loop).
constexpr long long medium_level_work_bytes = 1LL << 28;
/// Most bytes of global work area for the tree launch of the whole small phase, where each front in the work area
/// has a slot of its own (SmallFrontPlan::tree); above it, the tree launch takes only the fronts in shared memory.
constexpr long long tree_work_bytes = 1LL << 28;

/// What earlier factorizations of the same analysis needed, by node (kept with the analysis' device data).
struct SmallFrontNeeds {
  Vector<int> delays_in;   ///< most delayed columns received
  Vector<int> delays_out;  ///< most delayed columns passed up
  Vector<unsigned char> not_small;  ///< handed to the level loop for good
};

struct SmallFrontPlan {
  Vector<unsigned char> small;  ///< by node
  Vector<SmallSlot> slots;      ///< by node (meaningful for small nodes)
  Vector<int> nodes;            ///< small nodes, launch by launch
  Vector<int> launch_ptr;       ///< launch i takes nodes[launch_ptr[i] .. launch_ptr[i+1])
  Vector<int> launch_of;        ///< by node: its launch (-1: not small)
  bool by_height = false;       ///< launches grouped by height (else by depth; see choose_launches)
  /// Launch 0 runs the small phase, or its lower part, as one tree (choose_tree): every small node, each front in
  /// the work area with a slot of its own, or the small nodes whose subtrees keep every front in shared memory. A
  /// block starts at each leaf in tree_leaves; the block that ends a node's last child goes on with the node
  /// (tree_pending counts its children), up to the top of launch 0. Launch 0's nodes are listed children first
  /// (the CPU twin runs them in that order); the launches after it are grouped.
  bool tree = false;
  Vector<int> tree_leaves;   ///< launch 0's nodes without children, longest chain of pivots above them first
  Vector<int> tree_parent;   ///< by node: its parent when both are in launch 0, else -1
  Vector<int> tree_pending;  ///< by node of launch 0: its children (all in launch 0)
  bool tree_with_work = false;  ///< some node of launch 0 has a work-area slot (the whole phase is the tree)
  Vector<int> launch_m_cap;     ///< the largest m_cap of each launch
  Vector<long long> launch_fast_bytes;  ///< shared memory of each launch's blocks (factor_small_node's `fast`)
  long long l_size = 0, rows_size = 0, d_size = 0, cb_size = 0;  ///< room the slots take
  long long work_size = 0;      ///< doubles of global work area (the largest launch's)
  long long num_small = 0;
  int ib = 32;                  ///< window width of the pivot search
  int launches() const { return static_cast<int>(launch_ptr.size()) - 1; }
};

/// How the small nodes are grouped into launches: by the plan's estimate (choose_launches and choose_tree in
/// small_front_plan.cpp), or regardless of it (tests: a node's results do not depend on its launch): by depth, by
/// height (one that breaks the work area's bounds falls back to depth; SmallFrontPlan::by_height tells), tree (the
/// whole small phase as one tree launch, SmallFrontPlan::tree, where its work area fits in tree_work_bytes, else
/// tree_lower), tree_lower (the small nodes whose subtrees stay in shared memory as the tree launch, the rest
/// grouped as the estimate says).
enum class LaunchGrouping { estimated, by_depth, by_height, tree, tree_lower };

/// Plans the small fronts of `sym`. posdef: no delays. cpu_block_size: Options::cpu_block_size (the CPU path's
/// window width is min(32, block size), and the small fronts search like it). needs: may be empty (sized nsup
/// otherwise). grouping: see LaunchGrouping.
/// multiprocessors: the device's, for the estimate of the tree launch (SmallFrontPlan::tree), whose 512-thread
/// blocks are counted one per multiprocessor (0: no such launch unless `grouping` asks for it).
SmallFrontPlan plan_small_fronts(const Symbolic& sym, bool posdef, int cpu_block_size, const SmallFrontNeeds& needs,
                                 LaunchGrouping grouping = LaunchGrouping::estimated, int multiprocessors = 0);

/// After a factorization whose small phase deferred nodes: records in `needs` what the results show (delays
/// received and passed up by the nodes that ran; a node that passed up more than its room gives every ancestor
/// room for twice as many, since delays accumulate up a chain of nodes; nodes that keep being deferred after
/// `tries` attempts are marked not small). Returns true when the plan should be rebuilt.
bool learn_small_front_needs(const Symbolic& sym, const SmallFrontPlan& plan, const SmallResult* res,
                             SmallFrontNeeds& needs, int tries);

/// The nodes the small phase finished (state small_done) entered in the level loop's node table: front size, fully
/// summed columns, delays, pivots, their slots in the factor stores, and their contribution block in the pool
/// (front_off, front_ld = m - nelim); by_small[s] = 1 for each. Returns how many.
long long take_small_results(const Symbolic& sym, const SmallFrontPlan& plan, const SmallResult* res,
                             Vector<GpuNodeInfo>& info, Vector<unsigned char>& by_small);

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
