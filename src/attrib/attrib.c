// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/attrib.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib/elf.h"
#include "attrib/internal.h"
#include "attrib/locate.h"
#include "common/alloc.h"
#include "common/err.h"
#include "exec/exec.h"
#include "model/model.h"

/* Up to this many addresses go on the command line, the shape the corpus
 * recorded (`llvm-symbolizer --output-style=JSON --obj=M 0x… …`); beyond it
 * they are fed on stdin, one per line, still one process per module: LLVM
 * 14 answers twice as fast that way (measured: its argv mode builds one JSON
 * array for the whole batch), and argv stays far below ARG_MAX. Both output
 * shapes parse the same. */
#define ADDRS_ON_ARGV 1024

struct mod {
	char *path;
	double weight;
	bool stack_only;
	uint64_t *offs; /* original module-relative offsets, sorted, unique */
	size_t nr_offs, cap_offs;
	uint64_t *addrs; /* the symbolizer address of each offset */
	const struct attrib_chain **chain; /* per offset, NULL when unanswered */
	struct attrib_chains answers;
	const char *build_id; /* as ingestion recorded it (borrowed from the pivot), or NULL */
	struct elf_info elf;
	bool readable, failed, has_bare, sections_known;
	struct module_sections sec;
	struct attrib_module_sums sums;
};

struct ctx {
	struct pivot *p;
	struct executor *x;
	const struct attrib_tools *tools;
	const struct attrib_opts *o;
	struct degradations *d;
	struct err *e;
	struct mod *mods;
	size_t nr_mods;
	const char *env_set[2];
	const char *env_unset[2];
	char *timeout_env;
};

/* Only files can be symbolized: kernel, [vdso], [unknown], //anon and
 * /proc/… maps stay unresolved. */
static bool symbolizable(const char *module)
{
	return module && module[0] == '/' && strncmp(module, "/proc/", 6) != 0 &&
	       strncmp(module, "//anon", 6) != 0;
}

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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
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
		if (hs->level != RESOLUTION_UNRESOLVED || !hs->has_offset || !symbolizable(hs->module))
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
		if (sf->function || !symbolizable(sf->module))
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
		qsort(m->offs, m->nr_offs, sizeof(*m->offs), u64_cmp);
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

static void degrade(struct ctx *c, const char *name, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void degrade(struct ctx *c, const char *name, const char *remedy, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	degradations__add(c->d, name, msg, remedy);
}

/* Last line of a tool's stderr, for a degradation message. */
static const char *stderr_tail(const struct exec_result *r, char *buf, size_t n)
{
	if (!r->err || !r->err_len)
		return "no message";
	size_t end = r->err_len;
	while (end && (r->err[end - 1] == '\n' || r->err[end - 1] == '\r'))
		end--;
	size_t start = end;
	while (start && r->err[start - 1] != '\n')
		start--;
	snprintf(buf, n, "%.*s", (int)(end - start), r->err + start);
	return buf;
}

static void mod_unreadable(struct ctx *c, struct mod *m, const char *why)
{
	m->failed = true;
	degrade(c, "module-unreadable",
		"run attribution where the module exists unchanged at this path",
		"%s cannot be read (%s): its Hotspots stay unresolved, shown as module+0x…",
		m->path, why);
}

/* The addresses as "0x…" strings, on argv (small batches) or as stdin. */
static int address_args(const uint64_t *addrs, size_t n, const char **argv, char **buf)
{
	bool on_argv = n <= ADDRS_ON_ARGV;
	char *hex = xmalloc(n * 20 + 1);
	if (!(*buf = hex))
		return -ENOMEM;
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(hex + len, 20, "0x%" PRIx64, addrs[i]);
		if (on_argv)
			argv[i] = hex + len;
		len += (size_t)k + 1;
		if (!on_argv)
			hex[len - 1] = '\n';
	}
	hex[len] = '\0';
	return 0;
}

/* One invocation over addrs[0..n); answers appended to m->answers. */
static int invoke(struct ctx *c, struct mod *m, const uint64_t *addrs, size_t n)
{
	bool llvm = c->tools->tool == ATTRIB_TOOL_LLVM, on_argv = n <= ADDRS_ON_ARGV;
	size_t fixed = llvm ? 3 : 7;
	const char **argv = xcalloc(fixed + n + 1, sizeof(*argv));
	char *hex = NULL, *obj = NULL;
	int rc = -ENOMEM;
	if (!argv || address_args(addrs, n, argv + fixed, &hex))
		goto out;
	argv[0] = c->tools->path;
	if (llvm) {
		if (!(obj = xasprintf("--obj=%s", m->path)))
			goto out;
		argv[1] = "--output-style=JSON";
		argv[2] = obj;
	} else {
		const char *a2l[] = {"-e", m->path, "-a", "-f", "-C", "-i"};
		memcpy(argv + 1, a2l, sizeof(a2l));
	}
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .stdin_data = on_argv ? NULL : hex,
				   .stdin_len = on_argv ? 0 : strlen(hex),
				   .env_set = c->env_set[0] ? c->env_set : NULL,
				   .env_unset = c->env_unset[0] ? c->env_unset : NULL};
	struct exec_result res = {0};
	if ((rc = executor__run(c->x, &req, &res, c->e)))
		goto out;
	char tail[256];
	struct err pe = {0};
	int prc;
	if (res.exit_code != 0) {
		m->failed = true;
		degrade(c, "symbolization-failed", "check that the symbolizer runs: doctor",
			"%s exited with %d on %s: %s", c->tools->path, res.exit_code, m->path,
			stderr_tail(&res, tail, sizeof(tail)));
	} else if ((prc = llvm ? symbolizer_json__parse(res.out ? res.out : "", res.out_len,
							&m->answers, &pe)
			       : addr2line__parse(res.out ? res.out : "", res.out_len, &m->answers, &pe))) {
		if (prc == -ENOMEM)
			rc = -ENOMEM;
		m->failed = true;
		degrade(c, "symbolization-failed", "report this output to the nunatak developers",
			"unparsed symbolizer output for %s, Hotspots left unresolved: %s", m->path,
			pe.msg);
	}
	exec_result__release(&res);
out:
	xfree(argv);
	xfree(hex);
	xfree(obj);
	return rc;
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

static int symbolize(struct ctx *c, struct mod *m)
{
	struct err ee = {0};
	/* A replay never trusts the local file at a recorded path: it is
	 * another machine's binary. */
	bool replay = c->x->ops->recorded_meta && c->x->ops->recorded_meta(c->x);
	m->readable = !replay && elf_info__read(&m->elf, m->path, ELF_READ_SYMBOLS, &ee) == 0;
	if (m->readable && m->build_id && m->elf.build_id && strcmp(m->build_id, m->elf.build_id)) {
		elf_info__release(&m->elf);
		m->readable = false;
		snprintf(ee.msg, sizeof(ee.msg), "its build-id is no longer %s: rebuilt since the run",
			 m->build_id);
		mod_unreadable(c, m, ee.msg);
	}
	m->addrs = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*m->addrs));
	m->chain = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*m->chain));
	uint64_t *sorted = xcalloc(m->nr_offs ? m->nr_offs : 1, sizeof(*sorted));
	int rc = -ENOMEM;
	if (!m->addrs || !m->chain || !sorted)
		goto out;
	for (size_t i = 0; i < m->nr_offs; i++)
		sorted[i] = m->addrs[i] = m->readable ? elf_info__symbolizer_address(&m->elf, m->offs[i])
						      : m->offs[i];
	qsort(sorted, m->nr_offs, sizeof(*sorted), u64_cmp);
	size_t n = 0;
	for (size_t r = 0; r < m->nr_offs; r++)
		if (!n || sorted[n - 1] != sorted[r])
			sorted[n++] = sorted[r];
	rc = 0;
	if (m->failed) /* rebuilt since the run: symbolizing it would name other code */
		goto out;
	if (c->tools->tool == ATTRIB_TOOL_ADDR2LINE && !m->readable) {
		mod_unreadable(c, m, ee.msg);
		goto out;
	}
	if (n)
		rc = invoke(c, m, sorted, n);
	for (size_t i = 0; !rc && !m->failed && i < m->answers.n; i++)
		if (m->answers.v[i].error)
			mod_unreadable(c, m, m->answers.v[i].error);
	if (!rc && !m->failed)
		rc = match_answers(m);
out:
	xfree(sorted);
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

/* The extent rule where the symbolizer does not enforce it (addr2line, LLVM
 * older than 17): a symbol-table name needs a FUNC symbol covering the
 * address; a DWARF-described frame (with a file) is trusted. Fills the start
 * address the tool did not give from the covering symbol. */
static void enforce_extents(struct ctx *c, struct mod *m)
{
	bool a2l = c->tools->tool == ATTRIB_TOOL_ADDR2LINE;
	for (size_t i = 0; i < m->answers.n; i++) {
		struct attrib_chain *ch = &m->answers.v[i];
		if (!ch->nr_frames || !m->readable)
			continue;
		struct attrib_frame *ph = &ch->frames[ch->nr_frames - 1];
		const struct elf_func *f = elf_info__func_at(&m->elf, ch->address);
		if (!f && (a2l || (!ph->file && m->elf.nr_funcs))) {
			chain_clear(ch);
			continue;
		}
		if (f && (a2l || !ph->has_start)) {
			ph->start = f->start;
			ph->has_start = true;
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

/* function vs symbol: a bare name from a .dynsym-only module is a symbol. */
static int inspect(struct ctx *c, struct mod *m)
{
	if (c->tools->tool == ATTRIB_TOOL_LLVM && c->tools->readelf) {
		const char *argv[] = {c->tools->readelf, "-S", m->path, NULL};
		struct exec_request req = {.argv = argv, .capture_stdout = true,
					   .capture_stderr = true, .timeout_s = 60};
		struct exec_result res = {0};
		int rc = executor__run(c->x, &req, &res, c->e);
		if (rc)
			return rc;
		if (res.exit_code == 0 && res.out &&
		    readelf_sections__parse(res.out, res.out_len, &m->sec, NULL) == 0)
			m->sections_known = true;
		exec_result__release(&res);
	}
	if (!m->sections_known && m->readable) {
		m->sec.symtab = m->elf.has_symtab;
		m->sec.dynsym = m->elf.has_dynsym;
		m->sec.debug_info = m->elf.has_debug_info;
		m->sections_known = true;
	}
	return 0;
}

static const struct attrib_chain *chain_for(struct ctx *c, const char *module, uint64_t off,
					    struct mod **mod_out)
{
	*mod_out = NULL;
	if (!symbolizable(module))
		return NULL;
	for (size_t i = 0; i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		if (strcmp(m->path, module) != 0)
			continue;
		*mod_out = m;
		if (m->failed || !m->chain)
			return NULL;
		uint64_t *hit = bsearch(&off, m->offs, m->nr_offs, sizeof(off), u64_cmp);
		return hit ? m->chain[hit - m->offs] : NULL;
	}
	return NULL;
}

static int name_stack_frames(struct ctx *c)
{
	for (size_t i = 0; i < c->p->nr_stack_frames; i++) {
		struct stack_frame *sf = &c->p->stack_frames[i];
		struct mod *m;
		if (sf->function)
			continue;
		const struct attrib_chain *ch = chain_for(c, sf->module, sf->offset, &m);
		if (!ch || !ch->nr_frames)
			continue;
		if (!(sf->function = xstrdup(ch->frames[ch->nr_frames - 1].function)))
			return -ENOMEM;
	}
	return 0;
}

static bool chain_has_file(const struct attrib_chain *ch)
{
	for (size_t i = 0; ch && i < ch->nr_frames; i++)
		if (ch->frames[i].file)
			return true;
	return false;
}

/* DWARF 5 line-table MD5s of the modules whose Hotspots carry positions. */
static int line_checksums(struct ctx *c, struct mod *m)
{
	const char *argv[] = {c->tools->dwarfdump, "--debug-line", m->path, NULL};
	struct exec_request req = {.argv = argv, .capture_stdout = true, .capture_stderr = true,
				   .timeout_s = 120};
	struct exec_result res = {0};
	int rc = executor__run(c->x, &req, &res, c->e);
	if (rc)
		return rc;
	m->sums.module = m->path;
	if (res.exit_code == 0 && res.out)
		rc = dwarfdump_checksums__parse(res.out, res.out_len, &m->sums.sums);
	exec_result__release(&res);
	return rc;
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
		attr[h].chain = chain_for(c, hs->module, hs->offset, &m);
		attr[h].level = m ? chain_level(m, attr[h].chain) : RESOLUTION_UNRESOLVED;
		if (m && m->readable && !hs->build_id)
			attr[h].build_id = m->elf.build_id;
	}
	*out = attr;
	return 0;
}

static void set_env(struct ctx *c)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !*urls)
		return; /* debuginfod off: nothing to tune */
	if (c->o->debuginfod_disabled) {
		c->env_unset[0] = "DEBUGINFOD_URLS";
	} else if (!getenv("DEBUGINFOD_TIMEOUT")) {
		int t = c->o->debuginfod_timeout_s > 0 ? c->o->debuginfod_timeout_s : 10;
		if ((c->timeout_env = xasprintf("DEBUGINFOD_TIMEOUT=%d", t)))
			c->env_set[0] = c->timeout_env;
	}
}

static int steps(struct ctx *c)
{
	int rc = collect(c);
	for (size_t i = 0; !rc && i < c->nr_mods; i++)
		rc = symbolize(c, &c->mods[i]);
	for (size_t i = 0; !rc && i < c->nr_mods; i++)
		if (!c->mods[i].failed)
			enforce_extents(c, &c->mods[i]);
	for (size_t i = 0; !rc && i < c->nr_mods; i++)
		if (!c->mods[i].failed && c->mods[i].has_bare)
			rc = inspect(c, &c->mods[i]);
	if (!rc)
		rc = name_stack_frames(c);
	struct hotspot_attr *attr = NULL;
	if (!rc)
		rc = build_attr(c, &attr);
	bool want_sums = !c->o->no_source && c->tools->tool == ATTRIB_TOOL_LLVM && c->tools->dwarfdump;
	for (size_t i = 0; !rc && want_sums && i < c->nr_mods; i++) {
		struct mod *m = &c->mods[i];
		bool positions = false;
		for (size_t h = 0; !positions && h < c->p->nr_hotspots; h++)
			positions = attr[h].chain && chain_has_file(attr[h].chain) &&
				    strcmp(c->p->hotspots[h].module, m->path) == 0;
		if (positions)
			rc = line_checksums(c, m);
	}
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

int attrib_run(struct pivot *p, struct executor *x, const struct attrib_tools *tools,
	       const struct attrib_opts *opts, struct degradations *d, struct err *e)
{
	static const struct attrib_opts defaults = {0};
	struct ctx c = {.p = p, .x = x, .tools = tools, .o = opts ? opts : &defaults, .d = d, .e = e};
	if (tools->tool != ATTRIB_TOOL_LLVM) {
		const char *name;
		char *msg, *remedy;
		int rc = attrib_tools__degradation(tools, &name, &msg, &remedy);
		if (rc > 0)
			rc = degradations__add(d, name, msg, remedy) < 0 ? -ENOMEM : 0;
		xfree(msg);
		xfree(remedy);
		if (rc < 0)
			return rc;
		if (tools->tool == ATTRIB_TOOL_NONE)
			return 0; /* the Measurements stay exactly as ingested */
	}
	set_env(&c);
	int rc = steps(&c);
	for (size_t i = 0; i < c.nr_mods; i++) {
		struct mod *m = &c.mods[i];
		xfree(m->path);
		xfree(m->offs);
		xfree(m->addrs);
		xfree(m->chain);
		attrib_chains__release(&m->answers);
		elf_info__release(&m->elf);
		line_checksums__release(&m->sums.sums);
	}
	xfree(c.mods);
	xfree(c.timeout_env);
	if (rc == -ENOMEM && e && !e->errnum)
		err_set(e, rc, "attrib.nomem", "attribution: out of memory");
	return rc;
}
