// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/perf_data.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/buildid.h"
#include "common/hashtab.h"
#include "ingest/perf_data_impl.h"
#include "ingest/perf_maps.h"
#include "ingest/switches.h"
#include "ingest/thread_names.h"

static size_t read_format_size(uint64_t rf, const unsigned char *p, size_t avail, bool *ok)
{
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	size_t times = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		       ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
	*ok = true;
	if (!(rf & PERF_FORMAT_GROUP))
		return per + times;
	if (avail < 8) {
		*ok = false;
		return 0;
	}
	uint64_t nr = rd64(p);
	if (nr > avail / per) {
		*ok = false;
		return 0;
	}
	return 8 + times + (size_t)nr * per;
}

static const char *kernel_module_name(const char *path, size_t len, char *buf, size_t cap,
				      size_t *out_len)
{
	if (len >= 17 && !memcmp(path, "[kernel.kallsyms]", 17)) {
		*out_len = 17;
		return "[kernel.kallsyms]";
	}
	if (path[0] == '[' || !memmem(path, len, ".ko", 3)) {
		*out_len = len;
		return path;
	}
	/* /lib/modules/.../xfs.ko.xz -> [xfs], as perf names module DSOs */
	const char *b = path + len;
	while (b > path && b[-1] != '/')
		b--;
	size_t n = 0;
	buf[n++] = '[';
	for (; b < path + len && *b != '.' && n + 2 < cap; b++)
		buf[n++] = *b == '-' ? '_' : *b;
	buf[n++] = ']';
	*out_len = n;
	return buf;
}

/* The trailer layout of a non-sample record (reader.mixed_trailers: its
 * own event's, from the identifier that ends it): size, offsets of the
 * time and {pid, tid} (-1: none). False when the record is too short. */
static bool trailer_of(const struct reader *r, const unsigned char *p, size_t rs, size_t body,
		       size_t *size, int *time, int *tid)
{
	*size = r->trailer_size, *time = r->trailer_time, *tid = r->trailer_tid;
	if (r->mixed_trailers) {
		const struct pd_attr *a = rs >= body + 8 ? perf_data__attr_of(r, rd64(p + rs - 8))
							 : NULL;
		/* perf's synthesized records end in zeros: the first event's layout,
		 * as when every event has one */
		if (a)
			*size = a->trailer_size, *time = a->trailer_time, *tid = a->trailer_tid;
	}
	return rs >= body + *size;
}

static uint64_t trailer_time(const struct reader *r, const unsigned char *p, size_t rs,
			     size_t body)
{
	size_t size;
	int time, tid;
	if (!trailer_of(r, p, rs, body, &size, &time, &tid) || time < 0)
		return 0;
	return rd64(p + rs - size + (size_t)time);
}

static int sideband_comm(struct reader *r, const unsigned char *p, size_t rs)
{
	if (rs < 16)
		return 0;
	int64_t tid = (int32_t)rd32(p + 12);
	size_t n = strnlen((const char *)p + 16, rs - 16);
	return thread_names__comm_at(&r->names, tid, (const char *)p + 16, n,
				     trailer_time(r, p, rs, 16 + n + 1));
}

/* MMAP: {pid, tid, addr, len, pgoff, filename}; MMAP2 adds 24 bytes of
 * device/inode or build-id, then prot and flags, before the filename. */
static int sideband_mmap(struct reader *r, const unsigned char *p, size_t rs, bool v2)
{
	size_t fname = v2 ? 72 : 40;
	uint16_t misc = rd16(p + 4);
	if (rs <= fname || (misc & PERF_RECORD_MISC_MMAP_DATA))
		return 0; /* data maps hold no code */
	int64_t pid = (int32_t)rd32(p + 8);
	uint64_t start = rd64(p + 16), len = rd64(p + 24), pgoff = rd64(p + 32);
	size_t n = strnlen((const char *)p + fname, rs - fname);
	if (n == 0)
		return 0;
	const char *path = (const char *)p + fname;
	char kbuf[96];
	if (pid == PERF_MAPS_KERNEL_PID)
		path = kernel_module_name(path, n, kbuf, sizeof(kbuf), &n);
	/* {u8 size, u8, u16, u8 build_id[20]} where MMAP2 holds the device:
	 * the kernel read it at mmap time (perf record --buildid-mmap, which
	 * writes no build-id table in the header). Only when this recording
	 * asked for it: the kernel (6.18 here) leaves the misc bit set for the
	 * next event given the same mmap, so a perf session watching the same
	 * task beside one that asked gets the bit over a device and inode. */
	if (v2 && (misc & MMAP2_BUILD_ID_FLAG) && r->bids && r->mmap_build_ids && p[40] > 0 &&
	    p[40] <= 20) {
		char hex[41];
		for (size_t i = 0; i < p[40]; i++)
			snprintf(hex + 2 * i, 3, "%02x", p[44 + i]);
		if (buildid_list__add(r->bids, path, n, hex, 2 * (size_t)p[40]))
			return -ENOMEM;
	}
	return perf_maps__add(r->maps, pid, start, len, pgoff, trailer_time(r, p, rs, fname + n + 1),
			      path, n);
}

static int add_fork(struct reader *r, int64_t child, int64_t parent, uint64_t time)
{
	if (child == parent)
		return 0; /* a thread: its process's maps already */
	if (r->nr_forks + 1 > r->cap_forks &&
	    xgrow((void **)&r->forks, &r->cap_forks, r->nr_forks + 1, sizeof(*r->forks)))
		return -ENOMEM;
	r->forks[r->nr_forks] = (struct pd_fork){.child = child, .parent = parent, .time = time,
						 .seq = r->nr_forks};
	r->nr_forks++;
	return 0;
}

static int cmp_fork(const void *x, const void *y)
{
	const struct pd_fork *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Each child takes its parent's maps of the fork's time, in time order (a
 * grandchild's fork after its parent's). Applied while reading, a FORK
 * written before its parent's MMAPs (perf writes each CPU's buffer in turn
 * within a round: seen under load, a forked child's every sample
 * [unknown]) copied nothing. */
static int apply_forks(struct reader *r)
{
	if (r->nr_forks > 1)
		qsort(r->forks, r->nr_forks, sizeof(*r->forks), cmp_fork);
	for (size_t i = 0; i < r->nr_forks; i++) {
		const struct pd_fork *f = &r->forks[i];
		int rc = perf_maps__fork(r->maps, f->child, f->parent, f->time);
		if (rc)
			return rc;
	}
	return 0;
}

/* Pass 1: maps, forks and comms, so pass 2 sees every map whatever the
 * record order within a round. */
static int pass_sideband(struct reader *r)
{
	size_t off = r->data_start;
	while (off + 8 <= r->data_end) {
		const unsigned char *p = r->b + off;
		uint32_t type = rd32(p);
		size_t rs = rd16(p + 6);
		if (rs < 8 || rs > r->data_end - off)
			return perf_data__corrupt(r, off, "record size smaller than its header or past the data");
		int rc = 0;
		if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2)
			rc = sideband_mmap(r, p, rs, type == PERF_RECORD_MMAP2);
		else if (type == PERF_RECORD_FORK && rs >= 32) { /* {pid, ppid, tid, ptid, time} */
			rc = add_fork(r, (int32_t)rd32(p + 8), (int32_t)rd32(p + 12), rd64(p + 24));
			if (!rc)
				rc = thread_names__fork_at(&r->names, (int32_t)rd32(p + 16),
							   (int32_t)rd32(p + 20), rd64(p + 24));
		}
		else if (type == PERF_RECORD_COMM)
			rc = sideband_comm(r, p, rs);
		else if (type == REC_COMPRESSED || type == REC_COMPRESSED2)
			return perf_data__unsupported(r, "compressed records (perf record -z)");
		if (rc)
			return rc;
		if (type == REC_AUXTRACE && rs >= 16) {
			uint64_t aux = rd64(p + 8);
			if (aux > r->data_end - off - rs)
				return perf_data__corrupt(r, off, "AUXTRACE payload past the data");
			off += (size_t)aux;
		}
		off += rs;
	}
	perf_maps__fixup_kernel(r->maps);
	int rc = thread_names__replay(&r->names);
	return rc ? rc : apply_forks(r);
}

static const char UNKNOWN[] = "[unknown]";

/* ip -> (module, offset) as perf script prints it (see the header). */
static void resolve(struct reader *r, int cpumode, int64_t pid, uint64_t ip, uint64_t time,
		    struct ingest_frame *f)
{
	const struct perf_map *m = NULL;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		m = perf_maps__find(r->maps, PERF_MAPS_KERNEL_PID, ip, UINT64_MAX);
	else if (cpumode == PERF_RECORD_MISC_USER)
		m = perf_maps__find(r->maps, pid, ip, time);
	if (!m) {
		*f = (struct ingest_frame){.module = UNKNOWN, .module_len = sizeof(UNKNOWN) - 1};
		return;
	}
	f->module = m->path;
	f->module_len = m->path_len;
	f->has_offset = cpumode == PERF_RECORD_MISC_USER && m->path[0] != '[';
	f->offset = f->has_offset ? ip - m->start + m->pgoff : 0;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		f->has_offset = perf_maps__kernel_offset(m, ip, &f->offset);
}

/* The comm of tid. Pass 1 has read every COMM record (an exec's rename
 * included), so the answer is the same for every sample of a thread: the
 * last one is kept (consecutive samples are mostly of one thread). */
static const char *comm_of(struct reader *r, int64_t tid, size_t *len)
{
	if (r->has_last_comm && r->last_tid == tid) {
		*len = r->last_comm_len;
		return r->last_comm;
	}
	const char *c = thread_names__get(&r->names, tid, len);
	r->has_last_comm = true;
	r->last_tid = tid;
	r->last_comm = c;
	r->last_comm_len = *len;
	return c;
}

/* Frames of a callchain, skipping PERF_CONTEXT_* markers, which switch the
 * mode (kernel/user) of the entries that follow them. A value in the
 * markers' range that is none of them (seen under load: a user chain
 * {USER, ip, 0xffffffffffffffb8, 0}, the frame-pointer walk reading junk)
 * discards the whole chain, as perf does: the sample keeps its own address
 * and no caller, never a caller read from junk. A return address of 0
 * ends the chain (as in perf_script.c): it is never a caller, and the kernel's frame-pointer
 * walk, once in a module without frame pointers, reads zeros from the stack
 * (seen: libevent's chain looping on 0 up to perf's 127-frame cap, a flame
 * 126 "[unknown]" levels deep where nothing was known). */
static int callchain(struct reader *r, const unsigned char *p, uint64_t nr, int cpumode,
		     struct ingest_sample *s)
{
	if ((size_t)nr + 1 > r->cap_frames &&
	    xgrow((void **)&r->frames, &r->cap_frames, (size_t)nr + 1, sizeof(*r->frames)))
		return -ENOMEM;
	size_t n = 0;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = rd64(p + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip != (uint64_t)PERF_CONTEXT_KERNEL && ip != (uint64_t)PERF_CONTEXT_USER &&
			    ip != (uint64_t)PERF_CONTEXT_HV && ip != (uint64_t)PERF_CONTEXT_GUEST &&
			    ip != (uint64_t)PERF_CONTEXT_GUEST_KERNEL &&
			    ip != (uint64_t)PERF_CONTEXT_GUEST_USER) {
				n = 0; /* no marker: the walk read junk, the chain is discarded */
				break;
			}
			cpumode = ip == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
				: ip == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
				: PERF_RECORD_MISC_HYPERVISOR;
			continue;
		}
		if (ip == 0 && n > 0)
			break;
		resolve(r, cpumode, s->pid, ip, s->time_ns, &r->frames[n++]);
	}
	s->callchain = n ? r->frames : NULL;
	s->nr_callchain = n;
	return 0;
}

/* SAMPLE body, in perf_event.h order; fields after the callchain unused. */
static int sample(struct reader *r, const unsigned char *p, size_t rs, size_t off)
{
	const unsigned char *q = p + 8, *end = p + rs;
	const struct pd_attr *a = &r->attrs[0];
	if (r->nr_attrs > 1) {
		if (end - q < r->id_pos + 8)
			return perf_data__corrupt(r, off, "sample too short for its id");
		uint64_t id = rd64(q + r->id_pos), h = mix64(id);
		size_t pos;
		for (pos = h & r->idt.mask; r->idt.slot && r->idt.slot[pos]; pos = (pos + 1) & r->idt.mask)
			if (r->ids[r->idt.slot[pos] - 1].id == id)
				break;
		if (!r->idt.slot || !r->idt.slot[pos]) {
			r->st->nr_skipped_records++; /* an id no attr declares */
			return 0;
		}
		a = &r->attrs[r->ids[r->idt.slot[pos] - 1].attr];
	}
	uint64_t st = a->sample_type, ip = 0;
	/* every field set one by one: a zeroing initializer of the whole
	 * struct (rep stos) was a quarter of the reader's own time per sample */
	struct ingest_sample s;
	s.pid = s.tid = 0;
	s.time_ns = 0;
	s.period = a->sample_period;
	s.event = a->name;
	s.event_len = a->name_len;
	s.callchain = NULL;
	s.nr_callchain = 0;
	int cpumode = rd16(p + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
#define TAKE(n)                                                                     \
	do {                                                                        \
		if ((size_t)(end - q) < (n))                                        \
			return perf_data__corrupt(r, off, "sample shorter than its sample_type"); \
	} while (0)
	if (st & PERF_SAMPLE_IDENTIFIER) { TAKE(8); q += 8; }
	if (st & PERF_SAMPLE_IP) { TAKE(8); ip = rd64(q); q += 8; }
	if (st & PERF_SAMPLE_TID) {
		TAKE(8);
		s.pid = (int32_t)rd32(q);
		s.tid = (int32_t)rd32(q + 4);
		q += 8;
	}
	if (st & PERF_SAMPLE_TIME) { TAKE(8); s.time_ns = rd64(q); q += 8; }
	if (st & PERF_SAMPLE_ADDR) { TAKE(8); q += 8; }
	if (st & PERF_SAMPLE_ID) { TAKE(8); q += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { TAKE(8); q += 8; }
	if (st & PERF_SAMPLE_CPU) { TAKE(8); q += 8; }
	if (st & PERF_SAMPLE_PERIOD) { TAKE(8); s.period = rd64(q); q += 8; }
	if (st & PERF_SAMPLE_READ) {
		bool ok;
		size_t n = read_format_size(a->read_format, q, (size_t)(end - q), &ok);
		if (!ok)
			return perf_data__corrupt(r, off, "sample read_format group past the record");
		TAKE(n);
		q += n;
	}
	s.comm = comm_of(r, s.tid, &s.comm_len);
	resolve(r, cpumode, s.pid, ip, s.time_ns, &s.hit);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		TAKE(8);
		uint64_t nr = rd64(q);
		q += 8;
		if (nr > (uint64_t)(end - q) / 8)
			return perf_data__corrupt(r, off, "callchain longer than its record");
		int rc = callchain(r, q, nr, cpumode, &s);
		if (rc)
			return rc;
	}
#undef TAKE
	if (r->sw && a->is_switch)
		return switch_log__stack(r->sw, &s); /* a stack, not CPU time */
	r->st->nr_samples++;
	return r->fn(r->ctx, &s);
}

/* {pid, tid} and time of a non-sample record's sample_id trailer. */
static bool trailer_who(const struct reader *r, const unsigned char *p, size_t rs, size_t body,
			int64_t *pid, int64_t *tid, uint64_t *time)
{
	size_t size;
	int at_time, at_tid;
	if (!trailer_of(r, p, rs, body, &size, &at_time, &at_tid) || at_tid < 0 || at_time < 0)
		return false;
	const unsigned char *t = p + rs - size;
	*pid = (int32_t)rd32(t + at_tid);
	*tid = (int32_t)rd32(t + at_tid + 4);
	*time = rd64(t + at_time);
	return true;
}

/* SWITCH (no body), FORK/EXIT ({pid, ppid, tid, ptid, time}), COMM (exec
 * starts the main thread's life) into the switch log. */
static int lifetime(struct reader *r, uint32_t type, const unsigned char *p, size_t rs)
{
	int64_t pid, tid;
	uint64_t time;
	uint16_t misc = rd16(p + 4);
	if (type == PERF_RECORD_SWITCH && trailer_who(r, p, rs, 8, &pid, &tid, &time)) {
		enum switch_kind k = !(misc & PERF_RECORD_MISC_SWITCH_OUT) ? SWITCH_IN
				   : (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? SWITCH_OUT_PREEMPT
				   : SWITCH_OUT;
		return switch_log__event(r->sw, pid, tid, time, k);
	}
	if ((type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) && rs >= 32)
		return switch_log__event(r->sw, (int32_t)rd32(p + 8), (int32_t)rd32(p + 16),
					 rd64(p + 24),
					 type == PERF_RECORD_FORK ? SWITCH_START : SWITCH_EXIT);
	if (type == PERF_RECORD_COMM && (misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    trailer_who(r, p, rs, 16, &pid, &tid, &time))
		return switch_log__event(r->sw, pid, tid, time, SWITCH_START);
	/* the relay names itself (prctl) once its application runs */
	if (type == PERF_RECORD_COMM && rs >= 16 + sizeof(SWITCH_RELAY_COMM) &&
	    memcmp(p + 16, SWITCH_RELAY_COMM, sizeof(SWITCH_RELAY_COMM)) == 0)
		return switch_log__exclude(r->sw, (int32_t)rd32(p + 8), (int32_t)rd32(p + 12));
	return 0;
}

static int pass_samples(struct reader *r)
{
	for (size_t off = r->data_start; off + 8 <= r->data_end;) {
		const unsigned char *p = r->b + off;
		uint32_t type = rd32(p);
		size_t rs = rd16(p + 6); /* checked by pass 1 */
		r->st->nr_records++;
		if (type == PERF_RECORD_SWITCH && (rd16(p + 4) & PERF_RECORD_MISC_SWITCH_OUT))
			r->st->nr_switch_outs++;
		if (type == PERF_RECORD_SAMPLE) {
			int rc = sample(r, p, rs, off);
			if (rc)
				return rc;
		} else if (r->sw && (type == PERF_RECORD_SWITCH || type == PERF_RECORD_EXIT ||
				     type == PERF_RECORD_FORK || type == PERF_RECORD_COMM)) {
			int rc = lifetime(r, type, p, rs);
			if (rc)
				return rc;
		} else if (type != PERF_RECORD_MMAP && type != PERF_RECORD_MMAP2 &&
			   type != PERF_RECORD_COMM && type != PERF_RECORD_FORK) {
			r->st->nr_skipped_records++;
		}
		if (type == REC_AUXTRACE && rs >= 16)
			off += (size_t)rd64(p + 8);
		off += rs;
	}
	return 0;
}

static void reader__release(struct reader *r)
{
	xfree(r->attrs);
	xfree(r->ids);
	oatab__release(&r->idt);
	perf_maps__free(r->maps);
	xfree(r->forks);
	thread_names__release(&r->names);
	xfree(r->frames);
}

int perf_data__read(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
		    struct buildid_list *ids, struct ingest_stats *st, struct err *e)
{
	return perf_data__read_switches(buf, len, fn, ctx, ids, NULL, st, e);
}

int perf_data__read_switches(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
			     struct buildid_list *ids, struct switch_log *sw,
			     struct ingest_stats *st, struct err *e)
{
	return perf_data__read_names(buf, len, fn, ctx, ids, sw, NULL, st, e);
}

int perf_data__read_names(const void *buf, size_t len, perf_sample_fn fn, void *ctx,
			  struct buildid_list *ids, struct switch_log *sw,
			  struct thread_names *names, struct ingest_stats *st, struct err *e)
{
	struct reader r = {.b = buf, .len = len, .fn = fn, .ctx = ctx, .st = st, .e = e, .sw = sw,
			   .bids = ids};
	thread_names__init(&r.names);
	int rc = perf_data__read_header(&r);
	for (size_t i = 0; !rc && sw && i < r.nr_attrs; i++) {
		if (r.attrs[i].context_switch)
			switch_log__enable(sw);
		r.attrs[i].is_switch = switch_log__is_switch_event(r.attrs[i].name,
								   r.attrs[i].name_len);
		if (r.attrs[i].is_switch)
			switch_log__stacks_from(sw, r.attrs[i].name, r.attrs[i].name_len);
	}
	if (!rc && !(r.maps = perf_maps__new()))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < r.nr_attrs; i++)
		r.mmap_build_ids |= r.attrs[i].build_id;
	if (!rc)
		rc = perf_data__read_build_ids(&r, ids);
	if (!rc)
		rc = pass_sideband(&r);
	if (!rc)
		rc = pass_samples(&r);
	if (rc == -ENOMEM)
		err_set(e, rc, ERR_OOM, "out of memory reading perf.data");
	if (!rc && names) { /* handed over: the emit names the Loci with it */
		*names = r.names;
		thread_names__init(&r.names);
	}
	reader__release(&r);
	return rc;
}

int perf_data__mapped_files(const void *buf, size_t len,
			    int (*fn)(void *ctx, const char *path, size_t n), void *ctx,
			    struct err *e)
{
	struct reader r = {.b = buf, .len = len, .e = e};
	thread_names__init(&r.names);
	int rc = perf_data__read_header(&r);
	for (size_t off = r.data_start; !rc && off + 8 <= r.data_end;) {
		const unsigned char *p = r.b + off;
		uint32_t type = rd32(p);
		size_t rs = rd16(p + 6);
		if (rs < 8 || rs > r.data_end - off) {
			rc = perf_data__corrupt(&r, off, "record size smaller than its header or past the data");
			break;
		}
		size_t fname = type == PERF_RECORD_MMAP2 ? 72 : 40;
		if ((type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2) && rs > fname &&
		    !(rd16(p + 4) & PERF_RECORD_MISC_MMAP_DATA) && p[fname] == '/')
			rc = fn(ctx, (const char *)p + fname, strnlen((const char *)p + fname, rs - fname));
		if (type == REC_AUXTRACE && rs >= 16) {
			uint64_t aux = rd64(p + 8);
			if (aux > r.data_end - off - rs) {
				rc = perf_data__corrupt(&r, off, "AUXTRACE payload past the data");
				break;
			}
			off += (size_t)aux;
		}
		off += rs;
	}
	reader__release(&r);
	return rc;
}

int perf_data_clockid(const void *buf, size_t len)
{
	struct reader r = {.b = buf, .len = len};
	thread_names__init(&r.names);
	int clock = -1;
	if (perf_data__read_header(&r) == 0)
		for (size_t i = 0; i < r.nr_attrs; i++) {
			int32_t id = r.attrs[i].clockid;
			if (id == -1) {
				clock = -1;
				break;
			}
			if (i && clock != id) {
				clock = -2; /* events on different clocks: no one timeline */
				break;
			}
			clock = id;
		}
	reader__release(&r);
	return clock;
}

static int agg_sink(void *ctx, const struct ingest_sample *s)
{
	return ingest_agg__add(ctx, s);
}

/* One recording read and aggregated, not yet in a pivot (perf_data.h). */
struct perf_data_read {
	struct ingest_agg *agg;
	struct switch_log *sw;
	struct buildid_list own; /* the header's build-ids, when none were given */
	struct thread_names names; /* every thread's last comm */
};

void perf_data_read__free(struct perf_data_read *r)
{
	if (!r)
		return;
	ingest_agg__free(r->agg);
	switch_log__free(r->sw);
	buildid_list__release(&r->own);
	thread_names__release(&r->names);
	xfree(r);
}

int perf_data_read__mem(const void *buf, size_t len, const struct buildid_list *ids,
			struct perf_data_read **out, struct ingest_stats *st, struct err *e)
{
	*out = NULL;
	struct perf_data_read *r = xcalloc(1, sizeof(*r));
	if (r) {
		buildid_list__init(&r->own);
		thread_names__init(&r->names);
		r->agg = ingest_agg__new();
		r->sw = switch_log__new();
	}
	if (!r || !r->agg || !r->sw) {
		perf_data_read__free(r);
		return err_oom(e);
	}
	int rc = perf_data__read_names(buf, len, agg_sink, r->agg, ids ? NULL : &r->own, r->sw,
				       &r->names, st, e);
	if (rc > 0)
		rc = err_set(e, -EIO, ERR_INGEST_PERF_DATA, "sample sink failed");
	if (rc) {
		perf_data_read__free(r);
		return rc;
	}
	/* the switches in the order their emit walks them, here: whoever reads
	 * ahead (ingest/ranks.c, on its threads) takes the sort along */
	switch_log__sort(r->sw);
	*out = r;
	return 0;
}

int perf_data_read__emit(struct perf_data_read *r, const struct ingest_opts *o, struct pivot *p,
			 struct ingest_stats *st, struct err *e)
{
	struct ingest_opts eo = *o;
	if (!o->build_ids)
		eo.build_ids = &r->own;
	int rc = ingest_agg__emit(r->agg, &eo, p, e);
	if (!rc)
		rc = switch_log__emit(r->sw, &eo, p, e);
	if (!rc && thread_names__name_loci(&r->names, o->node, o->rank, p))
		rc = err_oom(e);
	if (!rc && ingest_stats__degrade(st))
		rc = err_oom(e);
	return rc;
}

int ingest_perf_data(const void *buf, size_t len, const struct ingest_opts *o,
		     struct pivot *p, struct ingest_stats *st, struct err *e)
{
	struct perf_data_read *r = NULL;
	int rc = perf_data_read__mem(buf, len, o->build_ids, &r, st, e);
	if (!rc)
		rc = perf_data_read__emit(r, o, p, st, e);
	perf_data_read__free(r);
	return rc;
}

int perf_data_read__file(const char *path, const struct buildid_list *ids,
			 struct perf_data_read **out, struct ingest_stats *st, struct err *e)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, ERR_PERF_DATA_OPEN, "%s: %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		int en = errno;
		close(fd);
		return err_set(e, -en, ERR_PERF_DATA_OPEN, "%s: %s", path, strerror(en));
	}
	if (sb.st_size <= 0) {
		close(fd);
		return err_set(e, -EINVAL, ERR_PERF_DATA_OPEN, "%s: empty file", path);
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return err_set(e, -errno, ERR_PERF_DATA_OPEN, "%s: mmap: %s", path, strerror(errno));
	madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
	int rc = perf_data_read__mem(m, (size_t)sb.st_size, ids, out, st, e);
	munmap(m, (size_t)sb.st_size);
	if (rc)
		err_prefix(e, "%s", path);
	return rc;
}

int ingest_perf_data_file(const char *path, const struct ingest_opts *o, struct pivot *p,
			  struct ingest_stats *st, struct err *e)
{
	struct perf_data_read *r = NULL;
	int rc = perf_data_read__file(path, o->build_ids, &r, st, e);
	if (!rc && (rc = perf_data_read__emit(r, o, p, st, e)))
		err_prefix(e, "%s", path);
	perf_data_read__free(r);
	return rc;
}
