// SPDX-License-Identifier: BSD-3-Clause
// manifest.json: reading, with the refusals of REFERENCE.md §2 (missing
// manifest, foreign format, newer schema) and a precise message for every
// field of the wrong type. Unknown keys are ignored (additive evolution).
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/signame.h"
#include "store/manifest.h"

/* The format string's first %s is the origin (file name), always passed. */
#define CORRUPT(e, ...) err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s: " __VA_ARGS__)

static int oom(struct err *e)
{
	return err_set(e, -ENOMEM, ERR_OOM, "out of memory reading the manifest");
}

/* Copies an optional string member; *dst untouched when absent or null. */
static int opt_str(char **dst, const json_t *o, const char *key, const char *where,
		   const char *origin, struct err *e)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return CORRUPT(e, "%s.%s: expected a string or null", origin, where, key);
	xfree(*dst);
	*dst = xstrdup(json_string_value(v));
	return *dst ? 0 : oom(e);
}

static int opt_exit(int *dst, const json_t *o, const char *where, const char *origin,
		    struct err *e)
{
	const json_t *v = json_object_get(o, "exit_code");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255)
		return CORRUPT(e, "%s.exit_code: expected 0..255 or null", origin, where);
	*dst = (int)json_integer_value(v);
	return 0;
}

/* "signal"/"interrupted_by": a signal's name, absent or null for none. */
static int opt_signal(int *dst, const json_t *o, const char *key, const char *where,
		      const char *origin, struct err *e)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	int sig = sig_number(json_string_value(v));
	if (sig <= 0 || sig > 127)
		return CORRUPT(e, "%s.%s: expected a signal name such as \"SIGINT\"", origin,
			       where, key);
	*dst = sig;
	return 0;
}

static int opt_status(enum run_status *dst, const json_t *run, const char *origin,
		      struct err *e)
{
	const json_t *v = json_object_get(run, "status");
	const char *s = json_string_value(v);
	if (!v || json_is_null(v))
		return 0; /* older Runs: complete */
	for (int st = RUN_STATUS_COMPLETE; s && st <= RUN_STATUS_ABANDONED; st++)
		if (!strcmp(s, run_status__name((enum run_status)st))) {
			*dst = (enum run_status)st;
			return 0;
		}
	return CORRUPT(e, "run.status: expected \"complete\", \"incomplete\" or \"abandoned\"",
		       origin);
}

static int check_format(struct manifest *m, const json_t *doc, const char *origin,
			struct err *e)
{
	const json_t *fmt = json_object_get(doc, "format");
	const char *name = json_string_value(json_object_get(fmt, "name"));
	if (!json_is_object(doc) || !name || strcmp(name, RUN_FORMAT_NAME) != 0)
		return err_set(e, -EINVAL, ERR_RUN_FOREIGN,
			       "%s: not a nunatak Run manifest (format.name is %s%s%s, expected "
			       "\"" RUN_FORMAT_NAME "\")",
			       origin, name ? "\"" : "", name ? name : "absent", name ? "\"" : "");
	const json_t *schema = json_object_get(fmt, "schema");
	if (!json_is_integer(schema) || json_integer_value(schema) < 1)
		return CORRUPT(e, "format.schema: expected a positive integer", origin);
	if (json_integer_value(schema) > RUN_SCHEMA)
		return err_set(e, -EPROTONOSUPPORT, ERR_RUN_NEWER_SCHEMA,
			       "Run written with schema %lld, newer than the supported %d; upgrade "
			       "nunatak to read it",
			       (long long)json_integer_value(schema), RUN_SCHEMA);
	m->schema = (int)json_integer_value(schema);
	return opt_str(&m->generated_by, fmt, "generated_by", "format", origin, e);
}

static int read_run(struct manifest *m, const json_t *run, const char *origin, struct err *e)
{
	if (run && !json_is_object(run))
		return CORRUPT(e, "run: expected an object", origin);
	int rc = opt_str(&m->name, run, "name", "run", origin, e);
	if (!rc)
		rc = opt_str(&m->created, run, "created", "run", origin, e);
	if (!rc)
		rc = opt_exit(&m->exit_code, run, "run", origin, e);
	if (!rc)
		rc = opt_signal(&m->term_signal, run, "signal", "run", origin, e);
	if (!rc)
		rc = opt_signal(&m->interrupted_by, run, "interrupted_by", "run", origin, e);
	if (!rc)
		rc = opt_status(&m->status, run, origin, e);
	if (rc)
		return rc;
	const json_t *ws = json_object_get(run, "world_size");
	if (ws && !json_is_null(ws)) {
		if (!json_is_integer(ws) || json_integer_value(ws) < 1 ||
		    json_integer_value(ws) > 1 << 24)
			return CORRUPT(e, "run.world_size: expected a positive integer", origin);
		m->world_size = (int)json_integer_value(ws);
	}
	const json_t *cmd = json_object_get(run, "command");
	if (cmd && !json_is_array(cmd))
		return CORRUPT(e, "run.command: expected an array of strings", origin);
	size_t n = json_array_size(cmd);
	const char **argv = xcalloc(n ? n : 1, sizeof(char *));
	if (!argv)
		return oom(e);
	for (size_t i = 0; i < n; i++)
		if (!(argv[i] = json_string_value(json_array_get(cmd, i)))) {
			xfree(argv);
			return CORRUPT(e, "run.command[%zu]: expected a string", origin, i);
		}
	rc = manifest__set_command(m, argv, n);
	xfree(argv);
	return rc ? oom(e) : 0;
}

static int read_object(json_t **dst, const json_t *o, const char *key, const char *origin,
		       struct err *e)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return CORRUPT(e, "provenance.%s: expected an object", origin, key);
	json_decref(*dst);
	*dst = json_deep_copy(v);
	return *dst ? 0 : oom(e);
}

static int read_provenance(struct provenance *p, const json_t *o, const char *origin,
			   struct err *e)
{
	if (o && !json_is_object(o))
		return CORRUPT(e, "provenance: expected an object", origin);
	const json_t *dirty = json_object_get(o, "dirty_tree");
	if (json_is_boolean(dirty))
		p->dirty_tree = json_is_true(dirty);
	else if (dirty && !json_is_null(dirty))
		return CORRUPT(e, "provenance.dirty_tree: expected true, false or null",
			       origin);
	int rc = opt_str(&p->commit, o, "commit", "provenance", origin, e);
	if (!rc)
		rc = read_object(&p->dependencies, o, "dependencies", origin, e);
	if (!rc)
		rc = read_object(&p->effective_configuration, o, "effective_configuration", origin,
				 e);
	return rc;
}

static int read_pass(struct manifest *m, const json_t *p, size_t i, const char *origin,
		     struct err *e)
{
	const json_t *idx = json_object_get(p, "index");
	if (!json_is_object(p) || !json_is_integer(idx) || json_integer_value(idx) < 0 ||
	    json_integer_value(idx) > 1000000)
		return CORRUPT(e, "passes[%zu]: expected an object with an integer index",
			       origin, i);
	int exit_code = -1;
	char where[32];
	snprintf(where, sizeof(where), "passes[%zu]", i);
	const char *start = json_string_value(json_object_get(p, "start"));
	const char *end = json_string_value(json_object_get(p, "end"));
	int rc = opt_exit(&exit_code, p, where, origin, e), sig = 0, intr = 0;
	if (!rc)
		rc = opt_signal(&sig, p, "signal", where, origin, e);
	if (!rc)
		rc = opt_signal(&intr, p, "interrupted_by", where, origin, e);
	if (rc)
		return rc;
	if (manifest__add_pass(m, (int)json_integer_value(idx), exit_code, start, end))
		return oom(e);
	m->passes[m->nr_passes - 1].term_signal = sig;
	m->passes[m->nr_passes - 1].interrupted_by = intr;
	const json_t *dur = json_object_get(p, "duration_s"); /* absent in older Runs */
	if (json_is_number(dur) && json_number_value(dur) > 0)
		m->passes[m->nr_passes - 1].duration_s = json_number_value(dur);
	const json_t *cu = json_object_get(p, "cpu_user_s"), *cs = json_object_get(p, "cpu_sys_s");
	if (json_is_number(cu) && json_is_number(cs) && json_number_value(cu) >= 0 &&
	    json_number_value(cs) >= 0) { /* absent in older Runs and when unknown */
		m->passes[m->nr_passes - 1].cpu_user_s = json_number_value(cu);
		m->passes[m->nr_passes - 1].cpu_sys_s = json_number_value(cs);
		m->passes[m->nr_passes - 1].cpu_includes_collector =
			json_is_true(json_object_get(p, "cpu_includes_collector"));
	}
	size_t k;
	const json_t *c;
	json_array_foreach(json_object_get(p, "collectors"), k, c) {
		const char *tool = json_string_value(json_object_get(c, "tool"));
		if (!tool)
			return CORRUPT(e, "%s.collectors[%zu].tool: expected a string",
				       origin, where, k);
		if (manifest__add_collector(m, tool,
					    json_string_value(json_object_get(c, "version"))))
			return oom(e);
	}
	return 0;
}

static int read_lists(struct manifest *m, const json_t *doc, const char *origin,
		      struct err *e)
{
	size_t i;
	const json_t *v;
	int rc = 0;
	json_array_foreach(json_object_get(doc, "passes"), i, v) {
		if ((rc = read_pass(m, v, i, origin, e)))
			return rc;
	}
	json_array_foreach(json_object_get(doc, "degradations"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *msg = json_string_value(json_object_get(v, "message"));
		if (!name || !msg)
			return CORRUPT(e, "degradations[%zu]: expected name and message",
				       origin, i);
		if (degradations__add(&m->degradations, name, msg,
				      json_string_value(json_object_get(v, "remedy"))) < 0)
			return oom(e);
	}
	const char *table;
	json_object_foreach((json_t *)json_object_get(doc, "files"), table, v) {
		if (!json_is_string(v))
			return CORRUPT(e, "files.%s: expected a relative path", origin, table);
		if (manifest__set_file(m, table, json_string_value(v)))
			return oom(e);
	}
	return 0;
}

int manifest__from_json(struct manifest *m, const json_t *doc, const char *origin,
			struct err *e)
{
	manifest__release(m);
	int rc = check_format(m, doc, origin, e);
	if (!rc)
		rc = read_run(m, json_object_get(doc, "run"), origin, e);
	const json_t *mj = json_object_get(doc, "machine");
	if (!rc && mj && !json_is_null(mj)) {
		rc = machine__from_json(&m->machine, mj, e);
		if (rc)
			err_prefix(e, "%s", origin);
	}
	if (!rc)
		rc = read_provenance(&m->provenance, json_object_get(doc, "provenance"), origin, e);
	if (!rc)
		rc = read_lists(m, doc, origin, e);
	const json_t *mp = json_object_get(doc, "multi_pass");
	if (!rc && json_is_object(mp) && !(m->multi_pass = json_deep_copy(mp)))
		rc = oom(e);
	const json_t *nodes = json_object_get(doc, "nodes");
	if (!rc && json_is_array(nodes) && !(m->nodes = json_deep_copy(nodes)))
		rc = oom(e);
	const json_t *cost = json_object_get(doc, "cost");
	if (!rc && json_is_object(cost) && !(m->cost = json_deep_copy(cost)))
		rc = oom(e);
	const json_t *ov = json_object_get(doc, "overhead");
	if (!rc && json_is_object(ov) && !(m->overhead = json_deep_copy(ov)))
		rc = oom(e);
	if (rc)
		manifest__release(m);
	return rc;
}

int manifest__parse(struct manifest *m, const char *text, size_t len, const char *origin,
		    struct err *e)
{
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		manifest__release(m);
		return err_set(e, -EINVAL, ERR_RUN_CORRUPT, "%s:%d:%d: invalid JSON: %s", origin,
			       je.line, je.column, je.text);
	}
	int rc = manifest__from_json(m, doc, origin, e);
	json_decref(doc);
	return rc;
}

int manifest__read(struct manifest *m, const char *run_dir, struct err *e)
{
	char *path = fs_join(run_dir, MANIFEST_FILE), *text = NULL;
	size_t len = 0;
	if (!path)
		return oom(e);
	/* never through a symlink or from a FIFO (docs/security.md): a Run may
	 * come from someone else */
	int rc = safefs_read_regular(path, MANIFEST_MAX_BYTES, &text, &len);
	if ((rc == -ENOENT || rc == -ENOTDIR) && !fs_exists(run_dir))
		rc = err_set(e, rc, ERR_RUN_NOT_A_RUN,
			     "not a nunatak Run: %s does not exist; give a Run directory (Runs "
			     "land in .nunatak/ where `nunatak run` was started), or no argument "
			     "for the newest Run there",
			     run_dir); /* a typo in the path, not a foreign directory */
	else if (rc == -ENOTDIR) /* `report RUN/manifest.json`: name the directory instead */
		rc = err_set(e, rc, ERR_RUN_NOT_A_RUN,
			     "not a nunatak Run: %s is a file; give the Run directory (the one "
			     "holding manifest.json)",
			     run_dir);
	else if (rc == -ENOENT)
		rc = err_set(e, rc, ERR_RUN_NOT_A_RUN,
			     "not a nunatak Run: %s has no manifest.json; give a Run directory "
			     "(Runs land in .nunatak/ where `nunatak run` was started), or no "
			     "argument for the newest Run there",
			     run_dir);
	else if (rc)
		rc = err_set(e, rc, rc == -ENOMEM ? ERR_OOM : ERR_RUN_UNREADABLE,
			     "cannot read %s: %s; a Run's files are read only when they are "
			     "regular files", path, safefs_strerror(rc));
	else
		rc = manifest__parse(m, text, len, path, e);
	xfree(text);
	xfree(path);
	return rc;
}
