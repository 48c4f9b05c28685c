/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nunatak's OMPT tool (issue 23): LLVM's OpenMP runtime (libomp) loads it
 * through OMP_TOOL_LIBRARIES, which `nunatak run` sets only when the user
 * set no tool of their own; GCC's libgomp ignores the variable, and a
 * program that carries its own ompt_start_tool keeps it (libomp asks the
 * program first). It measures, per thread and per parallel region (the
 * call site of the fork, codeptr_ra), the time in the region's implicit
 * task and the part of it spent waiting in barriers, taskwaits and
 * taskgroups (sync_region_wait), on CLOCK_MONOTONIC.
 *
 * libomp reports a worker's implicit-barrier end late, when the worker is
 * released into the next region (or ends): a worker's wait and task are
 * therefore clamped to the region's end as its master reported it
 * (parallel_end), read from a ring of region instances. The callbacks
 * allocate nothing and take no lock; a thread's table is allocated once at
 * thread_begin. At ompt finalize (the runtime's shutdown, at exit) the
 * tables go to $NUNATAK_OMPT_DIR/ompt.<pid>.txt, written to a temporary
 * name and renamed, so a reader never sees half a file:
 *
 *   nunatak-ompt 1
 *   pid <pid>, rank <MPI rank> (under MPI), node <hostname>, runtime <version>
 *   (one line each)
 *   site <index> <ELF vaddr, hex> <module path>
 *   row <tid> <site> <OpenMP thread number> <calls> <task ns> <wait ns>
 *   dropped <region instances beyond the site or nesting tables>
 *   end
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <omp-tools.h>

#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rank_env.h"

#define NK_SITES 64   /* distinct parallel regions */
#define NK_RING 4096  /* region instances whose end a late worker may need */
#define NK_DEPTH 4    /* nested regions followed per thread */
#define NK_EXPORT __attribute__((visibility("default")))

struct nk_acc {
	uint64_t calls, task_ns, wait_ns;
};

struct nk_frame {
	uint64_t instance; /* 1-based; 0: the frame is unused */
	int site, thread_num;
	uint64_t begin_ns, wait_ns, wait_begin_ns;
	int in_wait;
};

struct nk_thread {
	struct nk_thread *next;
	long tid;
	int depth;
	struct nk_frame frames[NK_DEPTH];
	struct nk_acc acc[NK_SITES];
	int thread_num[NK_SITES]; /* last OpenMP number seen in that region, -1: none */
};

struct nk_instance {
	uint64_t id;  /* instance number; the slot is stale when it differs */
	uint64_t end_ns;
	int site;
};

/* The tool's per-process registry: the only mutable state. */
static struct {
	ompt_get_thread_data_t thread_data;
	const char *runtime;
	uintptr_t sites[NK_SITES];
	uint64_t next_instance, dropped;
	struct nk_instance ring[NK_RING];
	struct nk_thread *threads;
} nk;

static uint64_t nk_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct nk_thread *nk_self(void)
{
	ompt_data_t *d = nk.thread_data ? nk.thread_data() : NULL;
	return d ? d->ptr : NULL;
}

/* The site's index, interned without a lock; -1 when the table is full. */
static int nk_site(const void *codeptr)
{
	uintptr_t key = (uintptr_t)codeptr;
	if (!key)
		return -1;
	for (int i = 0; i < NK_SITES; i++) {
		uintptr_t cur = __atomic_load_n(&nk.sites[i], __ATOMIC_ACQUIRE);
		if (cur == key)
			return i;
		if (!cur) {
			uintptr_t zero = 0;
			if (__atomic_compare_exchange_n(&nk.sites[i], &zero, key, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE) ||
			    zero == key)
				return i;
		}
	}
	return -1;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
	(void)type;
	struct nk_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return;
	t->tid = syscall(SYS_gettid);
	for (int i = 0; i < NK_SITES; i++)
		t->thread_num[i] = -1;
	t->next = __atomic_load_n(&nk.threads, __ATOMIC_ACQUIRE);
	while (!__atomic_compare_exchange_n(&nk.threads, &t->next, t, 1, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		;
	data->ptr = t;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
			      unsigned int requested, int flags, const void *codeptr)
{
	(void)task, (void)frame, (void)requested, (void)flags;
	uint64_t id = __atomic_add_fetch(&nk.next_instance, 1, __ATOMIC_RELAXED);
	struct nk_instance *in = &nk.ring[id % NK_RING];
	__atomic_store_n(&in->end_ns, 0, __ATOMIC_RELAXED);
	in->site = nk_site(codeptr);
	__atomic_store_n(&in->id, id, __ATOMIC_RELEASE);
	parallel->value = id;
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
			    const void *codeptr)
{
	(void)task, (void)flags, (void)codeptr;
	struct nk_instance *in = &nk.ring[parallel->value % NK_RING];
	if (__atomic_load_n(&in->id, __ATOMIC_ACQUIRE) == parallel->value)
		__atomic_store_n(&in->end_ns, nk_now(), __ATOMIC_RELEASE);
}

/* now, or the region's end when its master ended it before (a late report). */
static uint64_t nk_clamp(uint64_t instance, uint64_t now)
{
	const struct nk_instance *in = &nk.ring[instance % NK_RING];
	uint64_t end = __atomic_load_n(&in->end_ns, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&in->id, __ATOMIC_ACQUIRE) != instance || !end)
		return now;
	return end < now ? end : now;
}

static void task_begin(struct nk_thread *t, ompt_data_t *parallel, unsigned int index)
{
	if (t->depth >= NK_DEPTH) {
		t->depth++;
		__atomic_add_fetch(&nk.dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	uint64_t id = parallel ? parallel->value : 0;
	const struct nk_instance *in = &nk.ring[id % NK_RING];
	int site = id && __atomic_load_n(&in->id, __ATOMIC_ACQUIRE) == id ? in->site : -1;
	if (id && site < 0)
		__atomic_add_fetch(&nk.dropped, 1, __ATOMIC_RELAXED);
	t->frames[t->depth++] = (struct nk_frame){.instance = site < 0 ? 0 : id, .site = site,
						  .thread_num = (int)index, .begin_ns = nk_now()};
}

static void task_end(struct nk_thread *t)
{
	if (t->depth <= 0)
		return;
	if (--t->depth >= NK_DEPTH)
		return;
	struct nk_frame *f = &t->frames[t->depth];
	if (!f->instance)
		return;
	uint64_t end = nk_clamp(f->instance, nk_now());
	if (f->in_wait && end > f->wait_begin_ns)
		f->wait_ns += end - f->wait_begin_ns;
	struct nk_acc *a = &t->acc[f->site];
	a->calls++;
	a->task_ns += end > f->begin_ns ? end - f->begin_ns : 0;
	a->wait_ns += f->wait_ns;
	t->thread_num[f->site] = f->thread_num;
	f->instance = 0;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, unsigned int team, unsigned int index, int flags)
{
	(void)task, (void)team;
	struct nk_thread *t = nk_self();
	if (!t || (flags & ompt_task_initial))
		return;
	if (endpoint == ompt_scope_begin)
		task_begin(t, parallel, index);
	else if (endpoint == ompt_scope_end)
		task_end(t);
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			 ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
	(void)kind, (void)parallel, (void)task, (void)codeptr;
	struct nk_thread *t = nk_self();
	if (!t || t->depth <= 0 || t->depth > NK_DEPTH)
		return;
	struct nk_frame *f = &t->frames[t->depth - 1];
	if (!f->instance)
		return;
	if (endpoint == ompt_scope_begin && !f->in_wait) {
		f->in_wait = 1;
		f->wait_begin_ns = nk_now();
	} else if (endpoint == ompt_scope_end && f->in_wait) {
		uint64_t end = nk_clamp(f->instance, nk_now());
		f->wait_ns += end > f->wait_begin_ns ? end - f->wait_begin_ns : 0;
		f->in_wait = 0;
	}
}

struct nk_where {
	uintptr_t addr;
	const char *module; /* dlpi_name, "" for the executable */
	uint64_t vaddr;
};

static int nk_find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct nk_where *w = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && w->addr >= start && w->addr < start + ph->p_memsz) {
			w->module = info->dlpi_name;
			w->vaddr = (uint64_t)(w->addr - info->dlpi_addr);
			return 1;
		}
	}
	return 0;
}

static const char *nk_getenv(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static void nk_write_head(FILE *f)
{
	struct sp_rank_info ri;
	sp_rank_env__detect(nk_getenv, NULL, &ri);
	char host[256] = "";
	if (gethostname(host, sizeof(host) - 1) || strpbrk(host, " \t\n"))
		host[0] = '\0';
	fprintf(f, "nunatak-ompt 1\npid %ld\n", (long)getpid());
	if (ri.runtime != SP_RANK_NONE) /* outside MPI, no rank */
		fprintf(f, "rank %d\n", ri.rank);
	if (host[0])
		fprintf(f, "node %s\n", host);
	if (nk.runtime && !strpbrk(nk.runtime, "\n"))
		fprintf(f, "runtime %s\n", nk.runtime);
}

static void nk_write_body(FILE *f)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	for (int i = 0; i < NK_SITES; i++) {
		uintptr_t key = __atomic_load_n(&nk.sites[i], __ATOMIC_ACQUIRE);
		/* the return address follows the call: one byte back is the call */
		struct nk_where w = {.addr = key - 1};
		if (!key || !dl_iterate_phdr(nk_find_module, &w))
			continue;
		const char *mod = w.module && *w.module ? w.module : exe;
		if (*mod && !strpbrk(mod, "\n"))
			fprintf(f, "site %d %llx %s\n", i, (unsigned long long)w.vaddr, mod);
	}
	for (const struct nk_thread *t = __atomic_load_n(&nk.threads, __ATOMIC_ACQUIRE); t;
	     t = t->next)
		for (int i = 0; i < NK_SITES; i++)
			if (t->acc[i].calls)
				fprintf(f, "row %ld %d %d %llu %llu %llu\n", t->tid, i,
					t->thread_num[i], (unsigned long long)t->acc[i].calls,
					(unsigned long long)t->acc[i].task_ns,
					(unsigned long long)t->acc[i].wait_ns);
	fprintf(f, "dropped %llu\nend\n",
		(unsigned long long)__atomic_load_n(&nk.dropped, __ATOMIC_RELAXED));
}

static void on_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
	const char *dir = getenv("NUNATAK_OMPT_DIR");
	if (!dir || !*dir)
		return;
	char tmp[4096], path[4096];
	int a = snprintf(tmp, sizeof(tmp), "%s/.ompt.%ld.tmp", dir, (long)getpid());
	int b = snprintf(path, sizeof(path), "%s/ompt.%ld.txt", dir, (long)getpid());
	if (a < 0 || b < 0 || (size_t)a >= sizeof(tmp) || (size_t)b >= sizeof(path))
		return;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	nk_write_head(f);
	nk_write_body(f);
	if (fclose(f) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
}

static int on_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
	(void)device, (void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	nk.thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
	if (!set || !nk.thread_data)
		return 0; /* 0: the tool stays inactive */
	static const struct {
		ompt_callbacks_t event;
		ompt_callback_t fn;
	} cbs[] = {
		{ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin},
		{ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin},
		{ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end},
		{ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task},
		{ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait},
	};
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++)
		if (set(cbs[i].event, cbs[i].fn) != ompt_set_always)
			return 0; /* an event missing or sometimes: the numbers would be wrong */
	return 1;
}

/* The one entry point libomp looks up (omp-tools.h declares no prototype). */
NK_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						    const char *runtime_version);
NK_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						    const char *runtime_version)
{
	(void)omp_version;
	static ompt_start_tool_result_t result = {on_initialize, on_finalize, {0}};
	if (!getenv("NUNATAK_OMPT_DIR"))
		return NULL; /* not a nunatak Run: stay out */
	nk.runtime = runtime_version;
	return &result;
}
