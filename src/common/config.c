// SPDX-License-Identifier: BSD-3-Clause
#include "common/config.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/safefs.h"
#include "common/toml.h"

#define SITE_CONFIG_DEFAULT "/etc/nunatak.toml"
#define PROJECT_CONFIG_NAME "nunatak.toml"

enum kind { K_STR, K_INT, K_DOUBLE, K_BOOL };

struct scalar_key {
	const char *table; /* NULL: top level */
	const char *key;
	enum kind kind;
	size_t offset;
	double min, max; /* inclusive range for numbers */
};

#define OFF(f) offsetof(struct config, f)
static const struct scalar_key scalars[] = {
	{NULL, "name", K_STR, OFF(name), 0, 0},
	{NULL, "runs_dir", K_STR, OFF(runs_dir), 0, 0},
	{"sampling", "frequency", K_INT, OFF(sampling_frequency_hz), 1, 1000000},
	{"sampling", "rank_threshold", K_INT, OFF(rank_threshold), 0, INT_MAX},
	{"stacks", "fp_threshold", K_DOUBLE, OFF(fp_threshold), 0, 1},
	{"debuginfod", "enabled", K_BOOL, OFF(debuginfod_enabled), 0, 0},
	{"debuginfod", "timeout", K_DOUBLE, OFF(debuginfod_timeout_s), 0, 86400},
	{"symbolizer", "timeout", K_DOUBLE, OFF(symbolizer_timeout_s), 1, 86400},
	{"passes", "witness", K_DOUBLE, OFF(passes_witness), 0, 1},
	{"calibration", "on_first_run", K_BOOL, OFF(calibration_on_first_run), 0, 0},
	{"calibration", "budget", K_DOUBLE, OFF(calibration_budget_s), 1, 3600},
	{"mpi", "skip", K_STR, OFF(mpi_skip), 0, 0},
};
#define NR_SCALARS (sizeof(scalars) / sizeof(scalars[0]))

/* Conventional program names; [tools] overrides them one by one. */
static const char *const tool_defaults[][2] = {
	{"perf", "perf"},
	{"llvm-symbolizer", "llvm-symbolizer"},
	{"llvm-readelf", "llvm-readelf"},
	{"llvm-dwarfdump", "llvm-dwarfdump"},
	{"addr2line", "addr2line"},
	{"objdump", "objdump"},
	{"cc", "cc"},
	{"mpicc", "mpicc"},
	{"mpirun", "mpirun"},
	{"git", "git"},
};
#define NR_TOOLS (sizeof(tool_defaults) / sizeof(tool_defaults[0]))

static int map_set(struct config_map *m, const char *key, const char *value)
{
	char *v = xstrdup(value);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].key, key) == 0) {
			xfree(m->v[i].value);
			m->v[i].value = v;
			return 0;
		}
	char *k = xstrdup(key);
	if (!k || xgrow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0) {
		xfree(k);
		xfree(v);
		return -ENOMEM;
	}
	m->v[m->n++] = (struct config_entry){k, v};
	return 0;
}

static void map_release(struct config_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		xfree(m->v[i].key);
		xfree(m->v[i].value);
	}
	xfree(m->v);
	memset(m, 0, sizeof(*m));
}

static int warn(struct config *c, char *msg_take)
{
	if (!msg_take ||
	    xgrow((void **)&c->warnings, &c->cap_warnings, c->nr_warnings + 1, sizeof(char *)) < 0) {
		xfree(msg_take);
		return -ENOMEM;
	}
	c->warnings[c->nr_warnings++] = msg_take;
	return 0;
}

int config__init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->sampling_frequency_hz = 997;
	c->rank_threshold = 64;
	c->fp_threshold = 0.75;
	c->debuginfod_enabled = true;
	c->debuginfod_timeout_s = 10;
	c->symbolizer_timeout_s = 300;
	c->passes_witness = 0.05;
	c->calibration_on_first_run = true;
	c->calibration_budget_s = 60;
	if (!(c->runs_dir = xstrdup(".nunatak")))
		return -ENOMEM;
	for (size_t i = 0; i < NR_TOOLS; i++)
		if (map_set(&c->tools, tool_defaults[i][0], tool_defaults[i][1]) < 0)
			return -ENOMEM;
	return 0;
}

static bool known_tool(const char *name)
{
	for (size_t i = 0; i < NR_TOOLS; i++)
		if (strcmp(tool_defaults[i][0], name) == 0)
			return true;
	return false;
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a float";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_ARRAY: return "an array";
	case JSON_OBJECT: return "a table";
	default: return "null";
	}
}

static const char *kind_name(enum kind k)
{
	return k == K_STR ? "a string" : k == K_INT ? "an integer" : k == K_DOUBLE ? "a number"
										   : "a boolean";
}

static void dotted(const struct scalar_key *s, char *buf, size_t n)
{
	if (s->table)
		snprintf(buf, n, "%s.%s", s->table, s->key);
	else
		snprintf(buf, n, "%s", s->key);
}

static int range_check(const struct scalar_key *s, double v, const char *origin, struct err *e)
{
	char name[64];
	dotted(s, name, sizeof(name));
	if (!isfinite(v) || v < s->min || v > s->max)
		/* %.15g: a user who typed 9999999 must not read "1e+07" back. */
		return err_set(e, -ERANGE, ERR_CONFIG_VALUE,
			       "%s: %s = %.15g is out of range [%.15g, %.15g]", origin, name, v,
			       s->min, s->max);
	return 0;
}

/* Stores an already type-checked value. */
static int store(struct config *c, const struct scalar_key *s, const char *str, double num,
		 bool b)
{
	void *f = (char *)c + s->offset;
	switch (s->kind) {
	case K_STR: {
		char *d = xstrdup(str);
		if (!d)
			return -ENOMEM;
		xfree(*(char **)f);
		*(char **)f = d;
		break;
	}
	case K_INT: *(int *)f = (int)num; break;
	case K_DOUBLE: *(double *)f = num; break;
	case K_BOOL: *(bool *)f = b; break;
	}
	return 0;
}

static int set_scalar_json(struct config *c, const struct scalar_key *s, const json_t *v,
			   const char *origin, struct err *e)
{
	bool ok = (s->kind == K_STR && json_is_string(v)) ||
		  (s->kind == K_INT && json_is_integer(v)) ||
		  (s->kind == K_DOUBLE && json_is_number(v)) || (s->kind == K_BOOL && json_is_boolean(v));
	char name[64];
	dotted(s, name, sizeof(name));
	if (!ok)
		return err_set(e, -EINVAL, ERR_CONFIG_TYPE, "%s: %s: expected %s, found %s", origin,
			       name, kind_name(s->kind), json_kind(v));
	double num = json_is_number(v) ? json_number_value(v) : 0;
	if ((s->kind == K_INT || s->kind == K_DOUBLE) && range_check(s, num, origin, e) < 0)
		return -ERANGE;
	if (store(c, s, json_string_value(v), num, json_is_true(v)) < 0)
		return err_oom(e);
	return 0;
}

static const struct scalar_key *find_scalar(const char *table, const char *key)
{
	for (size_t i = 0; i < NR_SCALARS; i++) {
		const struct scalar_key *s = &scalars[i];
		if (strcmp(s->key, key) == 0 &&
		    ((!table && !s->table) || (table && s->table && strcmp(table, s->table) == 0)))
			return s;
	}
	return NULL;
}

static bool known_table(const char *table)
{
	for (size_t i = 0; i < NR_SCALARS; i++)
		if (scalars[i].table && strcmp(scalars[i].table, table) == 0)
			return true;
	return false;
}

static int apply_map(struct config *c, struct config_map *m, const char *table,
		     const json_t *obj, const char *origin, struct err *e)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		if (!json_is_string(v))
			return err_set(e, -EINVAL, ERR_CONFIG_TYPE, "%s: %s.%s: expected a string, found %s",
				       origin, table, k, json_kind(v));
		if (m == &c->tools && !known_tool(k) &&
		    warn(c, xasprintf("%s: unknown tool '%s' in [tools] (known: perf, "
				      "llvm-symbolizer, addr2line, cc, mpicc, ...)", origin, k)) < 0)
			return err_oom(e);
		if (map_set(m, k, json_string_value(v)) < 0)
			return err_oom(e);
	}
	return 0;
}

static int apply_table(struct config *c, const char *table, const json_t *obj, const char *origin,
		       struct err *e)
{
	if (strcmp(table, "tools") == 0)
		return apply_map(c, &c->tools, table, obj, origin, e);
	if (strcmp(table, "source_map") == 0)
		return apply_map(c, &c->source_map, table, obj, origin, e);
	if (!known_table(table))
		return warn(c, xasprintf("%s: unknown table [%s] ignored", origin, table)) < 0
			       ? err_oom(e) : 0;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		const struct scalar_key *s = find_scalar(table, k);
		int rc = s ? set_scalar_json(c, s, v, origin, e)
			   : warn(c, xasprintf("%s: unknown key '%s.%s' ignored", origin, table, k));
		if (rc == -ENOMEM)
			return err_oom(e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int config__apply_json(struct config *c, const json_t *doc, const char *origin, struct err *e)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)doc, k, v) {
		int rc = 0;
		const struct scalar_key *s = find_scalar(NULL, k);
		if (json_is_object(v) && !s)
			rc = apply_table(c, k, v, origin, e);
		else if (s)
			rc = set_scalar_json(c, s, v, origin, e);
		else if (warn(c, xasprintf("%s: unknown key '%s' ignored", origin, k)) < 0)
			rc = err_oom(e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int config__apply_file(struct config *c, const char *path, struct err *e)
{
	json_t *doc = toml_parse_file(path, e);
	if (!doc)
		return e && e->errnum ? e->errnum : -EINVAL;
	int rc = config__apply_json(c, doc, path, e);
	json_decref(doc);
	return rc;
}

static int parse_text(const struct scalar_key *s, const char *text, double *num, bool *b)
{
	char *end = NULL;
	errno = 0;
	if (s->kind == K_INT) {
		long v = strtol(text, &end, 10);
		*num = (double)v;
		return errno || end == text || *end ? -EINVAL : 0;
	}
	if (s->kind == K_DOUBLE) {
		*num = strtod(text, &end);
		return errno || end == text || *end ? -EINVAL : 0;
	}
	if (s->kind == K_BOOL) {
		if (!strcmp(text, "true") || !strcmp(text, "1") || !strcmp(text, "yes"))
			return *b = true, 0;
		if (!strcmp(text, "false") || !strcmp(text, "0") || !strcmp(text, "no"))
			return *b = false, 0;
		return -EINVAL;
	}
	return 0;
}

int config__set(struct config *c, const char *key, const char *value, struct err *e)
{
	const char *dot = strchr(key, '.');
	if (dot && (!strncmp(key, "tools.", 6) || !strncmp(key, "source_map.", 11))) {
		struct config_map *m = key[0] == 't' ? &c->tools : &c->source_map;
		if (map_set(m, dot + 1, value) < 0)
			return err_oom(e);
		return 0;
	}
	char table[32] = "";
	if (dot)
		snprintf(table, sizeof(table), "%.*s", (int)(dot - key), key);
	const struct scalar_key *s = find_scalar(dot ? table : NULL, dot ? dot + 1 : key);
	if (!s)
		return err_set(e, -EINVAL, ERR_CONFIG_KEY, "unknown configuration key '%s'", key);
	double num = 0;
	bool b = false;
	if (parse_text(s, value, &num, &b) < 0)
		return err_set(e, -EINVAL, ERR_CONFIG_TYPE, "%s: expected %s, found '%s'", key,
			       kind_name(s->kind), value);
	if ((s->kind == K_INT || s->kind == K_DOUBLE) && range_check(s, num, "command line", e) < 0)
		return -ERANGE;
	if (store(c, s, value, num, b) < 0)
		return err_oom(e);
	return 0;
}

const char *config__tool(const struct config *c, const char *tool)
{
	for (size_t i = 0; c && i < c->tools.n; i++)
		if (strcmp(c->tools.v[i].key, tool) == 0)
			return c->tools.v[i].value;
	return tool;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Why the project file at path may not be trusted (malloc'd: the file's
 * reason, or "<directory>: <reason>"), or NULL: the
 * file and every directory above it must be the user's or root's and
 * writable by nobody else (common/safefs.h), or another user could choose
 * the programs nunatak runs ([tools]) -- git's safe.directory rule. */
static char *project_problem(const char *path)
{
	struct stat st;
	const char *why = stat(path, &st) != 0 ? "cannot be examined" : safefs_untrusted_why(&st);
	if (why)
		return xstrdup(why);
	char *dir = xstrdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	char *problem = slash ? safefs_dir_chain_problem(dir) : NULL;
	xfree(dir);
	return problem;
}

/* The first nunatak.toml walking up from dir, or NULL (caller frees). */
static char *find_project(const char *dir)
{
	char *d = xstrdup(dir);
	while (d) {
		char *cand = xasprintf("%s%s" PROJECT_CONFIG_NAME, d,
				       d[0] && d[strlen(d) - 1] == '/' ? "" : "/");
		if (cand && is_file(cand)) {
			xfree(d);
			return cand;
		}
		xfree(cand);
		char *slash = strrchr(d, '/');
		if (!slash || (slash == d && !d[1]))
			break;
		slash[slash == d ? 1 : 0] = '\0';
	}
	xfree(d);
	return NULL;
}

/* The project layer: the first nunatak.toml, unless another user could have
 * written it (then ignored, with a warning naming it and the reason). */
static int apply_project(struct config *c, const char *cwd, struct err *e)
{
	char *path = find_project(cwd);
	if (!path)
		return 0;
	char *problem = project_problem(path);
	if (problem) {
		int rc = warn(c, xasprintf("ignoring the project configuration %s: %s; another "
					   "user could choose the programs nunatak runs. Check "
					   "it, then make it yours (chown, chmod go-w) or remove it",
					   path, problem));
		xfree(problem);
		xfree(path);
		return rc < 0 ? err_oom(e) : 0;
	}
	c->project_path = path;
	return config__apply_file(c, c->project_path, e);
}

int config__load(struct config *c, const char *cwd, struct err *e)
{
	if (config__init(c) < 0)
		return err_oom(e);
	const char *site = getenv("NUNATAK_SITE_CONFIG");
	if (!site || !site[0])
		site = SITE_CONFIG_DEFAULT;
	if (strcmp(site, "/dev/null") != 0 && is_file(site)) {
		if (!(c->site_path = xstrdup(site)))
			return err_oom(e);
		int rc = config__apply_file(c, site, e);
		if (rc < 0)
			return rc;
	}
	char buf[4096];
	if (!cwd)
		cwd = getcwd(buf, sizeof(buf));
	return cwd ? apply_project(c, cwd, e) : 0;
}

static int put(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

json_t *config__effective_json(const struct config *c)
{
	json_t *o = json_object();
	int bad = !o;
	if (!bad) {
		bad |= put(o, "name", c->name ? json_string(c->name) : json_null());
		bad |= put(o, "runs_dir", json_string(c->runs_dir ? c->runs_dir : ""));
	}
	for (size_t i = 0; !bad && i < c->tools.n; i++) {
		char *k = xasprintf("tools.%s", c->tools.v[i].key);
		bad |= !k || put(o, k, json_string(c->tools.v[i].value));
		xfree(k);
	}
	for (size_t i = 0; !bad && i < c->source_map.n; i++) {
		char *k = xasprintf("source_map.%s", c->source_map.v[i].key);
		bad |= !k || put(o, k, json_string(c->source_map.v[i].value));
		xfree(k);
	}
	for (size_t i = 0; !bad && i < NR_SCALARS; i++) {
		const struct scalar_key *s = &scalars[i];
		const void *f = (const char *)c + s->offset;
		char name[64];
		if (!s->table)
			continue;
		dotted(s, name, sizeof(name));
		const char *str = s->kind == K_STR ? *(char *const *)f : NULL;
		bad |= put(o, name, s->kind == K_STR      ? (str ? json_string(str) : json_null())
				    : s->kind == K_INT    ? json_integer(*(const int *)f)
				    : s->kind == K_DOUBLE ? json_real(*(const double *)f)
							  : json_boolean(*(const bool *)f));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

void config__release(struct config *c)
{
	if (!c)
		return;
	xfree(c->name);
	xfree(c->runs_dir);
	xfree(c->mpi_skip);
	map_release(&c->tools);
	map_release(&c->source_map);
	for (size_t i = 0; i < c->nr_warnings; i++)
		xfree(c->warnings[i]);
	xfree(c->warnings);
	xfree(c->site_path);
	xfree(c->project_path);
	memset(c, 0, sizeof(*c));
}
