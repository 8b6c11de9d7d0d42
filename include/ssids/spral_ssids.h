/* spral_ssids.h — C interface of ssids, call-compatible with SPRAL's SSIDS C interface (spral_ssids.h of
 * the SPRAL 2025.09 release): same function names, argument lists and struct layouts, so that a program
 * written against SPRAL's documented C API compiles and links against libssids unchanged, and every call
 * leaves in inform, the handles and the output arrays what SPRAL 2025.09.18 leaves there (the differential
 * tests tests/test_spral_*.cpp run both; README, "The C interface", lists what may differ and why).
 *
 * Conventions
 *  - Matrices are the LOWER triangle of a symmetric matrix in compressed sparse column form (ptr, row, val)
 *    or as coordinate lists (row, col, val). options->array_base 0 selects C (0-based) indexing, any other
 *    value Fortran (1-based) indexing, for ptr, row, col and order, as in SPRAL; the caller's arrays are
 *    read in place, never modified. As in SPRAL, entries of CSC input above the diagonal are out of range
 *    (ignored, warning +1), coordinate input mirrors them, and ptr[0] past the base skips what lies before.
 *  - akeep (analysis) and fkeep (factors) are opaque handles created by analyse/factor and released by
 *    the free functions. Initialise them to NULL; a handle that is still live is reused by a later call.
 *    A handle exists after a failed call too, unusable until the phase succeeds (later calls give -1).
 *  - Every function overwrites all of *inform: flag 0 success, > 0 warning, < 0 error (values as SPRAL).
 *    factor reports the analysis' tree and input counts again with its own statistics, and solve reports
 *    factor's statistics with its own flag (factor's warning, or the solve's error), as SPRAL does.
 *  - Statistics use SPRAL's definitions: num_flops sums, over eliminated columns, the square of the column's
 *    length in L (diagonal included); num_factor counts the entries of L; the assembly tree is built with
 *    SPRAL's amalgamation rule, so for the same pivot order num_sup, maxdepth, maxfront, maxsupernode,
 *    num_factor and num_flops are SPRAL's. matrix_missing_diag stays 0 (SPRAL reports only the warning);
 *    a duplicate entry of CSC input counts twice in matrix_dup (once for coordinate input), as in SPRAL.
 *  - Options accepted but ignored: print_level and unit_* (nothing is printed), ignore_numa,
 *    max_load_inbalance, gpu_perf_coeff, small_subtree_threshold, cpu_block_size, pivot_method (every value
 *    gets the same threshold partial pivoting). use_gpu = true lets the library use a GPU when one is
 *    present and the predicted work is at least min_gpu_work flops; false keeps to the CPU.
 */
#ifndef SPRAL_SSIDS_H
#define SPRAL_SSIDS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Control parameters: fill with spral_ssids_default_options() and change what you need. */
struct spral_ssids_options {
   int array_base;              /* 0: C (0-based) indexing, 1: Fortran (1-based)      default 0 */
   int print_level;             /* ignored                                           default 0 */
   int unit_diagnostics;        /* ignored                                           default 6 */
   int unit_error;              /* ignored                                           default 6 */
   int unit_warning;            /* ignored                                           default 6 */
   int ordering;                /* 0 user (order), 1 METIS, 2 matching-based          default 1
                                   (ssids extensions: 3 natural, 4 AMD; others -8)             */
   int nemin;                   /* supernode amalgamation threshold (< 1: 32)         default 32 */
   bool ignore_numa;            /* ignored                                           default true */
   bool use_gpu;                /* allow the GPU (when present and worthwhile)        default true */
   int64_t min_gpu_work;        /* flops below which the CPU is used                  default 5e9 */
   float max_load_inbalance;    /* ignored                                           default 1.2 */
   float gpu_perf_coeff;        /* ignored                                           default 1.0 */
   int scaling;                 /* <=0 user-supplied in scale (none if scale NULL), 1 matching (MC64),
                                   2 auction, 3 from the matching ordering, >=4 equilibration  default 0 */
   int64_t small_subtree_threshold; /* ignored                                       default 4e6 */
   int cpu_block_size;          /* ignored (ssids picks its own block size)           default 256 */
   bool action;                 /* continue on singular matrices (warning 7)          default true */
   int pivot_method;            /* ignored: threshold partial pivoting                default 2 */
   double small;                /* zero-pivot threshold                               default 1e-20 */
   double u;                    /* relative pivot threshold, clamped to [0, 0.5]      default 0.01f
                                   (SPRAL's default is the single-precision constant 0.01)      */
   char unused[80];             /* reserved for future expansion */
};

/* Information returned by every call. */
struct spral_ssids_inform {
   int flag;                    /* 0 success, < 0 error, > 0 warning (see below) */
   int matrix_dup;              /* duplicate entries (summed; counted twice for CSC input) */
   int matrix_missing_diag;     /* always 0, as in SPRAL (warnings +4/+5 say a diagonal is missing) */
   int matrix_outrange;         /* out-of-range entries, upper-triangle CSC entries included (ignored) */
   int matrix_rank;             /* analyse: n minus empty columns; factor: rank of the factorized matrix */
   int maxdepth;                /* levels of the assembly tree */
   int maxfront;                /* largest front (after factor: with delayed columns) */
   int num_delay;               /* delayed pivots */
   int64_t num_factor;          /* entries in L, diagonal included */
   int64_t num_flops;           /* sum over eliminated columns of (entries of the column of L)^2 */
   int num_neg;                 /* negative eigenvalues */
   int num_sup;                 /* supernodes (empty columns, which have none, excluded) */
   int num_two;                 /* 2x2 pivots */
   int stat;                    /* always 0 (allocation failures give flag -50) */
   int cuda_error;              /* the cudaError_t when flag = -51 */
   int cublas_error;            /* the cublasStatus_t when flag = -52 */
   int maxsupernode;            /* most columns of a node (after factor: columns eliminated there) */
   char unused[76];             /* reserved for future expansion */
};

/* Error flags (< 0) and warnings (> 0), as SPRAL:
 *  -1 call sequence (also: a handle that is NULL or not live, where SPRAL would crash)  -2 n < 0 or ne < 0
 *  -3 ptr  -4 all entries out of range  -5 singular, action false  -6 not positive definite
 *  -7 ptr/row missing (factor after analyse with check false; or any required array NULL, where SPRAL would
 *  crash)  -8 ordering out of range or bad user order  -9 val missing (matching ordering)
 *  -10 ldx < n or nrhs < 1  -11 bad job  -13 enquire_posdef on indefinite factors  -14 enquire_indef
 *  (or alter) on positive-definite factors  -15 scaling 3 without ordering 2  -50 allocation  -51 CUDA
 *  -52 cuBLAS  -99 unknown
 *  ssids extensions: -20 zero, NaN or infinite user scale  -21 NaN or Inf in val
 *  +1 out-of-range ignored  +2 duplicates summed  +3 both  +4 missing diagonal  +5 missing diagonal and
 *  +1/+2 (input warnings only when analyse checks the data)  +6 structurally singular (analyse: empty
 *  columns, or the matching ordering's finding)  +7 singular (factor)  +8 matching ordering without its
 *  scaling (factor)
 * (-53, OpenMP cancellation not enabled, and -54, no METIS, are never returned.) */

/* Topology of one NUMA region (accepted and ignored by spral_ssids_analyse_topology). */
struct spral_numa_region {
   int nproc;
   int ngpu;
   int *gpus;
};

void spral_ssids_default_options(struct spral_ssids_options *options);

/* Analyse the pattern. check: report the data check (warnings +1..+5 and their counts) as SPRAL's checked
 * analyse does; the data are always checked and cleaned here, but with check = false factor must be
 * given ptr and row again, as SPRAL requires. order (size n, may be NULL): in, the pivot order when
 * options->ordering = 0 (signs ignored); out, order[i] = position of variable i (array_base) in the final
 * pivot order, which for a user order is SPRAL's (the same postorder and supernode numbering).
 * val may be NULL unless options->ordering = 2. */
void spral_ssids_analyse(bool check, int n, int *order, const int64_t *ptr, const int *row,
      const double *val, void **akeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform);
void spral_ssids_analyse_ptr32(bool check, int n, int *order, const int *ptr, const int *row,
      const double *val, void **akeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform);
/* Coordinate input: ne entries (row[k], col[k]) of the lower triangle (upper entries are mirrored). */
void spral_ssids_analyse_coord(int n, int *order, int64_t ne, const int *row, const int *col,
      const double *val, void **akeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform);
void spral_ssids_analyse_topology(bool check, int n, int *order, const int64_t *ptr, const int *row,
      const double *val, void **akeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform, int nregions, const struct spral_numa_region *topology);

/* Factorize. val in the positions given to analyse; ptr and row may be NULL unless analyse ran with
 * check = false. scale (size n, may be NULL): in, the user scaling when options->scaling <= 0; out, the
 * scaling computed when options->scaling is 1, 2 or >= 4 (scaling 3's is not written back, as in SPRAL). */
void spral_ssids_factor(bool posdef, const int64_t *ptr, const int *row, const double *val,
      double *scale, void *akeep, void **fkeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform);
void spral_ssids_factor_ptr32(bool posdef, const int *ptr, const int *row, const double *val,
      double *scale, void *akeep, void **fkeep, const struct spral_ssids_options *options,
      struct spral_ssids_inform *inform);

/* Solve in place. job: 0 A X = B, 1 P L X = S B, 2 D X = B, 3 (P L)^T S^-1 X = B, 4 D (P L)^T S^-1 X = B. */
void spral_ssids_solve1(int job, double *x1, void *akeep, void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform);
void spral_ssids_solve(int job, int nrhs, double *x, int ldx, void *akeep, void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform);

/* Release handles (NULL is harmless); the handle is set to NULL. Return 0 (or a CUDA error code). */
int spral_ssids_free_akeep(void **akeep);
int spral_ssids_free_fkeep(void **fkeep);
int spral_ssids_free(void **akeep, void **fkeep);

/* d (size n): diagonal of the Cholesky factor L by pivot position (positive-definite factors). */
void spral_ssids_enquire_posdef(const void *akeep, const void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform, double *d);
/* piv_order (size n, may be NULL): the position of variable i in the pivot order; with Fortran indexing
 * 1-based and negative for both variables of a 2x2 pivot, with C indexing 0-based and unsigned (SPRAL's
 * C wrapper returns |p| - 1). d (size 2n, may be NULL): D^{-1} by pivot position k, as SPRAL:
 * d[2k] = (D^{-1})_kk, d[2k+1] = (D^{-1})_(k+1)k. */
void spral_ssids_enquire_indef(const void *akeep, const void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform,
      int *piv_order, double *d);
/* Replace D^{-1} (layout of enquire_indef's d), keeping the pivot order and the 1x1/2x2 structure. */
void spral_ssids_alter(const double *d, const void *akeep, void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform);

#ifdef __cplusplus
}
#endif

#endif /* SPRAL_SSIDS_H */
