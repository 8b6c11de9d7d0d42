/* spral_style.c — a program in the style of SPRAL's documented SSIDS C example, using nothing but the
 * SPRAL C interface (<spral.h>): Fortran-style 1-based arrays, analyse with data checking, factor without
 * ptr/row (the analysis maps the values), one solve in place, the pivot order through enquire_indef, and
 * the handles released with spral_ssids_free. It builds unchanged against SPRAL itself and against
 * libssids (linked as -lssids, or as -lspral when ssids is installed under SPRAL's name).
 *
 *     ( 2  1          )
 *     ( 1  4  1     1 )       b = (4, 17, 19, 2, 12) has the solution x = (1, 2, 3, 4, 5);
 * A = (    1  3  2    )       A has one negative eigenvalue.
 *     (       2 -1    )
 *     (    1        2 )
 *
 * Exits 0 when the solution is right to 1e-12, num_neg == 1 and the pivot order is a signed permutation of
 * 1..n; 1 otherwise (so the program doubles as a test). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <spral.h>

static int fail(const char* what, int flag, void** akeep, void** fkeep) {
   fprintf(stderr, "%s failed: inform.flag = %d\n", what, flag);
   spral_ssids_free(akeep, fkeep);
   return EXIT_FAILURE;
}

int main(void) {
   void *akeep = NULL, *fkeep = NULL; /* must start as NULL */
   struct spral_ssids_options options;
   struct spral_ssids_inform inform;
   char version[11];

   /* lower triangle by columns, 1-based */
   const int n = 5;
   int64_t ptr[] = {1, 3, 6, 8, 9, 10};
   int row[] = {1, 2, 2, 3, 5, 3, 4, 4, 5};
   double val[] = {2.0, 1.0, 4.0, 1.0, 1.0, 3.0, 2.0, -1.0, 2.0};
   double x[] = {4.0, 17.0, 19.0, 2.0, 12.0};
   int piv_order[5], seen[5] = {0, 0, 0, 0, 0};
   int i, ok = 1;
   double err = 0.0;

   get_spral_version(version);
   printf("SPRAL interface version %s\n", version);

   spral_ssids_default_options(&options);
   options.array_base = 1;

   spral_ssids_analyse(true, n, NULL, ptr, row, NULL, &akeep, &options, &inform);
   if (inform.flag < 0) return fail("spral_ssids_analyse", inform.flag, &akeep, &fkeep);
   spral_ssids_factor(false, NULL, NULL, val, NULL, akeep, &fkeep, &options, &inform);
   if (inform.flag < 0) return fail("spral_ssids_factor", inform.flag, &akeep, &fkeep);
   printf("num_neg = %d, num_two = %d, matrix_rank = %d\n", inform.num_neg, inform.num_two, inform.matrix_rank);
   if (inform.num_neg != 1 || inform.matrix_rank != n) ok = 0;

   spral_ssids_solve1(0, x, akeep, fkeep, &options, &inform);
   if (inform.flag < 0) return fail("spral_ssids_solve1", inform.flag, &akeep, &fkeep);
   printf("The computed solution is:\n");
   for (i = 0; i < n; i++) {
      printf(" %18.10e", x[i]);
      if (fabs(x[i] - (i + 1)) > err) err = fabs(x[i] - (i + 1));
   }
   printf("\n");
   if (!(err < 1e-12)) ok = 0;

   spral_ssids_enquire_indef(akeep, fkeep, &options, &inform, piv_order, NULL);
   if (inform.flag < 0) return fail("spral_ssids_enquire_indef", inform.flag, &akeep, &fkeep);
   printf("Pivot order:");
   for (i = 0; i < n; i++) {
      const int p = abs(piv_order[i]);
      printf(" %5d", piv_order[i]);
      if (p < 1 || p > n || seen[p - 1]++) ok = 0;
   }
   printf("\n");

   if (spral_ssids_free(&akeep, &fkeep) != 0 || akeep != NULL || fkeep != NULL) ok = 0;
   printf("%s\n", ok ? "OK" : "FAILED");
   return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
