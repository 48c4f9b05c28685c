// SPDX-License-Identifier: BSD-3-Clause
#include "common/cache_home.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/fsutil.h"
#include "common/safefs.h"

#define SEAL_KEY_NAME "seal.key"
#define SEAL_SUFFIX ".seal"

char *cache_home_dir(const char *sub, int *no_home, char **why)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	*no_home = 0;
	if (why)
		*why = NULL;
	char *root = xdg && *xdg ? xasprintf("%s/nunatak", xdg)
		     : home && *home ? xasprintf("%s/.cache/nunatak", home) : NULL;
	if (!root) {
		*no_home = !(xdg && *xdg) && !(home && *home);
		return NULL;
	}
	char *problem = NULL;
	/* A cache that cannot be created is the callers' to report (each names
	 * what it then lacks); one that exists but is not trusted is never used. */
	if (safefs_mkdir_private(root, &problem) == -EPERM) {
		*no_home = 1; /* no usable cache: as if there were no home */
		if (why)
			*why = problem ? xasprintf("the cache %s is not used: %s", root, problem)
				       : NULL;
		xfree(problem);
		xfree(root);
		return NULL;
	}
	xfree(problem);
	char *path = sub && sub[0] ? xasprintf("%s/%s", root, sub) : xstrdup(root);
	xfree(root);
	return path;
}

char *cache_home_path(const char *sub, int *no_home)
{
	return cache_home_dir(sub, no_home, NULL);
}

double cache_home_read_cost(const char *name, double fallback, bool *measured)
{
	int no_home;
	*measured = false;
	char *path = cache_home_path(name, &no_home), *text = NULL;
	double v = 0;
	if (path && safefs_read_owned(path, 64, &text, NULL) == 0) {
		char *end;
		v = strtod(text, &end);
		*measured = end != text && isfinite(v) && v > 0 && v < 1e-2;
	}
	xfree(text);
	xfree(path);
	return *measured ? v : fallback;
}

/* The key is written whole under a temporary name, then linked into place:
 * created empty and then written, a process reading it in between saw a
 * short key and gave up caching for its whole life (races helper, 12-05). */
static int make_key(const char *path, uint8_t key[CACHE_SEAL_KEY_SIZE])
{
	char *tmp = xasprintf("%s.XXXXXX", path);
	if (!tmp)
		return -ENOMEM;
	int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
	if (fd < 0) {
		int e = -errno;
		xfree(tmp);
		return e;
	}
	ssize_t got = getrandom(key, CACHE_SEAL_KEY_SIZE, 0);
	int rc = got == CACHE_SEAL_KEY_SIZE ? 0 : -EIO;
	if (rc == 0 && write(fd, key, CACHE_SEAL_KEY_SIZE) != CACHE_SEAL_KEY_SIZE)
		rc = -EIO;
	if (close(fd) && rc == 0)
		rc = -EIO;
	if (rc == 0 && link(tmp, path))
		rc = -errno; /* -EEXIST: another process made it first */
	unlink(tmp);
	xfree(tmp);
	return rc;
}

int cache_seal_key(uint8_t key[CACHE_SEAL_KEY_SIZE])
{
	int no_home;
	char *path = cache_home_path(SEAL_KEY_NAME, &no_home), *text = NULL;
	if (!path)
		return no_home ? -ENOENT : -ENOMEM;
	size_t len = 0;
	int rc = -EAGAIN;
	for (int tries = 0; rc != 0 && tries < 3; tries++) {
		rc = safefs_read_owned(path, CACHE_SEAL_KEY_SIZE, &text, &len);
		if (rc == 0 && len == CACHE_SEAL_KEY_SIZE) {
			memcpy(key, text, CACHE_SEAL_KEY_SIZE);
		} else if (rc == -ENOENT) {
			rc = make_key(path, key);
			if (rc == -EEXIST)
				rc = -EAGAIN;
		} else if (rc == 0) {
			rc = -EBADMSG; /* a short key: never ours */
		}
		xfree(text);
		text = NULL;
		if (rc == -EAGAIN || rc == -EBADMSG)
			continue;
		break;
	}
	xfree(path);
	return rc;
}

void cache_sealer__init(struct cache_sealer *s, const uint8_t key[CACHE_SEAL_KEY_SIZE],
			const void *a, size_t alen, signed char accel)
{
	char n[32];
	int nl = snprintf(n, sizeof(n), "%zu:", alen); /* (a, b) split unambiguously */
	hmac_sha256__init(&s->h, key, CACHE_SEAL_KEY_SIZE);
	s->h.inner.accel = s->h.outer.accel = accel;
	hmac_sha256__update(&s->h, n, (size_t)nl);
	hmac_sha256__update(&s->h, a, alen);
}

void cache_sealer__seal(const struct cache_sealer *s, const void *b, size_t blen,
			char hex[SHA256_HEX_SIZE])
{
	struct hmac_sha256 h = s->h; /* the state after the key and a, copied */
	hmac_sha256__update(&h, b, blen);
	hmac_sha256__final_hex(&h, hex);
}

void cache_seal_with(const uint8_t key[CACHE_SEAL_KEY_SIZE], const void *a, size_t alen,
		     const void *b, size_t blen, char hex[SHA256_HEX_SIZE])
{
	struct cache_sealer s;
	cache_sealer__init(&s, key, a, alen, -1);
	cache_sealer__seal(&s, b, blen, hex);
}

/* The seal of (recipe, the bytes of the file open on fd). */
static int seal_fd(const uint8_t key[CACHE_SEAL_KEY_SIZE], int fd, const void *recipe,
		   size_t rlen, char hex[SHA256_HEX_SIZE])
{
	struct hmac_sha256 h;
	char n[32], buf[65536];
	int nl = snprintf(n, sizeof(n), "%zu:", rlen);
	hmac_sha256__init(&h, key, CACHE_SEAL_KEY_SIZE);
	hmac_sha256__update(&h, n, (size_t)nl);
	hmac_sha256__update(&h, recipe, rlen);
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		hmac_sha256__update(&h, buf, (size_t)got);
	}
	hmac_sha256__final_hex(&h, hex);
	return 0;
}

/* Writes hex (SHA256_HEX_SIZE bytes, its NUL replaced) as "<path>.seal". */
static int write_seal(const char *path, char hex[SHA256_HEX_SIZE])
{
	char *seal = xasprintf("%s" SEAL_SUFFIX, path);
	if (!seal)
		return -ENOMEM;
	hex[SHA256_HEX_SIZE - 1] = '\n';
	int rc = fs_write_cache(seal, hex, SHA256_HEX_SIZE, 0600);
	xfree(seal);
	return rc;
}

int cache_seal_file(const char *path, const void *recipe, size_t rlen)
{
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	char hex[SHA256_HEX_SIZE + 1];
	int rc = cache_seal_key(key);
	int fd = rc == 0 ? safefs_open_owned(path) : -1;
	if (rc == 0 && fd < 0)
		rc = fd;
	if (rc == 0)
		rc = seal_fd(key, fd, recipe, rlen, hex);
	if (fd >= 0)
		close(fd);
	return rc == 0 ? write_seal(path, hex) : rc;
}

int cache_seal_text(const char *path, const void *recipe, size_t rlen, const void *text,
		    size_t len)
{
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	char hex[SHA256_HEX_SIZE];
	int rc = cache_seal_key(key);
	if (rc == 0)
		cache_seal_with(key, recipe, rlen, text, len, hex);
	return rc == 0 ? write_seal(path, hex) : rc;
}

const char *cache_sealed_file_problem(const char *path, const void *recipe, size_t rlen)
{
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	char want[SHA256_HEX_SIZE], *seal = xasprintf("%s" SEAL_SUFFIX, path), *got = NULL;
	const char *why = NULL;
	int fd = safefs_open_owned(path);
	if (fd == -ENOENT)
		why = "absent";
	else if (fd < 0)
		why = safefs_strerror(fd);
	else if (!seal || cache_seal_key(key) != 0 || seal_fd(key, fd, recipe, rlen, want) != 0)
		why = "cannot be checked (no cache key)";
	else if (safefs_read_owned(seal, SHA256_HEX_SIZE, &got, NULL) != 0)
		why = "has no seal of ours";
	else if (strncmp(got, want, SHA256_HEX_SIZE - 1) != 0)
		why = "differs from what nunatak built or recorded there";
	if (fd >= 0)
		close(fd);
	xfree(seal);
	xfree(got);
	return why;
}

const char *cache_sealed_text_problem(const char *path, const void *recipe, size_t rlen,
				      const void *text, size_t len)
{
	uint8_t key[CACHE_SEAL_KEY_SIZE];
	char want[SHA256_HEX_SIZE], *seal = xasprintf("%s" SEAL_SUFFIX, path), *got = NULL;
	const char *why = NULL;
	if (!seal || cache_seal_key(key) != 0)
		why = "cannot be checked (no cache key)";
	else if (safefs_read_owned(seal, SHA256_HEX_SIZE, &got, NULL) != 0)
		why = "has no seal of ours";
	else {
		cache_seal_with(key, recipe, rlen, text, len, want);
		if (strncmp(got, want, SHA256_HEX_SIZE - 1) != 0)
			why = "differs from what nunatak built or recorded there";
	}
	xfree(seal);
	xfree(got);
	return why;
}
