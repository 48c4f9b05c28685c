/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to aggregate.c and aggregate_emit.c: the aggregator's tables.
 * Samples: `sv` entries indexed by the `st` hash index, key (module id,
 * offset, tid, counter id). Stacks: frame sequences interned in `seqs`
 * (frames stored flat in `frames`), aggregated per (seq, tid, counter) in `kv`.
 */
#ifndef NUNATAK_INGEST_AGGREGATE_IMPL_H
#define NUNATAK_INGEST_AGGREGATE_IMPL_H

#include "ingest/aggregate.h"
#include "common/hashtab.h"

struct skey {
	uint64_t offset;
	int64_t tid;
	uint32_t module, counter;
	uint32_t has_offset;
};

struct sval {
	struct skey k;
	uint64_t hash;
	uint64_t period;
	int64_t n;
	int64_t pid; /* the thread's process (a value, not part of the key) */
};

struct seqframe {
	uint64_t offset;
	uint32_t module;
	uint32_t has_offset;
};

struct seq {
	size_t start, len;
	uint64_t hash;
};

struct stkval {
	uint32_t seq, counter;
	int64_t tid;
	uint64_t hash;
	uint64_t period;
	int64_t n;
};

struct ingest_agg {
	struct strtab modules, events, counters;
	bool *mod_injected; /* by module id: injected__is_injected() of its name */
	size_t cap_mod_injected;
	/* module_id()'s recent names by the caller's address (a reader passes
	 * one address per map): id of the name last met there, its bytes
	 * compared before use */
	struct mod_hint {
		uintptr_t at;
		size_t len;
		uint32_t id;
	} hints[64];
	uint32_t *event_counter; /* event id -> counter id */
	size_t cap_event_counter;
	struct counter_info *cinfo; /* by counter id */
	size_t cap_cinfo;
	/* samples */
	struct sval *sv;
	size_t nr_sv, cap_sv;
	size_t last_sv; /* the entry of the previous sample (when nr_sv) */
	struct oatab st;
	/* stacks */
	struct seqframe *frames;
	size_t nr_frames, cap_frames;
	struct seq *seqs;
	size_t nr_seqs, cap_seqs;
	struct oatab seqt;
	struct stkval *kv;
	size_t nr_kv, cap_kv;
	size_t last_kv; /* the entry of the previous stack sample (when nr_kv) */
	struct oatab kt;
	uint64_t nr_samples;
	/* one-entry caches: consecutive samples usually share event and module */
	const char *last_event;
	size_t last_event_len;
	uint32_t last_counter;
	/* frames in the libraries nunatak injects (ingest/injected.h) */
	struct injected *injected;
};

#endif
