// ssids/error.hpp — status codes and the exception type of the C++ API.
// Codes equal SPRAL's inform%flag values: negative = error, positive = warning, 0 = success.
// The C layer converts an ssids::Error into inform.flag one to one.
#pragma once
#include <stdexcept>
#include <string>

namespace ssids {

namespace flag {
// errors
constexpr int success = 0;
constexpr int call_sequence = -1;      ///< phases called in the wrong order
constexpr int bad_n = -2;              ///< n < 0 (or ne < 1 in coordinate input)
constexpr int bad_ptr = -3;            ///< ptr not monotone / ptr[0] wrong / ptr[n] inconsistent
constexpr int all_out_of_range = -4;   ///< every entry out of range
constexpr int singular = -5;           ///< singular matrix and action == false
constexpr int not_posdef = -6;         ///< matrix not positive definite in posdef mode
constexpr int missing_data = -7;       ///< ptr/row (or other required array) missing
constexpr int bad_order = -8;          ///< user-supplied order is not a permutation
constexpr int missing_values = -9;     ///< values required (matching ordering) but absent
constexpr int bad_ldx = -10;           ///< ldx < n or nrhs < 1
constexpr int bad_job = -11;           ///< invalid solve job
constexpr int not_indefinite = -13;    ///< enquire_posdef on an indefinite factorization
constexpr int not_posdef_factors = -14;///< enquire_indef on a posdef factorization
constexpr int bad_scaling = -15;       ///< scaling needs a matching ordering
constexpr int bad_input = -20;         ///< malformed input file or argument (ssids extension)
constexpr int nan_inf = -21;           ///< NaN or Inf in the values (ssids extension)
constexpr int not_symmetric = -22;     ///< a 'general' matrix that is not symmetric (ssids extension)
constexpr int no_cuda = -30;           ///< GPU backend requested in a build without CUDA / no device (ssids extension)
constexpr int allocation = -50;        ///< host or device allocation failed
constexpr int cuda = -51;              ///< CUDA error
constexpr int cublas = -52;            ///< cuBLAS error
constexpr int no_metis = -54;          ///< built without METIS
constexpr int unimplemented = -98;
constexpr int unknown = -99;
// warnings
constexpr int out_of_range_ignored = 1;
constexpr int duplicates_summed = 2;
constexpr int out_of_range_and_duplicates = 3;
constexpr int missing_diagonal = 4;
constexpr int missing_diagonal_and_other = 5;
constexpr int structurally_singular = 6;
constexpr int warn_singular = 7;
constexpr int matching_scaling_ignored = 8;
}  // namespace flag

/// A short fixed description of a flag value.
const char* flag_name(int code) noexcept;

/// The exception thrown by every C++ entry point on error. `code()` is one of the negative flag values;
/// `status()` the CUDA (cudaError_t) or cuBLAS (cublasStatus_t) status behind flag::cuda / flag::cublas
/// (0 otherwise), which the C interface reports in inform.cuda_error / cublas_error.
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message, int status = 0)
      : std::runtime_error(message), code_(code), status_(status) {}
  int code() const noexcept { return code_; }
  int status() const noexcept { return status_; }

 private:
  int code_;
  int status_;
};

}  // namespace ssids
