// SPDX-License-Identifier: BSD-3-Clause
// What a launch's network Ceilings depend on (netcache_scope.h).
#include "mpi/netcache_scope.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/safefs.h"
#include "launch/options.h"

#define MAX_NODES 65536
#define HOSTFILE_MAX (1u << 20)

/* A growing list of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
	bool oom;
};

static void strv_take(struct strv *l, char *s)
{
	if (!s || l->oom) {
		l->oom = true;
		xfree(s);
		return;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		char **v = xrealloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->oom = true;
			xfree(s);
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
}

static void strv_release(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		xfree(l->v[i]);
	xfree(l->v);
	*l = (struct strv){0};
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, once each, joined by sep (NULL on ENOMEM). */
static char *strv_join(struct strv *l, const char *sep)
{
	if (l->oom)
		return NULL;
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_str);
	size_t len = 1;
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + strlen(sep);
	char *out = xmalloc(len), *p = out;
	if (!out)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < l->n; i++) {
		if (i && !strcmp(l->v[i], l->v[i - 1]))
			continue;
		p += sprintf(p, "%s%s", p == out ? "" : sep, l->v[i]);
	}
	return out;
}

void netcache_nodes_canon(char *nodes)
{
	struct strv l = {0};
	for (char *tok = strtok(nodes, ","); tok; tok = strtok(NULL, ","))
		strv_take(&l, xstrdup(tok));
	char *j = strv_join(&l, ",");
	if (j)
		memcpy(nodes, j, strlen(j) + 1); /* never longer than the input */
	xfree(j);
	strv_release(&l);
}

char *netcache_nodes_spaced(const char *nodes)
{
	char *out = xmalloc(2 * strlen(nodes) + 1), *q = out;
	for (const char *p = nodes; out && *p; p++) {
		*q++ = *p;
		if (*p == ',')
			*q++ = ' ';
	}
	if (out)
		*q = '\0';
	return out;
}

/* One bracketed range list "1-3,07" of a host list element: each name is
 * head + number + tail, expanded again (tail may hold brackets). */
static int expand(const char *name, struct strv *out);

static int expand_ranges(const char *head, size_t hlen, const char *ranges, size_t rlen,
			 const char *tail, struct strv *out)
{
	if (!rlen || ranges[rlen - 1] == ',' || ranges[0] == ',')
		return -EINVAL; /* "n[]", "n[1,]": no host list */
	char *r = xstrndup(ranges, rlen), *save = NULL;
	int rc = r ? 0 : -ENOMEM;
	for (char *t = r ? strtok_r(r, ",", &save) : NULL; t && rc == 0;
	     t = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(t, '-'), *end = NULL;
		int width = (int)(dash ? (size_t)(dash - t) : strlen(t));
		if (!width || !isdigit((unsigned char)*t))
			return xfree(r), -EINVAL;
		unsigned long lo = strtoul(t, &end, 10), hi = lo;
		if (dash && (!isdigit((unsigned char)dash[1]) || (hi = strtoul(dash + 1, &end, 10), *end)))
			return xfree(r), -EINVAL;
		if ((!dash && *end) || hi < lo || hi - lo >= MAX_NODES || out->n + (hi - lo) >= MAX_NODES)
			return xfree(r), -EINVAL;
		for (unsigned long v = lo; v <= hi && rc == 0; v++) {
			char *name = xasprintf("%.*s%0*lu%s", (int)hlen, head, t[0] == '0' ? width : 0,
					       v, tail);
			rc = name ? expand(name, out) : -ENOMEM;
			xfree(name);
		}
	}
	xfree(r);
	return rc;
}

static int expand(const char *name, struct strv *out)
{
	const char *open = strchr(name, '['), *close = open ? strchr(open, ']') : NULL;
	if (!open) {
		if (!*name || strchr(name, ']') || out->n >= MAX_NODES)
			return -EINVAL;
		strv_take(out, xstrdup(name));
		return out->oom ? -ENOMEM : 0;
	}
	if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return -EINVAL;
	return expand_ranges(name, (size_t)(open - name), open + 1, (size_t)(close - open - 1),
			     close + 1, out);
}

/* The host list's names into out (top-level commas split the elements). */
static int hostlist_into(const char *list, struct strv *out)
{
	int depth = 0, rc = 0;
	const char *start = list;
	for (const char *p = list;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (depth < 0 || depth > 1 || isspace((unsigned char)*p))
			return -EINVAL;
		if ((*p == ',' && depth == 0) || !*p) {
			char *el = xstrndup(start, (size_t)(p - start));
			rc = el ? expand(el, out) : -ENOMEM;
			xfree(el);
			if (rc < 0 || !*p)
				break;
			start = p + 1;
		}
	}
	return rc < 0 ? rc : depth ? -EINVAL : 0;
}

char *netcache_hostlist(const char *list)
{
	struct strv l = {0};
	char *out = list && *list && hostlist_into(list, &l) == 0 && l.n ? strv_join(&l, ",")
									: NULL;
	strv_release(&l);
	return out;
}

enum family { FAM_SLURM, FAM_OPENMPI, FAM_HYDRA, FAM_OTHER };

/* What the walk over the launcher's options gathered. */
struct walk {
	enum family fam;
	char *const *envp;
	struct strv transport, shape, counts, hosts;
	const char *w, *nodes_n, *tasks_n, *hostfile;
	const char *x, *rel, *nodefile; /* srun -x, -r, --nodefile */
	const char *here; /* this host, as the ranks name it */
	char unsure[160]; /* an option that leaves the nodes unknown before the launch */
	char placed[64];  /* an mpirun option that places ranks otherwise than by slots */
};

/* A host of -H or a hostfile: the loopback names are this host, which the
 * probe and the ranks name by its own name. */
static void add_host(struct walk *w, const char *name)
{
	bool local = !strcmp(name, "localhost") || !strcmp(name, "127.0.0.1") ||
		     !strcmp(name, "::1");
	strv_take(&w->hosts, xstrdup(local ? w->here : name));
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, n) && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* A variable that chooses or tunes how ranks talk. */
static bool transport_var(const char *kv)
{
	static const char *const pre[] = {"OMPI_MCA_", "UCX_", "FI_", "MPIR_CVAR_", "MPICH_",
					  "I_MPI_", "PSM2_", "PSM3_", "HFI_", "NCCL_",
					  "SLURM_MPI_TYPE="};
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(kv, pre[i], strlen(pre[i])))
			return true;
	return false;
}

static void push(struct strv *l, const struct launch_option *o, int nvals)
{
	const char *a = nvals > 0 && o->nr_values > 0 ? o->values[0] : "";
	const char *b = nvals > 1 && o->nr_values > 1 ? o->values[1] : "";
	strv_take(l, xasprintf("%.*s%s%s%s%s", (int)o->name_len, o->name, nvals ? "=" : "", a,
			       nvals > 1 ? "=" : "", b));
}

static bool is_any(const struct launch_option *o, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (launch_option__is(o, names[i]))
			return true;
	return false;
}

static void unsure(struct walk *w, const struct launch_option *o, const char *what)
{
	if (!w->unsure[0])
		snprintf(w->unsure, sizeof(w->unsure), "%.*s %s", (int)o->name_len, o->name, what);
}

/* An mpirun option that decides which nodes get ranks otherwise than by
 * filling slots (-N, --map-by, -ppn, ...): said when the allocation's nodes
 * are not claimed for it. */
static void placed(struct walk *w, const struct launch_option *o)
{
	if (!w->placed[0])
		snprintf(w->placed, sizeof(w->placed), "%.*s", (int)o->name_len, o->name);
}

static void slurm_option(struct walk *w, const struct launch_option *o)
{
	static const char *const transport[] = {"--mpi", "--network", NULL};
	static const char *const counts[] = {"-n", "--ntasks", "--ntasks-per-node", "-c",
					     "--cpus-per-task", NULL};
	static const char *const shape[] = {"-p", "--partition", "-C", "--constraint",
					    "--reservation", "--exclusive", "--switches", "-B",
					    "--extra-node-info", NULL};
	static const char *const moving[] = {"--jobid", "-M", "--clusters", NULL};
	const char *v = o->nr_values ? o->values[0] : NULL;
	if (is_any(o, transport))
		push(&w->transport, o, 1);
	else if (launch_option__is(o, "-w") || launch_option__is(o, "--nodelist")) {
		w->w = v;
		push(&w->shape, o, 1);
	} else if (launch_option__is(o, "-x") || launch_option__is(o, "--exclude")) {
		w->x = v;
		push(&w->shape, o, 1);
	} else if (launch_option__is(o, "-r") || launch_option__is(o, "--relative")) {
		w->rel = v;
		push(&w->shape, o, 1);
	} else if (launch_option__is(o, "--nodefile")) {
		w->nodefile = v;
		push(&w->shape, o, 1);
	} else if (launch_option__is(o, "-N") || launch_option__is(o, "--nodes")) {
		w->nodes_n = v;
		push(&w->shape, o, 1);
	} else if (is_any(o, counts)) {
		if (launch_option__is(o, "-n") || launch_option__is(o, "--ntasks"))
			w->tasks_n = v;
		push(&w->counts, o, 1);
	} else if (is_any(o, moving)) {
		unsure(w, o, "chooses the nodes in a way nunatak does not read");
		push(&w->shape, o, 1);
	} else if (is_any(o, shape))
		push(&w->shape, o, o->nr_values);
}

/* -H a:2,b / -hosts a,b: the names without their slot counts. */
static void host_names(struct walk *w, const char *list)
{
	char *copy = xstrdup(list ? list : ""), *save = NULL;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		t[strcspn(t, ":")] = '\0';
		if (*t)
			add_host(w, t);
	}
	if (!copy)
		w->hosts.oom = true;
	xfree(copy);
}

/* A host list, a hostfile, or an option that chooses the nodes otherwise:
 * each is part of the shape. */
static void node_option(struct walk *w, const struct launch_option *o, const char *const *hosts,
			const char *const *files)
{
	const char *v = o->nr_values ? o->values[0] : NULL;
	if (is_any(o, hosts))
		host_names(w, v);
	else if (is_any(o, files))
		w->hostfile = v;
	else
		unsure(w, o, "chooses the nodes in a way nunatak does not read");
	push(&w->shape, o, o->nr_values);
}

static void openmpi_option(struct walk *w, const struct launch_option *o)
{
	static const char *const hosts[] = {"H", "host", NULL};
	static const char *const files[] = {"hostfile", "machinefile", "default-hostfile", NULL};
	static const char *const moving[] = {"add-host", "add-hostfile", "rankfile", "rf", "dvm",
					     "dvm-uri", "app", NULL};
	static const char *const counts[] = {"n", "np", "c", "N", "npernode", "npersocket",
					     "map-by", "nolocal", "oversubscribe", NULL};
	if (launch_option__is(o, "mca") || launch_option__is(o, "gmca"))
		push(&w->transport, o, 2);
	else if (launch_option__is(o, "tune") || launch_option__is(o, "am"))
		push(&w->transport, o, 1);
	else if (launch_option__is(o, "x") && o->nr_values && strchr(o->values[0], '=') &&
		 transport_var(o->values[0]))
		push(&w->transport, o, 1); /* -x VAR alone: VAR is in the environment read below */
	else if (is_any(o, hosts) || is_any(o, files) || is_any(o, moving))
		node_option(w, o, hosts, files);
	else if (is_any(o, counts)) {
		if (launch_option__is(o, "n") || launch_option__is(o, "np"))
			w->tasks_n = o->nr_values ? o->values[0] : NULL;
		else if (!launch_option__is(o, "oversubscribe"))
			placed(w, o);
		push(&w->shape, o, o->nr_values);
	}
}

static void hydra_option(struct walk *w, const struct launch_option *o)
{
	static const char *const hosts[] = {"hosts", "host", NULL};
	static const char *const files[] = {"f", "hostfile", "machinefile", "mfile", NULL};
	static const char *const counts[] = {"n", "np", "ppn", "perhost", "rmk", "launcher",
					     "rr", NULL};
	if ((launch_option__is(o, "genv") || launch_option__is(o, "env")) && o->nr_values == 2) {
		char *kv = xasprintf("%s=%s", o->values[0], o->values[1]);
		if (kv && transport_var(kv))
			push(&w->transport, o, 2);
		xfree(kv);
	} else if (launch_option__is(o, "iface") || launch_option__is(o, "netmod"))
		push(&w->transport, o, 1);
	else if (is_any(o, hosts) || is_any(o, files) || launch_option__is(o, "configfile"))
		node_option(w, o, hosts, files);
	else if (is_any(o, counts)) {
		if (launch_option__is(o, "n") || launch_option__is(o, "np"))
			w->tasks_n = o->nr_values ? o->values[0] : NULL;
		else
			placed(w, o);
		push(&w->shape, o, o->nr_values);
	}
}

static void on_option(const struct launch_option *o, void *ctx)
{
	struct walk *w = ctx;
	if (w->fam == FAM_SLURM)
		slurm_option(w, o);
	else if (w->fam == FAM_OPENMPI)
		openmpi_option(w, o);
	else if (w->fam == FAM_HYDRA)
		hydra_option(w, o);
	else /* a launcher whose node options nunatak does not read: all of them */
		push(&w->shape, o, o->nr_values);
}

static long count_of(const char *v)
{
	char *end = NULL;
	long n = v && isdigit((unsigned char)*v) ? strtol(v, &end, 10) : -1;
	return end && !*end && n > 0 ? n : -1;
}

static size_t names_in(const char *joined)
{
	size_t n = *joined ? 1 : 0;
	for (; *joined; joined++)
		n += *joined == ',';
	return n;
}

/* The names of a file of host lists, one or more a line (srun's --nodefile,
 * and -w or -x naming a file), canonical; NULL when it cannot be read or a
 * line is no host list (a comment, a blank inside a line). */
static char *list_file(const char *path)
{
	char *text = NULL, *save = NULL, *out = NULL;
	if (safefs_read_regular(path, HOSTFILE_MAX, &text, NULL) != 0)
		return NULL;
	struct strv l = {0};
	bool bad = strchr(text, '#') != NULL;
	for (char *t = strtok_r(text, "\n", &save); t && !bad; t = strtok_r(NULL, "\n", &save)) {
		t += strspn(t, " \t\r");
		size_t n = strlen(t);
		while (n && strchr(" \t\r", t[n - 1]))
			t[--n] = '\0';
		char *names = n ? netcache_hostlist(t) : NULL;
		bad = n && !names;
		if (names)
			strv_take(&l, names);
	}
	if (!bad && l.n && (out = strv_join(&l, ",")))
		netcache_nodes_canon(out);
	if (out && names_in(out) > MAX_NODES) {
		xfree(out);
		out = NULL;
	}
	strv_release(&l);
	xfree(text);
	return out;
}

/* srun's node option v (what: its name): a host list, or a file of them
 * when it holds a '/' (srun reads -w and -x so) or is --nodefile's. NULL
 * with why[] when nunatak cannot read it. */
static char *srun_list(const char *v, bool file, const char *what, struct netcache_scope *sc)
{
	file = file || strchr(v, '/');
	char *l = file ? list_file(v) : netcache_hostlist(v);
	if (!l)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s %.120s %s", what, v,
			 file ? "is no file of host lists nunatak reads" : "is no host list nunatak "
			 "reads");
	return l;
}

/* The names of a that are not in b (both canonical: sorted, once each),
 * ","-joined; NULL on ENOMEM. */
static char *nodes_less(const char *a, const char *b)
{
	char *out = xmalloc(strlen(a) + 1), *o = out;
	if (!out)
		return NULL;
	*o = '\0';
	while (*a) {
		size_t na = strcspn(a, ","), nb = strcspn(b, ",");
		int c = *b ? strncmp(a, b, na < nb ? na : nb) : -1;
		c = c ? c : na < nb ? -1 : na > nb ? 1 : 0;
		if (c < 0)
			o += sprintf(o, "%s%.*s", o == out ? "" : ",", (int)na, a);
		if (c <= 0)
			a += na + (a[na] == ',');
		if (c >= 0)
			b += nb + (b[nb] == ',');
	}
	return out;
}

/* How many nodes srun's step asks for: -N; else, inside an allocation
 * (alloc: its node list as set, all: expanded or NULL), its node count,
 * which srun takes from its environment (SLURM_JOB_NUM_NODES, SLURM_NNODES;
 * the allocation's length when neither is set); fewer ranks lower it, as
 * srun does ("can't run 1 processes on 2 nodes, setting nnodes to 1"), and
 * *by says which. 0: no count (outside an allocation); -1: none nunatak
 * reads (a range). */
static long step_nodes(const struct walk *w, const char *alloc, const char *all,
		       const char **by)
{
	long n = 0, t = count_of(w->tasks_n);
	*by = w->nodes_n ? "-N" : "the allocation's node count (SLURM_JOB_NUM_NODES)";
	if (w->nodes_n)
		n = count_of(w->nodes_n);
	else if (alloc) {
		const char *e = env_get(w->envp, "SLURM_JOB_NUM_NODES");
		e = e ? e : env_get(w->envp, "SLURM_NNODES");
		n = e ? count_of(e) : all ? (long)names_in(all) : -1;
	}
	if (t > 0 && (n == 0 || t < n))
		*by = "-n";
	return n > 0 && t > 0 && t < n ? t : n;
}

/* The step runs on exactly the k nodes of src, or why[] says why not. */
static bool step_covers(const struct walk *w, const char *alloc, const char *all, size_t k,
			const char *src, struct netcache_scope *sc)
{
	const char *by;
	long want = step_nodes(w, alloc, all, &by), tasks = count_of(w->tasks_n);
	long asked = want ? want : tasks;
	if (want < 0)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "the step's node count (%s) is "
			 "none nunatak reads: Slurm picks the nodes", by);
	else if ((want > 0 && (size_t)want != k) || (!want && tasks > 0 && (size_t)tasks < k))
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "the step asks for %ld node%s "
			 "(%s) of the %zu of %s: Slurm %s", asked, asked == 1 ? "" : "s", by, k, src,
			 asked > (long)k ? "adds nodes of its choice" : "picks which");
	else
		snprintf(sc->nodes_from, sizeof(sc->nodes_from), "srun %s", src);
	return !sc->why_unknown[0];
}

/* srun's nodes: -w's or --nodefile's list, the whole allocation it runs
 * inside, or the allocation less -x's, when the step takes all of them. */
static char *slurm_nodes(struct walk *w, struct netcache_scope *sc)
{
	const char *alloc = env_get(w->envp, "SLURM_JOB_NODELIST"), *src = NULL;
	char *all = alloc && !strchr(alloc, '/') ? netcache_hostlist(alloc) : NULL, *nodes = NULL;
	if (w->unsure[0])
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "srun's %s", w->unsure);
	else if (w->rel && strcmp(w->rel, "0"))
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "srun's -r %.20s counts the "
			 "allocation's nodes in the order of Slurm's node table, which its node list "
			 "does not give", w->rel);
	else if ((w->w != NULL) + (w->x != NULL) + (w->nodefile != NULL) > 1)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "srun's -w, -x and --nodefile "
			 "together: Slurm combines them");
	else if (w->w || w->nodefile) {
		src = w->nodefile ? "--nodefile" : strchr(w->w, '/') ? "-w/--nodelist's file"
								      : "-w/--nodelist";
		nodes = srun_list(w->w ? w->w : w->nodefile, w->nodefile, src, sc);
	} else if (!alloc)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s", w->x
			 ? "srun -x outside an allocation: Slurm picks among the other nodes when "
			   "the job starts"
			 : "srun outside an allocation and without -w/--nodelist: Slurm picks the "
			   "nodes when the job starts");
	else if (!all)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "the allocation "
			 "(SLURM_JOB_NODELIST) %.80s is no host list nunatak reads", alloc);
	else if (w->x) {
		char *x = srun_list(w->x, false, "-x/--exclude", sc);
		nodes = x ? nodes_less(all, x) : NULL;
		src = "the allocation (SLURM_JOB_NODELIST) less -x/--exclude";
		xfree(x);
	} else {
		nodes = xstrdup(all);
		src = "the allocation (SLURM_JOB_NODELIST)";
	}
	if (nodes && !*nodes)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s leaves no node", src);
	else if (nodes)
		(void)step_covers(w, alloc, all, names_in(nodes), src, sc);
	xfree(all);
	if (sc->why_unknown[0]) {
		xfree(nodes);
		nodes = NULL;
	}
	return nodes;
}

/* The names of a hostfile (Open MPI "host slots=2", hydra "host:2"). */
static char *hostfile_nodes(struct walk *w, struct netcache_scope *sc)
{
	char *text = NULL;
	size_t len = 0;
	if (safefs_read_regular(w->hostfile, HOSTFILE_MAX, &text, &len) != 0) {
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "the hostfile %.160s could not "
			 "be read", w->hostfile);
		return NULL;
	}
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l[strcspn(l, "#")] = '\0';
		l += strspn(l, " \t\r");
		l[strcspn(l, " \t\r:")] = '\0';
		if (*l)
			add_host(w, l);
	}
	xfree(text);
	if (!w->hosts.n) {
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "the hostfile %.160s names no "
			 "host", w->hostfile);
		return NULL;
	}
	return strv_join(&w->hosts, ",");
}

/* Slurm's slots per node ("2(x3),1", SLURM_TASKS_PER_NODE's form) summed
 * into *total, the smallest into *least: true when it gives exactly k
 * counts, each at least 1. */
static bool slots_of(const char *v, size_t k, long *total, long *least)
{
	size_t seen = 0;
	*total = 0;
	*least = -1;
	for (const char *p = v; p && *p && seen <= k;) {
		char *end = NULL;
		long c = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0, reps = 1;
		if (c < 1 || c > MAX_NODES)
			return false;
		if (end[0] == '(' && end[1] == 'x' && isdigit((unsigned char)end[2])) {
			reps = strtol(end + 2, &end, 10);
			if (*end++ != ')' || reps < 1 || reps > MAX_NODES)
				return false;
		}
		if (*end && *end != ',')
			return false;
		seen += (size_t)reps;
		*total += c * reps;
		*least = *least < 0 || c < *least ? c : *least;
		p = *end ? end + 1 : end;
	}
	return seen == k && *least > 0;
}

/* A variable that places an mpirun's ranks otherwise (a default hostfile,
 * a mapping policy, hydra's own resource manager or host file). */
static bool placement_var(const char *kv)
{
	static const char *const pre[] = {"OMPI_MCA_", "PRTE_MCA_", "ORTE_MCA_"};
	static const char *const what[] = {"rmaps", "ras_", "hostfile", "host", "mapping",
					   "nolocal", "hnp"};
	if (!strncmp(kv, "HYDRA_", 6))
		return true;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		if (strncmp(kv, pre[i], strlen(pre[i])))
			continue;
		size_t n = strcspn(kv, "=");
		for (size_t j = 0; j < sizeof(what) / sizeof(what[0]); j++)
			if (memmem(kv, n, what[j], strlen(what[j])))
				return true;
	}
	return false;
}

/* mpirun inside a Slurm allocation without a host option: its ranks fill
 * the allocation's nodes (SLURM_NODELIST, as Open MPI and hydra read it)
 * slot by slot, starting where nunatak cannot tell (mpirun's own node
 * first, or the list's first). The set is certain only when no node can be
 * left out: one node, no rank count (a rank a slot), or more ranks than the
 * slots of all nodes but the smallest, with slots counted both as
 * SLURM_TASKS_PER_NODE and SLURM_JOB_CPUS_PER_NODE (MPI versions read one or
 * the other). NULL with why[] otherwise. */
static char *mpirun_allocation(struct walk *w, const char *name, struct netcache_scope *sc)
{
	const char *list = env_get(w->envp, "SLURM_NODELIST");
	const char *cpt = env_get(w->envp, "SLURM_CPUS_PER_TASK");
	char *all = list && !strchr(list, '/') ? netcache_hostlist(list) : NULL;
	size_t k = all ? names_in(all) : 0;
	long tasks = count_of(w->tasks_n), total[2], least[2];
	bool slots = k && slots_of(env_get(w->envp, "SLURM_TASKS_PER_NODE"), k, &total[0],
				   &least[0]) &&
		     slots_of(env_get(w->envp, "SLURM_JOB_CPUS_PER_NODE"), k, &total[1], &least[1]);
	const char *var = NULL;
	for (size_t i = 0; w->envp && w->envp[i] && !var; i++)
		var = placement_var(w->envp[i]) ? w->envp[i] : NULL;
	if (!all)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s inside an allocation whose "
			 "SLURM_NODELIST nunatak does not read", name);
	else if (w->placed[0] || var)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s inside an allocation: %.60s "
			 "places the ranks", name, var ? var : w->placed);
	else if (k > 1 && cpt && strcmp(cpt, "1"))
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s inside an allocation with "
			 "SLURM_CPUS_PER_TASK=%.20s: its slots per node are not read", name, cpt);
	else if (k > 1 && w->tasks_n && tasks < 1)
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s inside an allocation: "
			 "-n %.20s is no rank count nunatak reads", name, w->tasks_n);
	else if (k > 1 && w->tasks_n && (!slots || tasks <= total[0] - least[0] ||
					  tasks <= total[1] - least[1]))
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s fills the %zu nodes of the "
			 "allocation slot by slot from a node nunatak cannot tell: %ld ranks may "
			 "leave some out", name, k, tasks);
	else
		snprintf(sc->nodes_from, sizeof(sc->nodes_from), "the allocation (SLURM_NODELIST): "
			 "%s", k == 1 ? "one node" : "its ranks fill every node");
	if (sc->why_unknown[0]) {
		xfree(all);
		all = NULL;
	}
	return all;
}

/* mpirun's nodes: -H's or the hostfile's, else this host outside any
 * allocation. */
static char *mpirun_nodes(struct walk *w, struct netcache_scope *sc)
{
	static const char *const allocations[] = {"SLURM_JOB_NODELIST", "PBS_NODEFILE",
						  "LSB_DJOB_HOSTFILE", "FLUX_URI", "COBALT_NODEFILE",
						  NULL};
	const char *name = w->fam == FAM_OPENMPI ? "Open MPI's mpirun" : "hydra";
	char *nodes = NULL;
	if (w->unsure[0])
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s: %s", name, w->unsure);
	else if (w->hosts.n && (nodes = strv_join(&w->hosts, ",")))
		snprintf(sc->nodes_from, sizeof(sc->nodes_from), "the launcher's host list");
	else if (w->hostfile && (nodes = hostfile_nodes(w, sc)))
		snprintf(sc->nodes_from, sizeof(sc->nodes_from), "the hostfile");
	if (nodes || sc->why_unknown[0]) {
		long tasks = count_of(w->tasks_n);
		if (nodes && tasks > 0 && (size_t)tasks < names_in(nodes)) {
			snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%ld ranks on %zu hosts: "
				 "%s places them by slots", tasks, names_in(nodes), name);
			xfree(nodes);
			nodes = NULL;
		}
		return nodes;
	}
	if (env_get(w->envp, "SLURM_JOB_NODELIST") || env_get(w->envp, "SLURM_NODELIST"))
		return mpirun_allocation(w, name, sc);
	for (size_t i = 0; allocations[i]; i++)
		if (env_get(w->envp, allocations[i])) {
			snprintf(sc->why_unknown, sizeof(sc->why_unknown), "%s inside an allocation "
				 "(%s) places the ranks on its nodes by slots", name,
				 allocations[i]);
			return NULL;
		}
	snprintf(sc->nodes_from, sizeof(sc->nodes_from), "this host: no host option, no "
		 "allocation");
	return xstrdup(w->here);
}

static enum family family_of(enum launcher_kind k, const char *impl)
{
	if (k == LAUNCHER_SLURM)
		return FAM_SLURM;
	if (k == LAUNCHER_OPENMPI || (k == LAUNCHER_MPI && impl && !strcmp(impl, "Open MPI")))
		return FAM_OPENMPI;
	if (k == LAUNCHER_HYDRA || (k == LAUNCHER_MPI && impl && !strcmp(impl, "MPICH")))
		return FAM_HYDRA;
	return FAM_OTHER;
}

static void noop(const struct launch_option *o, void *ctx)
{
	(void)o;
	(void)ctx;
}

int netcache_scope_of(char *const *prefix, const char *impl, char *const *envp,
		      const char *host, struct netcache_scope *sc)
{
	*sc = (struct netcache_scope){0};
	enum launcher_kind k = launch_options(prefix, noop, NULL, NULL);
	/* this host named as the ranks and the probe name their node */
	const char *slurm = env_get(envp, "SLURMD_NODENAME");
	struct walk w = {.fam = family_of(k, impl), .envp = envp,
			 .here = slurm && *slurm ? slurm : host && *host ? host : "localhost"};
	(void)launch_options(prefix, on_option, &w, NULL);
	for (size_t i = 0; envp && envp[i]; i++)
		if (transport_var(envp[i]))
			strv_take(&w.transport, xasprintf("env %s", envp[i]));
	if (w.fam == FAM_SLURM)
		sc->nodes = slurm_nodes(&w, sc);
	else if (w.fam != FAM_OTHER)
		sc->nodes = mpirun_nodes(&w, sc);
	else
		snprintf(sc->why_unknown, sizeof(sc->why_unknown), "nunatak does not read %s's "
			 "node options", launcher_kind__name(k));
	if (sc->nodes)
		netcache_nodes_canon(sc->nodes);
	/* with a node count given, the rank count does not choose the nodes */
	for (size_t i = 0; i < w.counts.n && !(w.fam == FAM_SLURM && w.nodes_n); i++)
		strv_take(&w.shape, xstrdup(w.counts.v[i]));
	const char *alloc = env_get(envp, "SLURM_JOB_NODELIST");
	if (alloc)
		strv_take(&w.shape, xasprintf("allocation %s", alloc));
	char *shape = strv_join(&w.shape, "\n");
	sc->transport = strv_join(&w.transport, "\n");
	sc->shape = shape ? xasprintf("launcher %s\n%s", launcher_kind__name(k), shape) : NULL;
	xfree(shape);
	bool oom = !sc->transport || !sc->shape || w.hosts.oom;
	strv_release(&w.transport);
	strv_release(&w.shape);
	strv_release(&w.counts);
	strv_release(&w.hosts);
	if (oom)
		netcache_scope__release(sc);
	return oom ? -ENOMEM : 0;
}

void netcache_scope__release(struct netcache_scope *sc)
{
	xfree(sc->nodes);
	xfree(sc->transport);
	xfree(sc->shape);
	*sc = (struct netcache_scope){0};
}
