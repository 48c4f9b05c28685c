// SPDX-License-Identifier: BSD-3-Clause
#include "machine/cache.h"

#include "common/cache_home.h"

#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "model/machine_identity.h"
#include "model/machine.h"
#include "common/fsutil.h"
#include "common/safefs.h"

#define PROFILE_MAX_BYTES (16u << 20)
/* What a cached profile's seal covers besides its bytes (common/cache_home.h). */
#define PROFILE_SEAL_RECIPE "machine-profile"


char *machine_cache_dir(struct err *e)
{
	int no_home;
	char *why = NULL;
	char *d = cache_home_dir("machines", &no_home, &why);
	if (!d && no_home)
		err_set(e, -ENOENT, ERR_MACHINE_NO_CACHE_DIR, "%s",
			why ? why : "neither XDG_CACHE_HOME nor HOME is set: no Machine profile cache");
	else if (!d)
		err_oom(e);
	xfree(why);
	return d;
}

char *machine_cache_path(const struct machine *m, const char *dir)
{
	char id[MACHINE_ID_SIZE];
	if (machine_identity(m, id))
		return NULL;
	return xasprintf("%s/%s.json", dir, id);
}

bool machine__has_measured_ceiling(const struct machine *m)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (m->ceilings[i].quality == QUALITY_MEASURED)
			return true;
	return false;
}

bool ceiling__from_theory(const struct ceiling *c)
{
	return c->reason && !strncmp(c->reason, "theoretical peak", 16);
}

/* measured 2, estimated by a kernel 1, the theoretical table or nothing 0. */
static int ceiling_rank(const struct ceiling *c)
{
	if (c->quality == QUALITY_MEASURED)
		return 2;
	return c->quality == QUALITY_ESTIMATED && !ceiling__from_theory(c) && c->value > 0;
}

bool ceiling__better(const struct ceiling *a, const struct ceiling *b)
{
	int ra = ceiling_rank(a), rb = ceiling_rank(b);
	return ra != rb ? ra > rb : a->value > b->value;
}

static bool has_kernel_ceiling(const struct machine *m)
{
	for (size_t i = 0; i < m->nr_ceilings; i++)
		if (ceiling_rank(&m->ceilings[i]) > 0)
			return true;
	return false;
}

int machine_cache_store(const struct machine *m, const char *dir, char **path_out,
			struct err *e)
{
	if (path_out)
		*path_out = NULL;
	if (!has_kernel_ceiling(m))
		return 0;
	char *path = NULL, *text = NULL;
	json_t *doc = json_object(), *jm = machine__to_json(m);
	int rc = -ENOMEM;
	if (!doc || !jm || json_object_set_new(doc, "kernel_version",
					       json_integer(MACHINE_KERNEL_VERSION)))
		goto oom;
	if (json_object_set_new(doc, "machine", jm))
		goto oom_nojm;
	jm = NULL;
	if (!(text = json_dumps(doc, JSON_INDENT(2))) || !(path = machine_cache_path(m, dir)))
		goto oom_nojm;
	rc = fs_mkdir_p(dir);
	if (rc) {
		err_set(e, rc, ERR_MACHINE_CACHE, "cannot create the Machine cache %s: %s", dir,
			strerror(-rc));
		goto out;
	}
	rc = fs_write_atomic(path, text, strlen(text), e);
	if (rc)
		goto out;
	(void)cache_seal_file(path, PROFILE_SEAL_RECIPE, strlen(PROFILE_SEAL_RECIPE));
	rc = 1;
	if (path_out) {
		*path_out = path;
		path = NULL;
	}
	goto out;
oom:
	json_decref(jm);
oom_nojm:
	rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory storing the Machine profile");
out:
	json_decref(doc);
	xfree(text);
	xfree(path);
	return rc;
}

/* Every cached Ceiling finite, positive and physically possible for one
 * node: a flop rate below 1e16 flop/s, a bandwidth below 100 TB/s (a
 * recorded calibration may legitimately exceed what the theory table gives
 * this host, so the table is no bound here; calibrate.c already held each
 * measurement against it). 1, or 0 with e said. */
static int plausible(const struct machine *cached, const char *path, struct err *e)
{
	for (size_t i = 0; i < cached->nr_ceilings; i++) {
		const struct ceiling *c = &cached->ceilings[i];
		bool flops = c->name && strncmp(c->name, "flops_", 6) == 0;
		double cap = flops ? 1e16 : 1e14;
		if (!isfinite(c->value) || !(c->value > 0) || c->value > cap) {
			err_set(e, 0, ERR_MACHINE_CACHE_CORRUPT,
				"%s: Ceiling %s = %g is not a plausible measurement (finite, "
				"positive, at most %g) (not used)", path, c->name ? c->name : "?",
				c->value, cap);
			return 0;
		}
	}
	return 1;
}

static int check_profile(const json_t *doc, const struct machine *m, const char *path,
			 struct machine *cached, struct err *e)
{
	const json_t *kv = json_object_get(doc, "kernel_version");
	if (!json_is_integer(kv) || json_integer_value(kv) != MACHINE_KERNEL_VERSION) {
		err_set(e, 0, ERR_MACHINE_CACHE_STALE,
			"%s: measured by calibration kernel version %s, this is %d", path,
			json_is_integer(kv) ? "another" : "an unknown", MACHINE_KERNEL_VERSION);
		return 0;
	}
	int rc = machine__from_json(cached, json_object_get(doc, "machine"), e);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		err_prefix(e, "%s", path);
		return 0;
	}
	char want[MACHINE_ID_SIZE], got[MACHINE_ID_SIZE];
	if (machine_identity(m, want) || machine_identity(cached, got))
		return -ENOMEM;
	if (strcmp(want, got) != 0) {
		err_set(e, 0, ERR_MACHINE_CACHE_MISMATCH,
			"%s: describes Machine %s, not %s", path, got, want);
		return 0;
	}
	return plausible(cached, path, e);
}

/* The cached profile of m's identity into *cached: 1, 0 (none or unusable,
 * e says why), -ENOMEM. */
static int load_profile(const struct machine *m, const char *dir, struct machine *cached,
			struct err *e)
{
	char *path = machine_cache_path(m, dir), *text = NULL;
	json_t *doc = NULL;
	int rc;
	if (!path)
		return err_oom(e);
	size_t len = 0;
	rc = safefs_read_owned(path, PROFILE_MAX_BYTES, &text, &len);
	if (rc) {
		if (rc != -ENOMEM)
			err_set(e, 0, ERR_MACHINE_CACHE_ABSENT, "%s: %s", path, safefs_strerror(rc));
		rc = rc == -ENOMEM ? rc : 0;
		goto out;
	}
	json_error_t jerr;
	if (!(doc = json_loads(text, 0, &jerr))) {
		err_set(e, 0, ERR_MACHINE_CACHE_CORRUPT, "%s:%d:%d: %s", path, jerr.line,
			jerr.column, jerr.text);
		rc = 0;
		goto out;
	}
	rc = check_profile(doc, m, path, cached, e);
	const char *unsealed = rc != 1 ? NULL
			       : cache_sealed_text_problem(path, PROFILE_SEAL_RECIPE,
							   strlen(PROFILE_SEAL_RECIPE), text, len);
	if (unsealed) {
		err_set(e, 0, ERR_MACHINE_CACHE_CORRUPT, "%s: %s (not used)", path, unsealed);
		rc = 0;
	}
out:
	if (rc == -ENOMEM)
		err_set(e, rc, ERR_OOM, "out of memory loading the Machine profile");
	json_decref(doc);
	xfree(text);
	xfree(path);
	return rc;
}

int machine_cache_load_ceilings(struct machine *m, const char *dir, struct err *e)
{
	struct machine cached;
	machine__init(&cached);
	int rc = load_profile(m, dir, &cached, e);
	if (rc == 1) {
		machine__clear_ceilings(m);
		machine__clear_costs(m);
		for (size_t i = 0; i < cached.nr_ceilings && rc == 1; i++)
			if (machine__add_ceiling(m, &cached.ceilings[i]))
				rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		for (size_t i = 0; i < cached.nr_costs && rc == 1; i++)
			if (machine__put_cost(m, &cached.costs[i]))
				rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	}
	machine__release(&cached);
	return rc;
}

/* A cost is no maximum: this calibration's replaces the cached one, unless
 * the cached one is of a better Quality (measured over estimated over
 * unavailable: a calibration on a busy Machine does not undo a clean one). */
static int keep_costs(struct machine *m, const struct machine *cached)
{
	for (size_t k = 0; k < cached->nr_costs; k++) {
		const struct ceiling *c = &cached->costs[k], *now = machine__cost(m, c->name);
		if (now && now->quality <= c->quality)
			continue;
		if (machine__put_cost(m, c))
			return -ENOMEM;
	}
	return 0;
}

/* m's Ceiling i becomes a copy of c. */
static int replace_ceiling(struct machine *m, size_t i, const struct ceiling *c)
{
	struct ceiling *d = &m->ceilings[i];
	char *name = xstrdup(c->name), *unit = xstrdup(c->unit ? c->unit : "");
	char *reason = c->reason ? xstrdup(c->reason) : NULL;
	if (!name || !unit || (c->reason && !reason)) {
		xfree(name);
		xfree(unit);
		xfree(reason);
		return -ENOMEM;
	}
	xfree(d->name);
	xfree(d->unit);
	xfree(d->reason);
	*d = (struct ceiling){name, c->value, unit, c->quality, reason};
	return 0;
}

static char *add_note(char *note, const struct ceiling *kept, const struct ceiling *now)
{
	char *more = now ? xasprintf("%s: kept the cached %.4g %s (%s), %s this calibration's "
				     "%.4g (%s)", kept->name, kept->value, kept->unit,
				     quality__name(kept->quality),
				     kept->value > now->value ? "above" : "more trustworthy than",
				     now->value, quality__name(now->quality))
			 : xasprintf("%s: kept the cached %.4g %s (%s), which this calibration did "
				     "not measure", kept->name, kept->value, kept->unit,
				     quality__name(kept->quality));
	if (!note || !more)
		return more ? more : note;
	char *j = xasprintf("%s; %s", note, more);
	xfree(note);
	xfree(more);
	return j;
}

int machine_cache_keep_best(struct machine *m, const char *dir, char **note, struct err *e)
{
	struct machine cached;
	struct err le = {0};
	*note = NULL;
	machine__init(&cached);
	int rc = load_profile(m, dir, &cached, &le);
	for (size_t k = 0; rc == 1 && k < cached.nr_ceilings; k++) {
		const struct ceiling *c = &cached.ceilings[k];
		size_t i = 0;
		while (i < m->nr_ceilings && strcmp(m->ceilings[i].name, c->name))
			i++;
		if (i < m->nr_ceilings && !ceiling__better(c, &m->ceilings[i]))
			continue;
		if (ceiling_rank(c) == 0)
			continue; /* a cached theory never displaces anything */
		*note = add_note(*note, c, i < m->nr_ceilings ? &m->ceilings[i] : NULL);
		if (i < m->nr_ceilings ? replace_ceiling(m, i, c) : machine__add_ceiling(m, c))
			rc = -ENOMEM;
	}
	if (rc == 1 && keep_costs(m, &cached))
		rc = -ENOMEM;
	machine__release(&cached);
	if (rc == -ENOMEM)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	return rc;
}
