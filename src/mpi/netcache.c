// SPDX-License-Identifier: BSD-3-Clause
// The network Ceilings' cache (netcache.h).
#include "mpi/netcache.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/cache_home.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/sha256.h"
#include "model/machine.h"

#define NETCACHE_VERSION 1
#define NETCACHE_MAX_BYTES (1u << 20)

char *netcache_key(const char *const *prefix, const char *stack, const char *nodelist,
		   const char *host)
{
	char *k = xasprintf("netcache %d\nstack %s\nnodes %s\nhost %s\nprefix", NETCACHE_VERSION,
			    stack ? stack : "", nodelist ? nodelist : "", host ? host : "");
	for (size_t i = 0; k && prefix && prefix[i]; i++) {
		char *more = xasprintf("%s %s", k, prefix[i]);
		xfree(k);
		k = more;
	}
	return k;
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

int netcache_store(const char *key, const struct machine *m, const char *mpi)
{
	json_t *arr = json_array(), *doc = NULL;
	for (size_t i = 0; arr && i < m->nr_ceilings; i++) {
		const struct ceiling *c = &m->ceilings[i];
		if (network_ceiling(c))
			json_array_append_new(arr, json_pack("{s:s, s:f, s:s, s:s, s:s?}", "name",
							     c->name, "value", c->value, "unit",
							     c->unit, "quality",
							     quality__name(c->quality), "reason",
							     c->reason));
	}
	if (!arr || !json_array_size(arr)) {
		json_decref(arr);
		return arr ? 0 : -ENOMEM;
	}
	doc = json_pack("{s:s, s:s?, s:I, s:o}", "key", key, "mpi", mpi, "measured_at",
			(json_int_t)time(NULL), "ceilings", arr);
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
	json_decref(doc);
	xfree(text);
	xfree(path);
	xfree(dir);
	return rc;
}

static int add_cached(struct machine *m, const json_t *arr)
{
	size_t i;
	const json_t *j;
	int n = 0;
	json_array_foreach(arr, i, j) {
		struct ceiling c = {(char *)json_string_value(json_object_get(j, "name")),
				    json_number_value(json_object_get(j, "value")),
				    (char *)json_string_value(json_object_get(j, "unit")),
				    QUALITY_UNAVAILABLE,
				    (char *)json_string_value(json_object_get(j, "reason"))};
		if (quality__parse(json_string_value(json_object_get(j, "quality")), &c.quality) ||
		    !c.unit || !network_ceiling(&c))
			continue;
		if (machine__add_ceiling(m, &c))
			return -ENOMEM;
		n++;
	}
	return n;
}

int netcache_load(const char *key, struct machine *m, char **path_out, char **mpi_out)
{
	*path_out = *mpi_out = NULL;
	char *path = entry_path(key), *text = NULL;
	size_t len = 0;
	if (!path)
		return 0;
	int rc = 0;
	json_t *doc = NULL;
	if (safefs_read_owned(path, NETCACHE_MAX_BYTES, &text, &len) == 0 &&
	    !cache_sealed_text_problem(path, key, strlen(key), text, len) &&
	    (doc = json_loadb(text, len, 0, NULL)) &&
	    json_is_string(json_object_get(doc, "key")) &&
	    !strcmp(json_string_value(json_object_get(doc, "key")), key)) {
		rc = add_cached(m, json_object_get(doc, "ceilings"));
		if (rc > 0) {
			const char *mpi = json_string_value(json_object_get(doc, "mpi"));
			*mpi_out = mpi ? xstrdup(mpi) : NULL;
			*path_out = path;
			path = NULL;
			rc = 1;
		}
	}
	json_decref(doc);
	xfree(text);
	xfree(path);
	return rc;
}
