// supernodes.hpp — fundamental supernodes, amalgamation and the final pivot order (analyse step 3b).
// Input: a postordered elimination tree (0-based pivot positions) and its column counts.
#pragma once
#include "analyse/pattern.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

struct Partition {
  index_t nsup = 0;
  Vector<index_t> sptr;     ///< nsup+1, columns of node s are new positions sptr[s] .. sptr[s+1]-1
  Vector<index_t> sparent;  ///< nsup, -1 for roots; nodes are in a postorder (child < parent)
  Vector<index_t> old_of_new;  ///< n: new pivot position k was position old_of_new[k] of the input order
};

/// The amalgamation analyse applies: Options::nemin and Options::amalgamation_zeros (clamped to [0, 0.5]).
/// Default-constructed: the defaults of Options.
struct AmalgamationRule {
  int nemin = Options{}.nemin;
  double max_zero_fraction = Options{}.amalgamation_zeros;
  bool spral = false;  ///< Amalgamation::spral: find_supernodes_spral (max_zero_fraction is then 0)
};
AmalgamationRule amalgamation_rule(const Options& options);

/// Fundamental supernodes (Liu, Ng & Peyton 1993) merged by SPRAL's amalgamation rule: a child joins its
/// parent when both have fewer than nemin (clamped to >= 1) columns, or (relaxed amalgamation, when
/// max_zero_fraction > 0 and nemin > 1) when at most that fraction of the merged node's entries would be
/// explicit zeros, counting those its merged descendants brought; nemin = 1 gives fundamental supernodes;
/// nodes are considered in increasing order, so the result is deterministic. The returned order keeps every node's columns contiguous, places
/// merged children's columns before the parent's own, and numbers nodes in a postorder.
Partition find_supernodes(const Vector<index_t>& parent, const Vector<index_t>& colcount, int nemin,
                          double max_zero_fraction = 0.0);
/// SPRAL SSIDS's own supernodes (its analyse, 2025.09): starting from single columns, each column in
/// increasing order is offered its children in decreasing order of column count (ties: increasing); a child
/// joins it when the column has absorbed nothing yet and the child's column count is one more than its own
/// (a supernode chain), or when both groups have fewer than nemin columns. For the same pivot order this
/// gives SPRAL's assembly tree, so num_sup, maxfront, maxdepth, num_factor and num_flops equal SPRAL's.
Partition find_supernodes_spral(const Vector<index_t>& parent, const Vector<index_t>& colcount, int nemin);
inline Partition find_supernodes(const Vector<index_t>& parent, const Vector<index_t>& colcount,
                                 const AmalgamationRule& rule) {
  return rule.spral ? find_supernodes_spral(parent, colcount, rule.nemin)
                    : find_supernodes(parent, colcount, rule.nemin, rule.max_zero_fraction);
}

}  // namespace detail
}  // namespace ssids
