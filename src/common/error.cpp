// error.cpp — names of the flag values.
#include "ssids/error.hpp"

namespace ssids {

const char* flag_name(int code) noexcept {
  switch (code) {
    case flag::success: return "success";
    case flag::call_sequence: return "call sequence error";
    case flag::bad_n: return "n out of range";
    case flag::bad_ptr: return "error in ptr";
    case flag::all_out_of_range: return "all entries out of range";
    case flag::singular: return "matrix is singular";
    case flag::not_posdef: return "matrix is not positive definite";
    case flag::missing_data: return "required array missing";
    case flag::bad_order: return "order is not a permutation";
    case flag::missing_values: return "values required but missing";
    case flag::bad_ldx: return "ldx < n or nrhs < 1";
    case flag::bad_job: return "invalid job";
    case flag::not_indefinite: return "enquire_posdef on an indefinite factorization";
    case flag::not_posdef_factors: return "enquire_indef on a positive-definite factorization";
    case flag::bad_scaling: return "scaling needs a matching ordering";
    case flag::bad_input: return "malformed input";
    case flag::nan_inf: return "NaN or Inf in values";
    case flag::not_symmetric: return "matrix is not symmetric";
    case flag::no_cuda: return "GPU backend unavailable";
    case flag::allocation: return "allocation failure";
    case flag::cuda: return "CUDA error";
    case flag::cublas: return "cuBLAS error";
    case flag::no_metis: return "built without METIS";
    case flag::unimplemented: return "unimplemented";
    case flag::unknown: return "unknown error";
    case flag::out_of_range_ignored: return "out-of-range entries ignored";
    case flag::duplicates_summed: return "duplicate entries summed";
    case flag::out_of_range_and_duplicates: return "out-of-range entries ignored and duplicates summed";
    case flag::missing_diagonal: return "missing diagonal entries";
    case flag::missing_diagonal_and_other: return "missing diagonal entries, and out-of-range or duplicate entries";
    case flag::structurally_singular: return "matrix is structurally singular";
    case flag::warn_singular: return "matrix is singular";
    case flag::matching_scaling_ignored: return "matching scaling ignored";
    default: return "unrecognised flag";
  }
}

}  // namespace ssids
