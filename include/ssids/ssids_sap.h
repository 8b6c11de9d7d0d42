/* ssids_sap.h — C entry point of the SaP ("split and parallelize") path for nonsymmetric sparse systems:
 * reorder (diagonal boosting, Cuthill-McKee, drop-off), banded SaP-D / SaP-C preconditioner, Krylov solve.
 * The matrix is n x n in compressed sparse ROW form with base array_base (0 or 1): row i holds columns
 * col[ptr[i]-base .. ptr[i+1]-base-1]. Nothing the caller passes is modified except x and inform.
 * Return value and inform->flag: 0 success (check inform->status for convergence), negative ssids error
 * codes as in spral_ssids.h (e.g. -2 bad n, -3 bad ptr, -7 missing array, -5 structurally singular, -50
 * allocation, -99 unknown). */
#ifndef SSIDS_SAP_H
#define SSIDS_SAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ssids_sap_options {
  int array_base;      /* 0 or 1 (default 0) */
  int partitions;      /* P (default 16) */
  int variant;         /* 0 = SaP-D (decoupled, default), 1 = SaP-C (coupled, truncated SPIKE) */
  double drop;         /* fraction of the squared Frobenius norm drop-off may discard (default 0) */
  int max_bandwidth;   /* cap on the half-bandwidth K, < 0: none (default -1) */
  int krylov;          /* 0 BiCGStab(2) (default), 1 BiCGStab, 2 GMRES(restart), 3 CG */
  double rtol;         /* relative tolerance (default 1e-6) */
  double atol;         /* absolute tolerance (default 0) */
  int max_iterations;  /* default 100 */
  int restart;         /* GMRES restart (default 50) */
  int use_initial_guess; /* nonzero: x on entry is the initial guess */
  int backend;           /* 0 CPU (default), 1 GPU (-30 without CUDA or device), 2 GPU when present */
  int mixed_precision;   /* GPU only: nonzero = single-precision preconditioner in the double Krylov loop */
};

struct ssids_sap_inform {
  int flag;                 /* 0 or a negative error code */
  int status;               /* 0 converged, 1 iteration limit, 2 breakdown, 3 NaN */
  double iterations;        /* BiCGStab(2) counts quarters, as the SaP paper */
  double relative_residual; /* ||b - A x||_2 / ||b||_2, recomputed */
  int bandwidth;            /* K of the preconditioner */
  int partitions;           /* P used */
  int boosted_pivots;
  double time_setup, time_solve; /* seconds */
  int backend;              /* where it ran: 0 CPU, 1 GPU */
};

void ssids_sap_default_options(struct ssids_sap_options* options);
/* Solve A x = b. */
int ssids_sap_solve(int n, const int64_t* ptr, const int* col, const double* val, const double* b, double* x,
                    const struct ssids_sap_options* options, struct ssids_sap_inform* inform);

#ifdef __cplusplus
}
#endif
#endif
