/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one list of degradation kinds: every name a Run, `nunatak doctor` or
 * the rank shim records when a measurement is lost (`degraded [name]:
 * message - remedy`, the manifest's degradations[], the payload). Names are
 * stable: users grep them, scripts match them, old Runs keep them. Call
 * sites write the macro (DEG_LLVM_MISSING), never a string, so a new kind
 * is added here first; tests/cli/degradation_kinds.sh fails on a listed
 * name written as a string anywhere else in src/.
 *
 * X(macro, name, strict, remedy):
 *   strict  whether `--strict` turns this kind into exit 121 (every kind
 *           does today: each loses a measurement the user asked for);
 *   remedy  the default remedy, macro##_REMEDY: what to do next. A site that
 *           knows better (the node, the counter group, the tool's own
 *           words) passes its own.
 */
#ifndef NUNATAK_COMMON_DEGRADATION_KINDS_H
#define NUNATAK_COMMON_DEGRADATION_KINDS_H

#include <stdbool.h>

#define DEGRADATION_KINDS(X) \
	X(DEG_BUILDID_LIST_FAILED, "buildid-list-failed", true, \
	  "rerun with a perf matching this node's kernel") \
	X(DEG_KERNEL_TIME_UNSAMPLED, "kernel-time-unsampled", true, \
	  "run as root, or lower kernel.perf_event_paranoid to 1 (sysctl) to sample the " \
	  "kernel's time too") \
	X(DEG_PERF_VERSION_UNTESTED, "perf-version-untested", true, \
	  "use perf 5.x or 6.x (the versions nunatak reads), or report this perf's version " \
	  "to nunatak") \
	X(DEG_CALL_STACKS_REJECTED, "call-stacks-rejected", true, \
	  "check `perf record --call-graph fp -- true` on this machine") \
	X(DEG_CALL_STACKS_UNAVAILABLE, "call-stacks-unavailable", true, \
	  "rebuild with -fno-omit-frame-pointer (the libraries too), or " \
	  "--call-graph dwarf") \
	X(DEG_CEILINGS_UNAVAILABLE, "ceilings-unavailable", true, \
	  "make the cache writable (XDG_CACHE_HOME, else ~/.cache), then run " \
	  "`nunatak calibrate` once on this Machine") \
	X(DEG_COUNTER_EVENTS_REJECTED, "counter-events-rejected", true, \
	  "check `perf list` on this node") \
	X(DEG_COUNTER_EVENTS_UNAVAILABLE, "counter-events-unavailable", true, \
	  "check `perf list` on this machine: the kernel must expose a PMU " \
	  "driver for this CPU") \
	X(DEG_COUNTING_INCOMPLETE, "counting-incomplete", true, \
	  "these hardware counters are not exposed here (virtual machine or " \
	  "restricted PMU)") \
	X(DEG_COUNTING_UNAVAILABLE, "counting-unavailable", true, \
	  "check perf_event_paranoid and that the PMU is exposed (virtual " \
	  "machines often hide it)") \
	X(DEG_CPU_COLLECTION_FAILED, "cpu-collection-failed", true, \
	  "run `perf record -- true` to see perf's own error") \
	X(DEG_CPU_COLLECTION_INTERRUPTED, "cpu-collection-interrupted", true, \
	  "check what killed perf (the OOM killer: dmesg; a job script's kill)") \
	X(DEG_CPU_COLLECTION_PRELOAD, "cpu-collection-preload", true, \
	  "let perf sample for counters, call stacks and ~1 kHz time samples: " \
	  "install perf (linux-perf / linux-tools) and allow it (sudo sysctl " \
	  "kernel.perf_event_paranoid=2)") \
	X(DEG_CPU_COLLECTION_UNAVAILABLE, "cpu-collection-unavailable", true, \
	  "install perf (linux-perf / linux-tools) or set tools.perf") \
	X(DEG_KERNEL_SYMBOLS_UNAVAILABLE, "kernel-symbols-unavailable", true, \
	  "run as root or set kernel.kptr_restrict=0") \
	X(DEG_LLVM_MISSING, "llvm-missing", true, \
	  "install LLVM 19 or newer (Debian/Ubuntu: apt-get install llvm-19), " \
	  "or set [tools] llvm-symbolizer in nunatak.toml") \
	X(DEG_MODULE_RECOMPILED_BETWEEN_PASSES, "module-recompiled-between-passes", true, \
	  "do not rebuild while nunatak runs; rerun") \
	X(DEG_MODULE_UNREADABLE, "module-unreadable", true, \
	  "run attribution where the module exists unchanged at this path") \
	X(DEG_MONOTONIC_CLOCK_REJECTED, "monotonic-clock-rejected", true, \
	  "use perf 4.1 or newer on a kernel with clockid support") \
	X(DEG_MPI_ANALYSIS_UNAVAILABLE, "mpi-analysis-unavailable", true, \
	  "link the application against the shared MPI library of the " \
	  "launcher's MPI (mpicc without -static); from Fortran, `use mpi` " \
	  "instead of `use mpi_f08`") \
	X(DEG_MPI_EVENTS_DROPPED, "mpi-events-dropped", true, \
	  "nothing to do: stated bound") \
	X(DEG_MPI_PROFILE_UNREADABLE, "mpi-profile-unreadable", true, \
	  "rerun; report the file if it persists") \
	X(DEG_MPI_RANK_UNFINISHED, "mpi-rank-unfinished", true, \
	  "check the job log for why those ranks ended early") \
	X(DEG_MPI_SEPARATE_WORLDS, "mpi-separate-worlds", true, \
	  "launch the program with its own MPI's launcher (MPICH: mpirun.mpich, " \
	  "srun --mpi=pmi2; Open MPI: mpirun.openmpi, srun --mpi=pmix)") \
	X(DEG_MPI_SITES_UNRESOLVED, "mpi-sites-unresolved", true, \
	  "install LLVM (llvm-symbolizer) or binutils (addr2line); build with " \
	  "-g for file and line") \
	X(DEG_MULTI_PASS_UNAVAILABLE, "multi-pass-unavailable", true, \
	  "run on a Zen 2/3/4 machine with perf for the FLOP and memory passes") \
	X(DEG_NETWORK_CEILINGS_UNAVAILABLE, "network-ceilings-unavailable", true, \
	  "check `nunatak doctor` and the MPI compiler (tools.mpicc)") \
	X(DEG_NODE_CEILINGS_BORROWED, "node-ceilings-borrowed", true, \
	  "run `nunatak calibrate` once on that node (inside the job allocation)") \
	X(DEG_OFFCPU_UNATTRIBUTED, "offcpu-unattributed", true, \
	  "run as root, or sudo sysctl kernel.perf_event_paranoid=1, for " \
	  "off-CPU call stacks") \
	X(DEG_OPENMP_TOOL_SILENT, "openmp-tool-silent", true, \
	  "end the program through exit() or a return from main (the OpenMP runtime " \
	  "writes the OMPT tool's profile at its shutdown), or unset OMP_TOOL=disabled") \
	X(DEG_OPENMP_TOOL_UNREADABLE, "openmp-tool-unreadable", true, \
	  "report the file to nunatak's developers; the regions are read from the samples' " \
	  "frames meanwhile") \
	X(DEG_PASSES_INCONSISTENT, "passes-inconsistent", true, \
	  "make the run deterministic (fixed input, threads, seed), or raise " \
	  "passes.witness") \
	X(DEG_PASSES_SKIPPED, "passes-skipped", true, \
	  "fix the application's failure, or run without --multi-pass") \
	X(DEG_PERF_SCRIPT_FAILED, "perf-script-failed", true, \
	  "rerun with a perf matching this node's kernel") \
	X(DEG_PERF_SCRIPT_NO_OFFSET, "perf-script-no-offset", true, \
	  "use perf 6.4 or newer (dsoff), or run perf script with " \
	  "--show-mmap-events --show-task-events") \
	X(DEG_PERF_SCRIPT_UNPARSED, "perf-script-unparsed", true, \
	  "report the perf version and the first line to nunatak") \
	X(DEG_PERF_STAT_UNPARSED, "perf-stat-unparsed", true, \
	  "report the perf version and the first line to nunatak") \
	X(DEG_PIVOT_UNWRITABLE, "pivot-unwritable", true, \
	  "free space or choose another -o, then run again (collect/ keeps the " \
	  "raw samples of this one)") \
	X(DEG_PRELOAD_SAMPLER_SILENT, "preload-sampler-silent", true, \
	  "link the program dynamically, or give the ranks perf") \
	X(DEG_RANK_APP_MISSING, "rank-app-missing", true, \
	  "check the application's path as the ranks see it (a bare name is " \
	  "looked up on each node's PATH)") \
	X(DEG_RANK_COLLECTION_INTERRUPTED, "rank-collection-interrupted", true, \
	  "check what killed perf on that node (the OOM killer: dmesg; a job " \
	  "script's kill)") \
	X(DEG_RANK_COLLECTION_UNAVAILABLE, "rank-collection-unavailable", true, \
	  "put the application right after the launcher's options, or `--`") \
	X(DEG_RANK_COUNTING_FAILED, "rank-counting-failed", true, \
	  "check `perf stat -e task-clock -- true` on this node") \
	X(DEG_RANK_PERF_MISSING, "rank-perf-missing", true, \
	  "install perf (linux-perf) on the compute nodes") \
	X(DEG_RANK_SAMPLES_UNREADABLE, "rank-samples-unreadable", true, \
	  "rerun with `nunatak rank-shim --perf-script` in the launch, or check " \
	  "the rank's node for perf errors") \
	X(DEG_RANK_SAMPLING_REJECTED, "rank-sampling-rejected", true, \
	  "check kernel.perf_event_paranoid and `perf record -- true` on this " \
	  "node") \
	X(DEG_RANKS_INCOMPLETE, "ranks-incomplete", true, \
	  "check the job log for the rank that ended the job") \
	X(DEG_RANKS_MISSING, "ranks-missing", true, \
	  "check the job log for those ranks; put the Run directory on a " \
	  "filesystem every node shares") \
	X(DEG_RANKS_UNCOUNTED, "ranks-uncounted", true, \
	  "install perf on every compute node (see each rank's rank.json)") \
	X(DEG_REGION_TRACES_CUT_SHORT, "region-traces-cut-short", true, \
	  "`nunatak regions inspect <Run>/collect/regions` shows where each " \
	  "trace ended") \
	X(DEG_REGIONS_NOT_ALIGNED, "regions-not-aligned", true, \
	  "let nunatak record (it passes -k CLOCK_MONOTONIC to perf record)") \
	X(DEG_REPORT_UNAVAILABLE, "report-unavailable", true, \
	  "`nunatak report` regenerates it from the Run") \
	X(DEG_SYMBOLIZATION_FAILED, "symbolization-failed", true, \
	  "check that the symbolizer runs: doctor") \
	X(DEG_SYMBOLIZER_TIMEOUT, "symbolizer-timeout", true, \
	  "raise [symbolizer] timeout in nunatak.toml, or check what the " \
	  "symbolizer waits for (debuginfod: [debuginfod] enabled = false)") \
	X(DEG_TARGET_ATTRIBUTION, "target-attribution", true, \
	  "rebuild with -g (and without strip / -s) for line-level attribution") \
	X(DEG_APPLICATION_OUTLIVED, "application-outlived", false, \
	  "stop them yourself if they should not run on; to measure a service, " \
	  "run it in the foreground under nunatak") \
	X(DEG_TARGET_PRIVILEGED, "target-privileged", true, \
	  "profile a copy without the setuid/setgid bit or capabilities (cp keeps " \
	  "neither) if it can run without them, or run nunatak as the file's owner") \
	X(DEG_TARGET_BINARY, "target-binary", true, \
	  "point nunatak at the compiled program rather than a wrapper script")
#define DEG_KIND_DECLARE(m, name, strict, remedy) \
	extern const char m[];                    \
	extern const char m##_REMEDY[];
DEGRADATION_KINDS(DEG_KIND_DECLARE)
#undef DEG_KIND_DECLARE

/* Whether name is a listed kind (a manifest written by another version may
 * hold others). */
bool degradation_kind_known(const char *name);
/* Whether --strict turns name into an error; an unknown name does (a newer
 * nunatak's kind is still a lost measurement). */
bool degradation_kind_strict(const char *name);
/* The default remedy of name, or NULL for an unknown name. */
const char *degradation_kind_remedy(const char *name);

#endif
