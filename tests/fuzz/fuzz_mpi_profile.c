// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: a rank's mpi-profile.txt (the interposition library's records).
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "ingest/mpi_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpi_profile p;
	struct err e = {0};
	int rc = mpi_profile_parse((const char *)data, size, &p, &e);
	/* An error always says where; what was read is well-formed. */
	if (rc < 0 && (!e.msg[0] || !e.code[0]))
		__builtin_trap();
	for (size_t i = 0; i < p.nr_sites; i++)
		if (!p.sites[i].name || !p.sites[i].module || !*p.sites[i].module)
			__builtin_trap();
	for (size_t i = 0; i < p.nr_events; i++)
		if (!p.events[i].name || p.events[i].peer < -1 || p.events[i].duration_ns < 0)
			__builtin_trap();
	for (size_t i = 0; i < p.nr_ccomms; i++)
		if (p.ccomms[i].nr > (size_t)p.ccomms[i].size || p.ccomms[i].id < 0)
			__builtin_trap();
	for (size_t i = 0; i < p.nr_colls; i++)
		if (!p.colls[i].name || p.colls[i].comm < -1 || p.colls[i].root < -1)
			__builtin_trap();
	if (strlen(p.state) >= sizeof(p.state))
		__builtin_trap();
	mpi_profile__release(&p);
	return 0;
}
