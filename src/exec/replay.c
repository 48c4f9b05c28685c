// SPDX-License-Identifier: BSD-3-Clause
/*
 * The replay executor: serves a corpus entry (layout in record.c and
 * tests/corpus/README.md). Invocations are queued in recorded order, one
 * FIFO per program base name; argv beyond argv[0]'s base name is ignored on
 * purpose, because paths (perf.data locations, /opt/homebrew/... symbolizer
 * probes) legitimately differ between the recording machine and ours. A
 * program the entry never recorded, or whose queue is exhausted, answers 127
 * with "not recorded in corpus entry" on stderr, as if it were absent.
 * Nothing is ever started.
 */
#include "exec/exec.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec_internal.h"

struct recorded {
	unsigned number; /* NNN */
	int exit_code;
	bool captured;
	bool output_written; /* absent in older entries: true */
};

struct queue {
	char *name; /* program base name */
	struct recorded *items;
	size_t nr, cap, next;
};

struct replayer {
	char *dir;
	json_t *meta;
	struct queue *queues;
	size_t nr_queues, cap_queues;
};

static struct queue *queue_for(struct replayer *r, const char *name, bool create)
{
	for (size_t i = 0; i < r->nr_queues; i++)
		if (strcmp(r->queues[i].name, name) == 0)
			return &r->queues[i];
	if (!create ||
	    xgrow((void **)&r->queues, &r->cap_queues, r->nr_queues + 1, sizeof(*r->queues)) < 0)
		return NULL;
	struct queue *q = &r->queues[r->nr_queues];
	memset(q, 0, sizeof(*q));
	if (!(q->name = xstrdup(name)))
		return NULL;
	r->nr_queues++;
	return q;
}

static int cmp_recorded(const void *a, const void *b)
{
	unsigned x = ((const struct recorded *)a)->number, y = ((const struct recorded *)b)->number;
	return x < y ? -1 : x > y;
}

/* Loads invocations/NNN.json; the directory order is arbitrary, so every
 * queue is sorted by NNN afterwards. */
static int load_invocation(struct replayer *r, const char *name, struct err *e)
{
	char *end = NULL;
	unsigned long nr = strtoul(name, &end, 10);
	if (end == name || strcmp(end, ".json") != 0)
		return 0; /* .stdout/.stderr and anything else */
	char *path = xasprintf("%s/invocations/%s", r->dir, name);
	if (!path)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory reading %s", r->dir);
	json_error_t je;
	json_t *inv = json_load_file(path, 0, &je);
	json_t *argv = json_object_get(inv, "argv");
	json_t *code = json_object_get(inv, "exit_code");
	const char *argv0 = json_string_value(json_array_get(argv, 0));
	int rc = 0;
	if (!inv || !argv0 || !json_is_integer(code)) {
		rc = err_set(e, -EINVAL, ERR_EXEC_REPLAY,
			     "%s:%d:%d: expected {\"argv\": [...], \"exit_code\": N, \"captured\": bool}%s%s",
			     path, je.line, je.column, inv ? "" : ": ", inv ? "" : je.text);
		goto out;
	}
	struct queue *q = queue_for(r, exec_basename(argv0), true);
	if (!q || xgrow((void **)&q->items, &q->cap, q->nr + 1, sizeof(*q->items)) < 0) {
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory reading %s", r->dir);
		goto out;
	}
	json_t *cap = json_object_get(inv, "captured");
	json_t *wrote = json_object_get(inv, "output_written");
	q->items[q->nr++] = (struct recorded){(unsigned)nr, (int)json_integer_value(code),
					      cap ? json_is_true(cap) : true,
					      wrote ? json_is_true(wrote) : true};
out:
	json_decref(inv);
	xfree(path);
	return rc;
}

static int load_entry(struct replayer *r, struct err *e)
{
	char *path = xasprintf("%s/meta.json", r->dir);
	if (!path)
		return err_oom(e);
	json_error_t je;
	r->meta = json_load_file(path, 0, &je);
	xfree(path);
	if (!r->meta)
		return err_set(e, -EINVAL, ERR_EXEC_REPLAY, "%s is not a corpus entry: meta.json: %s",
			       r->dir, je.text);
	char *inv = xasprintf("%s/invocations", r->dir);
	DIR *d = inv ? opendir(inv) : NULL;
	xfree(inv);
	if (!d)
		return err_set(e, -ENOENT, ERR_EXEC_REPLAY,
			       "%s is not a corpus entry: no invocations/ directory", r->dir);
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)))
		rc = load_invocation(r, de->d_name, e);
	closedir(d);
	for (size_t i = 0; i < r->nr_queues; i++)
		qsort(r->queues[i].items, r->queues[i].nr, sizeof(struct recorded), cmp_recorded);
	return rc;
}

static int load_output(struct replayer *r, unsigned nr, const char *ext, char **p, size_t *len)
{
	char *path = xasprintf("%s/invocations/%03u.%s", r->dir, nr, ext);
	if (!path)
		return -ENOMEM;
	int rc = exec_read_file(path, p, len);
	xfree(path);
	return rc == -ENOENT ? 0 : rc; /* an absent file is an empty output */
}

static int serve(struct replayer *r, const struct recorded *it, const struct exec_request *req,
		 struct exec_result *res, struct err *e)
{
	/* The layout does not record how a process ended, so term_signal stays 0
	 * rather than guessing from a code above 128 (which a program may exit with). */
	res->exit_code = it->exit_code;
	res->output_written = req->output_path && it->output_written;
	if (!it->captured || req->application)
		return 0;
	int rc = 0;
	if (req->capture_stdout || req->stdout_path)
		rc = load_output(r, it->number, "stdout", &res->out, &res->out_len);
	if (rc == 0 && req->stdout_path) {
		rc = exec_write_file(req->stdout_path, res->out, res->out_len);
		zfree(&res->out);
		res->out_len = 0;
	}
	if (rc == 0 && req->capture_stderr)
		rc = load_output(r, it->number, "stderr", &res->err, &res->err_len);
	if (rc < 0)
		return err_set(e, rc, ERR_EXEC_REPLAY, "%s: invocation %03u: %s", r->dir, it->number,
			       strerror(-rc));
	return 0;
}

static int replay_run(struct executor *x, const struct exec_request *req,
		      struct exec_result *res, struct err *e)
{
	struct replayer *r = x->priv;
	memset(res, 0, sizeof(*res));
	if (!req->argv || !req->argv[0])
		return err_set(e, -EINVAL, ERR_EXEC_REPLAY, "empty command");
	const char *name = exec_basename(req->argv[0]);
	struct queue *q = queue_for(r, name, false);
	if (q && q->next < q->nr)
		return serve(r, &q->items[q->next++], req, res, e);
	res->exit_code = EXEC_NOT_FOUND;
	if (req->capture_stderr && !req->application) {
		res->err = xasprintf("nunatak: %s: not recorded in corpus entry %s\n", name, r->dir);
		res->err_len = res->err ? strlen(res->err) : 0;
	}
	return 0;
}

static const json_t *replay_meta(struct executor *x)
{
	return ((struct replayer *)x->priv)->meta;
}

static void replay_free(struct executor *x)
{
	struct replayer *r = x ? x->priv : NULL;
	if (r) {
		for (size_t i = 0; i < r->nr_queues; i++) {
			xfree(r->queues[i].name);
			xfree(r->queues[i].items);
		}
		xfree(r->queues);
		json_decref(r->meta);
		xfree(r->dir);
		xfree(r);
	}
	xfree(x);
}

static const struct executor_ops replay_ops = {replay_run, replay_meta, replay_free, NULL};

struct executor *executor__new_replay(const char *entry_dir, struct err *e)
{
	struct executor *x = xcalloc(1, sizeof(*x));
	struct replayer *r = xcalloc(1, sizeof(*r));
	if (x) {
		x->ops = &replay_ops;
		x->priv = r;
	}
	if (!x || !r || !(r->dir = xstrdup(entry_dir))) {
		err_set(e, -ENOMEM, ERR_OOM, "out of memory opening %s", entry_dir);
		if (!x)
			xfree(r);
		executor__free(x);
		return NULL;
	}
	if (load_entry(r, e) < 0) {
		executor__free(x);
		return NULL;
	}
	return x;
}
