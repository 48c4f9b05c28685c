// SPDX-License-Identifier: BSD-3-Clause
/*
 * The external calls of attribution: symbolizer calls (one per module, two
 * over halves for a very large module; the real executor answers the small
 * ones with a single process, exec/merge.c), then readelf and dwarfdump where
 * they can matter. Calls are issued in module order and run through
 * executor__run_batch(): the real executor overlaps them (one per CPU), a
 * recording numbers them and a replay serves them in issue order.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/attrib_ctx.h"
#include "attrib/debug_copy.h"
#include "tools/llvm_dwarfdump.h"
#include "tools/llvm_readelf.h"
#include "tools/locate.h"
#include "tools/symbolizer.h"
#include "tools/symbolizer_parse.h"
#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "exec/exec.h"
#include "model/model.h"

/* One symbolizer call over addrs[0..n) of m: argv and stdin built by the
 * symbolizer's adapter (tools/symbolizer.h). */
struct call {
	struct mod *m;
	struct symbolizer_call sc;
	const char **argv; /* with the debug copies' directories, or NULL */
};

static void call__release(struct call *k)
{
	symbolizer_call__release(&k->sc);
	xfree(k->argv);
}

/* The call's argv with the debug copies' arguments after --obj=M (argv[2],
 * the merge slot, stays in place). The cache keys the call by its argv
 * without them (exec.h cache_argv): the copy answers as the original does. */
static int with_extra(struct call *k, const char *const *extra, struct exec_request *req)
{
	bool oom;
	k->argv = debug_copies__argv(k->sc.argv, extra, &oom);
	if (!k->argv)
		return oom ? -ENOMEM : 0;
	req->cache_argv = req->argv;
	req->argv = k->argv;
	return 0;
}

static int call__init(struct ctx *c, struct call *k, struct mod *m, const uint64_t *addrs,
		      size_t n, bool alone, const char *const *extra, struct exec_request *req)
{
	memset(k, 0, sizeof(*k));
	k->m = m;
	/* llvm-symbolizer on stdin answers one JSON line per address: the
	 * caching executor keeps each address's line, so a later live Run
	 * symbolizes only the addresses it has not seen in this module */
	bool argv_ok = c->tools->tool != ATTRIB_TOOL_LLVM;
	if (symbolizer_call__init(&k->sc, c->tools, m->path, addrs, n, argv_ok) < 0)
		return -ENOMEM;
	/* A symbolizer that hangs (a stuck debuginfod, a wedged file system) is
	 * cut off: its module stays unresolved, the Run is still written. */
	double limit = c->o->symbolizer_timeout_s > 0 ? c->o->symbolizer_timeout_s : 300;
	*req = (struct exec_request){.argv = k->sc.argv, .capture_stdout = true,
				     .capture_stderr = true, .timeout_s = limit, .cacheable = true,
				     .cache_per_line = k->sc.per_line,
				     .stdin_data = k->sc.stdin_data,
				     .stdin_len = k->sc.stdin_len,
				     /* one symbolizer process for every module (a
				      * large module's halves keep theirs, in
				      * parallel): exec/merge.c */
				     .merge_slot = alone ? 0 : k->sc.merge_slot,
				     .merge_prefix = alone ? NULL : k->sc.merge_prefix,
				     .env_set = c->env.set[0] ? c->env.set : NULL,
				     .env_unset = c->env.unset[0] ? c->env.unset : NULL};
	return c->tools->tool == ATTRIB_TOOL_LLVM ? with_extra(k, extra, req) : 0;
}

/* One call's output parsed into chains of its own: pure, so the outputs of
 * a large module's halves (~20 MB of JSON per 50 000 addresses) parse on
 * threads of their own, in parallel. */
struct parse_job {
	const struct exec_result *res;
	const struct attrib_tools *tools;
	struct attrib_chains out;
	struct err pe;
	int prc;
};

static void *parse_job__run(void *arg)
{
	struct parse_job *j = arg;
	const char *t = j->res->out ? j->res->out : "";
	j->prc = symbolizer__parse(j->tools, t, j->res->out_len, &j->out, &j->pe);
	return NULL;
}

#define PARSE_THREAD_BYTES ((size_t)1 << 20) /* below: a thread costs more than it saves */
#define PARSE_MAX_THREADS 3

static void parse_all(struct parse_job *jobs, size_t n)
{
	pthread_t th[PARSE_MAX_THREADS];
	size_t nt = 0;
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].res->exit_code != 0 && !jobs[i].res->out_len)
			continue;
		if (nt < PARSE_MAX_THREADS && jobs[i].res->out_len >= PARSE_THREAD_BYTES &&
		    i + 1 < n && pthread_create(&th[nt], NULL, parse_job__run, &jobs[i]) == 0) {
			nt++;
			continue;
		}
		parse_job__run(&jobs[i]); /* the last one (or a small one) on this thread */
	}
	for (size_t t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
}

/* Whether a call's every answer is an error of the tool's own: LLVM 19
 * answers an unreadable module with one JSON error object and exit status 1,
 * where LLVM 14 answered every address so and exited 0. Either way the
 * module is unreadable, which the answers' errors say. */
static bool all_errors(const struct parse_job *j)
{
	if (j->prc || !j->out.n)
		return false;
	for (size_t i = 0; i < j->out.n; i++)
		if (!j->out.v[i].error)
			return false;
	return true;
}

/* One call's outcome, in issue order: its answers appended to m->answers,
 * or m failed (and a degradation says why). */
static int take_answers(struct ctx *c, struct mod *m, struct parse_job *j)
{
	char tail[256];
	if (m->failed)
		return 0; /* an earlier part of this module failed: already said */
	if (j->res->timed_out) {
		m->failed = true;
		attrib_degrade(c, DEG_SYMBOLIZER_TIMEOUT,
			DEG_SYMBOLIZER_TIMEOUT_REMEDY,
			"%s gave no answer for %s within %.0f s and was stopped: its Hotspots stay "
			"unresolved", c->tools->path, m->path,
			c->o->symbolizer_timeout_s > 0 ? c->o->symbolizer_timeout_s : 300.0);
	} else if (j->res->exit_code != 0 && !all_errors(j)) {
		m->failed = true;
		attrib_degrade(c, DEG_SYMBOLIZATION_FAILED, DEG_SYMBOLIZATION_FAILED_REMEDY,
			"%s exited with %d on %s: %s", c->tools->path, j->res->exit_code, m->path,
			attrib_stderr_tail(j->res, tail, sizeof(tail)));
	} else if (j->prc) {
		m->failed = true;
		if (j->prc == -ENOMEM)
			return -ENOMEM;
		attrib_degrade(c, DEG_SYMBOLIZATION_FAILED, "report this output to the nunatak developers",
			"unparsed symbolizer output for %s, Hotspots left unresolved: %s", m->path,
			j->pe.msg);
	} else if (j->out.n) {
		struct attrib_chains *a = &m->answers;
		if (xgrow((void **)&a->v, &a->cap, a->n + j->out.n, sizeof(*a->v)) < 0)
			return -ENOMEM;
		memcpy(a->v + a->n, j->out.v, j->out.n * sizeof(*a->v));
		a->n += j->out.n;
		j->out.n = 0; /* moved */
	}
	return 0;
}

static int chain_ptr_cmp(const void *a, const void *b)
{
	const struct attrib_chain *x = *(const struct attrib_chain *const *)a;
	const struct attrib_chain *y = *(const struct attrib_chain *const *)b;
	return (x->address > y->address) - (x->address < y->address);
}

/* Points each offset at the answer for its address. */
static int match_answers(struct mod *m)
{
	size_t n = m->answers.n;
	const struct attrib_chain **idx = xcalloc(n ? n : 1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = &m->answers.v[i];
	qsort(idx, n, sizeof(*idx), chain_ptr_cmp);
	for (size_t i = 0; i < m->nr_offs; i++) {
		struct attrib_chain key = {.address = m->addrs[i]};
		const struct attrib_chain *kp = &key;
		const struct attrib_chain **hit = bsearch(&kp, idx, n, sizeof(*idx), chain_ptr_cmp);
		m->chain[i] = hit ? *hit : NULL;
	}
	xfree(idx);
	return 0;
}

/* Whether a path may exist: anything but "no such file" counts (a directory
 * nunatak cannot search may hold a file the symbolizer can read). */
static bool may_exist(char *path_take)
{
	if (!path_take)
		return true; /* out of memory: assume it does */
	bool yes = access(path_take, F_OK) == 0 || (errno != ENOENT && errno != ENOTDIR);
	xfree(path_take);
	return yes;
}

/* A separate debug file llvm-symbolizer would look for (no
 * --debug-file-directory given), in the places debug_copy.h lists. */
static bool debug_file_nearby(const struct mod *m)
{
	const char *id = m->elf.build_id;
	if (id && strlen(id) > 2 && may_exist(debug_file_by_build_id(id)))
		return true;
	char *c[3] = {NULL, NULL, NULL};
	size_t n = debug_files_by_link(m->path, m->elf.debuglink, c);
	bool yes = m->elf.debuglink && !n; /* a link, no directory: assume it is there */
	for (size_t i = 0; i < n; i++) /* may_exist takes each path */
		yes = may_exist(c[i]) || yes;
	return yes;
}

/* Whether llvm-symbolizer can only answer m from its symbol table, so that
 * every address it names after one symbol gets the same answer: LLVM, m
 * read here with its symbol starts, no debug information in it, in a file
 * the symbolizer would find, or from debuginfod. Never for a recording:
 * its calls keep the sampled addresses. */
static bool symbols_only(struct ctx *c, const struct mod *m)
{
	if (c->tools->tool != ATTRIB_TOOL_LLVM || c->o->record || !m->readable ||
	    !m->elf.nr_starts || m->elf.has_debug_info || m->elf.has_debug_sections)
		return false;
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (urls && *urls && !c->o->debuginfod_disabled)
		return false;
	return !debug_file_nearby(m);
}

/* Reads m's ELF and computes its distinct symbolizer addresses; false when
 * m must not be symbolized (rebuilt since the run, or unreadable for
 * addr2line). */
static int prepare(struct ctx *c, struct mod *m, bool *go)
{
	struct err ee = {0};
	*go = false;
	/* A replay never trusts the local file at a recorded path: it is
	 * another machine's binary. */
	bool replay = c->x->ops->recorded_meta && c->x->ops->recorded_meta(c->x);
	m->readable = !replay && elf_info__read(&m->elf, m->path, ELF_READ_SYMBOLS | ELF_READ_STARTS,
						&ee) == 0;
	if (m->readable && m->build_id && m->elf.build_id && strcmp(m->build_id, m->elf.build_id)) {
		elf_info__release(&m->elf);
		m->readable = false;
		snprintf(ee.msg, sizeof(ee.msg), "its build-id is no longer %s: rebuilt since the run",
			 m->build_id);
		attrib_mod_unreadable(c, m, ee.msg);
	}
	m->addrs = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*m->addrs));
	m->chain = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*m->chain));
	m->sorted = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*m->sorted));
	if (!m->addrs || !m->chain || !m->sorted)
		return -ENOMEM;
	/* Without debug information the answer depends on the symbol only: the
	 * symbolizer is asked for each symbol's key address, which the per-line
	 * cache (exec/cache.c) then knows from any earlier Run that sampled that
	 * function, wherever in it. */
	bool keyed = symbols_only(c, m);
	for (size_t i = 0; i < m->nr_offs; i++) {
		uint64_t a = m->readable ? elf_info__symbolizer_address(&m->elf, m->offs[i]) : m->offs[i];
		if (keyed)
			(void)elf_info__symbol_key(&m->elf, a, &a);
		m->sorted[i] = m->addrs[i] = a;
	}
	qsort(m->sorted, m->nr_offs, sizeof(*m->sorted), attrib_u64_cmp);
	size_t n = 0;
	for (size_t r = 0; r < m->nr_offs; r++)
		if (!n || m->sorted[n - 1] != m->sorted[r])
			m->sorted[n++] = m->sorted[r];
	m->nr_sorted = n;
	if (m->failed) /* rebuilt since the run: symbolizing it would name other code */
		return 0;
	if (c->tools->tool == ATTRIB_TOOL_ADDR2LINE && !m->readable) {
		attrib_mod_unreadable(c, m, ee.msg);
		return 0;
	}
	*go = n > 0;
	return 0;
}

/* How many calls share a module's addresses: one below SPLIT_ADDRS (every
 * recorded corpus call), else two processes over halves, run at once. It
 * depends on the count only, so a recording replays the same calls. */
#define SPLIT_ADDRS 8192
static size_t nr_parts(size_t n)
{
	return n >= SPLIT_ADDRS ? 2 : 1;
}

/* The calls' outputs parsed (in parallel where large) and taken in issue
 * order. */
static int take_all(struct ctx *c, struct call *k, struct exec_result *res, size_t nk)
{
	struct parse_job *jobs = xcalloc(nk ? nk : 1, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	for (size_t i = 0; i < nk; i++)
		jobs[i] = (struct parse_job){.res = &res[i], .tools = c->tools};
	parse_all(jobs, nk);
	int rc = 0;
	for (size_t i = 0; !rc && i < nk; i++)
		rc = take_answers(c, k[i].m, &jobs[i]);
	for (size_t i = 0; i < nk; i++)
		attrib_chains__release(&jobs[i].out);
	xfree(jobs);
	return rc;
}

/* The debug copies of a live Run (attrib/debug_copy.h, the Run's own,
 * shared with its other symbolizer calls): each module going to
 * llvm-symbolizer whose debug information is in a separate file. */
static int plan_copies(struct ctx *c, struct debug_copies *dc, bool debuginfod)
{
	bool replay = c->x->ops->recorded_meta && c->x->ops->recorded_meta(c->x);
	if (!dc || c->tools->tool != ATTRIB_TOOL_LLVM || c->o->record || replay)
		return 0;
	int rc = 0;
	for (size_t i = 0; !rc && dc->dir && i < c->nr_mods; i++) {
		const struct mod *m = &c->mods[i];
		if (m->nr_sorted && m->readable && !m->failed && !m->elf.has_debug_info)
			rc = debug_copies__consider(dc, m->path, m->elf.build_id, m->elf.debuglink,
						    debuginfod);
	}
	return rc;
}

/* Every module's symbolizer calls, issued in module order (the replay FIFO
 * order) and run concurrently through the executor's batch, with the debug
 * copies to make this Run (after them: a replay never has any). */
int attrib_symbolize_all(struct ctx *c)
{
	struct debug_copies *dc = c->o->debug_copies;
	bool debuginfod = c->env.debuginfod;
	size_t cap = 2 * c->nr_mods + 1, nk = 0;
	struct call *k = xcalloc(cap, sizeof(*k));
	int rc = k ? 0 : -ENOMEM;
	bool *go = xcalloc(c->nr_mods + 1, sizeof(*go));
	for (size_t i = 0; !rc && i < c->nr_mods; i++)
		rc = go ? prepare(c, &c->mods[i], &go[i]) : -ENOMEM;
	if (!rc)
		rc = plan_copies(c, dc, debuginfod);
	const char **extra = rc ? NULL : debug_copies__args(dc, debuginfod);
	size_t nj = rc ? 0 : debug_copies__pending(dc);
	struct exec_request *rq = xcalloc(cap + nj, sizeof(*rq));
	struct exec_result *res = xcalloc(cap + nj, sizeof(*res));
	if (!rc && (!rq || !res))
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		if (!go[i])
			continue;
		size_t parts = nr_parts(m->nr_sorted), per = (m->nr_sorted + parts - 1) / parts;
		for (size_t j = 0; !rc && j < parts; j++) {
			size_t lo = j * per, hi = lo + per < m->nr_sorted ? lo + per : m->nr_sorted;
			rc = call__init(c, &k[nk], m, m->sorted + lo, hi - lo, parts > 1, extra,
					&rq[nk]);
			nk++;
		}
	}
	xfree(go);
	if (!rc) {
		debug_copies__requests(dc, rq + nk);
		rc = executor__run_batch(c->x, rq, nk + nj, res, c->e);
	}
	if (!rc)
		debug_copies__finish(dc, res + nk);
	for (size_t i = 0; res && i < nj; i++)
		exec_result__release(&res[nk + i]);
	if (!rc)
		rc = take_all(c, k, res, nk);
	for (size_t i = 0; k && res && i < nk; i++) {
		exec_result__release(&res[i]);
		call__release(&k[i]);
	}
	xfree(extra);
	for (size_t i = 0; !rc && i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		for (size_t j = 0; !m->failed && j < m->answers.n; j++)
			if (m->answers.v[j].error)
				attrib_mod_unreadable(c, m, m->answers.v[j].error);
		if (!m->failed && m->chain)
			rc = match_answers(m);
	}
	xfree(k);
	xfree(rq);
	xfree(res);
	return rc;
}

/* Does m need `llvm-dwarfdump --debug-line`? Only when one of its Hotspots
 * carries a source position and its line table may hold DWARF 5 MD5s (read
 * from the ELF; a module not read here, as under replay, always asks). */
static bool wants_sums(struct ctx *c, struct mod *m)
{
	if (m->readable && m->elf.debug_line_md5 == 0)
		return false;
	for (size_t h = 0; h < c->p->nr_hotspots; h++) {
		const struct hotspot *hs = &c->p->hotspots[h];
		struct mod *hm;
		if (hs->level != RESOLUTION_UNRESOLVED || !hs->has_offset ||
		    strcmp(hs->module, m->path) != 0)
			continue;
		if (attrib_chain_has_file(attrib_chain_for(c, hs->module, hs->offset, &hm)))
			return true;
	}
	return false;
}

/* function vs symbol (`llvm-readelf -S`, for a module that yielded a bare
 * name and that the ELF reader did not read, or under recording: a
 * .dynsym-only module's names are symbols) and the DWARF 5
 * line-table MD5s (`llvm-dwarfdump --debug-line`) in one batch: all readelf
 * calls in module order, then all dwarfdump calls, as before the batch. */
int attrib_inspect_and_sums(struct ctx *c)
{
	bool llvm = c->tools->tool == ATTRIB_TOOL_LLVM;
	bool want_sums = !c->o->no_source && llvm && c->tools->dwarfdump;
	size_t n = 0, cap = 2 * c->nr_mods + 1;
	struct mod **who = xcalloc(cap, sizeof(*who));
	const char **argv = xcalloc(cap * 4, sizeof(*argv));
	struct exec_request *rq = xcalloc(cap, sizeof(*rq));
	struct exec_result *res = xcalloc(cap, sizeof(*res));
	bool *is_sum = xcalloc(cap, sizeof(*is_sum));
	int rc = who && argv && rq && res && is_sum ? 0 : -ENOMEM;
	for (int pass = 0; !rc && pass < 2; pass++) {
		for (size_t i = 0; i < c->nr_mods; i++) {
			struct mod *m = &c->mods[i];
			/* readelf only where the ELF reader did not read m (a
			 * replay's module), or to record its answer */
			bool readelf = m->has_bare && llvm && c->tools->readelf &&
				       (!m->readable || c->o->record);
			if (m->failed || (pass == 0 ? !readelf : !(want_sums && wants_sums(c, m))))
				continue;
			const char **a = argv + 4 * n;
			if (pass == 0)
				llvm_readelf__sections_argv(a, c->tools->readelf, m->path);
			else
				llvm_dwarfdump__lines_argv(a, c->tools->dwarfdump, m->path);
			rq[n] = (struct exec_request){.argv = a, .capture_stdout = true,
						      .capture_stderr = true, .cacheable = true,
						      .timeout_s = pass == 0 ? 60 : 120};
			is_sum[n] = pass == 1;
			who[n++] = m;
		}
	}
	if (!rc)
		rc = executor__run_batch(c->x, rq, n, res, c->e);
	for (size_t i = 0; !rc && i < n; i++) {
		struct mod *m = who[i];
		if (!is_sum[i] && res[i].exit_code == 0 && res[i].out &&
		    readelf_sections__parse(res[i].out, res[i].out_len, &m->sec, NULL) == 0)
			m->sections_known = true;
		if (is_sum[i]) {
			m->sums.module = m->path;
			if (res[i].exit_code == 0 && res[i].out)
				rc = dwarfdump_checksums__parse(res[i].out, res[i].out_len,
								&m->sums.sums);
		}
	}
	for (size_t i = 0; i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		if (!m->failed && m->has_bare && !m->sections_known && m->readable) {
			m->sec.symtab = m->elf.has_symtab;
			m->sec.dynsym = m->elf.has_dynsym;
			m->sec.debug_info = m->elf.has_debug_info;
			m->sections_known = true;
		}
	}
	for (size_t i = 0; res && i < n; i++)
		exec_result__release(&res[i]);
	xfree(who);
	xfree(argv);
	xfree(rq);
	xfree(res);
	xfree(is_sum);
	return rc;
}
