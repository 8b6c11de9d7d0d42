! ssids_example.f90 — solve a small symmetric indefinite system through the ssids_c module, with
! Fortran (1-based) arrays passed as they are (options%array_base = 1). Lower triangle, CSC form:
!
!     ( 2  1          )        x = (1, 2, 3, 4, 5) solves A x = b with b = (4, 17, 19, 2, 12)
!     ( 1  4  1     1 )
! A = (    1  3  2    )        the matrix has exactly one negative eigenvalue
!     (       2 -1    )
!     (    1        2 )
!
! Stops with code 1 unless the residual ||b - A x||_inf < 1e-12 and num_neg = 1 (it doubles as a test).
program ssids_example
   use, intrinsic :: iso_c_binding
   use ssids_c
   implicit none

   integer(C_INT), parameter :: n = 5
   integer(C_INT64_T), parameter :: ptr(n + 1) = [1_C_INT64_T, 3_C_INT64_T, 6_C_INT64_T, 8_C_INT64_T, &
                                                 9_C_INT64_T, 10_C_INT64_T]
   integer(C_INT), parameter :: row(9) = [1, 2, 2, 3, 5, 3, 4, 4, 5]
   real(C_DOUBLE), parameter :: val(9) = [2.0d0, 1.0d0, 4.0d0, 1.0d0, 1.0d0, 3.0d0, 2.0d0, -1.0d0, 2.0d0]
   real(C_DOUBLE), parameter :: b(n) = [4.0d0, 17.0d0, 19.0d0, 2.0d0, 12.0d0]
   type(spral_ssids_options) :: options
   type(spral_ssids_inform) :: inform
   type(C_PTR) :: akeep = C_NULL_PTR, fkeep = C_NULL_PTR
   real(C_DOUBLE) :: x(n), r(n)
   integer(C_INT) :: order(n), piv_order(n)
   integer :: i, j, st
   integer(C_INT64_T) :: k
   logical :: ok

   call spral_ssids_default_options(options)
   options%array_base = 1

   ! check = .true.: factor then needs only val (with .false. it must be given ptr and row again)
   call spral_ssids_analyse(.true._C_BOOL, n, order, ptr, row, akeep=akeep, options=options, inform=inform)
   if (inform%flag < 0) call fail('analyse', inform%flag)
   call spral_ssids_factor(.false._C_BOOL, val=val, akeep=akeep, fkeep=fkeep, options=options, inform=inform)
   if (inform%flag < 0) call fail('factor', inform%flag)
   write (*, '(a, i0, a, i0, a, i0, a)') 'Inertia: ', inform%num_neg, ' negative, ', &
      inform%matrix_rank - inform%num_neg, ' positive, ', n - inform%matrix_rank, ' zero'
   ok = inform%num_neg == 1

   x = b
   call spral_ssids_solve1(0_C_INT, x, akeep, fkeep, options, inform)
   if (inform%flag < 0) call fail('solve', inform%flag)
   call spral_ssids_enquire_indef(akeep, fkeep, options, inform, piv_order=piv_order)
   write (*, '(a, 5i5)') 'Pivot order:', piv_order
   write (*, '(a)') 'The computed solution is:'
   write (*, '(5es18.10)') x

   r = b
   do j = 1, n
      do k = ptr(j), ptr(j + 1) - 1
         i = row(k)
         r(i) = r(i) - val(k) * x(j)
         if (i /= j) r(j) = r(j) - val(k) * x(i)
      end do
   end do
   write (*, '(a, es10.3)') 'Residual ||b - A x||_inf = ', maxval(abs(r))
   ok = ok .and. maxval(abs(r)) < 1.0d-12

   st = spral_ssids_free(akeep, fkeep)
   ok = ok .and. st == 0 .and. .not. c_associated(akeep) .and. .not. c_associated(fkeep)
   if (.not. ok) then
      write (*, '(a)') 'FAILED'
      stop 1
   end if
   write (*, '(a)') 'OK'

contains

   subroutine fail(what, flag)
      character(*), intent(in) :: what
      integer(C_INT), intent(in) :: flag
      write (*, '(a, a, i0)') what, ' failed: flag ', flag
      stop 1
   end subroutine fail
end program ssids_example
