// ssids/analyse.hpp — the analyse phase: ordering, assembly tree, maps and level lists.
// The result is immutable and may be shared by any number of factorizations (copies share the data).
#pragma once
#include <memory>

#include "ssids/csc.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {

namespace detail {
struct Symbolic;
}

class Analysis {
 public:
  Analysis() = default;
  explicit Analysis(std::shared_ptr<const detail::Symbolic> s) : sym_(std::move(s)) {}

  bool empty() const noexcept { return !sym_; }
  index_t n() const;
  offset_t nnz() const;              ///< entries in the analysed lower triangle (after cleaning)
  index_t num_sup() const;
  index_t num_levels() const;
  index_t maxfront() const;          ///< largest front, ignoring delays
  index_t maxsupernode() const;
  offset_t num_factor() const;       ///< predicted entries of L (diagonal included)
  offset_t num_flops() const;        ///< predicted flops of an LDL^T factorization without pivoting
  offset_t memory_host() const;      ///< predicted host bytes for one factorization
  /// Pivot order: order[i] is the (0-based) position at which variable i is eliminated.
  Vector<index_t> order() const;

  const detail::Symbolic& symbolic() const { return *sym_; }
  const std::shared_ptr<const detail::Symbolic>& symbolic_ptr() const noexcept { return sym_; }

 private:
  std::shared_ptr<const detail::Symbolic> sym_;
};

/// Analyse the sparsity pattern of the lower triangle `a` (values are not needed; if present they are
/// checked for NaN/Inf only when the ordering needs them).
/// `order`: with Ordering::user, order[i] = position of variable i in the pivot sequence (base a.base);
/// otherwise ignored (may be null).
/// Throws ssids::Error (bad_n, bad_ptr, missing_data, bad_order, all_out_of_range, no_metis, allocation;
/// allocation also when the predicted memory of the analysis exceeds what the machine has available, with
/// the predicted bytes in the message).
/// Warnings (out-of-range ignored, duplicates summed, missing diagonal, structurally singular) go to inform.flag.
/// Uses options.num_threads threads (0: OpenMP's default); the result is bitwise the same for any number.
/// Rows far denser than the rest (more than max(16, 10 sqrt(n)) entries) are ordered last.
/// With options.backend == Backend::gpu and exactly one visible CUDA device, the first such analysis of a process
/// also creates the device's CUDA context on a thread of its own (and, from 100 000 rows, loads cuBLAS), so that
/// the first GPU factorization does not pay for it; the analysis' result does not depend on it.
Analysis analyse(const CscView& a, const Options& options, Inform& inform, const index_t* order = nullptr);

/// Cheap re-analysis for a matrix whose pattern may equal one analysed before (interior-point codes
/// refactorize the same pattern hundreds of times). When the options that shape the analysis (ordering, nemin,
/// amalgamation_zeros, the user order) are `previous`'s and every entry of `a` lands where it did in
/// `previous` (checked entry by entry: O(n + nnz), no hash can pass another pattern), then for METIS, AMD,
/// natural and user orders `previous` is returned as it is; for Ordering::matching the matching and its
/// scaling are recomputed from the new values and the previous analysis is reused while it stays good for
/// them: with the same 2x2 pairs exactly, with other pairs while the delays the new values are predicted to
/// cause in it add at most 25% flops and the extra flops summed over the re-analyses that kept it stay below
/// an estimate of what ordering again costs (else only the compressed candidate is ordered again; the environment
/// variable SSIDS_MATCHING_REUSE=exact limits reuse to results equal to a fresh analysis). Otherwise `a` is
/// analysed afresh. Errors as analyse.
Analysis reanalyse(const Analysis& previous, const CscView& a, const Options& options, Inform& inform,
                   const index_t* order = nullptr);

}  // namespace ssids
