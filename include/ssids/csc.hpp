// ssids/csc.hpp — sparse matrix containers.
// A symmetric matrix is given by its LOWER triangle in compressed sparse column form (as in SPRAL):
// column j holds rows row[ptr[j]-base .. ptr[j+1]-base-1]; base is 0 or 1 (ptr and row use the same base).
// Inside the library everything is 0-based.
#pragma once
#include <cstdint>

#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {

/// Non-owning view of a symmetric matrix's lower triangle in CSC form. Nothing is copied;
/// the arrays must outlive the call that receives the view. `val` may be null where only the pattern is needed.
struct CscView {
  index_t n = 0;
  const offset_t* ptr = nullptr;  ///< size n+1
  const index_t* row = nullptr;   ///< size ptr[n]-base
  const double* val = nullptr;    ///< size ptr[n]-base, or null
  int base = 0;                   ///< 0 or 1
};

/// Owning symmetric matrix, lower triangle, 0-based CSC, rows sorted within each column, no duplicates.
struct SymmetricMatrix {
  index_t n = 0;
  Vector<offset_t> ptr;  ///< size n+1
  Vector<index_t> row;
  Vector<double> val;
  CscView view() const { return CscView{n, ptr.data(), row.data(), val.empty() ? nullptr : val.data(), 0}; }
  offset_t nnz() const { return ptr.empty() ? 0 : ptr[n]; }
};

/// Owning general (nonsymmetric) sparse matrix, 0-based CSR, columns sorted within each row, no duplicates.
struct CsrMatrix {
  index_t nrow = 0, ncol = 0;
  Vector<offset_t> ptr;  ///< size nrow+1
  Vector<index_t> col;
  Vector<double> val;
  offset_t nnz() const { return ptr.empty() ? 0 : ptr[nrow]; }
};

/// y = A x for a symmetric matrix given by its lower triangle (x, y of size n).
void symmetric_multiply(const SymmetricMatrix& a, const double* x, double* y);
/// ||A||_inf of a symmetric matrix given by its lower triangle.
double symmetric_norm_inf(const SymmetricMatrix& a);
/// Scaled backward error max_k ||A x_k - b_k||_inf / (||A||_inf ||x_k||_inf + ||b_k||_inf) over nrhs columns.
/// Throws Error(bad_ldx) when nrhs < 1 or ld < n, Error(missing_data) when x or b is null (n > 0).
double scaled_backward_error(const SymmetricMatrix& a, const double* x, const double* b, int nrhs, offset_t ld);

}  // namespace ssids
