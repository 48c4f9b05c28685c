/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which symbolizer attribution will use, found by *invoking* candidates
 * (finding a file proves nothing: distributions install versioned, unlinked
 * binaries). For doctor (src/doctor/) and for `nunatak run`:
 *
 *   struct attrib_tools t;
 *   attrib_locate(x, cfg_llvm_symbolizer, cfg_addr2line, &t, &e);
 *   ... t.tool, t.path, t.major, t.version, t.cost ...
 *   const char *name; char *msg, *remedy;
 *   if (attrib_tools__degradation(&t, &name, &msg, &remedy) > 0) announce it;
 *   attrib_tools__release(&t);
 *
 * Candidate order (each invoked with --version through the executor, so a
 * replay serves the recorded answers FIFO per basename): the configured
 * `[tools] llvm-symbolizer`, `llvm-symbolizer` on PATH, /usr/lib/llvm-N/bin
 * newest first, /usr/bin/llvm-symbolizer-N newest first (live, PATH's goes
 * after the installs numbered >= ATTRIB_LLVM_MINIMUM when it is the same file
 * as an older one: locate.c, defer_old_path_tool). The version comes
 * from `LLVM version (\d+)\.`. Siblings llvm-readelf and llvm-dwarfdump are
 * taken from the same install (same directory, same -N suffix). Without any
 * LLVM, GNU addr2line (`[tools] addr2line`, else PATH) stands in.
 */
#ifndef NUNATAK_TOOLS_LOCATE_H
#define NUNATAK_TOOLS_LOCATE_H

#include <stdbool.h>

struct executor;
struct err;

/* The reference's support window (REFERENCE.md section 4). An older LLVM is
 * still used; `cost` says what its age costs. */
#define ATTRIB_LLVM_MINIMUM 17
#define ATTRIB_LLVM_RECOMMENDED 19

enum attrib_tool { ATTRIB_TOOL_NONE = 0, ATTRIB_TOOL_LLVM, ATTRIB_TOOL_ADDR2LINE };

struct attrib_tools {
	enum attrib_tool tool;
	char *path;       /* the symbolizer as invoked (llvm-symbolizer or addr2line) */
	int major;        /* LLVM major version; 0 for addr2line and none */
	char *version;    /* the version line the tool printed, or NULL */
	char *readelf;    /* llvm-readelf of the same install (LLVM only), else NULL */
	char *dwarfdump;  /* llvm-dwarfdump of the same install (LLVM only), else NULL */
	const char *cost; /* static text: what this choice costs against the reference
			     (LLVM >= 17), or NULL when nothing */
};

/* Never fails for a missing tool (tool == ATTRIB_TOOL_NONE then); returns a
 * negative error only when nunatak itself fails (out of memory, executor). */
int attrib_locate(struct executor *x, const char *configured_llvm, const char *configured_addr2line,
		  struct attrib_tools *out, struct err *e);
void attrib_tools__release(struct attrib_tools *t);

/* Where attrib_locate() looks: the directories of the versioned installs
 * ("/usr/lib", "/usr/bin") and the PATH the bare name is looked up in (NULL:
 * the environment's). attrib_locate_in() is attrib_locate() over others (a
 * test's tree). */
struct attrib_locate_roots {
	const char *lib, *bin, *path_env;
};
int attrib_locate_in(struct executor *x, const char *configured_llvm,
		     const char *configured_addr2line, const struct attrib_locate_roots *roots,
		     struct attrib_tools *out, struct err *e);

/* The degradation this choice implies, for doctor's pre-run announcement and
 * for attribution itself (same text, so the two deduplicate): returns 1 and
 * sets *name (static), *message and *remedy (caller frees) for `llvm-missing`
 * (addr2line stands in, or no symbolizer at all), 0 when none applies,
 * -ENOMEM. An old LLVM is not a degradation: its cost is in t->cost. */
int attrib_tools__degradation(const struct attrib_tools *t, const char **name, char **message,
			      char **remedy);

/* The sibling of an llvm-symbolizer path: "/usr/lib/llvm-14/bin/llvm-readelf"
 * for ("/usr/lib/llvm-14/bin/llvm-symbolizer", "llvm-readelf"),
 * "/usr/bin/llvm-readelf-14" for ".../llvm-symbolizer-14". Caller frees. */
char *attrib_sibling(const char *symbolizer_path, const char *tool);

#endif
