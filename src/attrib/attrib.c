// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/attrib.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/elf.h"
#include "attrib/attrib_ctx.h"
#include "attrib/internal.h"
#include "tools/locate.h"
#include "common/alloc.h"
#include "common/degradation_kinds.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "model/model.h"

static struct mod *mod_get(struct ctx *c, const char *path)
{
	for (size_t i = 0; i < c->nr_mods; i++)
		if (strcmp(c->mods[i].path, path) == 0)
			return &c->mods[i];
	struct mod *v = xrealloc(c->mods, (c->nr_mods + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->mods = v;
	struct mod *m = &v[c->nr_mods];
	memset(m, 0, sizeof(*m));
	if (!(m->path = xstrdup(path)))
		return NULL;
	m->weight = -1;
	m->stack_only = true;
	c->nr_mods++;
	return m;
}

static int mod_add_offset(struct mod *m, uint64_t off)
{
	if (xgrow((void **)&m->offs, &m->cap_offs, m->nr_offs + 1, sizeof(*m->offs)))
		return -ENOMEM;
	m->offs[m->nr_offs++] = off;
	return 0;
}

static int mod_order(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;
	if (x->stack_only != y->stack_only)
		return x->stack_only ? 1 : -1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Groups the distinct offsets to symbolize by module, heaviest module first:
 * the order the predecessor's recordings have (measurements by decreasing
 * value, modules by first appearance; stack-only modules after). */
static int collect(struct ctx *c)
{
	struct pivot *p = c->p;
	double *hw = xcalloc(p->nr_hotspots ? p->nr_hotspots : 1, sizeof(*hw));
	if (!hw)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_measurements; i++) {
		const struct measurement *m = &p->measurements[i];
		if (m->hotspot >= 0 && (size_t)m->hotspot < p->nr_hotspots &&
		    m->quality != QUALITY_UNAVAILABLE && m->value > hw[m->hotspot])
			hw[m->hotspot] = m->value;
	}
	int rc = 0;
	for (size_t h = 0; !rc && h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		if (hs->level != RESOLUTION_UNRESOLVED || !hs->has_offset || !attrib_symbolizable(hs->module))
			continue;
		struct mod *m = mod_get(c, hs->module);
		if (!m || mod_add_offset(m, hs->offset)) {
			rc = -ENOMEM;
			break;
		}
		m->stack_only = false;
		if (!m->build_id)
			m->build_id = hs->build_id;
		if (hw[h] > m->weight)
			m->weight = hw[h];
	}
	xfree(hw);
	for (size_t i = 0; !rc && i < p->nr_stack_frames; i++) {
		const struct stack_frame *sf = &p->stack_frames[i];
		if (sf->function || !attrib_symbolizable(sf->module))
			continue;
		struct mod *m = mod_get(c, sf->module);
		if (!m || mod_add_offset(m, sf->offset)) {
			rc = -ENOMEM;
			break;
		}
		double w = sf->stack >= 0 && (size_t)sf->stack < p->nr_stacks ?
				   p->stacks[sf->stack].value : 0;
		if (m->stack_only && w > m->weight)
			m->weight = w;
	}
	for (size_t i = 0; !rc && i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		qsort(m->offs, m->nr_offs, sizeof(*m->offs), attrib_u64_cmp);
		size_t w = 0;
		for (size_t r = 0; r < m->nr_offs; r++)
			if (!w || m->offs[w - 1] != m->offs[r])
				m->offs[w++] = m->offs[r];
		m->nr_offs = w;
	}
	if (!rc && c->nr_mods)
		qsort(c->mods, c->nr_mods, sizeof(*c->mods), mod_order);
	return rc;
}

static void chain_clear(struct attrib_chain *ch)
{
	for (size_t i = 0; i < ch->nr_frames; i++) {
		xfree(ch->frames[i].function);
		xfree(ch->frames[i].file);
	}
	zfree(&ch->frames);
	ch->nr_frames = 0;
}

/* A recording keeps what the extent rule decided from the ELF, which its
 * replay never reads (another machine's binary): start -1 = name dropped. */
static void note_extent(struct ctx *c, const struct mod *m, uint64_t addr, int64_t start)
{
	if (!c->extents)
		c->extents = json_object();
	json_t *arr = c->extents ? json_object_get(c->extents, m->path) : NULL;
	if (c->extents && !arr)
		json_object_set_new(c->extents, m->path, arr = json_array());
	if (arr)
		json_array_append_new(arr, json_pack("[I, I]", (json_int_t)addr, (json_int_t)start));
}

/* Under replay: the recorded verdicts for m (none in older entries). */
static void replay_extents(struct ctx *c, struct mod *m)
{
	const json_t *all = json_object_get(executor__recorded_meta(c->x), "elf_extents");
	const json_t *arr = json_object_get(all, m->path);
	for (size_t k = 0; k < json_array_size(arr); k++) {
		json_t *v = json_array_get(arr, k);
		json_t *a = json_array_get(v, 0), *st = json_array_get(v, 1);
		if (!json_is_integer(a) || !json_is_integer(st))
			continue;
		for (size_t i = 0; i < m->answers.n; i++) {
			struct attrib_chain *ch = &m->answers.v[i];
			if (!ch->nr_frames || ch->address != (uint64_t)json_integer_value(a))
				continue;
			struct attrib_frame *ph = &ch->frames[ch->nr_frames - 1];
			if (json_integer_value(st) < 0) {
				chain_clear(ch);
			} else {
				ph->start = (uint64_t)json_integer_value(st);
				ph->has_start = true;
			}
		}
	}
}

/* The extent rule where the symbolizer does not enforce it (addr2line, LLVM
 * older than 17): a symbol-table name needs a FUNC symbol covering the
 * address; a DWARF-described frame (with a file) is trusted. Fills the start
 * address the tool did not give from the covering symbol. */
static void enforce_extents(struct ctx *c, struct mod *m)
{
	bool a2l = c->tools->tool == ATTRIB_TOOL_ADDR2LINE;
	if (!m->readable && executor__recorded_meta(c->x))
		replay_extents(c, m);
	for (size_t i = 0; i < m->answers.n; i++) {
		struct attrib_chain *ch = &m->answers.v[i];
		if (!ch->nr_frames || !m->readable)
			continue;
		struct attrib_frame *ph = &ch->frames[ch->nr_frames - 1];
		const struct elf_func *f = elf_info__func_at(&m->elf, ch->address);
		if (!f && (a2l || (!ph->file && m->elf.nr_funcs))) {
			note_extent(c, m, ch->address, -1);
			chain_clear(ch);
			continue;
		}
		if (f && (a2l || !ph->has_start)) {
			ph->start = f->start;
			ph->has_start = true;
			note_extent(c, m, ch->address, (int64_t)f->start);
		}
	}
	for (size_t i = 0; i < m->answers.n; i++) {
		const struct attrib_chain *ch = &m->answers.v[i];
		if (ch->nr_frames && !ch->frames[ch->nr_frames - 1].file)
			m->has_bare = true;
	}
}

static enum resolution chain_level(const struct mod *m, const struct attrib_chain *ch)
{
	if (!ch || !ch->nr_frames)
		return RESOLUTION_UNRESOLVED;
	if (ch->frames[ch->nr_frames - 1].file)
		return RESOLUTION_LINE;
	if (m->sections_known && !m->sec.symtab && m->sec.dynsym)
		return RESOLUTION_SYMBOL;
	return RESOLUTION_FUNCTION;
}

static int name_stack_frames(struct ctx *c)
{
	for (size_t i = 0; i < c->p->nr_stack_frames; i++) {
		struct stack_frame *sf = &c->p->stack_frames[i];
		struct mod *m;
		if (sf->function)
			continue;
		const struct attrib_chain *ch = attrib_chain_for(c, sf->module, sf->offset, &m);
		if (!ch || !ch->nr_frames)
			continue;
		if (!(sf->function = xstrdup(ch->frames[ch->nr_frames - 1].function)))
			return -ENOMEM;
	}
	return 0;
}

static int build_attr(struct ctx *c, struct hotspot_attr **out)
{
	struct pivot *p = c->p;
	struct hotspot_attr *attr = xcalloc(p->nr_hotspots ? p->nr_hotspots : 1, sizeof(*attr));
	if (!attr)
		return -ENOMEM;
	for (size_t h = 0; h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		struct mod *m;
		if (hs->level != RESOLUTION_UNRESOLVED || !hs->has_offset)
			continue;
		attr[h].chain = attrib_chain_for(c, hs->module, hs->offset, &m);
		attr[h].level = m ? chain_level(m, attr[h].chain) : RESOLUTION_UNRESOLVED;
		if (m && m->readable && !hs->build_id)
			attr[h].build_id = m->elf.build_id;
	}
	*out = attr;
	return 0;
}

void attrib_sym_env__init(struct attrib_sym_env *env, bool disabled, int timeout_s)
{
	memset(env, 0, sizeof(*env));
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return; /* debuginfod off: nothing to tune */
	env->debuginfod = !disabled;
	if (disabled) {
		env->unset[0] = "DEBUGINFOD_URLS";
	} else if (!getenv("DEBUGINFOD_TIMEOUT")) {
		int t = timeout_s > 0 ? timeout_s : 10;
		if ((env->timeout_ = xasprintf("DEBUGINFOD_TIMEOUT=%d", t)))
			env->set[0] = env->timeout_;
	}
}

void attrib_sym_env__release(struct attrib_sym_env *env)
{
	xfree(env->timeout_);
	memset(env, 0, sizeof(*env));
}

static int steps(struct ctx *c)
{
	int rc = collect(c);
	if (!rc)
		rc = attrib_symbolize_all(c);
	for (size_t i = 0; !rc && i < c->nr_mods; i++)
		if (!c->mods[i].failed)
			enforce_extents(c, &c->mods[i]);
	if (!rc)
		rc = attrib_inspect_and_sums(c);
	if (!rc)
		rc = name_stack_frames(c);
	struct hotspot_attr *attr = NULL;
	if (!rc)
		rc = build_attr(c, &attr);
	if (!rc)
		rc = attrib_fuse(c->p, attr, c->e);
	xfree(attr);
	if (!rc && !c->o->no_source) {
		struct attrib_module_sums *ms = xcalloc(c->nr_mods ? c->nr_mods : 1, sizeof(*ms));
		if (!ms)
			return -ENOMEM;
		for (size_t i = 0; i < c->nr_mods; i++)
			ms[i] = c->mods[i].sums;
		rc = attrib_extract_sources(c->p, c->o, ms, c->nr_mods, c->e);
		xfree(ms);
	}
	return rc;
}

/* Everything after the kernel: the modules' symbolizers and the rest. */
static int user_space(struct ctx *c)
{
	const struct attrib_tools *tools = c->tools;
	if (tools->tool != ATTRIB_TOOL_LLVM) {
		const char *name;
		char *msg, *remedy;
		int rc = attrib_tools__degradation(tools, &name, &msg, &remedy);
		if (rc > 0)
			rc = degradations__add(c->d, name, msg, remedy) < 0 ? -ENOMEM : 0;
		xfree(msg);
		xfree(remedy);
		if (rc < 0)
			return rc;
		if (tools->tool == ATTRIB_TOOL_NONE)
			return 0; /* the Measurements stay exactly as ingested */
	}
	attrib_sym_env__init(&c->env, c->o->debuginfod_disabled, c->o->debuginfod_timeout_s);
	int rc = steps(c);
	if (!rc && c->extents) { /* a no-op unless x records */
		json_t *meta = json_pack("{s:O}", "elf_extents", c->extents);
		if (!meta || executor__annotate(c->x, meta) < 0)
			rc = err_set(c->e, -EIO, ERR_EXEC_RECORD,
				     "cannot write the extent verdicts into the recording's meta.json");
		json_decref(meta);
	}
	json_decref(c->extents);
	for (size_t i = 0; i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		xfree(m->path);
		xfree(m->offs);
		xfree(m->addrs);
		xfree(m->sorted);
		xfree(m->chain);
		attrib_chains__release(&m->answers);
		elf_info__release(&m->elf);
		line_checksums__release(&m->sums.sums);
	}
	xfree(c->mods);
	attrib_sym_env__release(&c->env);
	return rc;
}

int attrib_run(struct pivot *p, struct executor *x, const struct attrib_tools *tools,
	       const struct attrib_opts *opts, struct degradations *d, struct err *e)
{
	static const struct attrib_opts defaults = {0};
	struct ctx c = {.p = p, .x = x, .tools = tools, .o = opts ? opts : &defaults, .d = d, .e = e};
	/* The kernel first, from kallsyms: it needs no symbolizer (a kallsyms
	 * read from the kernel is cached on a thread meanwhile, joined here). */
	struct attrib_kstore *kstore = NULL;
	int rc = attrib_kernel(p, x, c.o, d, &kstore, e);
	if (!rc)
		rc = user_space(&c);
	attrib_kernel_store_join(kstore);
	if (rc == -ENOMEM && e && !e->errnum)
		err_set(e, rc, ERR_OOM, "attribution: out of memory");
	return rc;
}
