! SPDX-License-Identifier: BSD-3-Clause
!> heat1d: a 1-D heat equation (explicit Euler) instrumented with the
!> scope_profiler Fortran module. Regions and calls, for NSTEPS = 200:
!>   init 1; step 200; update 200 (nested in step); checkpoint 2 (sleeps 5 ms)
!> Each update is SWEEPS explicit sweeps (subroutine sweep): about half a
!> second of CPU in all, so `nunatak run` on it finds a Hotspot above the
!> statistical floor (30 samples at 997 Hz).
program heat1d
  use, intrinsic :: iso_c_binding, only: c_int
  use scope_profiler
  implicit none
  interface
    function usleep(us) bind(c, name='usleep') result(rc)
      import :: c_int
      integer(c_int), value :: us
      integer(c_int) :: rc
    end function usleep
  end interface
  integer, parameter :: n = 20000, nsteps = 200, sweeps = 150
  real(8), allocatable :: u(:), v(:)
  type(sp_handle) :: h_init, h_step, h_update, h_ckpt
  integer :: k, s, ierr
  integer(c_int) :: rc

  call sp_init('heat1d', 'fortran example')
  h_init = sp_region('init')
  h_step = sp_region('step')
  h_update = sp_region_at('update', __FILE__, __LINE__)
  h_ckpt = sp_region('checkpoint')

  call sp_begin(h_init)
  allocate(u(0:n+1), v(0:n+1))
  u = 0.0d0
  u(0) = 1.0d0
  v = u
  call sp_end(h_init)

  do k = 1, nsteps
    call sp_begin(h_step)
    call sp_begin(h_update)
    do s = 1, sweeps
      call sweep(u, v, n)
    end do
    call sp_end(h_update)
    if (mod(k, 100) == 0) then
      call sp_begin(h_ckpt)
      rc = usleep(5000_c_int)
      call sp_end(h_ckpt)
    end if
    call sp_end(h_step)
  end do

  print '(a, es12.5)', 'heat1d: u(1) = ', u(1)
  call sp_finalize(ierr)
  if (ierr /= 0) print '(a, i0)', 'heat1d: trace not written: ', ierr
end program heat1d

!> One explicit Euler sweep of the 1-D heat equation: the CPU-bound hot loop,
!> a procedure of its own so profiles name it.
subroutine sweep(u, v, n)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: u(0:n+1), v(0:n+1)
  integer :: i
  do i = 1, n
    v(i) = u(i) + 0.25d0 * (u(i-1) - 2.0d0 * u(i) + u(i+1))
  end do
  u(1:n) = v(1:n)
end subroutine sweep
