// maps.hpp — row lists, assembly-tree maps, levels and statistics of detail::Symbolic (analyse steps 3c-5).
// Each function reads the fields filled by the previous ones; see symbolic.hpp for every field's meaning.
#pragma once
#include "analyse/pattern.hpp"
#include "analyse/symbolic.hpp"

namespace ssids {
namespace detail {

/// child_ptr/child_list from sparent (needs nsup, sparent).
void build_children(Symbolic& s);
/// rptr/rlist from the children's row lists and the entries of A (needs perm, invp, sptr, children).
void build_row_lists(const Graph& g, Symbolic& s);
/// cmap (needs rlist, children).
void build_cmap(Symbolic& s);
/// From this many input entries build_amap runs its passes in two tasks each (inside a task team).
constexpr offset_t kAmapSplitEntries = offset_t(1) << 18;
/// amap_ptr/amap from the caller's arrays (needs rlist, invp; a already checked). The same result on any
/// number of threads.
void build_amap(const CscView& a, Symbolic& s);
/// node_level, level_ptr, level_nodes, num_levels (needs sparent).
void build_levels(Symbolic& s);
/// num_factor, num_flops, maxfront, maxsupernode, memory_host (needs sptr, rptr, children).
void compute_statistics(Symbolic& s);

}  // namespace detail
}  // namespace ssids
