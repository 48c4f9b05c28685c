// SPDX-License-Identifier: BSD-3-Clause
/* perf record's start-up as root, without /proc/kallsyms (issue 27).
 *
 * perf 6.1 running as root reads /proc/kallsyms four times before the
 * application execs: "_text" (machine__get_running_kernel_start), "_etext"
 * (the kernel map's end: 5.2 of 5.4 MB), the x86 entry trampolines
 * (machine__create_extra_kernel_maps: the whole file, none on most
 * kernels) and the BPF images (perf_event__synthesize_bpf_events: the whole
 * file, even with --no-bpf-event). Each read is ~36 ms of the kernel
 * formatting 121 k symbols on the measured VM: ~110 ms of CPU per perf start
 * and per rank, where an ordinary user's perf (kptr_restrict) reads once.
 *
 * Here perf reads a table of the few lines those readers look for instead:
 * the running kernel's own lines for _text, _stext, _etext, _edata, _end and
 * the entry trampolines, copied once per boot into the tool cache (the core
 * kernel does not move within a boot) and checked against the kernel's
 * first lines at every use. They are copied in the read that makes
 * nunatak's own kernel table (attrib.h, attrib_kernel_read_boot), under a
 * lock per node: a boot's first Run, and its ranks on one node, have the
 * kernel format /proc/kallsyms once. perf runs in a mount namespace of its own where
 * that table is bind-mounted over /proc/kallsyms; the application, which
 * perf forks, goes back to the rank's namespace (and working directory)
 * through `nunatak fg-exec --return-ns` before it execs: its mounts, caps,
 * descriptors, uid and environment are those of a bare run. perf.data holds
 * the same kernel map (_text's address and extent); only the BPF
 * trampolines' KSYMBOL records are missing, as --no-bpf-event already
 * leaves out BPF programs (nunatak reads neither).
 *
 * Used only where every step is known to hold: root with CAP_SYS_ADMIN, a
 * caller not chrooted, x86_64, perf 6.1 (whose readers were
 * checked), perf record with fg-exec before the application. Anything else,
 * or any step failing, and perf reads /proc/kallsyms as before. */
#ifndef NUNATAK_COLLECT_PERF_KALLSYMS_H
#define NUNATAK_COLLECT_PERF_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>

/* The namespace perf runs in while it is entered. */
struct perf_kallsyms {
	int ns_fd;      /* the caller's mount namespace, inherited by perf and fg-exec */
	int cwd_fd;     /* the caller's working directory, likewise */
	bool entered;   /* the caller is in perf's namespace (perf_kallsyms_leave) */
	char word[32];  /* fg-exec's --return-ns argument: "<ns_fd>,<cwd_fd>" */
};

/* The names perf 6.1 looks up in /proc/kallsyms while recording (exact
 * matches of a core kernel symbol, not a module's). */
bool perf_kallsyms_wanted(const char *name, size_t len);

/* A table's text (len bytes, from a file of ours but never trusted) is
 * usable: lines for _text and _etext, the _text line byte for byte the
 * kernel's own (kernel_line, NULL: unknown, never usable) at a non-zero
 * address. */
bool perf_kallsyms_table_valid(const char *text, size_t len, const char *kernel_line);

/* The boot's table (malloc'd path under the tool cache), made from
 * /proc/kallsyms when missing or no longer matching; NULL when this process
 * may not use it (not root, no CAP_SYS_ADMIN, chrooted, not x86_64) or it
 * cannot be made. */
char *perf_kallsyms_table(void);

/* The tap that makes the boot's table in the same read as the kernel's
 * table (attrib.h, attrib_kernel_prefetch_tap), for a perf of version v
 * run by this process; NULL when the table is not for them (see
 * perf_kallsyms_table). */
struct attrib_ktap;
struct perf_version;
const struct attrib_ktap *perf_kallsyms_tap(const struct perf_version *v);

/* Enters a private mount namespace with table bound over /proc/kallsyms:
 * 0 and k->word set, or -errno with nothing changed. */
int perf_kallsyms_enter(struct perf_kallsyms *k, const char *table);

/* Back in the caller's namespace and directory; descriptors closed. */
void perf_kallsyms_leave(struct perf_kallsyms *k);

/* fg-exec's side: word is "<ns_fd>,<cwd_fd>"; joins that namespace, goes back
 * to that directory, closes both. 0, or -errno (the process stays where it
 * is, the descriptors closed). */
int perf_kallsyms_return(const char *word);

#endif
