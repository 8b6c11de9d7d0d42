// analyse.cpp — ssids::analyse(): checks, ordering, symbolic factorization and maps (see ssids/analyse.hpp).
//
// Input: the caller's lower triangle (CSC, base 0 or 1); values are read only by Ordering::matching.
// Output: an immutable detail::Symbolic (0-based, see symbolic.hpp). Steps and their cost:
//  1. validate.cpp    checks and the graph of A + A^T                        O(n + nnz)
//  2. ordering.cpp    METIS / natural / user order                           (METIS dominates)
//  3. etree.cpp       etree (Liu), postorder, column counts (Gilbert-Ng-Peyton) O(nnz alpha)
//     supernodes.cpp  fundamental supernodes + nemin amalgamation, final order O(n)
//  4. maps.cpp        row lists, cmap, amap; tree_stats.cpp levels, statistics O(sum of row lists)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "analyse/etree.hpp"
#include "analyse/maps.hpp"
#include "analyse/nested_dissection.hpp"
#include "analyse/memory_check.hpp"
#include "analyse/ordering.hpp"
#include "analyse/profile.hpp"
#include "analyse/reanalyse.hpp"
#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "analyse/tasks.hpp"
#include "analyse/validate.hpp"
#include "common/gpu_warmup.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"

namespace ssids {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::shared_ptr<const detail::Symbolic> run_analyse(const CscView& a, const Options& options, Inform& inform,
                                                    const index_t* order, detail::AnalyseProfile* profile,
                                                    const detail::OrderingHint* hint) {
  using namespace detail;
  PhaseTimer timer(profile);
  check_arguments(a);
  InputCheck check;
  Graph g;
  const bool split = a.n > 0 && a.ptr[a.n] - a.ptr[0] >= kCleanSplitEntries;  // two tasks (validate.hpp)
  in_task_team(split ? analyse_threads(options.num_threads, a.n) : 1, [&] { g = clean_pattern(a, check); });
  timer.lap("check");

  const AmalgamationRule rule = amalgamation_rule(options);
  // reads the values for Ordering::matching, which predicts the supernodes of its candidate orders by rule
  OrderingResult ord = compute_ordering(g, a, options, order, profile, hint);
  timer = PhaseTimer(profile);
  Vector<index_t> perm = std::move(ord.perm);
  Vector<index_t> parent = std::move(ord.parent);
  Vector<index_t> colcount = std::move(ord.colcount);
  Vector<index_t> invp = inverse_permutation(perm);
  if (colcount.empty()) {  // the ordering did not predict its order (the matching ordering did)
    // etree of the ordered matrix, then renumber by its postorder: the fill is unchanged (any topological
    // reordering of the etree is an equivalent ordering, Liu 1990) and subtrees become contiguous ranges
    parent = elimination_tree(g, perm, invp);
    {
      Vector<index_t> post = tree_postorder(parent);
      Vector<index_t> new_of_old = inverse_permutation(post);
      Vector<index_t> pperm(perm.size()), pparent(parent.size());
      for (size_t k = 0; k < post.size(); ++k) {
        pperm[k] = perm[post[k]];
        const index_t p = parent[post[k]];
        pparent[k] = p == -1 ? -1 : new_of_old[p];
      }
      perm.swap(pperm);
      parent.swap(pparent);
      invp = inverse_permutation(perm);
    }
    timer.lap("etree");
    colcount = column_counts(g, perm, invp, parent);
    timer.lap("column counts");
  }

  Partition part = find_supernodes(parent, colcount, rule);
  {
    // the big arrays still to come: row lists and cmap (4 + 4 bytes per row-list entry), amap (one entry per
    // input entry) and per-node and per-variable arrays; checked before they are allocated (memory_check.hpp)
    double rows = 0.0;
    for (index_t v = 0; v < part.nsup; ++v)
      rows += (part.sptr[v + 1] - part.sptr[v]) + colcount[part.old_of_new[part.sptr[v + 1] - 1]] - 1;
    const double bytes = 8.0 * rows + static_cast<double>(sizeof(AEntry)) * static_cast<double>(check.nnz_in) +
                         64.0 * part.nsup + 16.0 * a.n;
    check_host_memory(static_cast<std::int64_t>(std::min(bytes, 9.0e18)), "analyse: the assembly tree's row lists and maps");
  }
  // allocated through the library allocator (failure injection sees it); handed out as const below
  auto sym = std::allocate_shared<Symbolic>(Allocator<Symbolic>());
  Symbolic& s = *sym;
  s.n = a.n;
  s.nnz_in = check.nnz_in;
  s.nnz = check.nnz;
  s.perm.resize(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) s.perm[k] = perm[part.old_of_new[k]];
  s.invp = inverse_permutation(s.perm);
  s.nsup = part.nsup;
  s.sptr = std::move(part.sptr);
  s.sparent = std::move(part.sparent);
  timer.lap("supernodes");

  // the maps as tasks where they are independent (each writes its own fields): levels beside the row lists,
  // cmap beside amap
  build_children(s);
  in_task_team(analyse_threads(options.num_threads, a.n, kNdLeafVertices), [&] {
    fork_join([&s] { build_levels(s); },
              [&] {
                build_row_lists(g, s);
                timer.lap("row lists");
                fork_join([&s] { build_cmap(s); }, [&] { build_amap(a, s); });
                timer.lap("maps");
              });
  });
  compute_statistics(s);
  s.matrix_dup = check.dup;
  s.matrix_outrange = check.outrange;
  s.matrix_missing_diag = check.missing_diag;
  s.matrix_upper = check.upper;
  s.matching_scale = std::move(ord.matching_scale);
  s.structurally_singular = ord.structurally_singular;
  s.matched = ord.matched;
  s.matching_choice = std::move(ord.matching_choice);
  s.shape = analysis_shape(options);
  if (options.ordering == Ordering::user && order) {
    s.user_order.resize(static_cast<size_t>(a.n));
    for (index_t i = 0; i < a.n; ++i) s.user_order[i] = order[i] - a.base;
  }
  timer.lap("levels+stats");

  set_analysis_flag(s, inform);
  return sym;
}

void print_profile(const detail::AnalyseProfile& p) {
  for (const auto& phase : p.phases) std::fprintf(stderr, "ssids analyse: %-16s %8.3f s\n", phase.name, phase.seconds);
}

}  // namespace

namespace detail {

/// Problems from this many rows up have, as a rule, fronts whose updates go to cuBLAS on the GPU (contribution
/// blocks of 2 * plain_gemm_min_dim() rows): the warm-up of a GPU-backend analysis opens cuBLAS for them too.
constexpr index_t kWarmupCublasRows = 100000;

Analysis analyse_profiled(const CscView& a, const Options& options, Inform& inform, const index_t* order,
                          AnalyseProfile* profile, const OrderingHint* hint) {
  const auto t0 = clock_type::now();
  inform.flag = flag::success;
  inform.message.clear();
  AnalyseProfile local;  // print_level > 0 without a caller's profile: phase times to stderr
  const bool verbose = options.print_level > 0;
  if (!profile && verbose) profile = &local;
  try {
    // a GPU factorization will follow: its device's context is created beside the ordering
    std::shared_ptr<void> warmup =
        options.backend == Backend::gpu ? start_gpu_warmup(a.n >= kWarmupCublasRows) : nullptr;
    std::shared_ptr<const detail::Symbolic> sym = run_analyse(a, options, inform, order, profile, hint);
    if (warmup) sym->gpu_cache->gpu_warmup = std::move(warmup);
    detail::copy_analysis_statistics(*sym, inform);
    inform.time_analyse = seconds_since(t0);
    if (verbose) print_profile(*profile);
    return Analysis(std::move(sym));
  } catch (const Error& e) {
    inform.flag = e.code();
    inform.message = e.what();
    inform.time_analyse = seconds_since(t0);
    throw;
  } catch (const std::bad_alloc&) {
    inform.flag = flag::allocation;
    inform.message = "analyse: host allocation failed";
    inform.time_analyse = seconds_since(t0);
    throw Error(flag::allocation, inform.message);
  }
}

}  // namespace detail

Analysis analyse(const CscView& a, const Options& options, Inform& inform, const index_t* order) {
  return detail::analyse_profiled(a, options, inform, order, nullptr);
}

}  // namespace ssids
