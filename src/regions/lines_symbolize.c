// SPDX-License-Identifier: BSD-3-Clause
#include "regions/lines_symbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/attrib.h"
#include "attrib/debug_copy.h"
#include "attrib/elf.h"
#include "tools/locate.h"
#include "tools/symbolizer.h"
#include "tools/symbolizer_parse.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"

void sym_loc__release(struct sym_loc *l)
{
	zfree(&l->file);
	zfree(&l->function);
}

static bool in_load(const struct elf_info *elf, uint64_t v)
{
	for (size_t i = 0; i < elf->nr_loads; i++)
		if (v >= elf->loads[i].vaddr && v - elf->loads[i].vaddr < elf->loads[i].memsz)
			return true;
	return false;
}

uint64_t lines_vaddr(const struct elf_info *elf, uint64_t address, uint64_t load)
{
	uint64_t rel = address - load;
	if (elf && elf->type == ELF_TYPE_EXEC && !in_load(elf, rel) && in_load(elf, address))
		return address;
	return rel;
}

static int find(const uint64_t *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == a ? (int)lo : -1;
}

/* One answer (res, from the call over job's addresses) into job->out. */
static int take_answer(const struct attrib_tools *t, struct lines_job *job,
		       const struct exec_result *res, struct err *e)
{
	if (res->exit_code != 0)
		return err_set(e, -EIO, ERR_SYMBOLIZER_FAILED, "%s on %s exited with %d: %.120s",
			       t->path, job->module, res->exit_code, res->err ? res->err : "");
	struct attrib_chains chains = {0};
	int rc = res->out ? symbolizer__parse(t, res->out, res->out_len, &chains, e) : 0;
	for (size_t i = 0; rc == 0 && i < chains.n; i++) {
		const struct attrib_chain *c = &chains.v[i];
		int k = find(job->vaddrs, job->n, c->address);
		if (k < 0 || c->nr_frames == 0 || job->out[k].function)
			continue;
		/* The innermost frame holds the line the address belongs to. */
		const struct attrib_frame *f = &c->frames[0];
		job->out[k].function = f->function ? xstrdup(f->function) : NULL;
		if (f->file && f->line > 0) {
			job->out[k].file = xstrdup(f->file);
			job->out[k].line = f->line;
		}
	}
	attrib_chains__release(&chains);
	return rc;
}

/* The debug copies this batch uses and makes (attrib/debug_copy.h): a live
 * Run's, with llvm-symbolizer; never under a replay. Without the Run's
 * environment edits, DEBUGINFOD_URLS reaches the symbolizer when set. */
static int plan_copies(struct executor *x, const struct attrib_tools *t, struct lines_job *jobs,
		       size_t nj, const struct lines_run *run, const char ***extra)
{
	*extra = NULL;
	struct debug_copies *dc = run ? run->copies : NULL;
	bool replay = x->ops->recorded_meta && x->ops->recorded_meta(x);
	if (!dc || !dc->dir || t->tool != ATTRIB_TOOL_LLVM || replay)
		return 0;
	const char *urls = getenv("DEBUGINFOD_URLS");
	bool debuginfod = run->env ? run->env->debuginfod : urls && *urls;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nj; i++)
		rc = debug_copies__consider_module(dc, jobs[i].module, debuginfod);
	if (rc == 0)
		*extra = debug_copies__args(dc, debuginfod);
	return rc;
}

/* Call i's request: argv and stdin from its adapter, with the copies'
 * arguments (the cache keys it without them: exec.h cache_argv). */
static int request(const struct symbolizer_call *sc, const char *const *extra, bool cached,
		   const struct attrib_sym_env *env, const char ***argv_own,
		   struct exec_request *rq)
{
	bool oom;
	*argv_own = debug_copies__argv(sc->argv, extra, &oom);
	if (oom)
		return -ENOMEM;
	/* cached: the answer per address (a later Run asks only what it
	 * has not seen in this build of the module), and every module in
	 * one process (exec/merge.c) */
	*rq = (struct exec_request){.argv = *argv_own ? *argv_own : sc->argv,
				    .cache_argv = *argv_own ? sc->argv : NULL,
				    .stdin_data = sc->stdin_data, .stdin_len = sc->stdin_len,
				    .capture_stdout = true, .capture_stderr = true,
				    .timeout_s = 300, .cacheable = cached,
				    .cache_per_line = cached && sc->per_line,
				    .merge_slot = cached ? sc->merge_slot : 0,
				    .merge_prefix = cached ? sc->merge_prefix : NULL,
				    .env_set = env && env->set[0] ? env->set : NULL,
				    .env_unset = env && env->unset[0] ? env->unset : NULL};
	return 0;
}

void lines_jobs__free(struct lines_job *jobs, size_t nj)
{
	for (size_t i = 0; jobs && i < nj; i++) {
		for (size_t k = 0; jobs[i].out && k < jobs[i].n; k++)
			sym_loc__release(&jobs[i].out[k]);
		xfree(jobs[i].out);
		xfree((void *)jobs[i].vaddrs);
	}
	xfree(jobs);
}

int lines_symbolize_many(struct executor *x, const struct attrib_tools *t, struct lines_job *jobs,
			 size_t nj, bool cached, const struct lines_run *run, struct err *e)
{
	const char **extra = NULL;
	struct debug_copies *dc = run ? run->copies : NULL;
	int rc = plan_copies(x, t, jobs, nj, run, &extra);
	size_t np = rc == 0 ? debug_copies__pending(dc) : 0;
	struct symbolizer_call *sc = xcalloc(nj + 1, sizeof(*sc));
	const char ***own = xcalloc(nj + 1, sizeof(*own));
	struct exec_request *rq = xcalloc(nj + np + 1, sizeof(*rq));
	struct exec_result *res = xcalloc(nj + np + 1, sizeof(*res));
	rc = rc == 0 && sc && own && rq && res ? 0 : -ENOMEM;
	size_t made = 0;
	for (; rc == 0 && made < nj; made++) {
		struct lines_job *j = &jobs[made];
		memset(j->out, 0, j->n * sizeof(*j->out));
		/* Always on stdin: a module's sampled addresses can be many. */
		rc = symbolizer_call__init(&sc[made], t, j->module, j->vaddrs, j->n, false);
		if (rc < 0)
			break;
		rc = request(&sc[made], extra, cached, run ? run->env : NULL, &own[made], &rq[made]);
	}
	if (rc == -ENOMEM)
		err_oom(e);
	else if (rc < 0)
		err_set(e, rc, ERR_SYMBOLIZER_FAILED, "no symbolizer to name %s",
			jobs[made].module);
	if (rc == 0) {
		debug_copies__requests(dc, rq + nj);
		rc = executor__run_batch(x, rq, nj + np, res, e);
	}
	if (rc == 0)
		debug_copies__finish(dc, res + nj);
	for (size_t i = 0; rc == 0 && i < nj; i++) {
		struct err je = {0};
		jobs[i].rc = take_answer(t, &jobs[i], &res[i], nj == 1 ? e : &je);
		if (jobs[i].rc == -ENOMEM)
			rc = err_oom(e);
	}
	for (size_t i = 0; res && i < nj + np; i++)
		exec_result__release(&res[i]);
	for (size_t i = 0; sc && own && i < made; i++) {
		symbolizer_call__release(&sc[i]);
		xfree(own[i]);
	}
	xfree(extra);
	xfree(own);
	xfree(sc);
	xfree(rq);
	xfree(res);
	return rc;
}

int lines_symbolize(struct executor *x, const struct attrib_tools *t, const char *module,
		    const uint64_t *vaddrs, size_t n, struct sym_loc *out, struct debug_copies *dc,
		    struct err *e)
{
	struct lines_job job = {.module = module, .vaddrs = vaddrs, .n = n, .out = out};
	struct lines_run run = {.copies = dc};
	int rc = lines_symbolize_many(x, t, &job, 1, false, &run, e);
	return rc ? rc : job.rc; /* job.rc < 0: e says why */
}
