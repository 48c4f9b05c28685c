// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: HDF5 region profiles (per-rank files of the library or the
 * merged file of `regions convert`), read as `regions inspect` reads them:
 * the ranks the file holds, each rank loaded, its call stacks reconstructed
 * and summarized. The reader takes a path, so the input becomes a file.
 * Errors are expected, with a code; crashes, leaks and UB are not. It links
 * the HDF5 module's code (src/hdf5/) directly rather than loading the module.
 *
 * The first byte picks how: even, the rest describes a well-formed HDF5 file
 * that the target writes through the HDF5 API (groups, datasets of any
 * length, type and rank, string attributes of any bytes, lengths that
 * disagree): this is what our reader must survive. Odd, the rest is the
 * file's bytes; libhdf5 1.10 itself hangs on some corrupt files (an endless
 * loop reading a global heap), so FUZZ_H5_NO_RAW=1, set for the timed run of
 * the test suite, skips that mode; the seeds replay it in every build. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "hdf5/hdf5_trace.h"
#include "regions/callstack.h"
#include "regions/region_counters.h"
#include "regions/summary.h"
#include "regions/trace_set.h"

#include <hdf5.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static int write_file(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == size ? 0 : -1;
}


/* The input as a stream of choices; zeros once exhausted. */
struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* Up to max bytes of the input as a string (any bytes but NUL). */
static void take_str(struct in *in, char *out, size_t max)
{
	size_t len = take(in) % max, i = 0;
	for (; i < len && in->n; i++)
		out[i] = (char)(take(in) | 1);
	out[i] = '\0';
}

static void string_attr(struct in *in, hid_t o, const char *name)
{
	unsigned how = take(in) % 4;
	if (how == 0)
		return;
	char v[40];
	take_str(in, v, sizeof(v));
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
	const char *pv = v;
	H5Tset_size(t, how == 1 ? H5T_VARIABLE : strlen(v) + 1);
	if (how == 3)
		H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t a = H5Acreate2(o, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, t, how == 1 ? (const void *)&pv : (const void *)v);
		H5Aclose(a);
	}
	H5Sclose(sp);
	H5Tclose(t);
}

static void dataset(struct in *in, hid_t g, const char *name)
{
	unsigned how = take(in);
	if (how % 5 == 0)
		return;
	unsigned ty = (how >> 3) % 4;
	hid_t t = ty == 0 ? H5T_NATIVE_INT64 : ty == 1 ? H5T_NATIVE_INT32
		: ty == 2 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT8;
	hsize_t dims[2] = {take(in) % 9, 1 + (how >> 6) % 2};
	int nd = how % 5 == 4 ? 2 : 1;
	int64_t v[18];
	for (size_t i = 0; i < 18; i++)
		v[i] = (int64_t)take(in) * ((how & 4) ? 1000003 : 1) - ((how & 2) ? 128 : 0);
	bool lying = how & 128; /* a length of 2^40 with no storage behind it */
	if (lying && nd == 1)
		dims[0] = (hsize_t)1 << 40;
	hid_t sp = H5Screate_simple(nd, dims, NULL);
	hid_t d = H5Dcreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d >= 0) {
		if (!lying || nd != 1)
			H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
		H5Dclose(d);
	}
	H5Sclose(sp);
}

static void threads(struct in *in, hid_t rg)
{
	hid_t tg = H5Gcreate2(rg, "threads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (tg < 0)
		return;
	dataset(in, tg, "tid");
	hsize_t n = take(in) % 5;
	char names[4][16];
	const char *pv[4];
	for (size_t i = 0; i < 4; i++) {
		take_str(in, names[i], sizeof(names[i]));
		pv[i] = names[i];
	}
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate_simple(1, &n, NULL);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8); /* as the library writes them */
	hid_t d = n <= 4 ? H5Dcreate2(tg, "name", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	if (d >= 0) {
		H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, pv);
		H5Dclose(d);
	}
	H5Sclose(sp);
	H5Tclose(t);
	H5Gclose(tg);
}

static void region(struct in *in, hid_t g)
{
	char link[24];
	take_str(in, link, sizeof(link));
	for (char *c = link; *c; c++)
		if (*c == '/')
			*c = '_';
	if (!link[0] || strcmp(link, ".") == 0)
		strcpy(link, "r");
	if (take(in) % 7 == 0) { /* a dataset where a region group belongs */
		dataset(in, g, link);
		return;
	}
	hid_t rg = H5Gcreate2(g, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (rg < 0)
		return;
	string_attr(in, rg, "name");
	string_attr(in, rg, "source_file");
	if (take(in) % 2) {
		hid_t sp = H5Screate(H5S_SCALAR);
		hid_t a = H5Acreate2(rg, "source_line", H5T_NATIVE_INT64, sp, H5P_DEFAULT, H5P_DEFAULT);
		int64_t line = (int64_t)take(in) << (take(in) % 40);
		if (a >= 0) {
			H5Awrite(a, H5T_NATIVE_INT64, &line);
			H5Aclose(a);
		}
		H5Sclose(sp);
	}
	dataset(in, rg, "start_times");
	dataset(in, rg, "end_times");
	dataset(in, rg, "lanes");
	H5Gclose(rg);
}

static void strings(struct in *in, hid_t g, const char *name)
{
	hsize_t n = take(in) % 5;
	char v[4][16];
	const char *pv[4];
	for (size_t i = 0; i < 4; i++) {
		take_str(in, v[i], sizeof(v[i]));
		pv[i] = v[i];
	}
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate_simple(1, &n, NULL);
	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	hid_t d = H5Dcreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d >= 0) {
		H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, pv);
		H5Dclose(d);
	}
	H5Sclose(sp);
	H5Tclose(t);
}

/* /rank<r>/perf_events (counters per region) of any shape. */
static void perf_events(struct in *in, hid_t rg)
{
	hid_t g = H5Gcreate2(rg, "perf_events", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return;
	string_attr(in, g, "backend");
	dataset(in, g, "event_kinds");
	dataset(in, g, "event_status");
	strings(in, g, "event_names");
	strings(in, g, "event_reasons");
	strings(in, g, "region");
	dataset(in, g, "lane");
	dataset(in, g, "calls");
	dataset(in, g, "inclusive");
	dataset(in, g, "exclusive");
	H5Gclose(g);
}

/* Writes the file the input describes at `path`. */
static int build(const uint8_t *data, size_t size)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	struct in in = {data, size};
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f < 0)
		return -1;
	unsigned nr = 1 + take(&in) % 3;
	for (unsigned r = 0; r < nr; r++) {
		char name[32];
		unsigned how = take(&in);
		if (how % 8 == 0)
			take_str(&in, name, 12);
		else
			snprintf(name, sizeof(name), "rank%u", how % 5);
		if (!name[0] || strchr(name, '/') || H5Lexists(f, name, H5P_DEFAULT) > 0)
			continue;
		hid_t rg = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		if (rg < 0)
			continue;
		if (how & 16)
			threads(&in, rg);
		if (how & 32)
			perf_events(&in, rg);
		if (how % 5 != 0) {
			hid_t g = H5Gcreate2(rg, "regions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
			for (unsigned i = 0, n = take(&in) % 5; g >= 0 && i < n; i++)
				region(&in, g);
			if (g >= 0)
				H5Gclose(g);
		}
		H5Gclose(rg);
	}
	H5Fclose(f);
	return 0;
}

static void one_rank(struct trace_set *ts, int32_t rank)
{
	struct rank_data rd;
	struct path_tree pt;
	struct calls c;
	struct summary s = {0};
	struct err e = {0};
	memset(&rd, 0, sizeof(rd));
	path_tree__init(&pt);
	struct region_counters rc;
	memset(&rc, 0, sizeof(rc));
	if (h5_read_counters(&rc, ts, path, rank, &e) != 0 && !e.code[0])
		__builtin_trap();
	region_counters__release(&rc);
	e = (struct err){0};
	if (h5_read_load(ts, path, rank, &rd, &e) != 0) {
		if (!e.code[0])
			__builtin_trap();
		goto out;
	}
	int64_t calls = 0;
	for (size_t i = 0; i < rd.nr_regions; i++)
		calls += rd.regions[i].nr_calls;
	if (calls > 100000)
		goto out; /* linear work; spend the time on the reader */
	if (calls__build(&c, &rd, ts, &pt, &e) == 0) {
		calls__release(&c);
		struct call_sink sink = summary__sink(&s);
		if (summary__init(&s, 1) == 0 &&
		    summary__begin_rank(&s, 0, rd.rank, rd.nr_lanes, ts, &pt) == 0 &&
		    calls__stream(&rd, ts, &pt, &sink, &e) == 0)
			summary__end_rank(&s);
		summary__release(&s);
	}
out:
	path_tree__release(&pt);
	rank_data__release(&rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 20))
		return 0;
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz-trace-%d_rank0.h5", (int)getpid());
	if (data[0] & 1) {
		const char *no_raw = getenv("FUZZ_H5_NO_RAW");
		if ((no_raw && strcmp(no_raw, "0") != 0) || write_file(data + 1, size - 1) != 0)
			return 0;
	} else if (build(data + 1, size - 1) != 0) {
		return 0;
	}
	int32_t *ranks = NULL;
	size_t nr = 0;
	struct err e = {0};
	if (h5_read_list_ranks(path, &ranks, &nr, &e) == 0) {
		struct trace_set ts;
		memset(&ts, 0, sizeof(ts));
		for (size_t i = 0; i < nr && i < 4; i++)
			one_rank(&ts, ranks[i]);
		trace_set__release(&ts);
	} else if (!e.code[0]) {
		__builtin_trap();
	}
	xfree(ranks);
	unlink(path);
	return 0;
}
