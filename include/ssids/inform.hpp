// ssids/inform.hpp — statistics and status returned by every phase.
// Field names follow SPRAL's spral_ssids_inform where they mean the same thing.
// Times are in seconds.
#pragma once
#include <cstdint>
#include <string>

namespace ssids {

struct Inform {
  int flag = 0;              ///< 0 success, > 0 warning (see ssids/error.hpp); errors are thrown as ssids::Error
  std::string message;       ///< human-readable explanation of flag (empty on success)

  // input checks (analyse)
  int matrix_dup = 0;           ///< duplicate entries (summed)
  int matrix_outrange = 0;      ///< out-of-range entries (ignored)
  int matrix_missing_diag = 0;  ///< columns without a diagonal entry
  int matrix_upper = 0;         ///< entries found in the upper triangle (mirrored)

  // analyse
  int num_sup = 0;              ///< supernodes (assembly tree nodes)
  int num_levels = 0;           ///< levels of the assembly tree
  int maxdepth = 0;             ///< = num_levels
  int maxsupernode = 0;         ///< largest number of columns in a supernode
  int maxfront = 0;             ///< largest front (after delays, once factorized)
  std::int64_t num_factor = 0;  ///< entries in L (predicted by analyse, actual after factor)
  std::int64_t num_flops = 0;   ///< flops of the factorization (predicted by analyse, actual after factor)
  std::int64_t memory_host = 0; ///< bytes the factorization needs on the host (predicted)

  // factor
  int matrix_rank = 0;
  int num_delay = 0;   ///< columns delayed (counted each time a column moves up one node)
  int num_neg = 0;     ///< negative eigenvalues of D
  int num_pos = 0;     ///< positive eigenvalues of D
  int num_zero = 0;    ///< zero pivots
  int num_two = 0;     ///< 2x2 pivots
  int not_first_pass = 0;

  int cuda_error = 0;
  int cublas_error = 0;

  double time_analyse = 0.0;
  double time_factor = 0.0;
  double time_solve = 0.0;

  // GPU factorization: device time by operation (as Table V of Hogg, Ovtchinnikov & Scott 2016)
  double time_gpu_assembly = 0.0;  ///< assembling A and the children's contribution blocks
  double time_gpu_dense = 0.0;     ///< factorizing the fully summed columns (windows and their updates)
  double time_gpu_update = 0.0;    ///< forming the contribution blocks, C -= L2 D L2^T
  double time_gpu_other = 0.0;     ///< copying L, D and contribution blocks out of the fronts
  double time_gpu_presolve = 0.0;  ///< Options::presolve: inverting the diagonal super-blocks of L (device time)
};

}  // namespace ssids
