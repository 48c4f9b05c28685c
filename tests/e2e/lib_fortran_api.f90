! SPDX-License-Identifier: BSD-3-Clause
!> Exercises every procedure of the scope_profiler Fortran module, with
!> error codes (lib_examples.sh compiles it with gfortran and checks the
!> trace). Stops with code 1 on any unexpected return code.
program lib_fortran_api
  use scope_profiler
  implicit none
  type(sp_handle) :: a, b, a2
  integer :: ierr, i, k
  real(8) :: x

  call sp_init('ignored_when_env_sets_prefix', 'fortran api test', ierr)
  call expect(ierr, 0, 'sp_init')
  call sp_set_events('page-faults  ', ierr)   ! trailing blanks trimmed
  call expect(ierr, 0, 'sp_set_events')
  a = sp_region('alpha')
  a2 = sp_region('alpha   ')          ! trailing blanks are trimmed: same region
  b = sp_region_at('beta', 'lib_fortran_api.f90', 17)
  call sp_start_sampling(0, ierr)     ! default rate
  call expect(ierr, 0, 'sp_start_sampling')
  x = 0
  do k = 1, 3
    call sp_begin(a)
    call sp_begin(b)
    do i = 1, 2000000
      x = x + sqrt(dble(i))
    end do
    call sp_end(b)
    call sp_end(a2)
  end do
  call sp_stop_sampling(ierr)
  call expect(ierr, 0, 'sp_stop_sampling')
  call sp_stop_sampling(ierr)
  if (ierr >= 0) call fail('second sp_stop_sampling should fail')
  call sp_set_events('task-clock', ierr)      ! after the first region: refused
  if (ierr >= 0) call fail('sp_set_events after a region should fail')
  call sp_finalize(ierr)
  call expect(ierr, 0, 'sp_finalize')
  call sp_finalize(ierr)
  if (ierr >= 0) call fail('second sp_finalize should fail')
  if (x < 0) print *, x
  print '(a)', 'fortran api: ok'
contains
  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
      print '(a, a, i0)', what, ' returned ', got
      stop 1
    end if
  end subroutine expect
  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    print '(a)', msg
    stop 1
  end subroutine fail
end program lib_fortran_api
