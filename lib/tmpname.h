/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The temporary file of every trace writer: "<final>.tmp.<16 random hex
 * digits>", created with O_CREAT|O_EXCL|O_NOFOLLOW, so a name planted in a
 * shared trace directory beforehand (a symlink to another file of the
 * user's above all) is never opened: another name is drawn. Header-only:
 * the HDF5 writer is a separate module and needs it too.
 */
#ifndef SP_TMPNAME_H
#define SP_TMPNAME_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Room a caller adds to strlen(final) for the name and its NUL. */
#define SP_TMP_EXTRA 24

/* "<final>.tmp.<v in 16 hex digits>" into tmp (len bytes, cut to fit),
 * without stdio: the stream's first flush may run in a signal handler. */
static inline void sp_tmp_name(const char *final, uint64_t v, char *tmp, size_t len)
{
	if (!len)
		return;
	size_t n = 0;
	for (; final[n] && n + 1 < len; n++)
		tmp[n] = final[n];
	static const char tag[] = ".tmp.", hex[] = "0123456789abcdef";
	for (size_t i = 0; tag[i] && n + 1 < len; i++)
		tmp[n++] = tag[i];
	for (int shift = 60; shift >= 0 && n + 1 < len; shift -= 4)
		tmp[n++] = hex[(v >> shift) & 15];
	tmp[n] = 0;
}

/* Creates the file (0644 & ~umask, O_RDWR | O_CLOEXEC | extra_flags) and
 * writes its name into tmp (len >= strlen(final) + SP_TMP_EXTRA). Returns
 * the fd or -errno. */
static inline int sp_tmp_create(const char *final, char *tmp, size_t len, int extra_flags)
{
	for (int tries = 0; tries < 64; tries++) {
		uint64_t v = 0;
		if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			v ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^
			     ((uint64_t)getpid() << 32) ^ (uint64_t)tries;
		}
		sp_tmp_name(final, v, tmp, len);
		int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags,
			      0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

#endif
