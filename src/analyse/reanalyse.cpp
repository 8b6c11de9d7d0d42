// reanalyse.cpp — re-analysis of a pattern analysed before (see ssids::reanalyse in analyse.hpp).
//
// Same input: the shaping options are equal (AnalysisShape, the user order for Ordering::user) and every entry of
// the caller's arrays lands where the previous analysis put it: the amap entry of source position k holds the
// pair {row[k], column of k} (unordered: mirrored entries map alike), the positions without an amap entry are
// out of range, and the counts of mirrored and out-of-range entries agree. Then the analysis, which depends on
// nothing else, would come out the same: METIS, AMD, natural and user orders return the previous one as it is.
// The check reads the arrays once more after the hash (O(n + nnz)), so a hash collision cannot pass.
//
// The matching ordering also depends on the values through the pairs of its compressed candidate (and the
// scaling, which is cheap). The matching and the pairs are computed for the new values; with the same pairs a
// fresh analysis would make the same choice and the same order, so the result is the previous analysis with the
// new scaling. With other pairs only the compressed candidate is ordered again: the plain candidate depends on
// the pattern alone and is taken from the previous analysis. Both give exactly what analyse gives.
// By default (MatchingReuse::keep_compatible, chosen by measurement on interior-point sequences, bench/NOTES.md)
// the previous analysis is also kept with other pairs while it stays good enough for the new values, a
// rent-or-buy rule: every re-analysis that keeps the order "pays" the flops by which, with the delays the new
// values are predicted to cause in it (delays.hpp), it exceeds what it was predicted to cost when it was
// chosen; the order is kept while one such excess is at most kKeepSlack of that cost and their sum stays
// below what ordering again costs, estimated as kReorderFlopsPerEdge per edge of the graph (ordering and
// predicting are linear in the edges; the factorization's flops are not). So a cheap factorization after a
// costly ordering tolerates more delays, and a costly one re-orders soon. Then the result depends on the
// analyses it started from, not only on the input; the environment variable SSIDS_MATCHING_REUSE=exact (or
// set_matching_reuse) keeps to exact reuse.
#include "analyse/reanalyse.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>

#include "analyse/delays.hpp"
#include "analyse/matching_sparse_part.hpp"
#include "analyse/ordering.hpp"
#include "analyse/ordering_matching.hpp"
#include "analyse/pattern.hpp"
#include "analyse/profile.hpp"
#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "analyse/tasks.hpp"
#include "analyse/validate.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {
/// One multiply and one shift per 64-bit value (FNV-1a's byte at a time took 8 multiplies, 1.8 ms per call on
/// an input of 250 000 values): a filter in front of the exact check, so spreading the patterns met in
/// practice is all it needs. Arrays go through four independent lanes, combined at the end: one lane is a
/// chain of dependent multiplies, bound by their latency.
struct WordHash {
  std::uint64_t h = 1469598103934665603ULL;
  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  }
  void add(std::uint64_t v) { h = mix(h, v); }
  /// p[0] - base, ..., p[count-1] - base
  template <class T>
  void add_array(const T* p, size_t count, T base) {
    std::uint64_t lane[4] = {h, h ^ 0x243F6A8885A308D3ULL, h ^ 0x13198A2E03707344ULL, h ^ 0xA4093822299F31D0ULL};
    size_t k = 0;
    for (; k + 4 <= count; k += 4)
      for (int t = 0; t < 4; ++t) lane[t] = mix(lane[t], static_cast<std::uint64_t>(p[k + t] - base));
    for (; k < count; ++k) lane[0] = mix(lane[0], static_cast<std::uint64_t>(p[k] - base));
    h = lane[0];
    for (int t = 1; t < 4; ++t) add(lane[t]);
  }
};

/// The process-wide policy: SSIDS_MATCHING_REUSE=exact|keep (read once), else keep_compatible.
std::atomic<int>& reuse_policy() {
  static std::atomic<int> policy{[] {
    const char* e = std::getenv("SSIDS_MATCHING_REUSE");
    return static_cast<int>(e && std::strcmp(e, "exact") == 0 ? MatchingReuse::exact : MatchingReuse::keep_compatible);
  }()};
  return policy;
}

}  // namespace

bool keep_order(double chosen_flops, double now_flops, double kept_excess, offset_t edges, double& excess) {
  excess = std::max(0.0, now_flops - chosen_flops);
  return now_flops <= (1.0 + kKeepSlack) * chosen_flops &&
         kept_excess + excess <= kReorderFlopsPerEdge * static_cast<double>(edges);
}

void set_matching_reuse(MatchingReuse policy) { reuse_policy() = static_cast<int>(policy); }
MatchingReuse matching_reuse() { return static_cast<MatchingReuse>(reuse_policy().load()); }

AnalysisShape analysis_shape(const Options& options) {
  const AmalgamationRule rule = amalgamation_rule(options);  // as analyse uses it
  AnalysisShape s;
  s.ordering = static_cast<int>(options.ordering);
  s.nemin = rule.nemin;
  s.amalgamation_zeros = rule.max_zero_fraction;
  s.spral_rule = rule.spral;
  return s;
}

void copy_analysis_statistics(const Symbolic& s, Inform& inform) {
  inform.matrix_dup = s.matrix_dup;
  inform.matrix_outrange = s.matrix_outrange;
  inform.matrix_missing_diag = s.matrix_missing_diag;
  inform.matrix_upper = s.matrix_upper;
  inform.num_sup = s.nsup;
  inform.num_levels = s.num_levels;
  inform.maxdepth = s.num_levels;
  inform.maxsupernode = s.maxsupernode;
  inform.maxfront = s.maxfront;
  inform.num_factor = s.num_factor;
  inform.num_flops = s.num_flops;
  inform.memory_host = s.memory_host;
}

void set_analysis_flag(const Symbolic& s, Inform& inform) {
  InputCheck check;
  check.nnz_in = s.nnz_in;
  check.nnz = s.nnz;
  check.dup = s.matrix_dup;
  check.outrange = s.matrix_outrange;
  check.missing_diag = s.matrix_missing_diag;
  check.upper = s.matrix_upper;
  inform.flag = input_warning(check, inform.message);
  if (s.structurally_singular) {  // SPRAL's analyse warning 6 (matching ordering); input warnings stay in the message
    inform.flag = flag::structurally_singular;
    inform.message = "structurally singular: matching of cardinality " + std::to_string(s.matched) + " < n = " +
                     std::to_string(s.n) + (inform.message.empty() ? "" : "; " + inform.message);
  }
}

std::uint64_t pattern_hash(const CscView& a, const Options& options, const index_t* order) {
  WordHash f;
  f.add(static_cast<std::uint64_t>(a.n));
  const AnalysisShape shape = analysis_shape(options);
  f.add(static_cast<std::uint64_t>(shape.ordering));
  f.add(static_cast<std::uint64_t>(shape.nemin));
  {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &shape.amalgamation_zeros, sizeof bits);
    f.add(bits);
  }
  f.add(shape.spral_rule ? 1u : 0u);
  if (a.n <= 0 || !a.ptr) return f.h;
  f.add_array(a.ptr, static_cast<size_t>(a.n) + 1, static_cast<offset_t>(a.base));
  const offset_t nnz = a.ptr[a.n] - a.ptr[0];
  if (a.row) f.add_array(a.row, static_cast<size_t>(nnz), static_cast<index_t>(a.base));
  if (options.ordering == Ordering::user && order)
    f.add_array(order, static_cast<size_t>(a.n), static_cast<index_t>(a.base));
  return f.h;
}

bool same_input(const Symbolic& s, const CscView& a, const Options& options, const index_t* order) {
  if (!(s.shape == analysis_shape(options)) || s.n != a.n) return false;
  const index_t n = a.n;
  if (n == 0) return true;
  const offset_t nnz = a.ptr[n] - a.ptr[0];
  if (nnz != s.nnz_in) return false;
  if (options.ordering == Ordering::user) {
    if (!order || s.user_order.size() != static_cast<size_t>(n)) return false;
    for (index_t i = 0; i < n; ++i)
      if (order[i] - a.base != s.user_order[i]) return false;
  }
  // the column of every source position, and which positions the amap covers
  const offset_t p0 = a.ptr[0];
  Vector<index_t> col(static_cast<size_t>(nnz));
  for (index_t j = 0; j < n; ++j)
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) col[k] = j;
  Vector<char> covered(static_cast<size_t>(nnz), 0);
  offset_t upper = 0, outrange = 0;
  for (index_t v = 0; v < s.nsup; ++v) {
    const index_t* rows = s.rlist.data() + s.rptr[v];
    for (offset_t e = s.amap_ptr[v]; e < s.amap_ptr[v + 1]; ++e) {
      const AEntry& m = s.amap[e];
      if (m.src < 0 || m.src >= nnz || covered[m.src]) return false;
      covered[m.src] = 1;
      const index_t i = a.row[m.src] - a.base, j = col[m.src];
      const index_t r = s.perm[rows[m.lrow]], c = s.perm[s.sptr[v] + m.lcol];
      if (!((i == r && j == c) || (i == c && j == r))) return false;
      upper += i < j;
    }
  }
  for (offset_t k = 0; k < nnz; ++k) {
    if (covered[k]) continue;
    const index_t i = a.row[k] - a.base;
    if (i >= 0 && i < n) return false;
    ++outrange;
  }
  return upper == s.matrix_upper && outrange == s.matrix_outrange;
}

namespace {

/// The previous analysis with the new values' matching scaling (everything else is decided by the pattern
/// and the pairs, which are the previous ones or are not used); `excess`: the predicted flops by which keeping
/// it costs more than when it was chosen (added to its kept_excess_flops). With `in_place`, when `previous`
/// holds the only reference to its Symbolic (nothing else can see it change), that Symbolic itself is updated
/// and returned instead of a copy of its arrays.
std::shared_ptr<const Symbolic> with_new_scaling(const Analysis& previous, bool in_place, MatchingPairs& mp,
                                                 double excess) {
  std::shared_ptr<Symbolic> sym =
      in_place && previous.symbolic_ptr().use_count() == 1
          ? std::const_pointer_cast<Symbolic>(previous.symbolic_ptr())  // (created non-const by analyse)
          : std::allocate_shared<Symbolic>(Allocator<Symbolic>(), previous.symbolic());
  sym->matching_scale = std::move(mp.scale);
  sym->structurally_singular = mp.structurally_singular;
  sym->matched = mp.matched;
  sym->kept_excess_flops += excess;
  return sym;
}

/// MatchingReuse::keep_compatible: the previous analysis stays good for the new values (the rent-or-buy rule
/// above). On success `excess` is what keeping it costs more than when it was chosen, in predicted flops.
bool compatible(const Symbolic& s, const MatchingChoice& mc, const Graph& g, const MatchingPairs& mp, int threads,
                double& excess) {
  const index_t n = s.n;
  Partition part;
  part.nsup = s.nsup;
  part.sptr = s.sptr;
  part.sparent = s.sparent;
  part.old_of_new.resize(static_cast<size_t>(n));
  Vector<index_t> colcount(static_cast<size_t>(n), 1);
  for (index_t k = 0; k < n; ++k) part.old_of_new[k] = k;
  for (index_t v = 0; v < s.nsup; ++v) colcount[s.sptr[v + 1] - 1] = s.nrow(v) - s.ncol(v) + 1;
  DelayPrediction now;  // the sweep's subtrees side by side (delays.cpp)
  in_task_team(threads, [&] { now = predict_delays(g, s.perm, part, colcount, mp.needy, mp.weight, mp.diag); });
  const double before = mc.compressed ? mc.compressed_flops : mc.plain_flops;
  return keep_order(before, now.flops, s.kept_excess_flops, g.num_edges(), excess);
}

/// What a matching re-analysis reads from the input besides the check: the graph (pattern only) and the
/// matching's scaling and pairs with the scaled weights along the graph (values). reanalyse_kind computes
/// them beside same_input, as tasks, and uses them only when the check passes; an error of the values' part
/// is kept for then (a fresh analyse reports it otherwise).
struct MatchingInputs {
  Graph g;
  MatchingPairs mp;
  std::exception_ptr error;
};

/// The inputs' graph and pairs beside the check, on `threads` threads. The matching's assignment is the
/// longest part and runs on one thread; what comes before it is split so that it starts early (the graph
/// beside the full matrix, then the matching's weights half the columns each), and what needs no scaling
/// runs beside it (the check, the values gathered along the graph for the weights).
bool same_input_and_matching(const Symbolic& s, const CscView& a, const Options& options, const index_t* order,
                             int threads, MatchingInputs& in) {
  bool same = false;
  // a step of the values' part, skipped after an error there; its own error is kept in `error`
  auto values_part = [](std::exception_ptr& error, auto&& step) {
    if (error) return;
    try {
      step();
    } catch (...) {
      error = std::current_exception();
    }
  };
  in_task_team(threads, [&] {
    FullSymmetric f;
    // a clean lower triangle with dense rows: the values' side on its sparse part (matching_sparse_part.hpp),
    // which needs the graph, without the full matrix
    bool sparse_part = false;
    fork_join(
        [&] {
          InputCheck check;
          in.g = clean_pattern(a, check);
        },
        [&] {
          values_part(in.error, [&] {
            sparse_part = sparse_part_input(a, true);
            if (!sparse_part) f = full_from_view(a);
          });
        });
    if (sparse_part) {
      fork_join([&] { same = same_input(s, a, options, order); },
                [&] { values_part(in.error, [&] { in.mp = matching_pairs(in.g, a); }); });
      return;
    }
    std::optional<MatchingCosts> costs;
    values_part(in.error, [&] { costs.emplace(f.n, f.ptr.data()); });
    if (costs) {
      const index_t half = f.n / 2;
      fork_join([&] { costs->fill(f.ptr.data(), f.val.data(), half, f.n); },
                [&] { costs->fill(f.ptr.data(), f.val.data(), 0, half); });
    }
    EdgeMagnitudes magnitudes;
    MatchingResult m;
    std::exception_ptr gather_error = in.error;  // (the magnitudes are not needed after an error)
    fork_join(
        [&] {
          same = same_input(s, a, options, order);
          values_part(gather_error, [&] { magnitudes = edge_magnitudes(in.g, f); });
        },
        [&] { values_part(in.error, [&] { in.mp = matching_scaling_of_full(f, m, costs ? &*costs : nullptr); }); });
    if (!in.error) in.error = gather_error;
    // then the weights beside the pairs (both need only the scaling)
    std::exception_ptr pairs_error = in.error;
    fork_join([&] { values_part(in.error, [&] { add_scaled_weights(in.g, magnitudes, in.mp); }); },
              [&] { values_part(pairs_error, [&] { add_pairs(magnitudes.diag, m, in.mp); }); });
    if (!in.error) in.error = pairs_error;
  });
  return same;
}

Analysis reanalyse_same_pattern(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                                const index_t* order, ReuseKind* kind, MatchingInputs& in, bool in_place) {
  const Symbolic& s = previous.symbolic();
  if (options.ordering != Ordering::matching) {
    if (kind) *kind = ReuseKind::whole;
    set_analysis_flag(s, inform);
    copy_analysis_statistics(s, inform);
    return previous;
  }
  if (in.error) std::rethrow_exception(in.error);
  // the graph as analyse builds it (the same adjacency order), for the pairs' delay predictions
  const Graph& g = in.g;
  MatchingPairs& mp = in.mp;
  const MatchingChoice& mc = *s.matching_choice;
  double excess = 0.0;
  const bool same_pairs = mp.partner == mc.candidate_partner;
  const int threads = analyse_threads(options.num_threads, a.n);
  if (same_pairs ||
      (matching_reuse() == MatchingReuse::keep_compatible && compatible(s, mc, g, mp, threads, excess))) {
    if (kind) *kind = same_pairs ? ReuseKind::same_pairs : ReuseKind::kept_order;
    std::shared_ptr<const Symbolic> sym = with_new_scaling(previous, in_place, mp, excess);
    set_analysis_flag(*sym, inform);
    copy_analysis_statistics(*sym, inform);
    return Analysis(std::move(sym));
  }
  if (kind) *kind = ReuseKind::plain_candidate;
  OrderingHint hint;
  hint.pairs = &mp;
  hint.previous = &mc;
  return analyse_profiled(a, options, inform, order, nullptr, &hint);
}

}  // namespace

Analysis reanalyse_kind(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                        const index_t* order, ReuseKind* kind, bool may_update_previous) {
  const auto t0 = std::chrono::steady_clock::now();
  if (kind) *kind = ReuseKind::none;
  if (previous.empty()) return analyse(a, options, inform, order);
  inform.flag = flag::success;
  inform.message.clear();
  try {
    check_arguments(a);
  } catch (const Error&) {
    return analyse(a, options, inform, order);  // which reports it
  }
  // the matching ordering also needs the graph and the new values' pairs: computed beside the check
  const bool matching = options.ordering == Ordering::matching && previous.symbolic().matching_choice;
  MatchingInputs in;
  bool same = false;
  try {
    same = matching ? same_input_and_matching(previous.symbolic(), a, options, order,
                                              analyse_threads(options.num_threads, a.n), in)
                    : same_input(previous.symbolic(), a, options, order);
  } catch (const std::bad_alloc&) {
    inform.flag = flag::allocation;
    inform.message = "reanalyse: host allocation failed";
    throw Error(flag::allocation, inform.message);
  }
  if (!same && matching && !in.error) {  // another input: analysed afresh with the pairs computed for it
    OrderingHint hint;
    hint.pairs = &in.mp;
    return analyse_profiled(a, options, inform, order, nullptr, &hint);
  }
  if (!same) return analyse(a, options, inform, order);
  try {
    Analysis an = reanalyse_same_pattern(previous, a, options, inform, order, kind, in, may_update_previous);
    inform.time_analyse = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return an;
  } catch (const Error& e) {
    inform.flag = e.code();
    inform.message = e.what();
    throw;
  } catch (const std::bad_alloc&) {
    inform.flag = flag::allocation;
    inform.message = "reanalyse: host allocation failed";
    throw Error(flag::allocation, inform.message);
  }
}

}  // namespace detail

Analysis reanalyse(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                   const index_t* order) {
  return detail::reanalyse_kind(previous, a, options, inform, order, nullptr);
}

}  // namespace ssids
