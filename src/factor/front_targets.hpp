// front_targets.hpp — the entries of A by front position, as the GPU assembly kernels read them (plain C++).
#pragma once
#include "analyse/symbolic.hpp"
#include "cuda/front_tasks.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

/// For each node s, the unique (local row, local column) targets of its entries of A at [tptr[s], tptr[s+1]),
/// ordered by column then row, each with its sources (indices into the caller's values) in src order, so that
/// summing them in that order adds the same values in the same order as the CPU path.
void build_front_targets(const Symbolic& sym, Vector<long long>& tptr, Vector<long long>& srcs,
                         Vector<gpu::ATarget>& targets);

}  // namespace detail
}  // namespace ssids
