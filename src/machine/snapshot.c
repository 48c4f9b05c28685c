// SPDX-License-Identifier: BSD-3-Clause
// Snapshot of the Machine: uname, /proc/cpuinfo, online CPUs, affinity mask,
// cgroup limits (cgroup.c). Best effort: what cannot be observed stays
// unknown, never zero.
#include "machine/snapshot.h"

#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "exec/exec.h"
#include "common/fsutil.h"

/* The flags later stages look at: TSC trust for timing, SIMD for the
 * calibration kernel and the theory table, hypervisor for caveats. */
static const char *const flags_of_interest[] = {
	"constant_tsc", "nonstop_tsc", "tsc_known_freq", "hypervisor", "ht",      "sse2",
	"avx",          "avx2",        "fma",            "avx512f",    "avx512vl", "fp",
	"asimd",        "sve",         "sve2",
};
#define NR_FLAGS_OF_INTEREST (sizeof(flags_of_interest) / sizeof(flags_of_interest[0]))

static int parse_int_field(const char *v)
{
	char *end;
	long n = strtol(v, &end, 0); /* base 0: ARM writes "0xd0c" */
	return end != v && n >= 0 && n <= 0x7fffffff ? (int)n : -1;
}

static int keep_flags(struct cpu_ident *c, const char *list)
{
	for (size_t i = 0; i < NR_FLAGS_OF_INTEREST; i++) {
		const char *f = flags_of_interest[i];
		size_t n = strlen(f);
		bool found = false;
		for (const char *p = list; *p && !found;) {
			while (*p == ' ' || *p == '\t')
				p++;
			size_t len = strcspn(p, " \t");
			found = len == n && memcmp(p, f, n) == 0;
			p += len;
		}
		if (!found || cpu_ident__has_flag(c, f))
			continue;
		if (xgrow((void **)&c->flags, &c->cap_flags, c->nr_flags + 1,
			  sizeof(*c->flags)))
			return -ENOMEM;
		if (!(c->flags[c->nr_flags] = xstrdup(f)))
			return -ENOMEM;
		c->nr_flags++;
	}
	return 0;
}

/* One "key\t: value" line of the first processor block. */
static int cpuinfo_line(struct cpu_ident *c, char **model, const char *key, const char *val)
{
	if (strcmp(key, "vendor_id") == 0 || strcmp(key, "CPU implementer") == 0) {
		if (!c->vendor && !(c->vendor = xstrdup(val)))
			return -ENOMEM;
	} else if (strcmp(key, "cpu family") == 0 || strcmp(key, "CPU architecture") == 0) {
		c->family = parse_int_field(val);
	} else if (strcmp(key, "model") == 0 || strcmp(key, "CPU part") == 0) {
		c->model = parse_int_field(val);
	} else if (strcmp(key, "stepping") == 0 || strcmp(key, "CPU variant") == 0) {
		c->stepping = parse_int_field(val);
	} else if (strcmp(key, "flags") == 0 || strcmp(key, "Features") == 0) {
		return keep_flags(c, val);
	} else if (strcmp(key, "model name") == 0 && model && !*model && *val) {
		if (!(*model = xstrdup(val)))
			return -ENOMEM;
	}
	return 0;
}

int cpuinfo_parse(const char *text, size_t len, struct cpu_ident *c, char **model_out)
{
	cpu_ident__release(c);
	if (model_out)
		*model_out = NULL;
	bool in_block = false;
	int rc = 0;
	for (size_t pos = 0; pos < len && !rc;) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		pos += ll + 1;
		const char *colon = memchr(line, ':', ll);
		if (!colon) {
			if (in_block && ll == 0)
				break; /* end of the first processor block */
			continue;
		}
		in_block = true;
		size_t kl = (size_t)(colon - line);
		while (kl && (line[kl - 1] == ' ' || line[kl - 1] == '\t'))
			kl--;
		const char *v = colon + 1;
		while (v < line + ll && (*v == ' ' || *v == '\t'))
			v++;
		char key[64], *val = xstrndup(v, (size_t)(line + ll - v));
		if (!val) {
			rc = -ENOMEM;
			break;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(kl < 63 ? kl : 63), line);
		rc = cpuinfo_line(c, model_out, key, val);
		xfree(val);
	}
	if (rc && model_out)
		zfree(model_out);
	return rc;
}

/* First processor block (up to the first blank line), for recordings. */
static char *first_block(const char *text)
{
	const char *end = strstr(text, "\n\n");
	return xstrndup(text, end ? (size_t)(end - text) : strlen(text));
}

static int read_cpuinfo(struct machine *m, const char *root)
{
	char *path = strcmp(root, "/") == 0 ? xstrdup("/proc/cpuinfo")
					    : fs_join(root, "proc/cpuinfo");
	char *text = NULL;
	size_t len = 0;
	if (!path)
		return -ENOMEM;
	int rc = fs_read_file(path, 64u << 20, &text, &len);
	xfree(path);
	if (rc)
		return rc == -ENOMEM ? rc : 0; /* no /proc: stays unknown */
	rc = cpuinfo_parse(text, len, &m->cpu, &m->cpu_model);
	if (!rc && !(m->cpuinfo_text = first_block(text)))
		rc = -ENOMEM;
	xfree(text);
	return rc;
}

static int read_affinity(struct allocation *a)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0; /* unobservable, stays unknown */
	size_t n = (size_t)CPU_COUNT(&set), k = 0;
	a->affinity_mask = xcalloc(n ? n : 1, sizeof(int));
	if (!a->affinity_mask)
		return -ENOMEM;
	for (int cpu = 0; cpu < CPU_SETSIZE && k < n; cpu++)
		if (CPU_ISSET(cpu, &set))
			a->affinity_mask[k++] = cpu;
	a->nr_affinity = k;
	a->has_affinity = true;
	a->visible_cores = (int64_t)k;
	return 0;
}

static int read_live(struct machine *m)
{
	struct utsname u;
	if (uname(&u) == 0) {
		m->system = xstrdup(u.sysname);
		m->kernel = xstrdup(u.release);
		m->architecture = xstrdup(u.machine);
		if (!m->system || !m->kernel || !m->architecture)
			return -ENOMEM;
	}
	char host[256];
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		if (!(m->hostname = xstrdup(host)))
			return -ENOMEM;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->logical_cores = n > 0 ? n : -1;
	return read_affinity(&m->alloc);
}

int machine__snapshot_at(struct machine *m, const char *root, struct err *e)
{
	machine__release(m);
	int rc = read_live(m);
	if (!rc)
		rc = read_cpuinfo(m, root);
	if (!rc)
		rc = allocation_read_cgroup(root, &m->alloc, e);
	if (rc) {
		machine__release(m);
		return err_set(e, rc, ERR_OOM, "out of memory taking the machine snapshot");
	}
	return 0;
}

int machine__snapshot(struct machine *m, struct executor *x, struct err *e)
{
	const json_t *meta = x ? executor__recorded_meta(x) : NULL;
	if (meta)
		return machine__from_recorded_meta(m, meta, e);
	return machine__snapshot_at(m, "/", e);
}

static int dup_json_str(char **dst, const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	if (!s)
		return 0;
	xfree(*dst);
	*dst = xstrdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* Our own recordings also carry the full machine: take what the corpus
 * format lacks (cores, allocation, hostname) from it. */
static int take_recorded_machine(struct machine *m, const json_t *jm, struct err *e)
{
	struct machine rec;
	machine__init(&rec);
	int rc = machine__from_json(&rec, jm, e);
	if (rc) {
		machine__release(&rec);
		return rc;
	}
	m->logical_cores = rec.logical_cores;
	allocation__release(&m->alloc);
	m->alloc = rec.alloc;
	memset(&rec.alloc, 0, sizeof(rec.alloc));
	xfree(m->hostname);
	m->hostname = rec.hostname;
	rec.hostname = NULL;
	machine__release(&rec);
	return 0;
}

int machine__from_recorded_meta(struct machine *m, const json_t *meta, struct err *e)
{
	machine__release(m);
	m->replayed = true;
	const json_t *plat = json_object_get(meta, "platform");
	const char *cpuinfo = json_string_value(json_object_get(meta, "cpuinfo"));
	int rc = dup_json_str(&m->system, plat, "system");
	if (!rc)
		rc = dup_json_str(&m->kernel, plat, "kernel");
	if (!rc)
		rc = dup_json_str(&m->architecture, plat, "architecture");
	if (!rc && cpuinfo) {
		rc = cpuinfo_parse(cpuinfo, strlen(cpuinfo), &m->cpu, &m->cpu_model);
		if (!rc && !(m->cpuinfo_text = xstrdup(cpuinfo)))
			rc = -ENOMEM;
	}
	if (!rc) /* the explicit cpu_model wins over the cpuinfo text */
		rc = dup_json_str(&m->cpu_model, meta, "cpu_model");
	if (rc) {
		machine__release(m);
		return err_set(e, rc, ERR_OOM, "out of memory reading the recorded machine");
	}
	const json_t *jm = json_object_get(meta, "machine");
	if (json_is_object(jm) && (rc = take_recorded_machine(m, jm, e))) {
		err_prefix(e, "recorded meta.json");
		machine__release(m);
		return rc;
	}
	m->replayed = true;
	return 0;
}
