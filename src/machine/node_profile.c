// SPDX-License-Identifier: BSD-3-Clause
#include "machine/node_profile.h"

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "machine/cache.h"
#include "machine/profile.h"
#include "machine/snapshot.h"

#define NODE_PROFILE_MAX_BYTES ((size_t)1 << 20)

static bool network_ceiling(const struct ceiling *c)
{
	return c->name && strncmp(c->name, "network_", 8) == 0;
}

/* The node's Machine is the allocation the launcher holds on it, not this
 * rank's own binding to some of its cores (mpirun binds each rank to one):
 * the CPU set of the shim's parent, the launcher's process on the node
 * (orted or mpirun, slurmstepd, Hydra's proxy). Unreadable: the rank's own. */
static int parent_affinity(struct allocation *a, pid_t launcher)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(launcher > 0 ? launcher : getppid(), sizeof(set), &set) < 0 || CPU_COUNT(&set) == 0)
		return 0;
	size_t n = (size_t)CPU_COUNT(&set), k = 0;
	int *mask = xcalloc(n, sizeof(int));
	if (!mask)
		return -ENOMEM;
	for (int cpu = 0; cpu < CPU_SETSIZE && k < n; cpu++)
		if (CPU_ISSET(cpu, &set))
			mask[k++] = cpu;
	xfree(a->affinity_mask);
	a->affinity_mask = mask;
	a->nr_affinity = k;
	a->has_affinity = true;
	a->visible_cores = (int64_t)k;
	return 0;
}

/* Calibrates m (no profile cached for it) with the launcher's CPU set: 1
 * when it now has Ceilings from a kernel (cached on this node when the
 * cache is writable), 0 with *why, -ENOMEM. */
static int calibrate_node(struct machine *m, const struct node_calibration *cal, char **why,
			  struct err *e)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (size_t i = 0; i < m->alloc.nr_affinity; i++)
		if (m->alloc.affinity_mask[i] >= 0 && m->alloc.affinity_mask[i] < CPU_SETSIZE)
			CPU_SET(m->alloc.affinity_mask[i], &set);
	if (m->alloc.nr_affinity)
		sched_setaffinity(0, sizeof(set), &set); /* refused: the rank's own CPUs */
	struct profile_opts o = {.calibrate = true, .cc = cal->cc, .sampler_lib = cal->sampler_lib,
				 .budget_s = cal->budget_s,
				 .occasion = "first Run on this node"};
	struct profile_outcome po;
	memset(&po, 0, sizeof(po));
	int rc = machine_profile(m, cal->x, &o, &po, e);
	if (rc == 0) {
		rc = po.calibrated && m->nr_ceilings && !po.cal.problem ? 1 : 0;
		for (size_t i = 0; rc == 1 && i < m->nr_ceilings; i++)
			rc = !ceiling__from_theory(&m->ceilings[i]);
		if (rc == 0) {
			xfree(*why);
			*why = xasprintf("calibrated on the node in this Run, without a usable "
					 "Ceiling: %s",
					 po.cal.problem ? po.cal.problem : "theoretical table only");
		}
	}
	profile_outcome__release(&po);
	return rc;
}

/* path written once: the calibrating rank replaces it, the others only
 * create it when absent (never over a calibrated one). */
static int write_profile(const char *path, const char *text, bool replace, struct err *e)
{
	size_t len = strlen(text);
	if (replace)
		return fs_write_atomic(path, text, len, e);
	char *tmp = NULL;
	int fd = fs_tmp_create(path, 0644, &tmp);
	if (fd < 0)
		return err_set(e, fd, ERR_RANK_WRITE, "cannot write beside %s: %s", path,
			       strerror(-fd));
	bool ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	int rc = ok && link(tmp, path) != 0 && errno != EEXIST ? -errno : ok ? 0 : -EIO;
	unlink(tmp);
	xfree(tmp);
	return rc ? err_set(e, rc, ERR_RANK_WRITE, "cannot write %s: %s", path, strerror(-rc))
		  : 0;
}

int node_profile_record(const char *collect_dir, const struct node_calibration *cal,
			pid_t launcher, char id[MACHINE_ID_SIZE], struct err *e)
{
	struct machine m;
	machine__init(&m);
	int rc = machine__snapshot(&m, NULL, e);
	if (rc == 0 && parent_affinity(&m.alloc, launcher) < 0)
		rc = err_oom(e);
	if (rc == 0 && machine_identity(&m, id))
		rc = err_oom(e);
	char *cache = NULL, *why = NULL;
	int cached = 0;
	bool calibrated = false;
	if (rc == 0) {
		struct err ce = {0};
		cache = machine_cache_dir(&ce);
		cached = cache ? machine_cache_load_ceilings(&m, cache, &ce) : 0;
		if (cached < 0)
			rc = err_oom(e);
		else if (cached == 0)
			why = xstrdup(ce.msg[0] ? ce.msg : "no cached profile");
	}
	if (rc == 0 && cached == 0 && cal && cal->launch_id && strcmp(cal->launch_id, id) != 0) {
		cached = calibrate_node(&m, cal, &why, e);
		calibrated = cached == 1;
		rc = cached < 0 ? cached : 0;
	}
	if (cached != 1)
		machine__clear_ceilings(&m); /* the theoretical table is no node's own */
	char *dir = rc == 0 ? fs_join(collect_dir, NODE_PROFILE_DIR) : NULL;
	char *name = dir ? xasprintf("%s.json", id) : NULL;
	char *path = name ? fs_join(dir, name) : NULL;
	if (rc == 0 && !path)
		rc = err_oom(e);
	else if (rc == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
		rc = err_set(e, -errno, ERR_RANK_WRITE, "cannot create %s: %s", dir, strerror(errno));
	struct stat st;
	if (rc == 0 && (calibrated || lstat(path, &st) != 0)) {
		json_t *doc = json_pack("{s:o, s:b, s:b, s:o}", "machine", machine__to_json(&m),
					"cached", cached == 1, "calibrated", calibrated, "why",
					why && cached != 1 ? json_string(why) : json_null());
		char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
		rc = text ? write_profile(path, text, calibrated, e) : err_oom(e);
		free(text);
		json_decref(doc);
	}
	xfree(path);
	xfree(name);
	xfree(dir);
	xfree(why);
	xfree(cache);
	machine__release(&m);
	return rc;
}

/* ---- the launch node ---- */

struct gathered {
	/* per entry of nm: why the node had no cached Ceilings (or NULL), and
	 * the identity its ranks named ("" when none) */
	char **why;
	char (*id)[MACHINE_ID_SIZE];
	size_t n, cap_why, cap_id;
};

static bool valid_id(const char *id)
{
	if (!id || strlen(id) != MACHINE_ID_SIZE - 1)
		return false;
	for (const char *p = id; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

/* <collect>/machines/<id>.json into n->m (known) and *why; a missing or
 * unreadable one leaves the entry unknown with the reason. */
static int load_machine(const char *collect_dir, const char *id, struct node_machine *n,
			char **why, struct err *e)
{
	char *path = xasprintf("%s/%s/%s.json", collect_dir, NODE_PROFILE_DIR, id);
	char *text = NULL;
	if (!path)
		return err_oom(e);
	int rc = safefs_read_regular(path, NODE_PROFILE_MAX_BYTES, &text, NULL);
	json_t *doc = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	struct err me = {0};
	if (rc == -ENOMEM) {
		rc = err_oom(e);
	} else if (!doc || machine__from_json(&n->m, json_object_get(doc, "machine"), &me)) {
		*why = xasprintf("%s: %s", path, rc ? safefs_strerror(rc)
						  : me.msg[0] ? me.msg : "not a Machine profile");
		rc = *why ? 0 : err_oom(e);
	} else {
		char got[MACHINE_ID_SIZE];
		n->known = machine_identity(&n->m, got) == 0 && strcmp(got, id) == 0;
		const char *w = json_string_value(json_object_get(doc, "why"));
		n->calibrated = json_is_true(json_object_get(doc, "calibrated"));
		if (!n->known)
			*why = xasprintf("%s describes another Machine (%s)", path, got);
		else if (!json_is_true(json_object_get(doc, "cached")))
			*why = xstrdup(w ? w : "no cached profile");
		if (!n->known || !json_is_true(json_object_get(doc, "cached")))
			machine__clear_ceilings(&n->m);
		rc = 0;
	}
	json_decref(doc);
	xfree(text);
	xfree(path);
	return rc;
}

/* The entry of (node, id), added when new. */
static int entry_for(struct node_machines *nm, struct gathered *g, const char *collect_dir,
		     const char *node, const char *id, struct node_machine **out, struct err *e)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i].node, node) == 0 && strcmp(g->id[i], id ? id : "") == 0) {
			*out = &nm->v[i];
			return 0;
		}
	if (xgrow((void **)&nm->v, &nm->cap, nm->n + 1, sizeof(*nm->v)) ||
	    xgrow((void **)&g->why, &g->cap_why, nm->n + 1, sizeof(char *)) ||
	    xgrow((void **)&g->id, &g->cap_id, nm->n + 1, sizeof(*g->id)))
		return err_oom(e);
	struct node_machine *n = &nm->v[nm->n];
	memset(n, 0, sizeof(*n));
	machine__init(&n->m);
	g->why[nm->n] = NULL;
	snprintf(g->id[nm->n], MACHINE_ID_SIZE, "%s", id ? id : "");
	g->n = ++nm->n;
	if (!(n->node = xstrdup(node)))
		return err_oom(e);
	*out = n;
	if (!id)
		return (g->why[nm->n - 1] = xstrdup("its ranks recorded no Machine (the rank shim "
						    "could not take the node's snapshot)"))
			       ? 0 : err_oom(e);
	return load_machine(collect_dir, id, n, &g->why[nm->n - 1], e);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct node_machine *x = a, *y = b;
	return cmp_int(x->ranks, y->ranks); /* every entry holds a rank */
}

/* One rank-<N>/rank.json: its node and Machine into nm. *any: it named one. */
static int gather_rank(const char *collect_dir, int rank, struct node_machines *nm,
		       struct gathered *g, bool *any, struct err *e)
{
	char *path = xasprintf("%s/rank-%d/rank.json", collect_dir, rank);
	char *text = NULL;
	if (!path)
		return err_oom(e);
	int rc = safefs_read_regular(path, NODE_PROFILE_MAX_BYTES, &text, NULL);
	xfree(path);
	json_t *j = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	xfree(text);
	if (rc == -ENOMEM)
		return err_oom(e);
	const char *node = json_string_value(json_object_get(j, "node"));
	const char *id = json_string_value(json_object_get(j, "machine"));
	if (!node || json_integer_value(json_object_get(j, "rank")) != rank) {
		json_decref(j);
		return 0; /* no usable rank.json: the rank view says it is missing */
	}
	*any |= id != NULL;
	struct node_machine *n = NULL;
	rc = entry_for(nm, g, collect_dir, node, valid_id(id) ? id : NULL, &n, e);
	if (rc == 0 && xgrow((void **)&n->ranks, &n->cap_ranks, n->nr_ranks + 1, sizeof(int)))
		rc = err_oom(e);
	if (rc == 0)
		n->ranks[n->nr_ranks++] = rank;
	json_decref(j);
	return rc;
}

int node_machines_gather(const char *collect_dir, const struct machine *launch,
			 struct node_machines *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	struct gathered g = {0};
	DIR *d = collect_dir ? opendir(collect_dir) : NULL;
	bool any = false;
	int rc = 0;
	struct dirent *de;
	while (d && rc == 0 && (de = readdir(d))) {
		int rank;
		char tail;
		if (sscanf(de->d_name, "rank-%d%c", &rank, &tail) == 1 && rank >= 0)
			rc = gather_rank(collect_dir, rank, out, &g, &any, e);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; rc == 0 && i < out->n; i++)
		qsort(out->v[i].ranks, out->v[i].nr_ranks, sizeof(int), cmp_int);
	if (rc == 0 && any)
		rc = node_machines_resolve(out, launch, (const char *const *)g.why, e);
	if (rc == 0 && any) /* in order of their lowest rank, as the rank view's nodes */
		qsort(out->v, out->n, sizeof(*out->v), cmp_entry);
	if (rc || !any)
		node_machines__release(out);
	for (size_t i = 0; i < g.n; i++)
		xfree(g.why[i]);
	xfree(g.why);
	xfree(g.id);
	return rc;
}

/* "Machine 1a2b…: <CPU>, 1 of 2 cores" */
static void describe(const struct machine *m, char *buf, size_t cap)
{
	char id[MACHINE_ID_SIZE] = "unknown";
	if (machine_identity(m, id))
		snprintf(id, sizeof(id), "unknown");
	const char *cpu = m->cpu_model ? m->cpu_model : "CPU model unknown";
	if (m->alloc.visible_cores > 0 && m->logical_cores > 0)
		snprintf(buf, cap, "Machine %s: %s, %lld of %lld cores", id, cpu,
			 (long long)m->alloc.visible_cores, (long long)m->logical_cores);
	else
		snprintf(buf, cap, "Machine %s: %s", id, cpu);
}

/* n's Ceilings become launch's node-local ones; `borrowed` (when non-NULL)
 * downgrades each measured one to estimated and prefixes its reason. */
static int take_launch(struct node_machine *n, const struct machine *launch,
		       const char *borrowed)
{
	machine__clear_ceilings(&n->m);
	for (size_t i = 0; i < launch->nr_ceilings; i++) {
		const struct ceiling *c = &launch->ceilings[i];
		if (network_ceiling(c))
			continue;
		struct ceiling cp = *c;
		char *r = NULL;
		if (borrowed) {
			if (cp.quality == QUALITY_MEASURED)
				cp.quality = QUALITY_ESTIMATED;
			r = c->reason ? xasprintf("%s; on the launch node: %s", borrowed, c->reason)
				      : xstrdup(borrowed);
			if (!r)
				return -ENOMEM;
			cp.reason = r;
		}
		int rc = machine__add_ceiling(&n->m, &cp);
		xfree(r);
		if (rc)
			return rc;
	}
	return 0;
}

/* Drops the network Ceilings of m (a pair's, never a node's). Returns the
 * number left. */
static size_t keep_local(struct machine *m)
{
	size_t k = 0;
	for (size_t i = 0; i < m->nr_ceilings; i++) {
		if (network_ceiling(&m->ceilings[i])) {
			xfree(m->ceilings[i].name);
			xfree(m->ceilings[i].unit);
			xfree(m->ceilings[i].reason);
			continue;
		}
		m->ceilings[k++] = m->ceilings[i];
	}
	m->nr_ceilings = k;
	return k;
}

int node_machines_resolve(struct node_machines *nm, const struct machine *launch,
			  const char *const *why, struct err *e)
{
	char lid[MACHINE_ID_SIZE], ld[512], nd[512];
	if (machine_identity(launch, lid))
		return err_oom(e);
	describe(launch, ld, sizeof(ld));
	for (size_t i = 0; i < nm->n; i++) {
		struct node_machine *n = &nm->v[i];
		char nid[MACHINE_ID_SIZE] = "";
		if (n->known && machine_identity(&n->m, nid))
			return err_oom(e);
		xfree(n->reason);
		n->reason = NULL;
		int rc = 0;
		if (n->known && strcmp(nid, lid) == 0) {
			n->source = NODE_CEILINGS_LAUNCH;
			rc = take_launch(n, launch, NULL);
		} else if (n->known && keep_local(&n->m) > 0) {
			n->source = NODE_CEILINGS_OWN;
		} else {
			n->source = NODE_CEILINGS_BORROWED;
			if (n->known)
				describe(&n->m, nd, sizeof(nd));
			else
				snprintf(nd, sizeof(nd), "Machine unknown");
			const char *w = why && why[i] ? why[i] : "no cached profile";
			n->reason = xasprintf("node %s (%s) has no Ceilings of its own (%s): the "
					      "launch node%s%s's (%s) stand in",
					      n->node, nd, w, launch->hostname ? " " : "",
					      launch->hostname ? launch->hostname : "", ld);
			rc = n->reason ? take_launch(n, launch, n->reason) : -ENOMEM;
		}
		if (rc)
			return err_oom(e);
	}
	return 0;
}
