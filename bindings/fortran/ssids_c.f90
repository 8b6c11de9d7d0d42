! ssids_c.f90 — Fortran 2003/2018 bindings (ISO_C_BINDING) to the SPRAL-compatible C interface of ssids
! (include/ssids/spral_ssids.h). The module is named ssids_c so that it cannot clash with SPRAL's own
! Fortran module spral_ssids. The derived types mirror the C structs field for field (bind(C) gives the
! C layout and padding); the procedures are the C functions themselves, called directly.
!
! Conventions: set options%array_base = 1 to pass Fortran (1-based) ptr/row/col/order arrays as they are.
! akeep and fkeep are type(C_PTR) handles: initialise them to C_NULL_PTR and release them with
! spral_ssids_free. Arguments that C allows to be NULL are OPTIONAL here (omitted = NULL).
module ssids_c
   use, intrinsic :: iso_c_binding
   implicit none

   type, bind(C) :: spral_ssids_options
      integer(C_INT) :: array_base
      integer(C_INT) :: print_level
      integer(C_INT) :: unit_diagnostics
      integer(C_INT) :: unit_error
      integer(C_INT) :: unit_warning
      integer(C_INT) :: ordering
      integer(C_INT) :: nemin
      logical(C_BOOL) :: ignore_numa
      logical(C_BOOL) :: use_gpu
      integer(C_INT64_T) :: min_gpu_work
      real(C_FLOAT) :: max_load_inbalance
      real(C_FLOAT) :: gpu_perf_coeff
      integer(C_INT) :: scaling
      integer(C_INT64_T) :: small_subtree_threshold
      integer(C_INT) :: cpu_block_size
      logical(C_BOOL) :: action
      integer(C_INT) :: pivot_method
      real(C_DOUBLE) :: small
      real(C_DOUBLE) :: u
      character(kind=C_CHAR) :: unused(80)
   end type spral_ssids_options

   type, bind(C) :: spral_ssids_inform
      integer(C_INT) :: flag
      integer(C_INT) :: matrix_dup
      integer(C_INT) :: matrix_missing_diag
      integer(C_INT) :: matrix_outrange
      integer(C_INT) :: matrix_rank
      integer(C_INT) :: maxdepth
      integer(C_INT) :: maxfront
      integer(C_INT) :: num_delay
      integer(C_INT64_T) :: num_factor
      integer(C_INT64_T) :: num_flops
      integer(C_INT) :: num_neg
      integer(C_INT) :: num_sup
      integer(C_INT) :: num_two
      integer(C_INT) :: stat
      integer(C_INT) :: cuda_error
      integer(C_INT) :: cublas_error
      integer(C_INT) :: maxsupernode
      character(kind=C_CHAR) :: unused(76)
   end type spral_ssids_inform

   type, bind(C) :: spral_numa_region
      integer(C_INT) :: nproc
      integer(C_INT) :: ngpu
      type(C_PTR) :: gpus
   end type spral_numa_region

   interface
      subroutine spral_ssids_default_options(options) bind(C)
         import :: spral_ssids_options
         type(spral_ssids_options), intent(out) :: options
      end subroutine spral_ssids_default_options

      subroutine spral_ssids_analyse(check, n, order, ptr, row, val, akeep, options, inform) bind(C)
         import :: C_BOOL, C_INT, C_INT64_T, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         logical(C_BOOL), value :: check
         integer(C_INT), value :: n
         integer(C_INT), dimension(*), optional, intent(inout) :: order
         integer(C_INT64_T), dimension(*), intent(in) :: ptr
         integer(C_INT), dimension(*), intent(in) :: row
         real(C_DOUBLE), dimension(*), optional, intent(in) :: val
         type(C_PTR), intent(inout) :: akeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_analyse

      subroutine spral_ssids_analyse_ptr32(check, n, order, ptr, row, val, akeep, options, inform) bind(C)
         import :: C_BOOL, C_INT, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         logical(C_BOOL), value :: check
         integer(C_INT), value :: n
         integer(C_INT), dimension(*), optional, intent(inout) :: order
         integer(C_INT), dimension(*), intent(in) :: ptr
         integer(C_INT), dimension(*), intent(in) :: row
         real(C_DOUBLE), dimension(*), optional, intent(in) :: val
         type(C_PTR), intent(inout) :: akeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_analyse_ptr32

      subroutine spral_ssids_analyse_coord(n, order, ne, row, col, val, akeep, options, inform) bind(C)
         import :: C_INT, C_INT64_T, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         integer(C_INT), value :: n
         integer(C_INT), dimension(*), optional, intent(inout) :: order
         integer(C_INT64_T), value :: ne
         integer(C_INT), dimension(*), intent(in) :: row
         integer(C_INT), dimension(*), intent(in) :: col
         real(C_DOUBLE), dimension(*), optional, intent(in) :: val
         type(C_PTR), intent(inout) :: akeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_analyse_coord

      subroutine spral_ssids_analyse_topology(check, n, order, ptr, row, val, akeep, options, inform, &
                                              nregions, topology) bind(C)
         import :: C_BOOL, C_INT, C_INT64_T, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform, &
                   spral_numa_region
         logical(C_BOOL), value :: check
         integer(C_INT), value :: n
         integer(C_INT), dimension(*), optional, intent(inout) :: order
         integer(C_INT64_T), dimension(*), intent(in) :: ptr
         integer(C_INT), dimension(*), intent(in) :: row
         real(C_DOUBLE), dimension(*), optional, intent(in) :: val
         type(C_PTR), intent(inout) :: akeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
         integer(C_INT), value :: nregions
         type(spral_numa_region), dimension(*), intent(in) :: topology
      end subroutine spral_ssids_analyse_topology

      subroutine spral_ssids_factor(posdef, ptr, row, val, scale, akeep, fkeep, options, inform) bind(C)
         import :: C_BOOL, C_INT, C_INT64_T, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         logical(C_BOOL), value :: posdef
         integer(C_INT64_T), dimension(*), optional, intent(in) :: ptr
         integer(C_INT), dimension(*), optional, intent(in) :: row
         real(C_DOUBLE), dimension(*), intent(in) :: val
         real(C_DOUBLE), dimension(*), optional, intent(inout) :: scale
         type(C_PTR), value :: akeep
         type(C_PTR), intent(inout) :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_factor

      subroutine spral_ssids_factor_ptr32(posdef, ptr, row, val, scale, akeep, fkeep, options, inform) bind(C)
         import :: C_BOOL, C_INT, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         logical(C_BOOL), value :: posdef
         integer(C_INT), dimension(*), optional, intent(in) :: ptr
         integer(C_INT), dimension(*), optional, intent(in) :: row
         real(C_DOUBLE), dimension(*), intent(in) :: val
         real(C_DOUBLE), dimension(*), optional, intent(inout) :: scale
         type(C_PTR), value :: akeep
         type(C_PTR), intent(inout) :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_factor_ptr32

      subroutine spral_ssids_solve1(job, x1, akeep, fkeep, options, inform) bind(C)
         import :: C_INT, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         integer(C_INT), value :: job
         real(C_DOUBLE), dimension(*), intent(inout) :: x1
         type(C_PTR), value :: akeep
         type(C_PTR), value :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_solve1

      subroutine spral_ssids_solve(job, nrhs, x, ldx, akeep, fkeep, options, inform) bind(C)
         import :: C_INT, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         integer(C_INT), value :: job
         integer(C_INT), value :: nrhs
         real(C_DOUBLE), dimension(*), intent(inout) :: x
         integer(C_INT), value :: ldx
         type(C_PTR), value :: akeep
         type(C_PTR), value :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_solve

      integer(C_INT) function spral_ssids_free_akeep(akeep) bind(C)
         import :: C_INT, C_PTR
         type(C_PTR), intent(inout) :: akeep
      end function spral_ssids_free_akeep

      integer(C_INT) function spral_ssids_free_fkeep(fkeep) bind(C)
         import :: C_INT, C_PTR
         type(C_PTR), intent(inout) :: fkeep
      end function spral_ssids_free_fkeep

      integer(C_INT) function spral_ssids_free(akeep, fkeep) bind(C)
         import :: C_INT, C_PTR
         type(C_PTR), intent(inout) :: akeep
         type(C_PTR), intent(inout) :: fkeep
      end function spral_ssids_free

      subroutine spral_ssids_enquire_posdef(akeep, fkeep, options, inform, d) bind(C)
         import :: C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         type(C_PTR), value :: akeep
         type(C_PTR), value :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
         real(C_DOUBLE), dimension(*), intent(out) :: d
      end subroutine spral_ssids_enquire_posdef

      subroutine spral_ssids_enquire_indef(akeep, fkeep, options, inform, piv_order, d) bind(C)
         import :: C_INT, C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         type(C_PTR), value :: akeep
         type(C_PTR), value :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
         integer(C_INT), dimension(*), optional, intent(out) :: piv_order
         real(C_DOUBLE), dimension(*), optional, intent(out) :: d
      end subroutine spral_ssids_enquire_indef

      subroutine spral_ssids_alter(d, akeep, fkeep, options, inform) bind(C)
         import :: C_DOUBLE, C_PTR, spral_ssids_options, spral_ssids_inform
         real(C_DOUBLE), dimension(*), intent(in) :: d
         type(C_PTR), value :: akeep
         type(C_PTR), value :: fkeep
         type(spral_ssids_options), intent(in) :: options
         type(spral_ssids_inform), intent(inout) :: inform
      end subroutine spral_ssids_alter
   end interface
end module ssids_c
