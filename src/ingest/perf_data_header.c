// SPDX-License-Identifier: BSD-3-Clause
// perf.data file header, attrs and feature sections (layout in perf_data.h).
#include "ingest/perf_data.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/buildid.h"
#include "ingest/perf_data_impl.h"

static bool section_ok(const struct reader *r, uint64_t off, uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

int perf_data__corrupt(struct reader *r, size_t off, const char *what)
{
	return err_set(r->e, -EINVAL, ERR_PERF_DATA_CORRUPT, "perf.data: at byte %zu: %s", off,
		       what);
}

int perf_data__unsupported(struct reader *r, const char *what)
{
	return err_set(r->e, -ENOTSUP, ERR_PERF_DATA_UNSUPPORTED,
		       "perf.data: %s; falling back to perf script", what);
}

static bool has_feat(const struct reader *r, int bit)
{
	return (r->features[bit / 64] >> (bit % 64)) & 1;
}

/* The {offset, size} of a feature section, or false when absent/out of bounds. */
static bool feat_section(const struct reader *r, int bit, uint64_t *off, uint64_t *size)
{
	if (!has_feat(r, bit) || r->data_end != r->data_start + rd64(r->b + 48))
		return false;
	size_t idx = 0;
	for (int i = 0; i < bit; i++)
		idx += has_feat(r, i);
	uint64_t at = (uint64_t)r->data_end + idx * 16;
	if (!section_ok(r, at, 16))
		return false;
	*off = rd64(r->b + at);
	*size = rd64(r->b + at + 8);
	return section_ok(r, *off, *size);
}

static void default_name(struct pd_attr *a)
{
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults",
					 "context-switches", "cpu-migrations"};
	static const char *const hw[] = {"cycles", "instructions", "cache-references",
					 "cache-misses", "branches", "branch-misses"};
	if (a->type == PERF_TYPE_SOFTWARE && a->config < 5)
		snprintf(a->name, sizeof(a->name), "%s", sw[a->config]);
	else if (a->type == PERF_TYPE_HARDWARE && a->config < 6)
		snprintf(a->name, sizeof(a->name), "%s", hw[a->config]);
	else
		snprintf(a->name, sizeof(a->name), "raw-%u-%llx", a->type,
			 (unsigned long long)a->config);
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids,
 * {u32 len, char[len]} name, u64 ids[nr_ids]; events in attrs-section order. */
static void read_event_desc(struct reader *r)
{
	uint64_t off, size;
	if (!feat_section(r, FEAT_EVENT_DESC, &off, &size) || size < 8)
		return;
	const unsigned char *p = r->b + off, *end = p + size;
	uint32_t nr = rd32(p), asz = rd32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nr && i < r->nr_attrs; i++) {
		if ((size_t)(end - p) < (size_t)asz + 8)
			return;
		p += asz;
		uint32_t nr_ids = rd32(p), slen = rd32(p + 4);
		p += 8;
		if ((size_t)(end - p) < slen)
			return;
		size_t n = strnlen((const char *)p, slen);
		if (n && n < sizeof(r->attrs[i].name)) {
			memcpy(r->attrs[i].name, p, n);
			r->attrs[i].name[n] = '\0';
		}
		p += slen;
		if ((size_t)(end - p) / 8 < nr_ids)
			return;
		p += (size_t)nr_ids * 8;
	}
}

/* HEADER_BUILD_ID: records {header, s32 pid, u8 build_id[24], char filename[]};
 * with misc & (1 << 15) byte 20 of build_id holds its size, else it is 20. */
int perf_data__read_build_ids(struct reader *r, struct buildid_list *ids)
{
	uint64_t off, size;
	if (!ids || !feat_section(r, FEAT_BUILD_ID, &off, &size))
		return 0;
	const unsigned char *p = r->b + off, *end = p + size;
	while ((size_t)(end - p) >= 36) {
		uint16_t misc = rd16(p + 4), rs = rd16(p + 6);
		if (rs < 36 || rs > (size_t)(end - p))
			break;
		size_t idn = (misc & BUILD_ID_SIZE_FLAG) ? p[12 + 20] : 20;
		if (idn > 20)
			idn = 20;
		char hex[41];
		for (size_t i = 0; i < idn; i++)
			snprintf(hex + 2 * i, 3, "%02x", p[12 + i]);
		size_t fl = strnlen((const char *)p + 36, rs - 36);
		if (fl && buildid_list__add(ids, (const char *)p + 36, fl, hex, 2 * idn))
			return -ENOMEM;
		p += rs;
	}
	return 0;
}

static int read_attrs(struct reader *r)
{
	uint64_t asz = rd64(r->b + 16), aoff = rd64(r->b + 24), asize = rd64(r->b + 32);
	if (asz < ATTR_MIN + 16)
		return perf_data__unsupported(r, "perf_event_attr too short to hold sample_type");
	if (!section_ok(r, aoff, asize) || asize / asz == 0 || asize / asz > 4096)
		return perf_data__corrupt(r, 24, "attrs section out of bounds or empty");
	r->nr_attrs = asize / asz;
	r->attrs = xcalloc(r->nr_attrs, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		const unsigned char *a = r->b + aoff + i * asz;
		struct pd_attr *d = &r->attrs[i];
		d->type = rd32(a);
		d->config = rd64(a + 8);
		d->sample_period = rd64(a + 16);
		d->sample_type = rd64(a + 24);
		d->read_format = rd64(a + 32);
		d->freq = (rd64(a + 40) >> 10) & 1;
		d->context_switch = (rd64(a + 40) >> 26) & 1;
		d->build_id = (rd64(a + 40) >> 34) & 1;
		d->clockid = -2;
		if ((rd64(a + 40) >> 25) & 1) /* use_clockid; clockid sits at byte 92 */
			d->clockid = rd32(a + 4) >= 96 && asz - 16 >= 96 ? (int32_t)rd32(a + 92) : -1;
		default_name(d);
		uint64_t ioff = rd64(a + asz - 16), isz = rd64(a + asz - 8);
		if (!section_ok(r, ioff, isz))
			return perf_data__corrupt(r, (size_t)(aoff + i * asz + asz - 16), "ids out of bounds");
		for (uint64_t k = 0; k + 8 <= isz; k += 8) {
			if (r->nr_ids >= r->len / 8) /* ids shared between attrs: bound by size */
				return perf_data__corrupt(r, (size_t)ioff, "more sample ids than the file can hold");
			if (xgrow((void **)&r->ids, &r->cap_ids, r->nr_ids + 1, sizeof(*r->ids)))
				return -ENOMEM;
			uint64_t id = rd64(r->b + ioff + k);
			r->ids[r->nr_ids] = (struct pd_id){.id = id, .hash = mix64(id), .attr = (uint32_t)i};
			r->nr_ids++;
			if (oatab__insert(&r->idt, mix64(id), (uint32_t)r->nr_ids, &r->ids[0].hash,
					  sizeof(*r->ids)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* One event's sample_id trailer: {pid,tid} {time} {id} {stream_id}
 * {cpu,res} {identifier}, each when its sample_type bit is set. */
static void trailer_layout(struct pd_attr *a)
{
	static const uint64_t order[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_IDENTIFIER};
	a->trailer_size = 0;
	a->trailer_time = -1;
	a->trailer_tid = -1;
	for (size_t i = 0; i < 6; i++)
		if (a->sample_type & order[i]) {
			if (order[i] == PERF_SAMPLE_TIME)
				a->trailer_time = (int)a->trailer_size;
			if (order[i] == PERF_SAMPLE_TID)
				a->trailer_tid = (int)a->trailer_size;
			a->trailer_size += 8;
		}
}

/* Where the sample id and the non-sample trailer's time sit, from the first
 * attr: perf refuses to record events whose id positions differ
 * (evlist__valid_sample_id_all), so one layout serves every record - or,
 * when the events' trailers differ (perf record of task-clock with a
 * tracepoint, whose samples carry the CPU), every event carries
 * PERF_SAMPLE_IDENTIFIER (perf sets it then), first in a sample and last in
 * a trailer: the record's own event gives its layout. */
static int compute_layout(struct reader *r)
{
	uint64_t st = r->attrs[0].sample_type;
	r->id_pos = -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		r->id_pos = 0;
	} else if (st & PERF_SAMPLE_ID) {
		int pos = 0;
		pos += (st & PERF_SAMPLE_IP) ? 8 : 0;
		pos += (st & PERF_SAMPLE_TID) ? 8 : 0;
		pos += (st & PERF_SAMPLE_TIME) ? 8 : 0;
		pos += (st & PERF_SAMPLE_ADDR) ? 8 : 0;
		r->id_pos = pos;
	}
	if (r->nr_attrs > 1 && r->id_pos < 0)
		return perf_data__unsupported(r, "several events but samples carry no id");
	bool all_identifier = true;
	r->mixed_trailers = false;
	for (size_t i = 0; i < r->nr_attrs; i++) {
		trailer_layout(&r->attrs[i]);
		all_identifier = all_identifier && (r->attrs[i].sample_type & PERF_SAMPLE_IDENTIFIER);
		if ((r->attrs[i].sample_type ^ st) &
		    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU))
			r->mixed_trailers = true;
	}
	if (r->mixed_trailers && !all_identifier)
		return perf_data__unsupported(r, "events with different sample id layouts");
	r->trailer_size = r->attrs[0].trailer_size;
	r->trailer_time = r->attrs[0].trailer_time;
	r->trailer_tid = r->attrs[0].trailer_tid;
	return 0;
}

const struct pd_attr *perf_data__attr_of(const struct reader *r, uint64_t id)
{
	uint64_t h = mix64(id);
	for (size_t pos = h & r->idt.mask; r->idt.slot && r->idt.slot[pos];
	     pos = (pos + 1) & r->idt.mask)
		if (r->ids[r->idt.slot[pos] - 1].id == id)
			return &r->attrs[r->ids[r->idt.slot[pos] - 1].attr];
	return NULL;
}

int perf_data__read_header(struct reader *r)
{
	static const char magic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};
	static const char swapped[8] = {'2', 'E', 'L', 'I', 'F', 'R', 'E', 'P'};
	if (r->len < PIPE_HEADER_SIZE)
		return perf_data__corrupt(r, 0, "shorter than a perf.data header");
	/* The magic is the u64 0x32454c4946524550: its bytes read "PERFILE2" on a
	 * little-endian writer and "2ELIFREP" on a big-endian one. */
	uint64_t want;
	memcpy(&want, magic, 8);
	if (memcmp(r->b, want == 0x32454c4946524550ULL ? magic : swapped, 8) != 0) {
		if (!memcmp(r->b, want == 0x32454c4946524550ULL ? swapped : magic, 8))
			return perf_data__unsupported(r, "recorded on a machine of the other byte order");
		if (!memcmp(r->b, "PERFFILE", 8))
			return perf_data__unsupported(r, "legacy PERFFILE format");
		return perf_data__corrupt(r, 0, "no PERFILE2 magic: not a perf.data file");
	}
	if (rd64(r->b + 8) == PIPE_HEADER_SIZE)
		return perf_data__unsupported(r, "pipe-mode perf.data (perf record -o -)");
	if (r->len < FILE_HEADER_SIZE || rd64(r->b + 8) < FILE_HEADER_SIZE)
		return perf_data__corrupt(r, 8, "file header shorter than 104 bytes");
	for (int i = 0; i < 4; i++)
		r->features[i] = rd64(r->b + 72 + 8 * i);
	if (has_feat(r, FEAT_DIR_FORMAT))
		return perf_data__unsupported(r, "directory format (perf record --threads)");
	if (has_feat(r, FEAT_COMPRESSED))
		return perf_data__unsupported(r, "compressed records (perf record -z)");
	uint64_t doff = rd64(r->b + 40), dsize = rd64(r->b + 48);
	if (doff > r->len)
		return perf_data__corrupt(r, 40, "data section beyond the end of the file");
	r->data_start = (size_t)doff;
	/* perf killed before it finalised the header leaves size 0: read to EOF */
	r->data_end = dsize && dsize <= r->len - doff ? (size_t)(doff + dsize) : r->len;
	int rc = read_attrs(r);
	if (!rc)
		rc = compute_layout(r);
	if (!rc)
		read_event_desc(r);
	for (size_t i = 0; !rc && i < r->nr_attrs; i++)
		r->attrs[i].name_len = strlen(r->attrs[i].name);
	return rc;
}
