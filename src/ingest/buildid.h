/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The build-id list of a recording: module path -> hex build-id.
 *
 * Source 1, `perf buildid-list --input perf.data` (seen with perf 6.1.x here
 * and 6.14.11 in the corpus), one line per module:
 *     e2045eed9cc41c1d3347b444a0efaf32b422b4b7 /tmp/nunatak-capture/workload
 *     cbdbaa987eee473e1b57f429ee20e2143fea694c [kernel.kallsyms]
 * i.e. `<hex build-id> <path>`; the path is everything after the first space
 * (paths may contain spaces). Source 2: the HEADER_BUILD_ID feature section of
 * perf.data (perf_data.c adds entries directly).
 *
 * A module without a build-id has no physical identity (REFERENCE.md §4).
 */
#ifndef NUNATAK_INGEST_BUILDID_H
#define NUNATAK_INGEST_BUILDID_H

#include <stdbool.h>
#include <stddef.h>

struct err;

struct buildid_entry {
	char *path;     /* owned */
	char *build_id; /* owned, lower-case hex */
};

struct buildid_list {
	struct buildid_entry *v;
	size_t n, cap;
	bool sorted;
	size_t nr_bad_lines;     /* lines of the text form that were not `<hex> <path>` */
};

void buildid_list__init(struct buildid_list *l);
void buildid_list__release(struct buildid_list *l);
/* Adds (copies) one entry; a later entry for the same path wins. 0 or -ENOMEM. */
int buildid_list__add(struct buildid_list *l, const char *path, size_t path_len,
		      const char *build_id, size_t id_len);
/*
 * Parses `perf buildid-list` output (bytes, not NUL-terminated) and adds its
 * entries. Malformed lines are skipped and counted in nr_bad_lines (the tool
 * sometimes prints warnings on stdout). Returns 0 or -ENOMEM (e filled).
 */
int buildid_list__parse(struct buildid_list *l, const char *buf, size_t len, struct err *e);
/* The build-id of `path`, or NULL. Borrowed: valid until l changes. Sorts the
 * list on first use after an add (not thread-safe for that reason). */
const char *buildid_list__find(const struct buildid_list *l, const char *path);

#endif
