! SPDX-License-Identifier: BSD-3-Clause
!> Fortran interface to libscope_profiler (see include/scope_profiler.h).
!>
!>   use scope_profiler
!>   type(sp_handle) :: h
!>   call sp_init('out/run')            ! optional: SCOPE_PROFILER_PREFIX wins
!>   h = sp_region('solve')             ! look up once, reuse
!>   call sp_begin(h); ...; call sp_end(h)
!>   call sp_finalize()
!>
!> Strings are passed with their length, never copied or NUL-terminated
!> here (trailing blanks are trimmed by the library), so this module calls
!> no libgfortran routine and adds no run-time dependency to the library.
module scope_profiler
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_size_t, c_char
  implicit none
  private

  integer, parameter, public :: SP_VERSION_MAJOR = 1
  integer, parameter, public :: SP_VERSION_MINOR = 0
  integer, parameter, public :: SP_VERSION_PATCH = 0

  !> A region handle; compare with sp_handle_valid().
  type, public :: sp_handle
    type(c_ptr) :: p = c_null_ptr
  end type sp_handle

  public :: sp_init, sp_region, sp_region_at, sp_begin, sp_end
  public :: sp_start_sampling, sp_stop_sampling, sp_finalize, sp_set_events

  interface
    function c_init_n(prefix, prefix_len, label, label_len) bind(c, name='sp_init_n') result(rc)
      import :: c_char, c_size_t, c_int
      character(kind=c_char), dimension(*), intent(in) :: prefix, label
      integer(c_size_t), value :: prefix_len, label_len
      integer(c_int) :: rc
    end function c_init_n
    function c_region_n(name, name_len, file, file_len, line) bind(c, name='sp_region_n') result(h)
      import :: c_char, c_size_t, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name, file
      integer(c_size_t), value :: name_len, file_len
      integer(c_int), value :: line
      type(c_ptr) :: h
    end function c_region_n
    subroutine c_begin(h) bind(c, name='sp_begin')
      import :: c_ptr
      type(c_ptr), value :: h
    end subroutine c_begin
    subroutine c_end(h) bind(c, name='sp_end')
      import :: c_ptr
      type(c_ptr), value :: h
    end subroutine c_end
    function c_start_sampling(hz) bind(c, name='sp_start_sampling') result(rc)
      import :: c_int
      integer(c_int), value :: hz
      integer(c_int) :: rc
    end function c_start_sampling
    function c_stop_sampling() bind(c, name='sp_stop_sampling') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_stop_sampling
    function c_set_events_n(list, list_len) bind(c, name='sp_set_events_n') result(rc)
      import :: c_char, c_size_t, c_int
      character(kind=c_char), dimension(*), intent(in) :: list
      integer(c_size_t), value :: list_len
      integer(c_int) :: rc
    end function c_set_events_n
    function c_finalize() bind(c, name='sp_finalize') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_finalize
  end interface

contains

  !> Sets the output prefix (and optional label); ierr = 0 or -errno.
  subroutine sp_init(prefix, label, ierr)
    character(len=*), intent(in) :: prefix
    character(len=*), intent(in), optional :: label
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    if (present(label)) then
      rc = c_init_n(prefix, int(len(prefix), c_size_t), label, int(len(label), c_size_t))
    else
      rc = c_init_n(prefix, int(len(prefix), c_size_t), prefix, 0_c_size_t)
    end if
    if (present(ierr)) ierr = int(rc)
  end subroutine sp_init

  !> The handle of the region called name (same name, same handle).
  function sp_region(name) result(h)
    character(len=*), intent(in) :: name
    type(sp_handle) :: h
    h%p = c_region_n(name, int(len(name), c_size_t), name, 0_c_size_t, -1_c_int)
  end function sp_region

  !> sp_region with a source location written to the trace.
  function sp_region_at(name, file, line) result(h)
    character(len=*), intent(in) :: name, file
    integer, intent(in) :: line
    type(sp_handle) :: h
    h%p = c_region_n(name, int(len(name), c_size_t), file, int(len(file), c_size_t), &
                     int(line, c_int))
  end function sp_region_at

  subroutine sp_begin(h)
    type(sp_handle), intent(in) :: h
    call c_begin(h%p)
  end subroutine sp_begin

  subroutine sp_end(h)
    type(sp_handle), intent(in) :: h
    call c_end(h%p)
  end subroutine sp_end

  !> Starts timer sampling; hz <= 0 picks the default rate.
  subroutine sp_start_sampling(hz, ierr)
    integer, intent(in) :: hz
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_start_sampling(int(hz, c_int))
    if (present(ierr)) ierr = int(rc)
  end subroutine sp_start_sampling

  subroutine sp_stop_sampling(ierr)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_stop_sampling()
    if (present(ierr)) ierr = int(rc)
  end subroutine sp_stop_sampling

  !> Counts events per region ('page-faults,task-clock'), as
  !> SCOPE_PROFILER_EVENTS (which wins); call before the first region.
  !> ierr = 0 (unavailable events included, named in the log and trace),
  !> -EBUSY after the first region, -EALREADY if events were set.
  subroutine sp_set_events(list, ierr)
    character(len=*), intent(in) :: list
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_set_events_n(list, int(len(list), c_size_t))
    if (present(ierr)) ierr = int(rc)
  end subroutine sp_set_events

  !> Writes <prefix>_rank<NNNNN>.spt (and .sps); ierr = 0 or -errno.
  subroutine sp_finalize(ierr)
    integer, intent(out), optional :: ierr
    integer(c_int) :: rc
    rc = c_finalize()
    if (present(ierr)) ierr = int(rc)
  end subroutine sp_finalize

end module scope_profiler
