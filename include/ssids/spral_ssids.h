/* spral_ssids.h — C interface of ssids, call-compatible with SPRAL's SSIDS C interface (spral_ssids.h of
 * the SPRAL 2025.09 release): same function names, argument lists and struct layouts, so that a program
 * written against SPRAL's documented C API compiles and links against libssids unchanged.
 *
 * Conventions
 *  - Matrices are the LOWER triangle of a symmetric matrix in compressed sparse column form (ptr, row, val)
 *    or as coordinate lists (row, col, val). options->array_base selects 0-based (C) or 1-based (Fortran)
 *    indices for ptr, row, col and order; the caller's arrays are read in place, never modified.
 *  - akeep (analysis) and fkeep (factors) are opaque handles created by analyse/factor and released by
 *    the free functions. Initialise them to NULL; a handle that is still live is reused by a later call.
 *  - Every function reports through inform->flag: 0 success, > 0 warning, < 0 error (values as SPRAL).
 *  - Options accepted but ignored: print_level, unit_*, ignore_numa, max_load_inbalance, gpu_perf_coeff,
 *    small_subtree_threshold, cpu_block_size, pivot_method (clamped to 1-3 as SPRAL does). use_gpu = true lets the library use a GPU when
 *    one is present and the predicted work is at least min_gpu_work flops; false keeps to the CPU.
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
                                   (ssids extensions: 3 natural, 4 AMD)                        */
   int nemin;                   /* supernode amalgamation threshold                   default 32 */
   bool ignore_numa;            /* ignored                                           default true */
   bool use_gpu;                /* allow the GPU (when present and worthwhile)        default true */
   int64_t min_gpu_work;        /* flops below which the CPU is used                  default 5e9 */
   float max_load_inbalance;    /* ignored                                           default 1.2 */
   float gpu_perf_coeff;        /* ignored                                           default 1.0 */
   int scaling;                 /* <=0 user-supplied in scale (none if scale NULL), 1 matching (MC64),
                                   2 auction, 3 from the matching ordering, 4 equilibration  default 0 */
   int64_t small_subtree_threshold; /* ignored                                       default 4e6 */
   int cpu_block_size;          /* ignored (ssids picks its own block size)           default 256 */
   bool action;                 /* continue on singular matrices (warning 7)          default true */
   int pivot_method;            /* clamped to 1..3 as SPRAL; threshold partial pivoting default 2 */
   double small;                /* zero-pivot threshold                               default 1e-20 */
   double u;                    /* relative pivot threshold, clamped to [0, 0.5]      default 0.01 */
   char unused[80];             /* reserved for future expansion */
};

/* Information returned by every call. */
struct spral_ssids_inform {
   int flag;                    /* 0 success, < 0 error, > 0 warning (see below) */
   int matrix_dup;              /* duplicate entries (summed) */
   int matrix_missing_diag;     /* columns without a diagonal entry */
   int matrix_outrange;         /* out-of-range entries (ignored) */
   int matrix_rank;             /* rank of the factorized matrix */
   int maxdepth;                /* depth of the assembly tree */
   int maxfront;                /* largest front */
   int num_delay;               /* delayed pivots */
   int64_t num_factor;          /* entries in L */
   int64_t num_flops;           /* flops of the factorization */
   int num_neg;                 /* negative eigenvalues */
   int num_sup;                 /* supernodes */
   int num_two;                 /* 2x2 pivots */
   int stat;                    /* always 0 (allocation failures give flag -50) */
   int cuda_error;              /* CUDA error code when flag = -51 */
   int cublas_error;            /* cuBLAS error code when flag = -52 */
   int maxsupernode;            /* most columns in a supernode */
   char unused[76];             /* reserved for future expansion */
};

/* Error flags (< 0) and warnings (> 0), as SPRAL:
 *  -1 call sequence  -2 n < 0 or ne < 1  -3 ptr  -4 all entries out of range  -5 singular, action false
 *  -6 not positive definite  -7 ptr/row missing  -8 bad order  -9 val missing (matching ordering)
 *  -10 ldx < n or nrhs < 1  -11 bad job  -13 enquire_posdef on indefinite factors  -14 enquire_indef
 *  (or alter) on positive-definite factors  -15 scaling 3 without ordering 2  -50 allocation  -51 CUDA
 *  -52 cuBLAS  -54 no METIS  -98 unimplemented option value  -99 unknown
 *  ssids extensions: -20 bad input (e.g. array_base not 0/1, zero/NaN user scale)  -21 NaN/Inf value
 *  -30 GPU unavailable
 *  +1 out-of-range ignored  +2 duplicates summed  +3 both  +4 missing diagonal  +5 missing diagonal and
 *  +1/+2  +6 structurally singular  +7 singular  +8 matching scaling ignored
 * (-53, OpenMP cancellation, is never returned.) */

/* Topology of one NUMA region (accepted and ignored by spral_ssids_analyse_topology). */
struct spral_numa_region {
   int nproc;
   int ngpu;
   int *gpus;
};

void spral_ssids_default_options(struct spral_ssids_options *options);

/* Analyse the pattern. check: counts duplicates/out-of-range/missing diagonals (ssids always checks).
 * order (size n, may be NULL): in, the pivot order when options->ordering = 0; out, order[i] = position
 * of variable i (array_base). val may be NULL unless options->ordering = 2. */
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

/* Factorize. val in the positions given to analyse (ptr and row are not needed and may be NULL).
 * scale (size n, may be NULL): in, the user scaling when options->scaling <= 0; out, the scaling used
 * when options->scaling > 0. */
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

/* d (size n): diagonal of L by pivot position (positive-definite factors). */
void spral_ssids_enquire_posdef(const void *akeep, const void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform, double *d);
/* piv_order (size n, may be NULL): |piv_order[i]| = position of variable i in the pivot order (array_base),
 * negative for both variables of a 2x2 pivot (with array_base 0 a 2x2 pivot at position 0 reads 0, as SPRAL).
 * d (size 2n, may be NULL): d[2k] = D_kk, d[2k+1] = D_(k+1)k by pivot position k. */
void spral_ssids_enquire_indef(const void *akeep, const void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform,
      int *piv_order, double *d);
/* Replace D (layout of enquire_indef's d), keeping the pivot order and the 1x1/2x2 structure. */
void spral_ssids_alter(const double *d, const void *akeep, void *fkeep,
      const struct spral_ssids_options *options, struct spral_ssids_inform *inform);

#ifdef __cplusplus
}
#endif

#endif /* SPRAL_SSIDS_H */
