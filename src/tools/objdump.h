/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GNU objdump adapter (the call-stack ladder's frame-pointer check):
 * `objdump --version` (GNU's says "GNU objdump"; LLVM's is refused),
 * `objdump -t|-T MODULE` (function symbols) and `objdump --disassemble
 * --start-address=A --stop-address=B MODULE` (a function's first bytes), and
 * the parsers of their output. Pure: never spawns; the strings in argv are
 * borrowed unless said.
 */
#ifndef NUNATAK_TOOLS_OBJDUMP_H
#define NUNATAK_TOOLS_OBJDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void objdump__version_argv(const char *argv[3], const char *path);
/* Whether `objdump --version` printed GNU's banner. */
bool objdump__is_gnu(const char *version_out);

/* -t (the static symbol table), or -T (dynamic) when dynamic. */
void objdump__symbols_argv(const char *argv[4], const char *path, bool dynamic,
			   const char *module);

/* The disassembly of [start, start + len) of module; the address options
 * are held in a. */
struct objdump_range_argv {
	const char *argv[6];
	char start[48], stop[48];
};
void objdump__disassemble_argv(struct objdump_range_argv *a, const char *path,
			       const char *module, uint64_t start, uint64_t len);

/* The function symbols of `objdump -t` / `-T` output of at least min_size
 * bytes, defined in a section (not *UND*), deduplicated by address, the
 * `max` largest (ties: first listed), in decreasing size: their addresses
 * into out[max]. Returns how many. */
size_t objdump__parse_symbols(const char *text, uint64_t min_size, size_t max, uint64_t *out);

/* Whether a disassembly of a function's first bytes shows a frame being set
 * up within its first max_insns instructions: `push %rbp` immediately
 * followed by `mov %rsp,%rbp` (x86-64), `stp x29, x30, ...` by `mov x29, sp`
 * (AArch64). A lone push %rbp is a register save, not a frame. */
bool objdump__fp_prologue(const char *disassembly, int max_insns);

/* The branches that leave a function, from `objdump --disassemble` of
 * [lo, hi) (AT&T syntax, x86-64: "  1178:\te8 bc ff ff ff \tcall   1139
 * <leaf>"; GNU objdump 2.40 prints "call", older ones "callq"; prefixes
 * such as bnd and notrack are skipped). */
enum objdump_branch {
	OBJDUMP_CALL,     /* a direct call: target is its destination */
	OBJDUMP_JUMP_OUT, /* a direct jump (any jcc too) to outside [lo, hi) */
	OBJDUMP_INDIRECT, /* a call or a jump through a register or memory */
};
/* fn(kind, address of the instruction, target (0 when indirect), ctx); it
 * returns false to stop; NULL only counts. Returns the number of instructions read, or -1
 * when fn stopped. */
typedef bool (*objdump_branch_fn)(enum objdump_branch kind, uint64_t at, uint64_t target,
				  void *ctx);
long objdump__branches(const char *disassembly, uint64_t lo, uint64_t hi, objdump_branch_fn fn,
		       void *ctx);

#endif
