/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame-pointer call stacks and the functions that set up no frame (issue
 * 24). With `--call-graph fp` the kernel walks the %rbp chain: a sample in a
 * function that has not (yet) executed `push %rbp; mov %rsp,%rbp` reads the
 * return address of its *caller's* frame, so the caller is skipped and the
 * caller's caller is reported in its place (GCC gives a leaf no frame even
 * under -fno-omit-frame-pointer). The same holds for the user part of a
 * stack under kernel frames (a context switch, a sample in a system call):
 * its shallowest user frame is the interrupted IP. Such a stack gets a frame
 * just above that user leaf (the frames above move up one): the skipped
 * caller when the code proves which function it is, else "(caller
 * unknown)", so no wrong caller is ever shown as measured. The check reads
 * the function's first bytes from the module itself (x86-64 only; other
 * ISAs, a module that cannot be read or an address outside every symbol are
 * left as they are).
 */
#ifndef NUNATAK_ATTRIB_FRAMELESS_H
#define NUNATAK_ATTRIB_FRAMELESS_H

#include <stddef.h>

struct pivot;
struct executor;

#define FRAMELESS_CALLER "(caller unknown)"

/* Pure: the length in bytes of an x86-64 frame setup at the start of code
 * ([endbr64] push %rbp; mov %rsp,%rbp), 0 when the function does not begin
 * with one (no frame, or a push %rbp that only saves a register). */
size_t frame_setup_len(const unsigned char *code, size_t n);

struct frameless_report {
	double stacked;          /* stacked time (or count) over every stack */
	double unknown;          /* of it, in stacks whose caller became unknown */
	double recovered;        /* of it, in stacks whose caller was proven (below) */
	char modules[256];       /* "libc.so.6 9%, app 2%": where, most first */
};

/* Marks the fp stacks of p whose leaf sets up no frame (above). The skipped
 * caller is recovered where the code proves it (frameless.c: a direct call
 * to a function with a frame that calls the leaf and nothing else that could
 * reach it), reading disassemblies with GNU objdump through x; objdump NULL:
 * never recovered. Returns 0 or -ENOMEM; *r says how much. */
int frameless_mark(struct pivot *p, struct executor *x, const char *objdump,
		   struct frameless_report *r);

#endif
