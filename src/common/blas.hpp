// blas.hpp — the Fortran BLAS/LAPACK routines the library calls, and thin C++ wrappers.
//
// Conventions: column-major, 0-based pointers to the first entry of each operand, leading dimensions
// as in the reference BLAS. The Fortran routines are declared without the hidden string-length
// arguments (every character argument here has length 1; OpenBLAS implements these routines in C and
// takes no such arguments). Integers are 32-bit (LP64 BLAS). The wrappers take values instead of
// pointers and return nothing (BLAS) or LAPACK's info; they do nothing for empty operands, so callers
// may pass degenerate sizes without special cases.
#pragma once

extern "C" {
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
            const int* lda, const double* beta, double* c, const int* ldc);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
}

namespace ssids {
namespace blas {

/// C(m x n) = alpha * op(A) * op(B) + beta * C.
inline void gemm(char transa, char transb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  dgemm_(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}

/// The `uplo` triangle of C(n x n) = alpha * op(A) op(A)^T + beta * C (trans 'N': A is n x k).
inline void syrk(char uplo, char trans, int n, int k, double alpha, const double* a, int lda, double beta, double* c,
                 int ldc) {
  if (n <= 0) return;
  dsyrk_(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}

/// B(m x n) = alpha * op(A)^{-1} B (side 'L') or alpha * B op(A)^{-1} (side 'R'), A triangular.
inline void trsm(char side, char uplo, char transa, char diag, int m, int n, double alpha, const double* a, int lda,
                 double* b, int ldb) {
  if (m <= 0 || n <= 0) return;
  dtrsm_(&side, &uplo, &transa, &diag, &m, &n, &alpha, a, &lda, b, &ldb);
}

/// y = alpha * op(A) x + beta * y, A is m x n.
inline void gemv(char trans, int m, int n, double alpha, const double* a, int lda, const double* x, int incx,
                 double beta, double* y, int incy) {
  if (m <= 0 || n <= 0) return;
  dgemv_(&trans, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}

/// Cholesky of the `uplo` triangle of A(n x n) in place; returns LAPACK's info (0, or the order of the
/// first leading minor that is not positive definite).
inline int potrf(char uplo, int n, double* a, int lda) {
  if (n <= 0) return 0;
  int info = 0;
  dpotrf_(&uplo, &n, a, &lda, &info);
  return info;
}

}  // namespace blas
}  // namespace ssids
