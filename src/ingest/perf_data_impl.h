/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to perf_data.c (records) and perf_data_header.c (file header,
 * attrs, feature sections): the reader state and byte helpers. Layout and
 * contract in perf_data.h. Integers are read with memcpy in host order; the
 * header check refuses files of the other byte order.
 */
#ifndef NUNATAK_INGEST_PERF_DATA_IMPL_H
#define NUNATAK_INGEST_PERF_DATA_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/hashtab.h"
#include "ingest/perf_script.h"
#include "ingest/thread_names.h"

struct buildid_list;
struct err;
struct ingest_stats;
struct perf_maps;
struct switch_log;

#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_MIN 48 /* type..flags: enough for sample_type, read_format, sample_id_all */
#define FEAT_BUILD_ID 2
#define FEAT_EVENT_DESC 12
#define FEAT_DIR_FORMAT 24
#define FEAT_COMPRESSED 27
/* User record types of tools/perf/util/event.h (not in the kernel's header). */
#define REC_AUXTRACE 71
#define REC_COMPRESSED 81
#define REC_COMPRESSED2 83
#define BUILD_ID_SIZE_FLAG (1 << 15)
/* an MMAP2 record carrying a build-id (perf record --buildid-mmap) */
#define MMAP2_BUILD_ID_FLAG (1 << 14)

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_period, sample_type, read_format;
	bool freq;
	bool context_switch; /* PERF_RECORD_SWITCH records were asked for */
	bool build_id;       /* MMAP2 records carry build-ids (perf record --buildid-mmap) */
	bool is_switch;      /* its samples are stacks at a switch (switch_log__is_switch_event) */
	int32_t clockid; /* use_clockid's clock; -2 when off (perf's clock), -1 unreadable */
	/* its records' sample_id trailer (layout: see reader) */
	size_t trailer_size;
	int trailer_time, trailer_tid;
	char name[128];
	size_t name_len;
};

struct reader {
	const unsigned char *b;
	size_t len;
	struct pd_attr *attrs;
	size_t nr_attrs;
	struct pd_id { uint64_t id, hash; uint32_t attr; } *ids; /* sample id -> attr */
	size_t nr_ids, cap_ids;
	struct oatab idt;
	uint64_t features[4];
	size_t data_start, data_end;
	int id_pos;           /* byte offset of the id in a sample body, -1: none */
	size_t trailer_size;  /* sample_id_all trailer of non-sample records */
	int trailer_time;     /* offset of time in that trailer, -1: none */
	int trailer_tid;      /* offset of {pid, tid} in that trailer, -1: none */
	/* events whose trailers differ (a tracepoint's carries the CPU, the
	 * time base's not): every event has PERF_SAMPLE_IDENTIFIER, the last
	 * 8 bytes of a record, whose attr gives the trailer (attrs[].trailer_*) */
	bool mixed_trailers;
	struct switch_log *sw; /* context switches and thread lives, or NULL */
	struct buildid_list *bids; /* build-ids of MMAP2 records are added, or NULL */
	bool mmap_build_ids;  /* an attr asked for them (the misc bit alone can leak) */
	struct perf_maps *maps;
	/* FORK records of pass 1, applied once every map is known, in time
	 * order: within a round, a child's FORK can precede its parent's MMAPs */
	struct pd_fork { int64_t child, parent; uint64_t time; size_t seq; } *forks;
	size_t nr_forks, cap_forks;
	struct thread_names names; /* tid -> comm, from the COMM records of pass 1 */
	int64_t last_tid;     /* comm_of's one-entry cache: comms are final after pass 1 */
	const char *last_comm;
	size_t last_comm_len;
	bool has_last_comm;
	struct ingest_frame *frames;
	size_t cap_frames;
	perf_sample_fn fn;
	void *ctx;
	struct ingest_stats *st;
	struct err *e;
};

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t rd16(const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* Fills r->e and returns -EINVAL ("perf_data.corrupt") / -ENOTSUP
 * ("perf_data.unsupported"). */
int perf_data__corrupt(struct reader *r, size_t off, const char *what);
int perf_data__unsupported(struct reader *r, const char *what);
/* Header, attrs, sample-id layout, event names (perf_data_header.c). */
int perf_data__read_header(struct reader *r);
/* The attr of sample id `id`, or NULL when no attr declares it. */
const struct pd_attr *perf_data__attr_of(const struct reader *r, uint64_t id);
/* HEADER_BUILD_ID entries into ids (may be NULL). 0 or -ENOMEM. */
int perf_data__read_build_ids(struct reader *r, struct buildid_list *ids);

#endif
