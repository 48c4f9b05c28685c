// SPDX-License-Identifier: BSD-3-Clause
/*
 * The recording executor: runs every request through an inner executor and
 * writes it in the corpus layout of tests/corpus/recordings (tests/corpus/README.md):
 *   <entry>/meta.json
 *   <entry>/invocations/NNN.json    {"argv": [...], "exit_code": N, "captured": bool,
 *                                    "output_written": bool (only with output_path)}
 *   <entry>/invocations/NNN.stdout  (only when captured)
 *   <entry>/invocations/NNN.stderr  (only when captured)
 * JSON is written with 2-space indentation and key order kept, like the
 * predecessor's json.dump(indent=2), so our entries and the corpus diff cleanly.
 * The application's invocation is recorded with captured=false and no output
 * files: its output went to the user and is not ours to keep.
 */
#include "exec/exec.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "build_config.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/timefmt.h"
#include "exec/exec_internal.h"

struct recorder {
	struct executor *inner;
	char *dir;
	json_t *meta;
	unsigned next;
};

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	if (!p)
		return -ENOMEM;
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	xfree(p);
	return rc;
}

static bool dir_is_empty_or_absent(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT;
	struct dirent *de;
	bool empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

static json_t *base_meta(void)
{
	char created[ISO8601_SIZE];
	iso8601(time(NULL), ISO8601_UTC, created, sizeof(created));
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "created", created, "nunatak_version",
			 NUNATAK_VERSION, "platform", "system", u.sysname, "kernel", u.release,
			 "architecture", u.machine);
}

static int write_meta(struct recorder *r)
{
	char *path = xasprintf("%s/meta.json", r->dir);
	if (!path)
		return -ENOMEM;
	int rc = json_dump_file(r->meta, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
	xfree(path);
	return rc;
}

static int write_outputs(const char *stem, const struct exec_request *req,
			 const struct exec_result *res)
{
	char *data = NULL, *path = NULL;
	size_t len = 0;
	int rc = 0;
	if (req->stdout_path) {
		/* The inner executor wrote straight to a file; keep a copy of it. */
		if (exec_read_file(req->stdout_path, &data, &len) < 0)
			len = 0;
	}
	path = xasprintf("%s.stdout", stem);
	rc = path ? exec_write_file(path, data ? data : res->out, data ? len : res->out_len)
		  : -ENOMEM;
	xfree(path);
	xfree(data);
	if (rc < 0)
		return rc;
	path = xasprintf("%s.stderr", stem);
	rc = path ? exec_write_file(path, res->err, res->err_len) : -ENOMEM;
	xfree(path);
	return rc;
}

static int record_one(struct recorder *r, const struct exec_request *req,
		      const struct exec_result *res)
{
	bool captured = !req->application &&
			(req->capture_stdout || req->capture_stderr || req->stdout_path);
	json_t *argv = json_array();
	for (size_t i = 0; argv && req->argv[i]; i++)
		json_array_append_new(argv, json_string(req->argv[i]));
	json_t *inv = json_pack("{s:o?, s:i, s:b}", "argv", argv, "exit_code", res->exit_code,
				"captured", captured);
	/* Whether perf record wrote perf.data tells a rejected attempt (retried
	 * one rung down) from a run: the replay must retry the same way. */
	if (inv && req->output_path)
		json_object_set_new(inv, "output_written", json_boolean(res->output_written));
	char *stem = xasprintf("%s/invocations/%03u", r->dir, r->next);
	char *path = stem ? xasprintf("%s.json", stem) : NULL;
	int rc = -ENOMEM;
	if (inv && path) {
		rc = json_dump_file(inv, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? -EIO : 0;
		if (rc == 0 && captured)
			rc = write_outputs(stem, req, res);
	}
	if (rc == 0)
		r->next++;
	json_decref(inv);
	xfree(path);
	xfree(stem);
	return rc;
}

static int rec_run(struct executor *x, const struct exec_request *req, struct exec_result *res,
		   struct err *e)
{
	struct recorder *r = x->priv;
	int rc = executor__run(r->inner, req, res, e);
	if (rc < 0)
		return rc;
	rc = record_one(r, req, res);
	if (rc < 0)
		return err_set(e, rc, ERR_EXEC_RECORD, "cannot record invocation %03u into %s: %s",
			       r->next, r->dir, strerror(-rc));
	return 0;
}

/* The inner batch overlaps the waiting; the invocations are numbered in
 * issue order afterwards, so a replay's FIFOs serve them in that order. */
static int rec_run_batch(struct executor *x, const struct exec_request *reqs, size_t n,
			 struct exec_result *res, struct err *e)
{
	struct recorder *r = x->priv;
	int rc = executor__run_batch(r->inner, reqs, n, res, e);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if ((rc = record_one(r, &reqs[i], &res[i])) < 0)
			return err_set(e, rc, ERR_EXEC_RECORD, "cannot record invocation %03u into %s: %s",
				       r->next, r->dir, strerror(-rc));
	return rc;
}

static const json_t *rec_meta(struct executor *x)
{
	struct recorder *r = x->priv;
	return executor__recorded_meta(r->inner);
}

static void rec_free(struct executor *x)
{
	struct recorder *r = x->priv;
	if (r) {
		write_meta(r);
		executor__free(r->inner);
		json_decref(r->meta);
		xfree(r->dir);
		xfree(r);
	}
	xfree(x);
}

static const struct executor_ops rec_ops = {rec_run, rec_meta, rec_free, rec_run_batch};

int executor__annotate(struct executor *x, const json_t *meta)
{
	if (!x || x->ops != &rec_ops || !json_is_object(meta))
		return 0;
	struct recorder *r = x->priv;
	if (json_object_update(r->meta, (json_t *)meta) < 0)
		return -ENOMEM;
	return write_meta(r);
}

struct executor *executor__new_recording_take(struct executor *inner, const char *entry_dir,
					      const json_t *meta, struct err *e)
{
	struct executor *x = NULL;
	struct recorder *r = NULL;
	char *inv = NULL;
	if (!dir_is_empty_or_absent(entry_dir)) {
		err_set(e, -EEXIST, ERR_EXEC_RECORD,
			"recording entry %s exists and is not empty; choose a new directory",
			entry_dir);
		goto fail;
	}
	inv = xasprintf("%s/invocations", entry_dir);
	int rc = inv ? mkdir_p(inv) : -ENOMEM;
	if (rc < 0) {
		err_set(e, rc, ERR_EXEC_RECORD, "cannot create %s: %s", entry_dir, strerror(-rc));
		goto fail;
	}
	x = xcalloc(1, sizeof(*x));
	r = xcalloc(1, sizeof(*r));
	if (!x || !r || !(r->dir = xstrdup(entry_dir)) || !(r->meta = base_meta())) {
		err_set(e, -ENOMEM, ERR_OOM, "out of memory starting a recording");
		goto fail;
	}
	if (meta && json_is_object(meta))
		json_object_update(r->meta, (json_t *)meta);
	r->inner = inner;
	x->ops = &rec_ops;
	x->priv = r;
	xfree(inv);
	write_meta(r); /* now too, so an interrupted run still leaves a valid entry */
	return x;
fail:
	if (r) {
		json_decref(r->meta);
		xfree(r->dir);
	}
	xfree(r);
	xfree(x);
	xfree(inv);
	executor__free(inner);
	return NULL;
}
