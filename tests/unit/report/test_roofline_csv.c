// SPDX-License-Identifier: BSD-3-Clause
#include "report/roofline_csv.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "harness.h"

#define V(x, q) "{\"value\": " #x ", \"unit\": \"u\", \"quality\": \"" q "\", \"reason\": null}"
#define NA "{\"value\": null, \"unit\": \"u\", \"quality\": \"unavailable\", \"reason\": \"why\"}"

static char *csv_of(const char *payload_text, size_t *placed)
{
	json_error_t je;
	json_t *p = json_loads(payload_text, 0, &je);
	CHECK(p != NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct err e = {0};
	CHECK(roofline_csv_write(p, f, placed, &e) == 0);
	fclose(f);
	json_decref(p);
	return buf;
}

static const char MACHINE[] =
	"\"machine\": {\"ceilings\": [{\"name\": \"flops_dp\", \"value\": 1e12, \"unit\": \"flop/s\", "
	"\"quality\": \"measured\", \"reason\": null}, {\"name\": \"dram_bandwidth\", \"value\": 1e11, "
	"\"unit\": \"B/s\", \"quality\": \"estimated\", \"reason\": \"x\"}]}";

/* Placed Hotspots and their ranks are rows, an unplaceable one is not; a
 * name with a comma and a quote is quoted; an unavailable figure is empty,
 * never 0; the roof is memory left of the ridge (10 flop/byte). */
static void t_rows(void)
{
	char text[4096];
	snprintf(text, sizeof(text),
		 "{%s, \"hotspots\": ["
		 "{\"name\": \"a, \\\"b\\\"\", \"module\": \"/m\", \"source_file\": null, \"share\": " V(0.5, "measured") ", "
		 "\"dram_intensity\": " V(0.8, "estimated") ", \"achieved\": " V(2e9, "measured") ", "
		 "\"attainable\": " V(8e10, "estimated") ", \"envelope_fraction\": " NA ", "
		 "\"ranks\": [{\"rank\": 3, \"share\": " V(0.25, "measured") ", \"dram_intensity\": " V(0.7, "measured") ", "
		 "\"achieved\": " V(1e9, "measured") "}]},"
		 "{\"name\": \"c\", \"share\": " V(0.2, "measured") ", \"dram_intensity\": " V(50, "measured") ", "
		 "\"achieved\": " V(3e11, "measured") "},"
		 "{\"name\": \"off\", \"share\": " V(0.1, "measured") ", \"dram_intensity\": " NA ", \"achieved\": " V(1e9, "measured") "}"
		 "], \"regions\": []}", MACHINE);
	size_t placed = 0;
	char *csv = csv_of(text, &placed);
	CHECK_INT(placed, 2);
	char *l1 = strchr(csv, '\n') + 1, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	CHECK(strncmp(csv, "kind,name,rank,", 15) == 0);
	CHECK(strncmp(l1, "hotspot,\"a, \"\"b\"\"\",,/m,,0.5,measured,0.8,estimated,2000000000,measured,"
			  "80000000000,estimated,,unavailable,memory,1000000000000,measured,"
			  "100000000000,estimated\n", (size_t)(l2 - l1)) == 0);
	CHECK(strncmp(l2, "hotspot-rank,\"a, \"\"b\"\"\",3,/m,,0.25,measured,0.7,measured,", 56) == 0);
	CHECK(strncmp(l3, "hotspot,c,,,,0.2,measured,50,measured,300000000000,measured,,unavailable,,"
			  "unavailable,compute,", 94) == 0);
	CHECK(strstr(csv, "off") == NULL);
	free(csv);
}

/* No Ceilings: nothing is placed, the header alone. */
static void t_no_ceilings(void)
{
	size_t placed = 7;
	char *csv = csv_of("{\"machine\": {\"ceilings\": []}, \"hotspots\": [{\"name\": \"x\", "
			   "\"dram_intensity\": " V(1, "measured") ", \"achieved\": " V(1e9, "measured") "}]}",
			   &placed);
	CHECK_INT(placed, 0);
	CHECK(strchr(csv, '\n')[1] == '\0');
	free(csv);
}

/* A Run over nodes: its rows against the nodes' summed roof (payload
 * "roofline"), a rank's row against its own node's Ceilings. */
static void t_nodes(void)
{
	char text[4096];
	snprintf(text, sizeof(text),
		 "{%s, \"roofline\": {\"basis\": \"the sum\", \"nodes\": 2, \"missing\": null, \"ceilings\": ["
		 "{\"name\": \"flops_dp\", \"value\": 2e12, \"unit\": \"flop/s\", \"quality\": \"measured\", \"reason\": null},"
		 "{\"name\": \"dram_bandwidth\", \"value\": 3e11, \"unit\": \"B/s\", \"quality\": \"estimated\", \"reason\": \"y\"}]},"
		 "\"hotspots\": [{\"name\": \"a\", \"share\": " V(0.5, "measured") ", \"dram_intensity\": " V(0.8, "measured") ", "
		 "\"achieved\": " V(2e9, "measured") ", \"ranks\": [{\"rank\": 1, \"share\": " V(0.25, "measured") ", "
		 "\"dram_intensity\": " V(0.7, "measured") ", \"achieved\": " V(1e9, "measured") ", \"ceilings\": "
		 "{\"flops_dp\": " V(5e11, "measured") ", \"dram_bandwidth\": " V(4e10, "estimated") "}}]}], \"regions\": []}",
		 MACHINE);
	size_t placed = 0;
	char *csv = csv_of(text, &placed);
	CHECK_INT(placed, 1);
	char *l1 = strchr(csv, '\n') + 1, *l2 = strchr(l1, '\n') + 1;
	CHECK(strstr(l1, ",memory,2000000000000,measured,300000000000,estimated\n") != NULL &&
	      strstr(l1, ",memory,2000000000000,measured,300000000000,estimated\n") < l2);
	CHECK(strncmp(l2, "hotspot-rank,a,1,", 17) == 0);
	CHECK(strstr(l2, ",memory,500000000000,measured,40000000000,estimated\n") != NULL);
	free(csv);
}

static const struct test_case cases[] = {
	{"nodes", "a Run over nodes: the summed roof, each rank its node's", t_nodes},
	{"rows", "placed Hotspots and ranks as rows, quoted names, empty unavailable", t_rows},
	{"no_ceilings", "no Ceilings: the header alone", t_no_ceilings},
};
TEST_MAIN(cases)
