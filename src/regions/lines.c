// SPDX-License-Identifier: BSD-3-Clause
#include "regions/lines.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attrib/debug_copy.h"
#include "attrib/elf.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/console.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "ingest/sps_reader.h"
#include "regions/lines_symbolize.h"
#include "regions/regions_run.h"
#include "regions/trace_set.h"

#define NO_REGION "(outside regions)"

struct hit {
	uint32_t region, module; /* module UINT32_MAX: unknown */
	uint64_t vaddr;
	int32_t loc; /* index into the module's symbolized addresses, -1 unknown */
	int32_t weight; /* timer expirations the sample stood for */
};

struct lctx {
	const struct lines_opts *o;
	struct lines_file *files; /* the files read, for the sampling rate */
	size_t cap_files;
	struct trace_set names;   /* region-name table (reuses the interning) */
	struct trace_set modules; /* module-path table */
	struct hit *hits;
	size_t nr_hits, cap_hits;
	int64_t ticks;
	size_t nr_files;
};

static int add_file(struct lctx *x, const char *path, struct err *e)
{
	void *map;
	size_t len;
	struct sps_file f;
	int rc = trace_map_file(path, &map, &len, e);
	if (rc)
		return rc;
	if ((rc = sps_parse(map, len, path, &f, e)))
		goto out;
	if (x->o->ranks && !rank_filter__has(x->o->ranks, f.rank)) {
		sps_file__release(&f);
		goto out;
	}
	if (xgrow((void **)&x->files, &x->cap_files, x->nr_files + 1, sizeof(*x->files))) {
		sps_file__release(&f);
		rc = err_oom(e);
		goto out;
	}
	x->files[x->nr_files] = (struct lines_file){f.rank, f.hz, f.ticks, f.nr_samples};
	x->ticks += f.ticks;
	x->nr_files++;
	uint32_t *rid = xcalloc((size_t)f.nr_regions + 1, sizeof(*rid));
	uint32_t *mid = xcalloc((size_t)f.nr_modules + 1, sizeof(*mid));
	struct elf_info *elf = xcalloc((size_t)f.nr_modules + 1, sizeof(*elf));
	bool *elf_ok = xcalloc((size_t)f.nr_modules + 1, sizeof(*elf_ok));
	rc = rid && mid && elf && elf_ok ? 0 : -ENOMEM;
	for (int32_t i = 0; rc == 0 && i < f.nr_regions; i++) {
		int64_t id = trace_set__intern(&x->names, f.regions[i].s, f.regions[i].len, NULL, 0,
					       -1);
		rc = id < 0 ? -ENOMEM : 0;
		rid[i] = (uint32_t)id;
	}
	int64_t none = trace_set__intern(&x->names, NO_REGION, strlen(NO_REGION), NULL, 0, -1);
	for (int32_t i = 0; rc == 0 && i < f.nr_modules; i++) {
		int64_t id = trace_set__intern(&x->modules, f.modules[i].path,
					       f.modules[i].path_len, NULL, 0, -1);
		rc = id < 0 ? -ENOMEM : 0;
		mid[i] = (uint32_t)id;
		elf_ok[i] = elf_info__read(&elf[i], x->modules.regions[id].name, 0, NULL) == 0;
	}
	for (int64_t s = 0; rc == 0 && s < f.nr_samples; s++) {
		struct sps_sample smp = sps_file__sample(&f, s);
		if (xgrow((void **)&x->hits, &x->cap_hits, x->nr_hits + 1, sizeof(*x->hits))) {
			rc = -ENOMEM;
			break;
		}
		struct hit *h = &x->hits[x->nr_hits++];
		h->region = smp.region >= 0 ? rid[smp.region] : (uint32_t)none;
		h->module = smp.module >= 0 ? mid[smp.module] : UINT32_MAX;
		h->vaddr = smp.module >= 0
				   ? lines_vaddr(elf_ok[smp.module] ? &elf[smp.module] : NULL,
						 smp.address, f.modules[smp.module].load_address)
				   : smp.address;
		h->loc = -1;
		h->weight = smp.weight;
	}
	if (rc == -ENOMEM)
		err_set(e, rc, ERR_OOM, "out of memory");
	for (int32_t i = 0; elf && i < f.nr_modules; i++)
		elf_info__release(&elf[i]);
	xfree(elf);
	xfree(elf_ok);
	xfree(rid);
	xfree(mid);
	sps_file__release(&f);
out:
	trace_unmap_file(map, len);
	return rc;
}

static int collect(struct lctx *x, const char *const *inputs, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(inputs[i], &st) != 0)
			return err_set(e, -ENOENT, ERR_TRACE_OPEN,
				       "%s: no such file or directory: give the traces (*.spt, "
				       "*_rank<N>.h5) or the directory holding them (where "
				       "SCOPE_PROFILER_PREFIX pointed the program)",
				       inputs[i]);
		if (!S_ISDIR(st.st_mode)) {
			int rc = add_file(x, inputs[i], e);
			if (rc)
				return rc;
			continue;
		}
		struct dirent **list;
		int m = scandir(inputs[i], &list, NULL, alphasort), rc = 0;
		if (m < 0)
			return err_set(e, -errno, ERR_TRACE_OPEN, "%s: cannot read directory",
				       inputs[i]);
		size_t before = x->nr_files;
		for (int k = 0; k < m; k++) {
			size_t l = strlen(list[k]->d_name);
			if (rc == 0 && l > 4 && strcmp(list[k]->d_name + l - 4, ".sps") == 0) {
				char *p = xasprintf("%s/%s", inputs[i], list[k]->d_name);
				rc = p ? add_file(x, p, e) : -ENOMEM;
				xfree(p);
			}
			free(list[k]);
		}
		free(list);
		if (rc)
			return rc;
		if (x->nr_files == before && !x->o->ranks)
			return err_set(e, -ENOENT, ERR_TRACE_NONE,
				       "%s: no *.sps sample files here (run with "
				       "SCOPE_PROFILER_SAMPLE_HZ set to record them)",
				       inputs[i]);
	}
	/* Every rank asked for must have a sample file. */
	for (size_t k = 0; x->o->ranks && k < x->o->ranks->nr; k++) {
		bool found = false;
		for (size_t j = 0; j < x->nr_files && !found; j++)
			found = x->files[j].rank == x->o->ranks->ranks[k];
		if (!found)
			return err_set(e, -ENOENT, ERR_USAGE,
				       "rank %" PRId32 ": no .sps sample file of this rank among the "
				       "inputs (ranks are read from the files' headers)",
				       x->o->ranks->ranks[k]);
	}
	return 0;
}

static int cmp_hit_addr(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

/* The decompressed copies of separate debug files (attrib/debug_copy.h)
 * that `nunatak run` keeps: this command's calls use them and make them on
 * the same terms, each command counting as a Run. */
static int copies_begin(struct debug_copies *dc, const struct attrib_tools *t)
{
	memset(dc, 0, sizeof(*dc));
	if (t->tool != ATTRIB_TOOL_LLVM)
		return 0;
	int no_home = 0;
	char *dir = cache_home_path("debug", &no_home);
	int rc = dir ? debug_copies__init(dc, dir, t->path) : 0;
	xfree(dir);
	return rc;
}

static void copies_end(struct debug_copies *dc, struct console *con)
{
	const char *const *notes = debug_copies__notes(dc);
	for (size_t i = 0; notes && notes[i]; i++)
		console__debug(con, 1, "%s", notes[i]);
	debug_copies__release(dc);
}

/* Symbolizes every module's distinct addresses in one call per module. */
static int symbolize_all(struct lctx *x, struct sym_loc **locs, size_t *nr_locs,
			 struct console *con, struct err *e)
{
	qsort(x->hits, x->nr_hits, sizeof(*x->hits), cmp_hit_addr);
	*locs = xcalloc(x->nr_hits + 1, sizeof(**locs));
	uint64_t *addr = xmalloc((x->nr_hits + 1) * sizeof(*addr));
	struct executor *ex = NULL;
	struct attrib_tools t = {0};
	struct debug_copies dc;
	memset(&dc, 0, sizeof(dc));
	int rc = *locs && addr ? 0 : err_oom(e);
	size_t i = 0;
	*nr_locs = 0;
	while (rc == 0 && i < x->nr_hits && x->hits[i].module != UINT32_MAX) {
		if (!ex) {
			ex = executor__new_real();
			if (!ex || (rc = attrib_locate(ex, NULL, NULL, &t, e)))
				break;
			if (t.tool == ATTRIB_TOOL_NONE) {
				rc = err_set(e, -ENOENT, ERR_SYMBOLIZER_MISSING,
					     "no symbolizer found: neither llvm-symbolizer nor GNU "
					     "addr2line runs here; install llvm (or binutils) to map "
					     "sample addresses to source lines");
				break;
			}
			if (t.tool == ATTRIB_TOOL_ADDR2LINE)
				console__warn(con, "llvm-symbolizer not found: using GNU addr2line");
			if (copies_begin(&dc, &t) < 0) {
				rc = err_oom(e);
				break;
			}
		}
		uint32_t m = x->hits[i].module;
		size_t n = 0, base = *nr_locs;
		for (; i < x->nr_hits && x->hits[i].module == m; i++) {
			if (n == 0 || addr[n - 1] != x->hits[i].vaddr)
				addr[n++] = x->hits[i].vaddr;
			x->hits[i].loc = (int32_t)(base + n - 1);
		}
		const char *mod = x->modules.regions[m].name;
		if (access(mod, R_OK) == 0)
			rc = lines_symbolize(ex, &t, mod, addr, n, *locs + base, &dc, e);
		else
			console__warn(con, "%s: cannot read this module here; its samples count as ??:0",
				      mod);
		*nr_locs += n;
	}
	copies_end(&dc, con);
	if (ex)
		executor__free(ex);
	attrib_tools__release(&t);
	xfree(addr);
	return rc;
}

static int cmp_str0(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct lines_row *x = a, *y = b;
	int c;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if ((c = cmp_str0(x->file, y->file)))
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return cmp_str0(x->func, y->func);
}

static int cmp_row_rank(const void *a, const void *b, void *ctx)
{
	const struct lines_row *x = a, *y = b;
	const int64_t *tot = ctx;
	if (x->region != y->region) {
		if (tot[x->region] != tot[y->region])
			return tot[x->region] > tot[y->region] ? -1 : 1;
		return x->region < y->region ? -1 : 1;
	}
	if (x->ticks != y->ticks)
		return x->ticks > y->ticks ? -1 : 1;
	return cmp_row_key(a, b);
}

/* One row per (region, file:line, function); everything without a line is ??:0. */
static struct lines_row *make_rows(const struct lctx *x, const struct sym_loc *locs, size_t *nr,
			     int64_t *tot, int64_t *tot_samples)
{
	struct lines_row *r = xmalloc((x->nr_hits + 1) * sizeof(*r));
	if (!r)
		return NULL;
	for (size_t i = 0; i < x->nr_hits; i++) {
		const struct sym_loc *l = x->hits[i].loc >= 0 ? &locs[x->hits[i].loc] : NULL;
		bool known = l && l->file;
		/* The symbol table names the function even without -g. */
		r[i] = (struct lines_row){x->hits[i].region, known ? l->file : NULL,
				    l ? l->function : NULL, known ? l->line : 0, 1, x->hits[i].weight};
		tot[x->hits[i].region] += x->hits[i].weight;
		tot_samples[x->hits[i].region]++;
	}
	qsort(r, x->nr_hits, sizeof(*r), cmp_row_key);
	size_t w = 0;
	for (size_t i = 0; i < x->nr_hits; i++) {
		if (w && cmp_row_key(&r[w - 1], &r[i]) == 0) {
			r[w - 1].count += r[i].count;
			r[w - 1].ticks += r[i].ticks;
		} else
			r[w++] = r[i];
	}
	qsort_r(r, w, sizeof(*r), cmp_row_rank, tot);
	*nr = w;
	return r;
}

int lines_compute(const char *const *inputs, size_t nr_inputs, const struct lines_opts *o,
		  struct lines_result *out, struct console *con, struct err *e)
{
	memset(out, 0, sizeof(*out));
	struct lctx *x = xcalloc(1, sizeof(*x));
	if (!x)
		return err_oom(e);
	x->o = o;
	out->ctx_ = x;
	int rc = collect(x, inputs, nr_inputs, e);
	if (rc == 0)
		rc = symbolize_all(x, &out->locs_, &out->nr_locs_, con, e);
	if (rc == 0) {
		size_t nr = x->names.nr_regions + 1;
		out->region_total = xcalloc(nr, sizeof(*out->region_total));
		out->region_samples = xcalloc(nr, sizeof(*out->region_samples));
		out->rows = out->region_total && out->region_samples
				    ? make_rows(x, out->locs_, &out->nr_rows, out->region_total,
						out->region_samples)
				    : NULL;
		for (size_t i = 0; out->region_total && i < nr; i++)
			out->sample_ticks += out->region_total[i];
		if (!out->rows)
			rc = err_oom(e);
	}
	out->files = x->files;
	out->nr_files = x->nr_files;
	out->nr_samples = x->nr_hits;
	out->ticks = x->ticks;
	out->names = &x->names;
	return rc;
}

void lines_result__release(struct lines_result *r)
{
	struct lctx *x = r->ctx_;
	for (size_t i = 0; i < r->nr_locs_; i++)
		sym_loc__release(&r->locs_[i]);
	xfree(r->locs_);
	xfree(r->rows);
	xfree(r->region_total);
	xfree(r->region_samples);
	if (x) {
		xfree(x->hits);
		xfree(x->files);
		trace_set__release(&x->names);
		trace_set__release(&x->modules);
		xfree(x);
	}
	memset(r, 0, sizeof(*r));
}
