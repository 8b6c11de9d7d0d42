// analysis_cache.hpp — the process-wide cache of recent analyses behind the C interface.
//
// An interior-point code analyses before every factorization, and one that frees its analysis and analyses
// again each time (IPOPT through spral_ssids_analyse_ptr32) gives ssids::reanalyse no previous analysis to
// start from. The C interface's analyse therefore looks for a recent analysis of the same input here and
// re-analyses from it (reanalyse.hpp): METIS, AMD, natural and user orders are taken as they are (exactly what a
// fresh analysis gives); the matching ordering computes the matching and scaling for the new values and keeps
// the previous order while it is predicted to stay good for them (MatchingReuse, keep_compatible by default;
// SSIDS_MATCHING_REUSE=exact makes every result what a fresh analysis gives).
//
// Bounds: the cache keeps the most recently used analyses, at most 4 and at most 512 MiB of analysis data in
// all (host bytes of the analyses' arrays); the environment variable SSIDS_ANALYSIS_CACHE=ENTRIES[:MIB], read
// once, changes both (ENTRIES = 0 turns the cache off). A cached analysis stays alive after the caller frees its
// handle, until it is evicted (its device copy of the maps too, when a GPU factorization made one).
// Thread-safe: lookups and insertions hold a mutex; the analyses themselves run outside it.
#pragma once
#include <cstdint>

#include "analyse/reanalyse.hpp"
#include "ssids/analyse.hpp"

namespace ssids {
namespace detail {

/// ssids::analyse through the cache (see above); `kind` (optional) tells what was reused.
Analysis analyse_cached(const CscView& a, const Options& options, Inform& inform, const index_t* order,
                        ReuseKind* kind = nullptr);

/// What the calling thread's last analyse_cached reused (benchmarks: the C interface does not tell).
ReuseKind last_cached_reuse();

/// Changes the bounds (entries = 0: off) and evicts what no longer fits; for tests and programs that know better.
void set_analysis_cache_limits(int entries, std::int64_t bytes);
/// Drops every cached analysis.
void clear_analysis_cache();
/// Analyses held now (tests).
int analysis_cache_size();

/// Host bytes of an analysis' arrays (the cache's measure).
std::int64_t analysis_bytes(const Analysis& an);

}  // namespace detail
}  // namespace ssids
