// SPDX-License-Identifier: BSD-3-Clause
// The network Ceilings' cache (netcache.h).
#include "mpi/netcache.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/sha256.h"
#include "model/machine.h"

#define NETCACHE_VERSION 2
#define NETCACHE_MAX_BYTES (1u << 20)

char *netcache_key(const char *stack, const char *transport, const char *nodes)
{
	return xasprintf("netcache %d\nstack %s\ntransport %s\nnodes %s", NETCACHE_VERSION,
			 stack ? stack : "", transport ? transport : "", nodes ? nodes : "");
}

char *netcache_shape_key(const char *stack, const char *transport, const char *shape)
{
	return xasprintf("netcache-shape %d\nstack %s\ntransport %s\nshape %s", NETCACHE_VERSION,
			 stack ? stack : "", transport ? transport : "", shape ? shape : "");
}

static char *entry_path(const char *key)
{
	char hex[SHA256_HEX_SIZE];
	sha256_hex(key, strlen(key), hex);
	int no_home = 0;
	char *dir = cache_home_path("network", &no_home);
	char *p = dir ? xasprintf("%s/%.16s.json", dir, hex) : NULL;
	xfree(dir);
	return p;
}

static bool network_ceiling(const struct ceiling *c)
{
	return c->name && !strncmp(c->name, "network_", 8) && c->quality != QUALITY_UNAVAILABLE &&
	       isfinite(c->value) && c->value > 0;
}

/* doc written sealed under key; 1, or negative. */
static int write_sealed(const char *key, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL, *path = entry_path(key);
	char *dir = path ? xstrdup(path) : NULL;
	int rc = text && path && dir ? 0 : -ENOMEM;
	if (rc == 0) {
		*strrchr(dir, '/') = '\0';
		rc = fs_mkdir_p(dir);
	}
	if (rc == 0)
		rc = fs_write_cache(path, text, strlen(text), 0600);
	if (rc == 0)
		rc = cache_seal_file(path, key, strlen(key)) == 0 ? 1 : -EIO;
	xfree(text);
	xfree(path);
	xfree(dir);
	return rc;
}

int netcache_store(const char *key, const char *shape_key, const struct machine *m,
		   const char *mpi, const char *nodes)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < m->nr_ceilings; i++) {
		const struct ceiling *c = &m->ceilings[i];
		if (network_ceiling(c))
			json_array_append_new(arr, json_pack("{s:s, s:f, s:s, s:s, s:s?}", "name",
							     c->name, "value", c->value, "unit",
							     c->unit, "quality",
							     quality__name(c->quality), "reason",
							     c->reason));
	}
	if (!arr || !json_array_size(arr) || !nodes || !*nodes) {
		json_decref(arr);
		return arr ? 0 : -ENOMEM;
	}
	json_t *doc = json_pack("{s:s, s:s?, s:s, s:I, s:o}", "key", key, "mpi", mpi, "nodes",
				nodes, "measured_at", (json_int_t)time(NULL), "ceilings", arr);
	int rc = write_sealed(key, doc);
	json_decref(doc);
	if (rc == 1 && shape_key) {
		json_t *ptr = json_pack("{s:s, s:s}", "key", shape_key, "nodes", nodes);
		int prc = write_sealed(shape_key, ptr);
		json_decref(ptr);
		rc = prc < 0 ? prc : rc;
	}
	return rc;
}

/* The sealed document of key, or NULL; *path_out the file (may be NULL). */
static json_t *read_sealed(const char *key, char **path_out)
{
	char *path = entry_path(key), *text = NULL;
	size_t len = 0;
	json_t *doc = NULL;
	if (path && safefs_read_owned(path, NETCACHE_MAX_BYTES, &text, &len) == 0 &&
	    !cache_sealed_text_problem(path, key, strlen(key), text, len) &&
	    (doc = json_loadb(text, len, 0, NULL)) &&
	    (!json_is_string(json_object_get(doc, "key")) ||
	     strcmp(json_string_value(json_object_get(doc, "key")), key) != 0)) {
		json_decref(doc);
		doc = NULL;
	}
	xfree(text);
	if (path_out && doc)
		*path_out = path;
	else
		xfree(path);
	return doc;
}

char *netcache_shape_nodes(const char *shape_key)
{
	json_t *doc = read_sealed(shape_key, NULL);
	const char *n = json_string_value(json_object_get(doc, "nodes"));
	char *out = n && *n ? xstrdup(n) : NULL;
	json_decref(doc);
	return out;
}

/* The stored Ceiling j as a ceiling (borrowed strings); false when unusable. */
static bool stored(const json_t *j, struct ceiling *c)
{
	*c = (struct ceiling){(char *)json_string_value(json_object_get(j, "name")),
			      json_number_value(json_object_get(j, "value")),
			      (char *)json_string_value(json_object_get(j, "unit")),
			      QUALITY_UNAVAILABLE,
			      (char *)json_string_value(json_object_get(j, "reason"))};
	return !quality__parse(json_string_value(json_object_get(j, "quality")), &c->quality) &&
	       c->unit && network_ceiling(c);
}

int netcache_hit__add(const struct netcache_hit *h, struct machine *m, int quality,
		      const char *reason)
{
	size_t i;
	const json_t *j;
	int n = 0;
	json_array_foreach(h->ceilings, i, j) {
		struct ceiling c;
		if (!stored(j, &c))
			continue;
		if (reason) {
			c.quality = (enum quality)quality;
			c.reason = (char *)reason;
		}
		if (machine__add_ceiling(m, &c))
			return -ENOMEM;
		n++;
	}
	return n;
}

int netcache_load(const char *key, struct netcache_hit *hit)
{
	*hit = (struct netcache_hit){0};
	json_t *doc = read_sealed(key, &hit->path);
	const char *nodes = json_string_value(json_object_get(doc, "nodes"));
	const json_t *arr = json_object_get(doc, "ceilings");
	size_t usable = 0, i;
	const json_t *j;
	json_array_foreach(arr, i, j) {
		struct ceiling c;
		usable += stored(j, &c);
	}
	if (!doc || !nodes || !*nodes || !usable) {
		json_decref(doc);
		netcache_hit__release(hit);
		return 0;
	}
	const char *mpi = json_string_value(json_object_get(doc, "mpi"));
	hit->mpi = mpi ? xstrdup(mpi) : NULL;
	hit->nodes = xstrdup(nodes);
	hit->measured_at = (long long)json_integer_value(json_object_get(doc, "measured_at"));
	hit->ceilings = json_incref((json_t *)arr);
	json_decref(doc);
	if (!hit->nodes || (mpi && !hit->mpi)) {
		netcache_hit__release(hit);
		return -ENOMEM;
	}
	return 1;
}

void netcache_hit__release(struct netcache_hit *h)
{
	xfree(h->path);
	xfree(h->mpi);
	xfree(h->nodes);
	json_decref(h->ceilings);
	*h = (struct netcache_hit){0};
}
