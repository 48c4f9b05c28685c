// SPDX-License-Identifier: BSD-3-Clause
#include "regions/lines_symbolize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

int lines_symbolize(struct executor *x, const struct attrib_tools *t, const char *module,
		    const uint64_t *vaddrs, size_t n, struct sym_loc *out, struct err *e)
{
	memset(out, 0, n * sizeof(*out));
	/* Always on stdin: a module's sampled addresses can be many. */
	struct symbolizer_call sc;
	int rc = symbolizer_call__init(&sc, t, module, vaddrs, n, false);
	if (rc == -ENOMEM)
		return err_oom(e);
	if (rc < 0)
		return err_set(e, rc, ERR_SYMBOLIZER_FAILED, "no symbolizer to name %s", module);
	struct exec_request req = {.argv = sc.argv, .stdin_data = sc.stdin_data,
				   .stdin_len = sc.stdin_len, .capture_stdout = true,
				   .capture_stderr = true, .timeout_s = 300};
	struct exec_result res = {0};
	struct attrib_chains chains = {0};
	rc = executor__run(x, &req, &res, e);
	if (rc == 0 && res.exit_code != 0)
		rc = err_set(e, -EIO, ERR_SYMBOLIZER_FAILED, "%s on %s exited with %d: %.120s",
			     t->path, module, res.exit_code, res.err ? res.err : "");
	if (rc == 0 && res.out)
		rc = symbolizer__parse(t, res.out, res.out_len, &chains, e);
	for (size_t i = 0; rc == 0 && i < chains.n; i++) {
		const struct attrib_chain *c = &chains.v[i];
		int k = find(vaddrs, n, c->address);
		if (k < 0 || c->nr_frames == 0 || out[k].function)
			continue;
		/* The innermost frame holds the line the address belongs to. */
		const struct attrib_frame *f = &c->frames[0];
		out[k].function = f->function ? xstrdup(f->function) : NULL;
		if (f->file && f->line > 0) {
			out[k].file = xstrdup(f->file);
			out[k].line = f->line;
		}
	}
	attrib_chains__release(&chains);
	exec_result__release(&res);
	symbolizer_call__release(&sc);
	return rc;
}
