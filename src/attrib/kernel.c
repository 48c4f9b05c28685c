// SPDX-License-Identifier: BSD-3-Clause
/* Naming kernel samples from /proc/kallsyms (docs/attribution.md, "Kernel"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "attrib/attrib.h"
#include "attrib/internal.h"
#include "attrib/kallsyms.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

static const char KERNEL[] = "[kernel.kallsyms]";
static const char UNAVAILABLE[] = "kernel-symbols-unavailable";

static bool is_kernel(const char *module)
{
	return module && strcmp(module, KERNEL) == 0;
}

/* A proc file has no size: read until EOF. NULL with *why set on failure. */
static char *slurp(const char *path, size_t *len, int *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = errno;
		return NULL;
	}
	size_t cap = 1 << 20, n = 0;
	char *b = xmalloc(cap);
	while (b) {
		if (n == cap && xgrow((void **)&b, &cap, cap + 1, 1)) {
			xfree(b);
			b = NULL;
			break;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				*why = errno;
				xfree(b);
				b = NULL;
			}
			break;
		}
		n += (size_t)r;
	}
	if (!b && !*why)
		*why = ENOMEM;
	close(fd);
	*len = n;
	return b;
}

/* Why the kernel samples cannot be named here, or NULL: they can (ks filled). */
static const char *load(const struct attrib_opts *o, struct kallsyms *ks, char *why, size_t n,
			const char **remedy, struct err *e, int *rc)
{
	struct utsname u = {0};
	*remedy = "run attribution as root on the kernel that recorded";
	if (!o->recorded_kernel)
		return "the kernel release that recorded is unknown";
	if (uname(&u) != 0 || strcmp(u.release, o->recorded_kernel) != 0) {
		snprintf(why, n, "recorded on kernel %s, attribution runs on %s", o->recorded_kernel,
			 u.release);
		return why;
	}
	const char *path = o->kallsyms_path ? o->kallsyms_path : "/proc/kallsyms";
	size_t len = 0;
	int err = 0;
	char *buf = slurp(path, &len, &err);
	if (!buf) {
		snprintf(why, n, "%s cannot be read (%s)", path, strerror(err));
		*remedy = "run as root or set kernel.kptr_restrict=0";
		return why;
	}
	*rc = kallsyms__parse(buf, len, ks, e);
	xfree(buf);
	if (*rc)
		return NULL;
	if (ks->zeros || !ks->has_text || !ks->n) {
		snprintf(why, n, "%s shows no addresses (kptr_restrict, or not root)", path);
		*remedy = "run as root or set kernel.kptr_restrict=0";
		return why;
	}
	return NULL;
}

/* One chain per distinct named symbol, owned by the caller's array. */
static const struct attrib_chain *chain_for(struct attrib_chain *chains, size_t *nr,
					    const struct kallsyms *ks, const struct ksym *s)
{
	uint64_t start = s->addr - ks->text;
	for (size_t i = 0; i < *nr; i++)
		if (chains[i].frames[0].start == start)
			return &chains[i];
	struct attrib_chain *c = &chains[*nr];
	c->frames = xcalloc(1, sizeof(*c->frames));
	if (!c->frames || !(c->frames[0].function = xstrdup(s->name))) {
		xfree(c->frames);
		c->frames = NULL;
		return NULL;
	}
	c->nr_frames = 1;
	c->address = start;
	c->frames[0].start = start;
	c->frames[0].has_start = true;
	(*nr)++;
	return c;
}

static int name_all(struct pivot *p, const struct kallsyms *ks, struct hotspot_attr *attr,
		    struct attrib_chain *chains, size_t *nr)
{
	uint64_t end;
	for (size_t h = 0; h < p->nr_hotspots; h++) {
		const struct hotspot *hs = &p->hotspots[h];
		if (!is_kernel(hs->module) || !hs->has_offset || hs->level != RESOLUTION_UNRESOLVED)
			continue;
		const struct ksym *s = ks ? kallsyms__find(ks, hs->offset, &end) : NULL;
		attr[h].fold = true;
		if (s && !(attr[h].chain = chain_for(chains, nr, ks, s)))
			return -ENOMEM;
		if (s)
			attr[h].level = RESOLUTION_FUNCTION;
	}
	for (size_t i = 0; ks && i < p->nr_stack_frames; i++) {
		struct stack_frame *sf = &p->stack_frames[i];
		/* offset 0 is `_text` itself: what a frame without offset holds */
		if (sf->function || !is_kernel(sf->module) || sf->offset == 0)
			continue;
		const struct ksym *s = kallsyms__find(ks, sf->offset, &end);
		if (s && !(sf->function = xstrdup(s->name)))
			return -ENOMEM;
	}
	return 0;
}

static size_t count_kernel(const struct pivot *p)
{
	size_t k = 0;
	for (size_t h = 0; h < p->nr_hotspots; h++)
		k += is_kernel(p->hotspots[h].module) && p->hotspots[h].has_offset &&
		     p->hotspots[h].level == RESOLUTION_UNRESOLVED;
	return k;
}

int attrib_kernel(struct pivot *p, const struct attrib_opts *o, struct degradations *d,
		  struct err *e)
{
	size_t k = count_kernel(p);
	if (!k)
		return 0;
	struct kallsyms ks = {0};
	char why[512];
	const char *remedy = NULL;
	int rc = 0;
	/* Under replay the recording machine's kernel is not this one: never read ours. */
	const char *no = o->replay ? "replay" : load(o, &ks, why, sizeof(why), &remedy, e, &rc);
	if (rc)
		return rc;
	char msg[640];
	snprintf(msg, sizeof(msg),
		 "kernel samples stay one unresolved [kernel.kallsyms] Hotspot: %s", no ? no : "");
	if (no && !o->replay && degradations__add(d, UNAVAILABLE, msg, remedy) < 0)
		rc = err_oom(e);
	struct hotspot_attr *attr = xcalloc(p->nr_hotspots, sizeof(*attr));
	struct attrib_chain *chains = xcalloc(k, sizeof(*chains));
	size_t nr = 0;
	if (!rc && (!attr || !chains))
		rc = err_oom(e);
	if (!rc && name_all(p, no ? NULL : &ks, attr, chains, &nr))
		rc = err_oom(e);
	if (!rc)
		rc = attrib_fuse(p, attr, e);
	for (size_t i = 0; i < nr; i++) {
		xfree(chains[i].frames[0].function);
		xfree(chains[i].frames);
	}
	xfree(chains);
	xfree(attr);
	kallsyms__release(&ks);
	return rc;
}
