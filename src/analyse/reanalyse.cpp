// reanalyse.cpp — cheap re-analysis (see ssids::reanalyse in analyse.hpp): when the pattern and the options
// that shape the analysis hash to the previous analysis' value, that analysis is returned as it is (it is
// immutable and shared); otherwise the matrix is analysed afresh.
#include "analyse/reanalyse.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {
struct Fnv {
  std::uint64_t h = 1469598103934665603ULL;
  void add(std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 1099511628211ULL;
    }
  }
};
}  // namespace

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

std::uint64_t pattern_hash(const CscView& a, const Options& options, const index_t* order) {
  Fnv f;
  f.add(static_cast<std::uint64_t>(a.n));
  f.add(static_cast<std::uint64_t>(options.ordering == Ordering::user ? 1000 : static_cast<int>(options.ordering)));
  const AmalgamationRule rule = amalgamation_rule(options);  // as analyse uses it
  f.add(static_cast<std::uint64_t>(rule.nemin));
  {
    const double z = rule.max_zero_fraction;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &z, sizeof bits);
    f.add(bits);
  }
  f.add(rule.spral ? 1u : 0u);
  if (a.n <= 0 || !a.ptr) return f.h;
  const offset_t base = a.base;
  for (index_t j = 0; j <= a.n; ++j) f.add(static_cast<std::uint64_t>(a.ptr[j] - base));
  const offset_t nnz = a.ptr[a.n] - a.ptr[0];
  if (a.row)
    for (offset_t k = 0; k < nnz; ++k) f.add(static_cast<std::uint64_t>(a.row[k] - a.base));
  if (options.ordering == Ordering::user && order)
    for (index_t i = 0; i < a.n; ++i) f.add(static_cast<std::uint64_t>(order[i] - a.base));
  return f.h;
}

}  // namespace detail

Analysis reanalyse(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                   const index_t* order) {
  const auto t0 = std::chrono::steady_clock::now();
  // the matching ordering depends on the values: always redone
  if (!previous.empty() && options.ordering != Ordering::matching) {
    const detail::Symbolic& s = previous.symbolic();
    if (s.pattern_hash != 0 && s.n == a.n && s.nnz_in == (a.n > 0 && a.ptr ? a.ptr[a.n] - a.ptr[0] : 0) &&
        detail::pattern_hash(a, options, order) == s.pattern_hash) {
      inform.flag = flag::success;
      inform.message.clear();
      copy_analysis_statistics(s, inform);
      inform.time_analyse = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return previous;
    }
  }
  return analyse(a, options, inform, order);
}

}  // namespace ssids
