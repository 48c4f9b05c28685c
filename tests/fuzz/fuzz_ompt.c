// SPDX-License-Identifier: BSD-3-Clause
// Fuzz target: the OMPT tool's profile (ingest/ompt.h), ompt.<pid>.txt.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "ingest/ompt.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pivot p;
	pivot__init(&p);
	struct err e = {0};
	/* node NULL: the file's own, as for an MPI rank */
	int rc = ompt_parse((const char *)data, size, "ompt.1.txt", NULL, &p, &e);
	/* An error says where and adds nothing; what was read is well-formed. */
	if (rc < 0 && (!e.msg[0] || !e.code[0] || (rc == -EINVAL && p.nr_omp_sites)))
		__builtin_trap();
	for (size_t i = 0; i < p.nr_omp_sites; i++) {
		const struct omp_site *o = &p.omp_sites[i];
		if (!o->module || !*o->module || o->locus < 0 || (size_t)o->locus >= p.nr_loci ||
		    o->wait_ns > o->task_ns || o->calls < 0 || p.loci[o->locus].thread <= 0)
			__builtin_trap();
	}
	pivot__release(&p);
	return 0;
}
