/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The buffered output file of the library's writers (writer.h) and the
 * stream (stream.h): written to a fresh "<final>.tmp.<random>" (tmpname.h)
 * and renamed over the final name only when complete.
 */
#ifndef SP_OUT_H
#define SP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

struct sp_out {
	int fd;
	int err; /* first -errno, sticky */
	char *tmp_path, *final_path;
	size_t n;
	unsigned char buf[1 << 16];
};

/* Creates the temporary file. 0 or -errno (o->err set too). */
int sp_out__open(struct sp_out *o, const char *final_path);
void sp_out__write(struct sp_out *o, const void *p, size_t n);
/* Writes out the buffer; the file offset where the next byte goes, or -1
 * (o->err set). */
off_t sp_out__flush(struct sp_out *o);
/* Flushes, closes and renames; on any earlier error removes the temporary
 * file instead. Returns 0 or the first -errno. */
int sp_out__commit(struct sp_out *o);

static inline void sp_out__put(struct sp_out *o, const void *p, size_t n)
{
	if (o->n + n <= sizeof(o->buf)) { /* the common, small case */
		memcpy(o->buf + o->n, p, n);
		o->n += n;
	} else {
		sp_out__write(o, p, n);
	}
}
static inline void sp_out__i32(struct sp_out *o, int32_t v) { sp_out__put(o, &v, 4); }
static inline void sp_out__i64(struct sp_out *o, int64_t v) { sp_out__put(o, &v, 8); }
static inline void sp_out__u64(struct sp_out *o, uint64_t v) { sp_out__put(o, &v, 8); }

/* mkdir -p of the directory part of @p path (failures are left to the
 * write that follows, which reports them). */
void sp_out__make_dirs(const char *path);

/* The same with @p buf (strlen(path) + 1 bytes) as its working copy:
 * allocates nothing (the stream's first flush may run in a signal
 * handler). */
void sp_out__make_dirs_in(const char *path, char *buf);

#endif
