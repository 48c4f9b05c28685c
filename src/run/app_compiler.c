// SPDX-License-Identifier: BSD-3-Clause
// provenance.dependencies.compiler: the toolchains the target's ELF .comment
// names; .compiler_producer: its first compilation unit's DW_AT_producer,
// the compiler and its flags (stages.h: run_note_compiler).
#include <jansson.h>

#include "attrib/elf.h"
#include "common/alloc.h"
#include "run/pipeline.h"
#include "run/stages.h"

void run_note_compiler(struct run_state *s)
{
	if (s->replay || (s->prov.dependencies && json_object_get(s->prov.dependencies, "compiler")))
		return;
	char *path = run_target_path(s);
	struct elf_info info;
	if (path && elf_info__read(&info, path, 0, NULL) == 0 && (info.comment || info.producer) &&
	    (s->prov.dependencies || (s->prov.dependencies = json_object()))) {
		if (info.comment)
			json_object_set_new(s->prov.dependencies, "compiler", json_string(info.comment));
		if (info.producer)
			json_object_set_new(s->prov.dependencies, "compiler_producer",
					    json_string(info.producer));
	}
	if (path)
		elf_info__release(&info);
	xfree(path);
}
