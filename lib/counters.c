/* SPDX-License-Identifier: BSD-3-Clause */
#include "counters.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "registry.h"
#include "scope_profiler.h"
#include "trace.h"

/* Open regions per thread whose counts are kept: deeper ones are recorded
 * (times) but their counts are dropped and said so at finalize. */
#define SP_CTR_DEPTH 4096u

struct ctr_frame {
	uint64_t begin[SP_CTR_MAX];
	uint64_t child[SP_CTR_MAX]; /* inclusive sums of the closed children */
	uint64_t ok;                /* the begin read succeeded */
};

struct ctr_slot {
	const struct sp_site *site; /* NULL: free */
	uint64_t calls;
	uint64_t incl[SP_CTR_MAX];
	uint64_t excl[SP_CTR_MAX];
};

/* A thread's counter state: mmap'd at its registration, never freed (the
 * thread may still be closing regions while another finalizes). */
struct sp_ctr_thread {
	bool live;      /* group open */
	int n;          /* counted events */
	uint32_t used;  /* slots taken */
	uint64_t dropped; /* calls whose counts were not kept */
	/* Set while sp_counters__end runs: a signal handler's sp_end on this
	 * thread that interrupted it would share the region table and the
	 * frames being updated, so its counts are not kept (dropped). */
	volatile sig_atomic_t ending;
	unsigned char state[SP_CTR_STATE_BYTES] __attribute__((aligned(8)));
	/* Each buffered call's inclusive counts, n per call at the call's index
	 * in the thread's buffer (SP_CTR_NONE: not kept); flushed beside the
	 * calls (stream.c). Touched only as far as the buffer fills. */
	int64_t vals[SP_BUF_CALLS * SP_CTR_MAX];
	struct ctr_slot slots[SP_CTR_SLOTS];
	struct ctr_frame frames[SP_CTR_DEPTH];
};

/* The process's configuration: set once under the API lock, before any
 * thread records, read-only afterwards. */
static struct {
	bool on;
	const struct sp_ctr_backend *be;
	int nr_events, nr_counted;
	struct sp_ctr_event events[SP_CTR_NAMES];
	int ids[SP_CTR_MAX]; /* backend ids of the counted events, in order */
	_Atomic uint64_t threads_without, dropped_total;
	char first_failure[160];
} cfg;

/* ---- the perf_event backend ---- */

struct perf_ev {
	const char *name, *alias, *papi;
	uint32_t type;
	uint64_t config;
	int kind;
};

static const struct perf_ev perf_events[] = {
	{"task-clock", NULL, NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, SP_CTR_KIND_TIME_NS},
	{"cpu-clock", NULL, NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SP_CTR_KIND_TIME_NS},
	{"page-faults", "faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, SP_CTR_KIND_COUNT},
	{"minor-faults", NULL, NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, SP_CTR_KIND_COUNT},
	{"major-faults", NULL, NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, SP_CTR_KIND_COUNT},
	{"context-switches", "cs", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, SP_CTR_KIND_COUNT},
	{"cpu-migrations", "migrations", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, SP_CTR_KIND_COUNT},
	{"cycles", "cpu-cycles", "papi-tot-cyc", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, SP_CTR_KIND_CYCLES},
	{"instructions", NULL, "papi-tot-ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, SP_CTR_KIND_INSTRUCTIONS},
	{"cache-references", NULL, NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, SP_CTR_KIND_COUNT},
	{"cache-misses", NULL, NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, SP_CTR_KIND_COUNT},
	{"branches", "branch-instructions", "papi-br-ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, SP_CTR_KIND_COUNT},
	{"branch-misses", NULL, "papi-br-msp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, SP_CTR_KIND_COUNT},
	{"ref-cycles", NULL, "papi-ref-cyc", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, SP_CTR_KIND_CYCLES},
};
#define NR_PERF_EVENTS (int)(sizeof(perf_events) / sizeof(perf_events[0]))
/* Raw PMU events "r<hex>" get ids from here on (the config in the id's
 * table below). */
#define RAW_BASE 1000

/* "perf::PAGE-FAULTS", "PAGE_FAULTS" and "page-faults" are one event:
 * PAPI's perf:: prefix dropped, lower case, '_' read as '-'. */
static void normalize(const char *in, char *out, size_t n)
{
	if (strncasecmp(in, "perf::", 6) == 0)
		in += 6;
	size_t k = 0;
	for (; *in && k + 1 < n; in++)
		out[k++] = *in == '_' ? '-' : (char)tolower((unsigned char)*in);
	out[k] = 0;
}

static uint64_t raw_configs[SP_CTR_MAX];
static int nr_raw;

static int perf_resolve(const char *name, int *kind)
{
	char n[64];
	normalize(name, n, sizeof(n));
	for (int i = 0; i < NR_PERF_EVENTS; i++) {
		const struct perf_ev *e = &perf_events[i];
		if (!strcmp(n, e->name) || (e->alias && !strcmp(n, e->alias)) ||
		    (e->papi && !strcmp(n, e->papi))) {
			*kind = e->kind;
			return i;
		}
	}
	char *end;
	if (n[0] == 'r' && n[1] && nr_raw < SP_CTR_MAX) {
		unsigned long long v = strtoull(n + 1, &end, 16);
		if (!*end) {
			raw_configs[nr_raw] = v;
			*kind = SP_CTR_KIND_COUNT;
			return RAW_BASE + nr_raw++;
		}
	}
	return -1;
}

struct perf_state {
	int fd[SP_CTR_MAX];
	int n;
};

static int perf_open_one(int id, int group_fd)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	/* The leader starts disabled and the whole group is enabled once
	 * complete: a sibling added to a group already counting on this task
	 * counted nothing until the task was next scheduled in (the first
	 * region's second event read 0, marked measured). */
	a.disabled = group_fd < 0;
	if (id >= RAW_BASE) {
		a.type = PERF_TYPE_RAW;
		a.config = raw_configs[id - RAW_BASE];
	} else {
		a.type = perf_events[id].type;
		a.config = perf_events[id].config;
	}
	a.read_format = PERF_FORMAT_GROUP;
	for (int user_only = 0; user_only < 2; user_only++) {
		/* perf_event_paranoid >= 2 without CAP_PERFMON: user space only. */
		a.exclude_kernel = (unsigned)user_only;
		a.exclude_hv = (unsigned)user_only;
		long fd = syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			return (int)fd;
		if (errno != EACCES && errno != EPERM)
			break;
	}
	return -errno;
}

static void perf_close(void *state)
{
	struct perf_state *s = state;
	for (int i = 0; i < s->n; i++)
		close(s->fd[i]);
	s->n = 0;
}

static int perf_open(void *state, const int *ids, int n)
{
	struct perf_state *s = state;
	s->n = 0;
	for (int i = 0; i < n; i++) {
		int fd = perf_open_one(ids[i], i ? s->fd[0] : -1);
		if (fd < 0) {
			perf_close(s);
			return fd;
		}
		s->fd[s->n++] = fd;
	}
	if (n > 0 && ioctl(s->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		int err = errno;
		perf_close(s);
		return -err;
	}
	return 0;
}

static int perf_read(void *state, uint64_t *values, int n)
{
	struct perf_state *s = state;
	uint64_t buf[1 + SP_CTR_MAX];
	ssize_t want = (ssize_t)((1 + (size_t)n) * sizeof(uint64_t));
	if (read(s->fd[0], buf, (size_t)want) != want)
		return -EIO;
	memcpy(values, buf + 1, (size_t)n * sizeof(uint64_t));
	return 0;
}

static const struct sp_ctr_backend perf_backend = {"perf_event", perf_resolve, perf_open,
						   perf_read, perf_close};

/* ---- configuration ---- */

static void unavailable_reason(struct sp_ctr_event *ev, int err, const char *be)
{
	const char *what = sp_log__errstr(err);
	if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
		snprintf(ev->reason, sizeof(ev->reason),
			 "this machine exposes no counter for it (no PMU or an event "
			 "the CPU lacks: %s from %s)", what, be);
	else if (err == EACCES || err == EPERM)
		snprintf(ev->reason, sizeof(ev->reason),
			 "%s refused (%s): lower /proc/sys/kernel/perf_event_paranoid "
			 "or run with CAP_PERFMON", be, what);
	else
		snprintf(ev->reason, sizeof(ev->reason), "%s failed: %s", be, what);
}

/* The backend that knows @p name: the test one first when linked in. */
static const struct sp_ctr_backend *backend_for(const char *name, int *id, int *kind)
{
	const struct sp_ctr_backend *test = &sp_ctr_test_backend;
	if (test && (*id = test->resolve(name, kind)) >= 0)
		return test;
	if ((*id = perf_backend.resolve(name, kind)) >= 0)
		return &perf_backend;
	return NULL;
}

/* Probes one event alone on the calling thread: its status and reason. */
static void probe(struct sp_ctr_event *ev, const char *name)
{
	int id, kind = SP_CTR_KIND_COUNT;
	const struct sp_ctr_backend *be = backend_for(name, &id, &kind);
	ev->kind = kind;
	if (!be) {
		snprintf(ev->reason, sizeof(ev->reason),
			 "unknown event name (known: task-clock, page-faults, context-switches, "
			 "cpu-migrations, minor-faults, major-faults, cycles, instructions, "
			 "branches, branch-misses, cache-references, cache-misses, r<hex>)");
		return;
	}
	if (cfg.be && be != cfg.be) {
		snprintf(ev->reason, sizeof(ev->reason),
			 "from the %s backend, the group is on %s: one backend per group",
			 be->name, cfg.be->name);
		return;
	}
	if (cfg.nr_counted == SP_CTR_MAX) {
		snprintf(ev->reason, sizeof(ev->reason), "at most %d events are counted",
			 SP_CTR_MAX);
		return;
	}
	unsigned char st[SP_CTR_STATE_BYTES] __attribute__((aligned(8)));
	memset(st, 0, sizeof(st));
	int rc = be->open(st, &id, 1);
	if (rc < 0) {
		unavailable_reason(ev, -rc, be->name);
		return;
	}
	be->close(st);
	cfg.be = be;
	cfg.ids[cfg.nr_counted++] = id;
	ev->counted = true;
}

/* Adds the name @p s (trimmed) unless empty or already there; false when
 * the table of names is full. */
static bool add_name(const char *s, const char *source)
{
	if (!*s)
		return true;
	for (int k = 0; k < cfg.nr_events; k++)
		if (strcmp(cfg.events[k].name, s) == 0)
			return true; /* the same name twice is one event */
	if (cfg.nr_events == SP_CTR_NAMES)
		return false;
	struct sp_ctr_event *ev = &cfg.events[cfg.nr_events++];
	snprintf(ev->name, sizeof(ev->name), "%s", s);
	probe(ev, s);
	if (!ev->counted && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "%s: event %s cannot be counted: %s; the program runs, "
			     "the trace names it unavailable", source, ev->name, ev->reason);
	return true;
}

int sp_counters__configure(const char *list, const char *source, bool threads_started)
{
	if (cfg.nr_events)
		return -EALREADY;
	if (threads_started)
		return -EBUSY;
	int ignored = 0;
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		char name[64];
		size_t n = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
		memcpy(name, p, n);
		name[n] = 0;
		char *s = name, *e = name + n;
		while (*s == ' ')
			s++;
		while (e > s && e[-1] == ' ')
			*--e = 0;
		ignored += !add_name(s, source);
		p += len + (p[len] == ',');
	}
	if (ignored && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "%s: %d event names after the first %d ignored (at most %d "
			     "are counted)", source, ignored, SP_CTR_NAMES, SP_CTR_MAX);
	cfg.on = cfg.nr_counted > 0;
	sp_log(SP_LOG_INFO, "%s: %d of %d events counted per region (%s)", source,
	       cfg.nr_counted, cfg.nr_events, cfg.be ? cfg.be->name : "no backend");
	return 0;
}

bool sp_counters__on(void)
{
	return cfg.on;
}

/* ---- per thread ---- */

void sp_counters__thread_start(struct sp_thread *t)
{
	if (!cfg.on)
		return;
	struct sp_ctr_thread *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c == MAP_FAILED) {
		atomic_fetch_add(&cfg.threads_without, 1);
		return;
	}
	int rc = cfg.be->open(c->state, cfg.ids, cfg.nr_counted);
	if (rc < 0) {
		atomic_fetch_add(&cfg.threads_without, 1);
		if (!cfg.first_failure[0]) { /* no stdio: a handler may register a thread */
			const char *e = sp_log__errstr(-rc);
			size_t k = 0;
			for (; e[k] && k + 1 < sizeof(cfg.first_failure); k++)
				cfg.first_failure[k] = e[k];
			cfg.first_failure[k] = 0;
		}
		munmap(c, sizeof(*c));
		return;
	}
	c->n = cfg.nr_counted;
	c->live = true;
	t->ctr = c;
}

void sp_counters__thread_exit(struct sp_thread *t)
{
	struct sp_ctr_thread *c = t->ctr;
	if (!c || !c->live)
		return;
	c->live = false;
	cfg.be->close(c->state);
}

void sp_counters__begin(struct sp_thread *t, uint32_t d)
{
	struct sp_ctr_thread *c = t->ctr;
	if (d >= SP_CTR_DEPTH || !c->live)
		return;
	struct ctr_frame *f = &c->frames[d];
	f->ok = cfg.be->read(c->state, f->begin, c->n) == 0;
	memset(f->child, 0, (size_t)c->n * sizeof(uint64_t));
}

/* The slot of @p h in the thread's table, NULL when it is full. */
static struct ctr_slot *slot_of(struct sp_ctr_thread *c, const struct sp_site *h)
{
	uint32_t i = (uint32_t)(((uintptr_t)h >> 3) * 0x9E3779B97F4A7C15ull >> 40) &
		     (SP_CTR_SLOTS - 1);
	for (uint32_t probe_nr = 0; probe_nr < SP_CTR_SLOTS; probe_nr++) {
		struct ctr_slot *s = &c->slots[i];
		if (s->site == h)
			return s;
		if (!s->site) {
			if (c->used >= SP_CTR_SLOTS / 4 * 3)
				return NULL; /* keep probes short: drop instead */
			c->used++;
			s->site = h;
			return s;
		}
		i = (i + 1) & (SP_CTR_SLOTS - 1);
	}
	return NULL;
}

void sp_counters__end(struct sp_thread *t, const struct sp_site *h, uint32_t d, int64_t *cv)
{
	struct sp_ctr_thread *c = t->ctr;
	for (int k = 0; k < c->n; k++)
		cv[k] = SP_CTR_NONE;
	if (!c->live)
		return;
	if (d >= SP_CTR_DEPTH) {
		c->dropped++;
		return;
	}
	if (c->ending) { /* a handler interrupted this function */
		c->dropped++;
		return;
	}
	c->ending = 1;
	atomic_signal_fence(memory_order_seq_cst);
	uint64_t now[SP_CTR_MAX];
	struct ctr_frame *f = &c->frames[d];
	struct ctr_slot *s = slot_of(c, h);
	if (!f->ok || !s || cfg.be->read(c->state, now, c->n) != 0) {
		c->dropped++;
		goto out;
	}
	struct ctr_frame *parent = d > 0 && d - 1 < SP_CTR_DEPTH ? &c->frames[d - 1] : NULL;
	s->calls++;
	for (int k = 0; k < c->n; k++) {
		uint64_t delta = now[k] - f->begin[k];
		cv[k] = delta <= (uint64_t)INT64_MAX ? (int64_t)delta : SP_CTR_NONE;
		s->incl[k] += delta;
		s->excl[k] += delta - f->child[k];
		if (parent)
			parent->child[k] += delta;
	}
out:
	atomic_signal_fence(memory_order_seq_cst);
	c->ending = 0;
}

void sp_counters__keep(struct sp_thread *t, size_t n, const int64_t *cv)
{
	struct sp_ctr_thread *c = t->ctr;
	memcpy(&c->vals[n * (size_t)c->n], cv, (size_t)c->n * sizeof(int64_t));
}

const int64_t *sp_counters__values(const struct sp_thread *t, int *per_call)
{
	const struct sp_ctr_thread *c = t->ctr;
	*per_call = c ? c->n : 0;
	return c ? c->vals : NULL;
}

/* ---- finalize ---- */

int sp_counters__collect(struct sp_trace *tr, struct sp_thread *const *threads, size_t nr,
			 const int32_t *lane_of,
			 int32_t (*region_of)(void *ctx, const struct sp_site *site), void *ctx)
{
	if (!cfg.nr_events)
		return 0;
	tr->ctr_backend = cfg.be ? cfg.be->name : perf_backend.name;
	tr->nr_ctr_events = cfg.nr_events;
	tr->ctr_events = cfg.events;
	tr->nr_ctr_counted = cfg.nr_counted;
	tr->ctr_threads_without = atomic_load(&cfg.threads_without);
	size_t rows = 0;
	for (size_t k = 0; k < nr; k++)
		rows += threads[k]->ctr ? threads[k]->ctr->used : 0;
	tr->ctr_rows = calloc(rows + 1, sizeof(*tr->ctr_rows));
	if (!tr->ctr_rows)
		return -ENOMEM;
	for (size_t k = 0; k < nr; k++) {
		const struct sp_ctr_thread *c = threads[k]->ctr;
		if (!c)
			continue;
		tr->ctr_dropped += c->dropped;
		for (uint32_t i = 0; i < SP_CTR_SLOTS && lane_of[k] >= 0; i++) {
			const struct ctr_slot *s = &c->slots[i];
			int32_t r = s->site && s->calls ? region_of(ctx, s->site) : -1;
			if (r < 0)
				continue;
			struct sp_ctr_row_out *row = &tr->ctr_rows[tr->nr_ctr_rows++];
			row->region = r;
			row->lane = lane_of[k];
			row->calls = s->calls;
			memcpy(row->incl, s->incl, sizeof(row->incl));
			memcpy(row->excl, s->excl, sizeof(row->excl));
		}
	}
	atomic_store(&cfg.dropped_total, tr->ctr_dropped);
	return 0;
}

void sp_counters__report(void)
{
	uint64_t without = atomic_load(&cfg.threads_without);
	uint64_t dropped = atomic_load(&cfg.dropped_total);
	if (without && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "counters: %llu threads recorded regions without "
			     "counts (their group could not be opened: %s)",
			     (unsigned long long)without, cfg.first_failure);
	if (dropped && sp_log__enabled(SP_LOG_ERROR))
		sp_log__emit(SP_LOG_WARN, "counters: the counts of %llu calls were not kept "
			     "(deeper than %u open regions, more than %u regions on a "
			     "thread, a failed read, or a signal handler's call made "
			     "while its thread counted another)",
			     (unsigned long long)dropped, SP_CTR_DEPTH, SP_CTR_SLOTS / 4 * 3);
}
