// support_factor.hpp — helpers for factorization tests: run the full pipeline, check the factors'
// properties (multiplier bound, Inform counts against D), hash factors and solutions bitwise.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ssids/analyse.hpp"
#include "ssids/factor.hpp"

namespace ssids_test {

struct PipelineResult {
  ssids::Analysis analysis;
  ssids::Factors factors;
  ssids::Inform inform;          ///< from factor
  std::vector<double> x;         ///< solution of A x = b (b = A * x_true), after refinement
  double backward_error = 0.0;
  int refine_steps = 0;
};

/// b = A * x_true with x_true_i = 1 + (i mod 7) / 8.
std::vector<double> make_rhs(const ssids::SymmetricMatrix& a);
/// analyse + factor + solve with up to `refine` refinement steps.
PipelineResult run_pipeline(const ssids::SymmetricMatrix& a, const ssids::Options& options, ssids::Mode mode,
                            int refine = 0);
/// Checks that one solve (no refinement) with `f` has a scaled backward error below max(1e-14, 20 x that of a solve
/// with `cpu`, the CPU path's factors of the same matrix; some shared matrices are ill conditioned). Returns it.
double check_backward_error_against(const ssids::SymmetricMatrix& a, const ssids::Factors& f, const ssids::Factors& cpu);
/// Largest |l_ij| (strictly below the unit diagonal) over the factors (indefinite mode).
double max_multiplier(const ssids::Factors& f);
/// Counts from D: negative, positive, zero eigenvalues and 2x2 blocks (indefinite mode).
struct DCounts { int neg = 0, pos = 0, zero = 0, two = 0; };
DCounts count_from_d(const ssids::Factors& f);
/// FNV-1a hash of the bytes of L, D, the pivot order and the row lists.
std::uint64_t hash_factors(const ssids::Factors& f);
std::uint64_t hash_doubles(const double* v, std::size_t n);

}  // namespace ssids_test
