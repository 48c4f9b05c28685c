// SPDX-License-Identifier: BSD-3-Clause
/* stacks_ladder(): objdump and ldd through the executor (collect/stacks.h).
 * The invocation sequence per program is that of the corpus recordings:
 * objdump --version; ldd <target>; per module objdump -t (then -T when it
 * lists no function large enough) and one --disassemble per function. */
#include "collect/stacks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "collect/stacks_cache.h"
#include "exec/exec.h"
#include "tools/ldd.h"
#include "tools/objdump.h"

static int tool(struct executor *x, const char *const *argv, struct exec_result *r,
		struct err *e)
{
	struct exec_request rq = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				  .timeout_s = 60, .cacheable = true};
	memset(r, 0, sizeof(*r));
	return executor__run(x, &rq, r, e);
}

/* The module's sampled functions; -errno only for the executor's own failures. */
static int symbols_of(struct executor *x, const char *objdump, const char *mod, uint64_t *addrs,
		      size_t *n, struct err *e)
{
	*n = 0;
	for (int k = 0; k < 2 && *n == 0; k++) {
		const char *argv[4];
		objdump__symbols_argv(argv, objdump, k == 1, mod);
		struct exec_result r;
		int rc = tool(x, argv, &r, e);
		if (rc == 0 && r.exit_code == 0)
			*n = objdump__parse_symbols(r.out, STACKS_MIN_SYMBOL,
						    STACKS_SYMBOLS_PER_MODULE, addrs);
		exec_result__release(&r);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_module(struct executor *x, const char *objdump, struct stacks_module *m,
			struct err *e)
{
	uint64_t addrs[STACKS_SYMBOLS_PER_MODULE];
	size_t n = 0;
	int rc = symbols_of(x, objdump, m->path, addrs, &n, e);
	if (rc < 0 || n == 0)
		return rc;
	struct exec_request rq[STACKS_SYMBOLS_PER_MODULE];
	struct exec_result res[STACKS_SYMBOLS_PER_MODULE];
	struct objdump_range_argv argv[STACKS_SYMBOLS_PER_MODULE];
	memset(rq, 0, sizeof(rq));
	memset(res, 0, sizeof(res));
	for (size_t i = 0; i < n; i++) {
		objdump__disassemble_argv(&argv[i], objdump, m->path, addrs[i],
					  STACKS_PROLOGUE_BYTES);
		rq[i] = (struct exec_request){.argv = argv[i].argv, .capture_stdout = true,
					      .capture_stderr = true, .timeout_s = 60,
					      .cacheable = true};
	}
	rc = executor__run_batch(x, rq, n, res, e);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && res[i].exit_code == 0) {
			m->sampled++;
			m->with_fp += objdump__fp_prologue(res[i].out, STACKS_PROLOGUE_INSNS);
		}
		exec_result__release(&res[i]);
	}
	return rc;
}

/* GNU objdump answers --version with "GNU objdump ..."; LLVM's is refused. */
static bool gnu_objdump(struct executor *x, const char *objdump, struct err *e)
{
	const char *argv[3];
	objdump__version_argv(argv, objdump);
	struct exec_result r;
	bool ok = tool(x, argv, &r, e) == 0 && r.exit_code == 0 && objdump__is_gnu(r.out);
	exec_result__release(&r);
	return ok;
}

static int add_module(struct stacks_decision *d, size_t *cap, char *path)
{
	if (!path || xgrow((void **)&d->modules, cap, d->nr_modules + 1, sizeof(*d->modules)) < 0) {
		xfree(path);
		return -ENOMEM;
	}
	d->modules[d->nr_modules++] = (struct stacks_module){.path = path};
	return 0;
}

/* The target's libraries: the cache's, else ldd's (then cached). */
static int target_libs(struct executor *x, const char *target, struct stacks_cache *c,
		       const char *tkey, struct stacks_decision *d, size_t *cap, struct err *e)
{
	const char *ldp = getenv("LD_LIBRARY_PATH");
	size_t nl = 0;
	char **libs = c ? stacks_cache__libs(c, tkey, ldp, &nl) : NULL;
	int rc = 0;
	if (!libs) {
		const char *largv[LDD_ARGC + 1];
		ldd__argv(largv, target);
		struct exec_result r;
		if ((rc = tool(x, largv, &r, e)) == 0 && r.exit_code == 0) {
			libs = ldd__parse(r.out, &nl);
			if (c)
				stacks_cache__put_libs(c, tkey, ldp, libs, nl);
		}
		exec_result__release(&r);
	}
	for (size_t i = 0; i < nl; i++)
		if (rc == 0)
			rc = add_module(d, cap, libs[i]);
		else
			xfree(libs[i]);
	xfree(libs);
	return rc;
}

int stacks_ladder(struct executor *x, const char *objdump, const char *target,
		  const char *cpu_model, double threshold, bool use_cache,
		  struct stacks_decision *d, struct err *e)
{
	memset(d, 0, sizeof(*d));
	if (cpu_model && strstr(cpu_model, "Intel")) {
		stacks_decide(d, cpu_model, true, threshold);
		return 0;
	}
	struct stacks_cache cache, *c = use_cache ? &cache : NULL;
	if (c)
		stacks_cache__load(c);
	char *tkey = c ? stacks_cache_key(target) : NULL;
	size_t cap = 0;
	int rc = add_module(d, &cap, xstrdup(target));
	if (rc == 0)
		rc = target_libs(x, target, c, tkey, d, &cap, e);
	int gnu = -1; /* objdump asked only when a module is not cached */
	for (size_t i = 0; rc == 0 && i < d->nr_modules && gnu != 0; i++) {
		struct stacks_module *m = &d->modules[i];
		char *key = c ? stacks_cache_key(m->path) : NULL;
		if (!stacks_cache__module(c ? c : &(struct stacks_cache){0}, key, &m->sampled,
					  &m->with_fp)) {
			if (gnu < 0)
				gnu = gnu_objdump(x, objdump, e);
			if (gnu > 0 && (rc = check_module(x, objdump, m, e)) == 0 && c)
				stacks_cache__put_module(c, key, m->sampled, m->with_fp);
		}
		xfree(key);
	}
	xfree(tkey);
	if (c)
		stacks_cache__save(c);
	if (rc == -ENOMEM)
		return err_set(e, rc, ERR_OOM, "out of memory");
	d->no_objdump = gnu == 0;
	stacks_decide(d, cpu_model, gnu != 0, threshold);
	return 0;
}
