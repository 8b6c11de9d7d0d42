// ssids/options.hpp — control parameters for analyse, factor and solve.
// Field names follow SPRAL's spral_ssids_options where they mean the same thing.
#pragma once
#include <cstdint>

#include "ssids/types.hpp"

namespace ssids {

/// Fill-reducing ordering used by analyse.
enum class Ordering {
  user = 0,     ///< caller-supplied permutation (validated)
  metis = 1,    ///< METIS nested dissection on the graph of A (default)
  matching = 2, ///< matching-based compressed ordering (Hogg & Scott 2013); needs the values in analyse
  natural = 3,  ///< identity
  amd = 4,      ///< approximate minimum degree (Amestoy, Davis & Duff 1996)
};

/// Scaling applied as S A S before factorization.
enum class Scaling {
  none = 0,
  matching = 1,     ///< symmetrized maximum-product matching scaling (MC64, Duff & Koster 2001), computed by factor
  auction = 2,      ///< the same from an approximate auction matching (faster), computed by factor
  from_ordering = 3,///< the matching ordering's scaling (needs Ordering::matching, else Error bad_scaling)
  equilibrate = 4,  ///< symmetric infinity-norm equilibration (Ruiz 2001), computed by factor
  user = -1,        ///< caller-supplied vector passed to factor()
};

/// How analyse groups columns into supernodes.
enum class Amalgamation {
  relaxed = 0,  ///< fundamental supernodes, merged by the nemin rule and by amalgamation_zeros (default)
  spral = 1,    ///< SPRAL SSIDS's own rule (nemin only): the tree SPRAL builds for the same pivot order
};

struct Options {
  int print_level = 0;                 ///< < 0 silent; 0 errors only; > 0 diagnostics to stderr (GPU factorization: 1 phase times, 2 window kernel times, 3 per level)
  Ordering ordering = Ordering::metis; ///< fill-reducing ordering
  int nemin = 32;                      ///< amalgamation: merge child into parent when both have < nemin columns (>= 1)
  /// relaxed amalgamation: also merge a child into its parent when at most this fraction of the merged
  /// node's entries are explicit zeros (0 = the nemin rule alone; clamped to [0, 0.5]; ignored when
  /// nemin = 1, which keeps the fundamental supernodes). The default 0.05 grows nnz(L) of gen:laplace3d:80
  /// by 0.3% and halves its levels; both backends factorize it faster (bench/NOTES.md)
  double amalgamation_zeros = 0.05;
  /// Amalgamation::spral reproduces SPRAL's assembly tree and its statistics (num_sup, maxfront, num_factor,
  /// num_flops) for the same pivot order, ignoring amalgamation_zeros; the SPRAL-compatible C interface uses it
  Amalgamation amalgamation = Amalgamation::relaxed;
  Scaling scaling = Scaling::none;
  double u = 0.01;                     ///< relative pivot threshold, clamped to [0, 0.5]
  double small = 1e-20;                ///< pivots whose remaining column is below this are zero pivots
  bool action = true;                  ///< on a singular matrix: true = continue (warning +7), false = error -5
  Backend backend = Backend::cpu;      ///< which backend factorizes and solves
  /// CPU threads; 0: analyse uses OpenMP's default, the CPU factorization one thread below 2e6 predicted flops,
  /// at most four below 5e7 and OpenMP's default above (teams cost more than they give on small problems).
  /// Results do not depend on it.
  int num_threads = 0;
  int cpu_block_size = 128;            ///< block (panel) size of the dense CPU kernels
  /// Backend::automatic uses the GPU (when one is present) from this many predicted flops on. 2e6: where a GPU
  /// factorization and three solves of a repeated analysis overtake the CPU path's (bench/NOTES.md, the
  /// automatic backend's crossover). A process's first GPU factorization also pays the CUDA context (about
  /// 0.1–0.2 s; an analysis with Backend::gpu creates it on a thread beside its ordering, which hides it when
  /// the analysis takes that long).
  std::int64_t min_gpu_work = 2000000LL;
  /// GPU backend: invert the diagonal block of every node of L in super-blocks of 512 columns after the
  /// factorization, so that the solve multiplies by them instead of solving triangles, with far fewer
  /// dependent steps per node (time in Inform::time_gpu_presolve). On by default: on every matrix measured
  /// (bench/NOTES.md) one factorization and one solve take as long with it as without (the
  /// inversion costs about what one solve saves) and every further solve of the factors is faster, and
  /// solvers of optimization problems solve at least twice per factorization (iterative refinement).
  bool presolve = true;
};

}  // namespace ssids
