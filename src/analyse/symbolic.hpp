// symbolic.hpp — the internal result of analyse, read by the CPU and GPU factorizations.
//
// Conventions (all 0-based):
//  * "Pivot position" k in 0..n-1 is the k-th eliminated variable: perm[k] is its original index,
//    invp[perm[k]] = k.
//  * Supernodes (nodes of the assembly tree) are numbered in a postorder: every child has a smaller
//    number than its parent. Node s eliminates the contiguous pivot positions sptr[s] .. sptr[s+1]-1
//    (ncol(s) = sptr[s+1] - sptr[s] >= 1).
//  * Row list of node s: rlist[rptr[s] .. rptr[s+1]-1] (nrow(s) entries, pivot positions). The first
//    ncol(s) entries are sptr[s], sptr[s]+1, ... in order; the rest are strictly increasing and > sptr[s+1]-1.
//    The front of s is nrow(s) x nrow(s) (before delays).
//  * Delayed pivots: when a node receives ndelay_in delayed columns from its children, they are placed
//    right after its own ncol columns. A local row index r (0 <= r < nrow) therefore lives at front row
//    r < ncol ? r : r + ndelay_in. The maps below store local indices and stay valid under that rule.
//  * cmap (aligned with rlist): for node s with a parent p and local row k >= ncol(s), cmap[rptr[s]+k]
//    is the local row index in p's row list of the variable rlist[rptr[s]+k]. Entries with k < ncol(s),
//    and all entries of roots, are -1.
//  * amap: the entries of A (as given by the caller: positions in its val array, 0-based, ptr[0]-base
//    subtracted) that land in node s are amap[amap_ptr[s] .. amap_ptr[s+1]-1], sorted by src. Entry
//    (i, j) of A with c = min(invp[i], invp[j]), r = max(...) belongs to the node s owning pivot position c;
//    lcol = c - sptr[s], lrow = position of r in s's row list (lrow >= lcol). Duplicates map to the same
//    place and are summed in src order; out-of-range entries have no amap entry; entries given in the upper
//    triangle are mirrored.
//  * Levels: level 0 holds the roots; level l+1 holds the children of level-l nodes. Level l's nodes are
//    level_nodes[level_ptr[l] .. level_ptr[l+1]-1] in increasing node order. Deepest level last.
//    The GPU factorizes levels from num_levels-1 down to 0.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>

#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct AEntry {
  offset_t src;   ///< index into the caller's val array (0-based)
  index_t lrow;   ///< local row in the node's row list
  index_t lcol;   ///< local column (0 <= lcol < ncol)
};

/// Ordering::matching's plain candidate (ordering_matching.hpp): its orders of the uncompressed graph by the
/// cheap and by the thorough ordering, postordered by their elimination trees (empty when not computed).
/// They depend on the pattern only, so a later analysis of the same pattern can take them as they are.
struct PlainCandidate {
  Vector<index_t> cheap, thorough;
};

/// Ordering::matching: what the values decided, kept so that an analysis of the same pattern with new values
/// (reanalyse, the C interface's cache) can tell whether it would decide the same (see reanalyse.cpp).
struct MatchingChoice {
  Vector<index_t> candidate_partner;  ///< n: the pairs of the compressed candidate (-1: none)
  bool compressed = false;            ///< the compressed candidate was chosen
  PlainCandidate plain;               ///< the plain candidate's orders (pattern only, ordering_matching.hpp)
  bool thorough = false;              ///< METIS ordered some candidate (MatchingOrder::thorough)
  /// predicted flops with delays (delays.hpp) of the plain and the compressed candidate (0: no pairs)
  double plain_flops = 0.0, compressed_flops = 0.0;
};

/// The options that shape an analysis besides the pattern (reanalyse compares them exactly).
struct AnalysisShape {
  int ordering = -1;
  int nemin = 0;
  double amalgamation_zeros = 0.0;
  bool spral_rule = false;  ///< Amalgamation::spral
  bool operator==(const AnalysisShape& o) const {
    return ordering == o.ordering && nemin == o.nemin && amalgamation_zeros == o.amalgamation_zeros &&
           spral_rule == o.spral_rule;
  }
};

struct Symbolic {
  index_t n = 0;
  offset_t nnz_in = 0;          ///< entries in the caller's arrays: ptr[n] - ptr[0]
  offset_t nnz = 0;             ///< entries of the cleaned lower triangle (duplicates merged, out-of-range dropped)

  Vector<index_t> perm;         ///< perm[k] = original variable at pivot position k
  Vector<index_t> invp;         ///< invp[i] = pivot position of variable i

  index_t nsup = 0;
  Vector<index_t> sptr;         ///< nsup+1
  Vector<offset_t> rptr;        ///< nsup+1
  Vector<index_t> rlist;        ///< rptr[nsup]
  Vector<index_t> sparent;      ///< nsup; -1 for a root
  Vector<index_t> child_ptr;    ///< nsup+1
  Vector<index_t> child_list;   ///< children of each node, increasing
  Vector<index_t> cmap;         ///< rptr[nsup], see above
  Vector<offset_t> amap_ptr;    ///< nsup+1
  Vector<AEntry> amap;
  index_t num_levels = 0;
  Vector<index_t> level_ptr;    ///< num_levels+1
  Vector<index_t> level_nodes;  ///< nsup
  Vector<index_t> node_level;   ///< nsup

  // predictions (no delays)
  offset_t num_factor = 0;      ///< sum over nodes of ncol*nrow - ncol*(ncol-1)/2
  offset_t num_flops = 0;       ///< sum over eliminated columns of m^2 + 2m, m = entries below the diagonal
  index_t maxfront = 0;         ///< max nrow
  index_t maxsupernode = 0;     ///< max ncol
  offset_t memory_host = 0;     ///< bytes: L storage + peak contribution-block stack (postorder traversal)

  // input checks, copied into Inform by analyse
  int matrix_dup = 0, matrix_outrange = 0, matrix_missing_diag = 0, matrix_upper = 0;
  bool structurally_singular = false;  ///< reserved (matching-based checks)

  /// Device copies of the maps, made by the first GPU factorization and reused by later ones (the
  /// analysis is otherwise immutable; the slot's mutex serializes the upload).
  struct GpuCacheSlot {
    std::mutex mutex;
    std::shared_ptr<void> data;
    /// Host memory the GPU path's solve plan reuses from one factorization to the next (fresh pages cost
    /// more than the work that fills them); taken with try_lock, so concurrent factorizations never wait.
    std::mutex host_mutex;
    std::shared_ptr<void> host_workspace;
    /// The GPU solve plan of the last factorization (guarded by mutex): the next one shares it when its factors
    /// have the same structure.
    std::shared_ptr<void> solve_plan;
    /// Host tables of destroyed GPU factors for the next factorization (a HostTablePool, numeric.hpp).
    std::shared_ptr<void> table_pool;
    /// Streams and buffers of the GPU solves with right-hand sides in host memory (solve_gpu.cu).
    std::shared_ptr<void> solve_scratch;
    /// The CPU factorization's front buffers and contribution-block pool, left by the last factorization for
    /// the next one (multifrontal_cpu.cpp): taken and given back under cpu_mutex, so a concurrent
    /// factorization of the same analysis allocates its own.
    std::mutex cpu_mutex;
    std::shared_ptr<void> cpu_scratch;
    /// The CUDA context's creation started beside this analysis (common/gpu_warmup.hpp; set before
    /// the analysis is returned, read-only afterwards).
    std::shared_ptr<void> gpu_warmup;
  };
  std::shared_ptr<GpuCacheSlot> gpu_cache = std::make_shared<GpuCacheSlot>();

  /// Ordering::matching only: the symmetrized matching scaling by original variable (size n), used by
  /// factor() with Scaling::from_ordering; empty for every other ordering.
  Vector<double> matching_scale;
  index_t matched = 0;  ///< Ordering::matching only: cardinality of the matching

  AnalysisShape shape;                 ///< what shaped the analysis besides the pattern
  Vector<index_t> user_order;          ///< Ordering::user: the caller's order, 0-based positions
  std::shared_ptr<const MatchingChoice> matching_choice;  ///< Ordering::matching only
  /// Ordering::matching kept by re-analyses with other pairs (MatchingReuse::keep_compatible): the predicted
  /// flops (with delays) by which each of them exceeded what the order was chosen at, summed over them.
  double kept_excess_flops = 0.0;

  index_t ncol(index_t s) const { return sptr[s + 1] - sptr[s]; }
  index_t nrow(index_t s) const { return static_cast<index_t>(rptr[s + 1] - rptr[s]); }
};

}  // namespace detail
}  // namespace ssids
