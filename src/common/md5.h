/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MD5 (RFC 1321), small and dependency-free. nunatak needs it for one thing:
 * DWARF 5 line tables carry an MD5 of each source file as the compiler read
 * it, and the staleness guard compares that fingerprint with the file on
 * disk. Not a security primitive; never use it for one.
 */
#ifndef NUNATAK_COMMON_MD5_H
#define NUNATAK_COMMON_MD5_H

#include <stddef.h>
#include <stdint.h>

#define MD5_DIGEST_SIZE 16
#define MD5_HEX_SIZE (2 * MD5_DIGEST_SIZE + 1)

struct md5 {
	uint32_t h[4];
	uint64_t nr_bytes;   /* total bytes fed so far */
	uint8_t block[64];
	size_t fill;         /* bytes pending in block */
};

void md5__init(struct md5 *m);
void md5__update(struct md5 *m, const void *data, size_t len);
/* Writes the 16-byte digest; the context must be re-initialised before reuse. */
void md5__final(struct md5 *m, uint8_t digest[MD5_DIGEST_SIZE]);

/* One-shot: lowercase hex digest of data, NUL-terminated, into hex. */
void md5_hex(const void *data, size_t len, char hex[MD5_HEX_SIZE]);

/* Lowercase hex MD5 of a file's bytes. Returns 0, or -errno when the file
 * cannot be read. */
int md5_file_hex(const char *path, char hex[MD5_HEX_SIZE]);

#endif
