// SPDX-License-Identifier: BSD-3-Clause
// Ceilings per node from a Run's collect/ directory: what a rank shim
// records (its node's Machine, once per identity, no cached Ceilings here),
// and what the launch node makes of rank.json files naming a Machine, an
// unknown one, none, a malformed identity, a corrupt or foreign profile.
#include "harness.h"
#define TMPDIR_TAG "node-profile"
#include "tmpdir.h"

#include <jansson.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/err.h"
#include "machine/node_profile.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdir(p, 0755);
	*slash = '/';
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	xfree(p);
}

static void rank_json(const char *dir, int rank, const char *node, const char *machine)
{
	char rel[64], *text;
	snprintf(rel, sizeof(rel), "rank-%d/rank.json", rank);
	if (machine)
		text = xasprintf("{\"rank\": %d, \"node\": \"%s\", \"machine\": \"%s\"}", rank, node,
				 machine);
	else
		text = xasprintf("{\"rank\": %d, \"node\": \"%s\"}", rank, node);
	put(dir, rel, text);
	xfree(text);
}

static void t_record_and_gather(void)
{
	char *dir = tmpdir();
	setenv("XDG_CACHE_HOME", dir, 1); /* an empty cache: no node has a profile */
	char id[MACHINE_ID_SIZE], again[MACHINE_ID_SIZE];
	struct err e = {0};
	CHECK_INT(node_profile_record(dir, NULL, 0, id, &e), 0);
	CHECK_INT(node_profile_record(dir, NULL, 0, again, &e), 0); /* once per identity */
	CHECK_STR(again, id);
	char *path = xasprintf("%s/machines/%s.json", dir, id);
	json_t *doc = json_load_file(path, 0, NULL);
	CHECK(doc != NULL);
	CHECK(json_is_false(json_object_get(doc, "cached")));
	CHECK(json_string_value(json_object_get(doc, "why")) != NULL);
	CHECK_INT(json_array_size(json_object_get(json_object_get(doc, "machine"), "ceilings")), 0);
	struct machine launch;
	machine__init(&launch);
	CHECK_INT(machine__from_json(&launch, json_object_get(doc, "machine"), &e), 0);
	json_decref(doc);
	xfree(path);
	struct ceiling c = {(char *)"flops_dp", 1e11, (char *)"flop/s", QUALITY_MEASURED, NULL};
	CHECK_INT(machine__add_ceiling(&launch, &c), 0);

	/* rank 0 on the launch node's Machine; rank 1 names a Machine whose
	 * profile is not there; rank 2 none; rank 3 a malformed identity (never
	 * a path); rank 4 a corrupt profile; rank 5 a profile of another Machine */
	rank_json(dir, 0, "a", id);
	rank_json(dir, 1, "b", "ffffffffffffffff");
	rank_json(dir, 2, "b", NULL);
	rank_json(dir, 3, "c", "../../etc/passwd");
	rank_json(dir, 4, "d", "eeeeeeeeeeeeeeee");
	put(dir, "machines/eeeeeeeeeeeeeeee.json", "{\"machine\": [1, 2");
	rank_json(dir, 5, "e", "dddddddddddddddd");
	char *mine = xasprintf("%s/machines/%s.json", dir, id), *text = NULL;
	FILE *f = fopen(mine, "r");
	CHECK(f != NULL);
	text = xcalloc(1 << 20, 1);
	size_t n = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[n] = '\0';
	put(dir, "machines/dddddddddddddddd.json", text);
	xfree(text);
	xfree(mine);
	put(dir, "rank-6/rank.json", "not json");

	struct node_machines nm;
	CHECK_INT(node_machines_gather(dir, &launch, &nm, &e), 0);
	CHECK_INT(nm.n, 6);
	static const char *const node[6] = {"a", "b", "b", "c", "d", "e"};
	for (size_t i = 0; i < nm.n; i++) {
		CHECK_STR(nm.v[i].node, node[i]);
		CHECK_INT(nm.v[i].nr_ranks, 1);
		CHECK_INT(nm.v[i].ranks[0], (int)i);
		CHECK_INT(nm.v[i].source, i == 0 ? NODE_CEILINGS_LAUNCH : NODE_CEILINGS_BORROWED);
		const struct ceiling *got = node_machine__ceiling(&nm.v[i], "flops_dp");
		CHECK(got != NULL && got->value == 1e11);
		CHECK_INT(got->quality, i == 0 ? QUALITY_MEASURED : QUALITY_ESTIMATED);
	}
	CHECK(nm.v[0].reason == NULL && nm.v[0].known);
	CHECK(strstr(nm.v[1].reason, "ffffffffffffffff.json: ") != NULL);
	CHECK(strstr(nm.v[2].reason, "recorded no Machine") != NULL);
	CHECK(strstr(nm.v[3].reason, "recorded no Machine") != NULL);
	CHECK(strstr(nm.v[4].reason, "eeeeeeeeeeeeeeee.json") != NULL);
	CHECK(strstr(nm.v[5].reason, "describes another Machine") != NULL);
	CHECK(!nm.v[1].known && !nm.v[4].known && !nm.v[5].known);
	node_machines__release(&nm);

	/* no rank names a Machine (an older nunatak): nothing, ranks keep the Run's */
	char *old = tmpdir();
	rank_json(old, 0, "a", NULL);
	rank_json(old, 1, "b", NULL);
	CHECK_INT(node_machines_gather(old, &launch, &nm, &e), 0);
	CHECK_INT(nm.n, 0);
	xfree(old);
	machine__release(&launch);
	unsetenv("XDG_CACHE_HOME");
	xfree(dir);
	done();
}

static const struct test_case cases[] = {
	{"record_and_gather", "a shim's Machine recorded once; every kind of rank.json resolved",
	 t_record_and_gather},
};
TEST_MAIN(cases)
