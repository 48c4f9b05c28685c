// SPDX-License-Identifier: BSD-3-Clause
/* Fuzz target: the Machine's parsers of system and tool text. The first byte
 * picks one: /proc/cpuinfo, the network probe's stdout (and the Ceilings it
 * gives), a launcher's `--version`; the rest is the text. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "machine/snapshot.h"
#include "model/machine.h"
#include "mpi/netprobe.h"
#include "mpi/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cpuinfo(const char *text, size_t len)
{
	struct cpu_ident c = {.family = -1, .model = -1, .stepping = -1};
	char *model = NULL;
	if (cpuinfo_parse(text, len, &c, &model) == 0)
		for (size_t i = 0; i < c.nr_flags; i++)
			if (!c.flags[i])
				__builtin_trap();
	xfree(model);
	cpu_ident__release(&c);
}

static void netprobe(const char *text)
{
	struct netprobe np;
	if (netprobe_parse(text, &np) != 0)
		return;
	if (np.nr_bandwidth < 0 || np.nr_bandwidth > NETPROBE_MAX_REPS ||
	    strlen(np.impl) >= sizeof(np.impl) || strlen(np.node0) >= sizeof(np.node0))
		__builtin_trap();
	struct machine m;
	machine__init(&m);
	if (netprobe_ceilings(&np, &m) >= 0)
		for (size_t i = 0; i < m.nr_ceilings; i++)
			if (!(m.ceilings[i].value > 0) || !isfinite(m.ceilings[i].value))
				__builtin_trap(); /* a Ceiling is a positive finite maximum */
	machine__release(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = xstrndup((const char *)data + 1, size - 1);
	if (!text)
		return 0;
	switch (data[0] % 3) {
	case 0:
		cpuinfo((const char *)data + 1, size - 1); /* bytes, not a C string */
		break;
	case 1:
		netprobe(text);
		break;
	default: {
		struct mpi_stack st;
		memset(&st, 0, sizeof(st));
		mpi_stack_parse_version(text, &st);
		if (strlen(st.impl) >= sizeof(st.impl) || strlen(st.version) >= sizeof(st.version))
			__builtin_trap();
		break;
	}
	}
	xfree(text);
	return 0;
}
