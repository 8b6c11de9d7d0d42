/* test_capi_layout.c — plain C test of the SPRAL-compatible C interface as a C compiler sees it:
 * struct sizes and field offsets against SPRAL's documented layout (LP64), the values set by
 * spral_ssids_default_options, SPRAL_VERSION, and that freeing NULL handles is harmless.
 * Prints every mismatch and exits 1 if there was one. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <spral.h>

static int failures = 0;

#define CHECK(cond)                                                   \
   do {                                                               \
      if (!(cond)) {                                                  \
         fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
         ++failures;                                                  \
      }                                                               \
   } while (0)
#define OFF(type, field, expected) CHECK(offsetof(struct type, field) == (expected))

int main(void) {
   struct spral_ssids_options o;
   void *akeep = NULL, *fkeep = NULL;

   /* options: 7 ints, 2 bools (+2 padding), int64, 2 floats, int (+4), int64, int, bool (+3), int (+4),
    * 2 doubles, char[80] */
   OFF(spral_ssids_options, array_base, 0);
   OFF(spral_ssids_options, print_level, 4);
   OFF(spral_ssids_options, unit_diagnostics, 8);
   OFF(spral_ssids_options, unit_error, 12);
   OFF(spral_ssids_options, unit_warning, 16);
   OFF(spral_ssids_options, ordering, 20);
   OFF(spral_ssids_options, nemin, 24);
   OFF(spral_ssids_options, ignore_numa, 28);
   OFF(spral_ssids_options, use_gpu, 29);
   OFF(spral_ssids_options, min_gpu_work, 32);
   OFF(spral_ssids_options, max_load_inbalance, 40);
   OFF(spral_ssids_options, gpu_perf_coeff, 44);
   OFF(spral_ssids_options, scaling, 48);
   OFF(spral_ssids_options, small_subtree_threshold, 56);
   OFF(spral_ssids_options, cpu_block_size, 64);
   OFF(spral_ssids_options, action, 68);
   OFF(spral_ssids_options, pivot_method, 72);
   OFF(spral_ssids_options, small, 80);
   OFF(spral_ssids_options, u, 88);
   OFF(spral_ssids_options, unused, 96);
   CHECK(sizeof(struct spral_ssids_options) == 176);

   /* inform: 8 ints, 2 int64, 7 ints, char[76] */
   OFF(spral_ssids_inform, flag, 0);
   OFF(spral_ssids_inform, matrix_dup, 4);
   OFF(spral_ssids_inform, matrix_missing_diag, 8);
   OFF(spral_ssids_inform, matrix_outrange, 12);
   OFF(spral_ssids_inform, matrix_rank, 16);
   OFF(spral_ssids_inform, maxdepth, 20);
   OFF(spral_ssids_inform, maxfront, 24);
   OFF(spral_ssids_inform, num_delay, 28);
   OFF(spral_ssids_inform, num_factor, 32);
   OFF(spral_ssids_inform, num_flops, 40);
   OFF(spral_ssids_inform, num_neg, 48);
   OFF(spral_ssids_inform, num_sup, 52);
   OFF(spral_ssids_inform, num_two, 56);
   OFF(spral_ssids_inform, stat, 60);
   OFF(spral_ssids_inform, cuda_error, 64);
   OFF(spral_ssids_inform, cublas_error, 68);
   OFF(spral_ssids_inform, maxsupernode, 72);
   OFF(spral_ssids_inform, unused, 76);
   CHECK(sizeof(struct spral_ssids_inform) == 152);

   OFF(spral_numa_region, nproc, 0);
   OFF(spral_numa_region, ngpu, 4);
   OFF(spral_numa_region, gpus, 8);

   memset(&o, 0x5a, sizeof(o));
   spral_ssids_default_options(&o);
   CHECK(o.array_base == 0);
   CHECK(o.print_level == 0);
   CHECK(o.unit_diagnostics == 6 && o.unit_error == 6 && o.unit_warning == 6);
   CHECK(o.ordering == 1);
   CHECK(o.nemin == 32);
   CHECK(o.ignore_numa == true);
   CHECK(o.use_gpu == true);
   CHECK(o.min_gpu_work == 5000000000LL);
   CHECK(o.max_load_inbalance == 1.2f);
   CHECK(o.gpu_perf_coeff == 1.0f);
   CHECK(o.scaling == 0);
   CHECK(o.small_subtree_threshold == 4000000LL);
   CHECK(o.cpu_block_size == 256);
   CHECK(o.action == true);
   CHECK(o.pivot_method == 2);
   CHECK(o.small == 1e-20);
   CHECK(o.u == (double)0.01f); /* SPRAL's default is the single-precision constant 0.01 */

   CHECK(strcmp(SPRAL_VERSION, "") != 0);

   /* freeing NULL handles (and NULL pointers to handles) is harmless */
   CHECK(spral_ssids_free_akeep(&akeep) == 0);
   CHECK(spral_ssids_free_fkeep(&fkeep) == 0);
   CHECK(spral_ssids_free(&akeep, &fkeep) == 0);
   CHECK(spral_ssids_free_akeep(NULL) == 0);
   CHECK(spral_ssids_free_fkeep(NULL) == 0);
   CHECK(spral_ssids_free(NULL, NULL) == 0);
   CHECK(akeep == NULL && fkeep == NULL);

   if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
   else printf("C interface layout and defaults: OK\n");
   return failures ? 1 : 0;
}
