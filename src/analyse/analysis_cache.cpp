// analysis_cache.cpp — the process-wide cache of recent analyses (see analysis_cache.hpp).
// Entries are found by pattern_hash, n and the entry count, then reanalyse's exact check (same_input) decides;
// a re-analysis replaces its entry, so a sequence of matrices always starts from its latest analysis.
#include "analyse/analysis_cache.hpp"

#include <cstdlib>
#include <list>
#include <mutex>
#include <string>

#include "analyse/symbolic.hpp"
#include "analyse/validate.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

struct Entry {
  std::uint64_t hash = 0;
  index_t n = 0;
  offset_t nnz = 0;
  Analysis analysis;
  std::int64_t bytes = 0;
};

struct Cache {
  std::mutex mutex;
  std::list<Entry> entries;  // most recently used first
  int max_entries = 4;
  std::int64_t max_bytes = std::int64_t{512} << 20;
  Cache() {
    if (const char* e = std::getenv("SSIDS_ANALYSIS_CACHE")) {  // ENTRIES[:MIB]
      char* end = nullptr;
      const long entries = std::strtol(e, &end, 10);
      if (end != e && entries >= 0) max_entries = static_cast<int>(entries);
      if (end && *end == ':') {
        const long long mib = std::strtoll(end + 1, nullptr, 10);
        if (mib >= 0) max_bytes = static_cast<std::int64_t>(mib) << 20;
      }
    }
  }
  /// Drops the least recently used entries beyond the bounds (caller holds the mutex).
  void evict() {
    std::int64_t total = 0;
    int count = 0;
    for (auto it = entries.begin(); it != entries.end();) {
      if (count >= max_entries || total + it->bytes > max_bytes) {
        it = entries.erase(it);
      } else {
        total += it->bytes;
        ++count;
        ++it;
      }
    }
  }
};

/// Never destroyed: cached analyses may hold device memory, which must not be released after the CUDA
/// runtime has shut down at exit.
Cache& cache() {
  static Cache* c = new Cache;
  return *c;
}

thread_local ReuseKind last_kind = ReuseKind::none;

template <class T>
std::int64_t bytes_of(const Vector<T>& v) {
  return static_cast<std::int64_t>(v.capacity() * sizeof(T));
}

}  // namespace

std::int64_t analysis_bytes(const Analysis& an) {
  if (an.empty()) return 0;
  const Symbolic& s = an.symbolic();
  std::int64_t b = sizeof(Symbolic);
  b += bytes_of(s.perm) + bytes_of(s.invp) + bytes_of(s.sptr) + bytes_of(s.rptr) + bytes_of(s.rlist) +
       bytes_of(s.sparent) + bytes_of(s.child_ptr) + bytes_of(s.child_list) + bytes_of(s.cmap) +
       bytes_of(s.amap_ptr) + bytes_of(s.amap) + bytes_of(s.level_ptr) + bytes_of(s.level_nodes) +
       bytes_of(s.node_level) + bytes_of(s.matching_scale) + bytes_of(s.user_order);
  if (s.matching_choice) b += bytes_of(s.matching_choice->candidate_partner) + bytes_of(s.matching_choice->plain.cheap) +
                          bytes_of(s.matching_choice->plain.thorough);
  return b;
}

ReuseKind last_cached_reuse() { return last_kind; }

Analysis analyse_cached(const CscView& a, const Options& options, Inform& inform, const index_t* order,
                        ReuseKind* kind) {
  ReuseKind local = ReuseKind::none;
  if (!kind) kind = &local;
  *kind = ReuseKind::none;
  last_kind = ReuseKind::none;
  Cache& c = cache();
  bool off = false;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    off = c.max_entries == 0;
  }
  if (off) return analyse(a, options, inform, order);
  // a malformed input gets analyse's error; the hash reads only what analyse's checks accept
  try {
    check_arguments(a);
  } catch (const Error&) {
    return analyse(a, options, inform, order);
  }
  const offset_t nnz = a.n > 0 ? a.ptr[a.n] - a.ptr[0] : 0;
  const std::uint64_t hash = pattern_hash(a, options, order);
  // An entry that nothing outside the cache references (the caller freed its handles and factors, as an
  // interior-point code does before every analyse) is taken out of the cache: nobody else can reach it, so the
  // re-analysis may update it in place instead of copying its arrays. It goes back if the re-analysis fails.
  Analysis previous;
  bool taken = false;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.entries.begin(); it != c.entries.end(); ++it)
      if (it->hash == hash && it->n == a.n && it->nnz == nnz) {
        taken = it->analysis.symbolic_ptr().use_count() == 1;
        previous = it->analysis;
        if (taken) c.entries.erase(it);
        break;
      }
  }
  Analysis an;
  try {
    an = reanalyse_kind(previous, a, options, inform, order, kind, taken);
  } catch (...) {
    if (taken) {
      Entry back;
      back.hash = hash;
      back.n = a.n;
      back.nnz = nnz;
      back.bytes = analysis_bytes(previous);
      back.analysis = std::move(previous);
      std::lock_guard<std::mutex> lock(c.mutex);
      c.entries.push_front(std::move(back));
      c.evict();
    }
    throw;
  }
  last_kind = *kind;
  Entry fresh;
  fresh.hash = hash;
  fresh.n = a.n;
  fresh.nnz = nnz;
  fresh.analysis = an;
  fresh.bytes = analysis_bytes(an);
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.entries.begin(); it != c.entries.end(); ++it)
    if (it->hash == hash && it->n == a.n && it->nnz == nnz) {
      c.entries.erase(it);
      break;
    }
  c.entries.push_front(std::move(fresh));
  c.evict();
  return an;
}

void set_analysis_cache_limits(int entries, std::int64_t bytes) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.max_entries = entries < 0 ? 0 : entries;
  c.max_bytes = bytes < 0 ? 0 : bytes;
  c.evict();
}

void clear_analysis_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.entries.clear();
}

int analysis_cache_size() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return static_cast<int>(c.entries.size());
}

}  // namespace detail
}  // namespace ssids
