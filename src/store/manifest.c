// SPDX-License-Identifier: BSD-3-Clause
// manifest.json: building and writing (reading is in manifest_read.c).
#include "store/manifest.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "common/json_text.h"
#include "common/signame.h"

const char *run_status__name(enum run_status st)
{
	return st == RUN_STATUS_ABANDONED ? "abandoned"
	       : st == RUN_STATUS_INCOMPLETE ? "incomplete" : "complete";
}

static json_t *sig_json(int sig)
{
	char buf[16];
	return json_string(sig_name(sig, buf, sizeof(buf)));
}

/* One sentence for run.outcome and the terminal: how the application ended
 * and how far the Run got. */
static json_t *outcome_json(const struct manifest *m)
{
	char out[256], a[16], b[16];
	size_t n = 0;
	if (m->exit_code < 0)
		n = (size_t)snprintf(out, sizeof(out), "the application never ran");
	else if (m->interrupted_by && m->term_signal)
		n = (size_t)snprintf(out, sizeof(out), "interrupted by %s; the application ended "
				     "by %s (exit %d)", sig_name(m->interrupted_by, a, sizeof(a)),
				     sig_name(m->term_signal, b, sizeof(b)), m->exit_code);
	else if (m->interrupted_by)
		n = (size_t)snprintf(out, sizeof(out), "interrupted by %s; the application exited "
				     "with %d", sig_name(m->interrupted_by, a, sizeof(a)),
				     m->exit_code);
	else if (m->term_signal)
		n = (size_t)snprintf(out, sizeof(out), "the application was ended by %s (exit %d)",
				     sig_name(m->term_signal, a, sizeof(a)), m->exit_code);
	else
		n = (size_t)snprintf(out, sizeof(out), "the application exited with %d",
				     m->exit_code);
	if (n < sizeof(out) && m->status == RUN_STATUS_ABANDONED)
		snprintf(out + n, sizeof(out) - n, "; abandoned by a second interrupt: "
			 "nunatak stopped waiting and the Run holds only what was written then");
	else if (n < sizeof(out) && m->status == RUN_STATUS_INCOMPLETE)
		snprintf(out + n, sizeof(out) - n, "; post-processing did not finish (nunatak was "
			 "stopped or failed after the application ended)");
	return json_string(out);
}

void manifest__init(struct manifest *m)
{
	memset(m, 0, sizeof(*m));
	m->schema = RUN_SCHEMA;
	m->exit_code = -1;
	m->world_size = -1;
	m->provenance.dirty_tree = -1;
	machine__init(&m->machine);
}

static void pass__release(struct pass *p)
{
	xfree(p->start);
	xfree(p->end);
	for (size_t i = 0; i < p->nr_collectors; i++) {
		xfree(p->collectors[i].tool);
		xfree(p->collectors[i].version);
	}
	xfree(p->collectors);
}

void manifest__release(struct manifest *m)
{
	xfree(m->generated_by);
	xfree(m->name);
	xfree(m->created);
	for (size_t i = 0; i < m->nr_command; i++)
		xfree(m->command[i]);
	xfree(m->command);
	machine__release(&m->machine);
	xfree(m->provenance.commit);
	json_decref(m->provenance.dependencies);
	json_decref(m->provenance.effective_configuration);
	for (size_t i = 0; i < m->nr_passes; i++)
		pass__release(&m->passes[i]);
	xfree(m->passes);
	degradations__release(&m->degradations);
	for (size_t i = 0; i < m->nr_files; i++) {
		xfree(m->files[i].table);
		xfree(m->files[i].relpath);
	}
	xfree(m->files);
	json_decref(m->overhead);
	json_decref(m->cost);
	json_decref(m->multi_pass);
	json_decref(m->nodes);
	manifest__init(m);
}

int manifest__set_command(struct manifest *m, const char *const *argv, size_t argc)
{
	char **cmd = xcalloc(argc ? argc : 1, sizeof(char *));
	if (!cmd)
		return -ENOMEM;
	for (size_t i = 0; i < argc; i++)
		if (!(cmd[i] = xstrdup(argv[i]))) {
			while (i--)
				xfree(cmd[i]);
			xfree(cmd);
			return -ENOMEM;
		}
	for (size_t i = 0; i < m->nr_command; i++)
		xfree(m->command[i]);
	xfree(m->command);
	m->command = cmd;
	m->nr_command = argc;
	return 0;
}

int manifest__add_pass(struct manifest *m, int index, int exit_code, const char *start,
		       const char *end)
{
	struct pass *p = xrealloc(m->passes, (m->nr_passes + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->passes = p;
	p = &m->passes[m->nr_passes];
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->exit_code = exit_code;
	p->cpu_user_s = p->cpu_sys_s = -1;
	p->start = start ? xstrdup(start) : NULL;
	p->end = end ? xstrdup(end) : NULL;
	if ((start && !p->start) || (end && !p->end)) {
		pass__release(p);
		return -ENOMEM;
	}
	m->nr_passes++;
	return 0;
}

int manifest__add_collector(struct manifest *m, const char *tool, const char *version)
{
	if (!m->nr_passes)
		return -EINVAL;
	struct pass *p = &m->passes[m->nr_passes - 1];
	struct manifest_collector *c = xrealloc(p->collectors, (p->nr_collectors + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	p->collectors = c;
	c = &c[p->nr_collectors];
	c->tool = xstrdup(tool ? tool : "");
	c->version = version ? xstrdup(version) : NULL;
	if (!c->tool || (version && !c->version)) {
		xfree(c->tool);
		xfree(c->version);
		return -ENOMEM;
	}
	p->nr_collectors++;
	return 0;
}

int manifest__set_file(struct manifest *m, const char *table, const char *relpath)
{
	char *rp = xstrdup(relpath);
	if (!rp)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_files; i++)
		if (strcmp(m->files[i].table, table) == 0) {
			xfree(m->files[i].relpath);
			m->files[i].relpath = rp;
			return 0;
		}
	struct run_file *f = xrealloc(m->files, (m->nr_files + 1) * sizeof(*f));
	if (!f) {
		xfree(rp);
		return -ENOMEM;
	}
	m->files = f;
	f[m->nr_files].relpath = rp;
	if (!(f[m->nr_files].table = xstrdup(table))) {
		xfree(rp);
		return -ENOMEM;
	}
	m->nr_files++;
	return 0;
}

static void put(json_t *o, const char *key, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, key, v))
		*ok = false;
}

/* Strings we did not produce (argv, tool output) may hold bytes that are not
 * UTF-8, which JSON cannot carry: non-ASCII bytes become '?' then. */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	json_t *v = json_string(s);
	if (v)
		return v;
	char *c = xstrdup(s);
	if (!c)
		return NULL;
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(c);
	xfree(c);
	return v;
}

static json_t *obj_or_empty(const json_t *o)
{
	return o ? json_deep_copy(o) : json_object();
}

static json_t *run_to_json(const struct manifest *m)
{
	bool ok = true;
	json_t *run = json_object(), *cmd = json_array();
	if (!run || !cmd) {
		json_decref(run);
		json_decref(cmd);
		return NULL;
	}
	for (size_t i = 0; i < m->nr_command; i++)
		if (json_array_append_new(cmd, jstr(m->command[i])))
			ok = false;
	put(run, "name", jstr(m->name), &ok);
	put(run, "created", jstr(m->created), &ok);
	put(run, "command", cmd, &ok);
	put(run, "exit_code", m->exit_code >= 0 ? json_integer(m->exit_code) : json_null(), &ok);
	/* Additive: the report needs it to show ranks that left nothing. */
	if (m->world_size > 0)
		put(run, "world_size", json_integer(m->world_size), &ok);
	if (m->term_signal > 0)
		put(run, "signal", sig_json(m->term_signal), &ok);
	if (m->interrupted_by > 0)
		put(run, "interrupted_by", sig_json(m->interrupted_by), &ok);
	put(run, "status", json_string(run_status__name(m->status)), &ok);
	put(run, "outcome", outcome_json(m), &ok);
	if (!ok)
		json_decref(run);
	return ok ? run : NULL;
}

static json_t *provenance_to_json(const struct provenance *p)
{
	bool ok = true;
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(o, "commit", jstr(p->commit), &ok);
	put(o, "dirty_tree", p->dirty_tree < 0 ? json_null() : json_boolean(p->dirty_tree), &ok);
	put(o, "dependencies", obj_or_empty(p->dependencies), &ok);
	put(o, "effective_configuration", obj_or_empty(p->effective_configuration), &ok);
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static json_t *pass_to_json(const struct pass *p)
{
	bool ok = true;
	json_t *o = json_object(), *cs = json_array();
	if (!o || !cs) {
		json_decref(o);
		json_decref(cs);
		return NULL;
	}
	for (size_t i = 0; i < p->nr_collectors; i++) {
		json_t *c = json_object();
		put(c, "tool", jstr(p->collectors[i].tool), &ok);
		put(c, "version", jstr(p->collectors[i].version), &ok);
		if (!c || json_array_append_new(cs, c))
			ok = false;
	}
	put(o, "index", json_integer(p->index), &ok);
	put(o, "exit_code", p->exit_code >= 0 ? json_integer(p->exit_code) : json_null(), &ok);
	if (p->term_signal > 0)
		put(o, "signal", sig_json(p->term_signal), &ok);
	if (p->interrupted_by > 0)
		put(o, "interrupted_by", sig_json(p->interrupted_by), &ok);
	put(o, "start", jstr(p->start), &ok);
	put(o, "end", jstr(p->end), &ok);
	put(o, "duration_s", p->duration_s > 0 ? json_real(p->duration_s) : json_null(), &ok);
	if (p->cpu_user_s >= 0 && p->cpu_sys_s >= 0) { /* additive: absent when unknown */
		put(o, "cpu_user_s", json_real(p->cpu_user_s), &ok);
		put(o, "cpu_sys_s", json_real(p->cpu_sys_s), &ok);
		put(o, "cpu_includes_collector", json_boolean(p->cpu_includes_collector), &ok);
	}
	put(o, "collectors", cs, &ok);
	if (!ok)
		json_decref(o);
	return ok ? o : NULL;
}

static json_t *lists_to_json(const struct manifest *m, json_t *doc, bool *ok)
{
	json_t *passes = json_array(), *degr = degradations__to_json(&m->degradations),
	       *files = json_object();
	for (size_t i = 0; passes && i < m->nr_passes; i++)
		if (json_array_append_new(passes, pass_to_json(&m->passes[i])))
			*ok = false;
	for (size_t i = 0; files && i < m->nr_files; i++)
		put(files, m->files[i].table, jstr(m->files[i].relpath), ok);
	put(doc, "passes", passes, ok);
	put(doc, "degradations", degr, ok);
	put(doc, "files", files, ok);
	return doc;
}

json_t *manifest__to_json(const struct manifest *m)
{
	bool ok = true;
	json_t *doc = json_object(), *fmt = json_object();
	if (!doc || !fmt) {
		json_decref(doc);
		json_decref(fmt);
		return NULL;
	}
	put(fmt, "name", json_string(RUN_FORMAT_NAME), &ok);
	put(fmt, "schema", json_integer(RUN_SCHEMA), &ok);
	put(fmt, "generated_by", jstr(m->generated_by), &ok);
	put(doc, "format", fmt, &ok);
	put(doc, "run", run_to_json(m), &ok);
	put(doc, "machine", machine__to_json(&m->machine), &ok);
	put(doc, "provenance", provenance_to_json(&m->provenance), &ok);
	lists_to_json(m, doc, &ok);
	if (m->overhead)
		put(doc, "overhead", json_deep_copy(m->overhead), &ok);
	if (m->cost)
		put(doc, "cost", json_deep_copy(m->cost), &ok);
	if (m->multi_pass)
		put(doc, "multi_pass", json_deep_copy(m->multi_pass), &ok);
	if (m->nodes)
		put(doc, "nodes", json_deep_copy(m->nodes), &ok);
	if (!ok) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int manifest__write(const struct manifest *m, const char *run_dir, struct err *e)
{
	return manifest__write_as(m, run_dir, MANIFEST_FILE, e);
}

int manifest__write_as(const struct manifest *m, const char *run_dir, const char *file,
		       struct err *e)
{
	json_t *doc = manifest__to_json(m);
	char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL, *path = NULL;
	int rc;
	json_decref(doc);
	if (text)
		json_text_shortest_reals(text); /* 0.8, not 0.80000000000000004 */
	if (!text || !(path = fs_join(run_dir, file))) {
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory writing the manifest of %s",
			     run_dir);
		goto out;
	}
	size_t len = strlen(text);
	text[len] = '\n'; /* end with a newline, in place of the NUL we no longer need */
	rc = fs_write_atomic(path, text, len + 1, e);
out:
	xfree(text);
	xfree(path);
	return rc;
}
