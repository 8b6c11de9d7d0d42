// values_check.hpp — the factorization's check that every value it reads is finite.
#pragma once
#include "analyse/symbolic.hpp"

namespace ssids {
namespace detail {

/// Throws Error(nan_inf) naming the first entry of val, in the order the factorization reads them (amap), that
/// is NaN or Inf; returns when there is none (entries the analysis dropped are not read).
void throw_first_nonfinite(const Symbolic& sym, const double* val);

/// One pass over val[0 .. sym.nnz_in) (every entry the caller passed); only when it meets a value that is not
/// finite does the search of throw_first_nonfinite run.
void check_values_finite(const Symbolic& sym, const double* val);

}  // namespace detail
}  // namespace ssids
