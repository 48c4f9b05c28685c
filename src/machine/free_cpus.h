/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which allocated CPUs are free right now, for a calibration on a loaded
 * Machine: the kernels run on the free cores only and say so (calibrate.h),
 * instead of measuring a share of busy ones and calling it the Machine's.
 * Read from two /proc/stat snapshots: a CPU is free when it was idle
 * (idle + iowait) for at least FREE_CPU_IDLE of the interval.
 */
#ifndef NUNATAK_MACHINE_FREE_CPUS_H
#define NUNATAK_MACHINE_FREE_CPUS_H

#include <stddef.h>

struct machine;

#define FREE_CPU_IDLE 0.75
#define FREE_CPU_INTERVAL_S 0.3

/* Pure: the idle fraction of each CPU in cpus[0..n) between two /proc/stat
 * texts ("cpuN user nice system idle iowait irq softirq steal ..."), NaN
 * for a CPU absent from either or without ticks in between. Returns 0, or
 * -EINVAL when a text has no "cpuN" line. */
int cpu_idle_fractions(const char *before, const char *after, const int *cpus, size_t n,
		       double *idle);

/* The allocated CPUs of m (its affinity mask, else 0..cores-1) sampled over
 * interval_s below root ("/" live): the free ones, most idle first, into
 * free_cpus (capacity cap). Returns the number free, or -1 when /proc/stat
 * cannot be read (then nothing is known: calibrate on every core). */
int machine_free_cpus(const char *root, const struct machine *m, double interval_s,
		      int *free_cpus, size_t cap);

#endif
