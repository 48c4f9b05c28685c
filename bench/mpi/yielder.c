// SPDX-License-Identifier: BSD-3-Clause
/* sched_yield argv[1] times (default 100000), then print this process's own
 * "cpu_s switches": getrusage(RUSAGE_SELF) user + system time and its
 * voluntary + involuntary context switches (bench/mpi/switch_cost.sh). Two
 * of them pinned on one CPU switch to each other at every yield, as Open
 * MPI ranks that yield while they wait do on an oversubscribed node; what a
 * collector costs per context switch lands in their own CPU time. They
 * start together: each prints "ready" and waits for a byte on its stdin
 * (whatever started before it, a perf, has then started), so that neither
 * yields alone, without a switch. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	char go;
	if (printf("ready\n") < 0 || fflush(stdout) != 0 || read(0, &go, 1) != 1)
		return 1;
	for (long i = 0; i < n; i++)
		sched_yield();
	struct rusage r;
	if (getrusage(RUSAGE_SELF, &r) != 0)
		return 1;
	printf("%.6f %ld\n",
	       (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
		       1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec),
	       r.ru_nvcsw + r.ru_nivcsw);
	return 0;
}
