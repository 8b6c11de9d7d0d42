/* ssids_example.c — the SPRAL SSIDS documentation-style example, written only against the SPRAL C
 * interface (spral.h): analyse, factor and solve a small 5x5 symmetric indefinite system, print the
 * inertia, the pivot order and the solution. Input is the lower triangle in 0-based CSC form.
 *
 *     ( 2  1          )        x = (1, 2, 3, 4, 5) solves A x = b with b = (4, 17, 19, 2, 12)
 *     ( 1  4  1     1 )
 * A = (    1  3  2    )        the matrix has exactly one negative eigenvalue
 *     (       2 -1    )
 *     (    1        2 )
 *
 * Exits 0 when the residual ||b - A x||_inf < 1e-12 and num_neg == 1, 1 otherwise (it doubles as a test). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <spral.h>

int main(void) {
   struct spral_ssids_options options;
   struct spral_ssids_inform inform;
   void *akeep = NULL, *fkeep = NULL;
   const bool posdef = false;
   const int n = 5;
   const int64_t ptr[] = {0, 2, 5, 7, 8, 9};
   const int row[] = {0, 1, 1, 2, 4, 2, 3, 3, 4};
   const double val[] = {2.0, 1.0, 4.0, 1.0, 1.0, 3.0, 2.0, -1.0, 2.0};
   const double b[] = {4.0, 17.0, 19.0, 2.0, 12.0};
   double x[5], r[5], d[10];
   int order[5], piv_order[5];
   int i, j, cuda_error, ok;
   int64_t k;
   double resid = 0.0;

   spral_ssids_default_options(&options);
   options.array_base = 0;

   /* check = true: analyse keeps a checked copy of the pattern, so factor needs only val (with check =
    * false, SPRAL's rule is that factor must be given ptr and row again) */
   spral_ssids_analyse(true, n, order, ptr, row, NULL, &akeep, &options, &inform);
   if (inform.flag < 0) {
      fprintf(stderr, "analyse failed: flag %d\n", inform.flag);
      spral_ssids_free(&akeep, &fkeep);
      return 1;
   }
   spral_ssids_factor(posdef, NULL, NULL, val, NULL, akeep, &fkeep, &options, &inform);
   if (inform.flag < 0) {
      fprintf(stderr, "factor failed: flag %d\n", inform.flag);
      spral_ssids_free(&akeep, &fkeep);
      return 1;
   }
   printf("Inertia: %d negative, %d positive, %d zero; %d 2x2 pivots\n", inform.num_neg,
          inform.matrix_rank - inform.num_neg, n - inform.matrix_rank, inform.num_two);
   ok = inform.num_neg == 1;

   for (i = 0; i < n; ++i) x[i] = b[i];
   spral_ssids_solve1(0, x, akeep, fkeep, &options, &inform);
   if (inform.flag < 0) {
      fprintf(stderr, "solve failed: flag %d\n", inform.flag);
      spral_ssids_free(&akeep, &fkeep);
      return 1;
   }

   spral_ssids_enquire_indef(akeep, fkeep, &options, &inform, piv_order, d);
   printf("Pivot order:");
   for (i = 0; i < n; ++i) printf(" %4d", piv_order[i]);
   printf("\nThe computed solution is:\n");
   for (i = 0; i < n; ++i) printf(" %18.10e", x[i]);
   printf("\n");

   /* residual r = b - A x from the lower triangle */
   for (i = 0; i < n; ++i) r[i] = b[i];
   for (j = 0; j < n; ++j)
      for (k = ptr[j]; k < ptr[j + 1]; ++k) {
         i = row[k];
         r[i] -= val[k] * x[j];
         if (i != j) r[j] -= val[k] * x[i];
      }
   for (i = 0; i < n; ++i)
      if (fabs(r[i]) > resid) resid = fabs(r[i]);
   printf("Residual ||b - A x||_inf = %.3e\n", resid);
   ok = ok && resid < 1e-12;

   cuda_error = spral_ssids_free(&akeep, &fkeep);
   if (cuda_error != 0 || akeep != NULL || fkeep != NULL) ok = 0;
   printf("%s\n", ok ? "OK" : "FAILED");
   return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
