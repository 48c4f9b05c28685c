// SPDX-License-Identifier: BSD-3-Clause
/*
 * kallsyms text to nunatak's cache form as it is read (kallsyms.h,
 * kallsyms_enc). kallsyms__encode() walks the parsed table, one symbol per
 * address (the last listed alias), writing "__pfx_NAME" followed by NAME
 * as one record; here the same walk runs over the lines as they come, with
 * two symbols held back: `cur`, the last address seen (an alias listed
 * after it replaces it), and `fin`, the one before (written once the next
 * tells whether it is NAME's padding). Nothing else is kept: no line
 * table, no copy of the text.
 */
#include "attrib/kallsyms.h"

#include <errno.h>
#include <string.h>

#include "attrib/kallsyms_form.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"

/* header room: its fixed part and a count of up to 10 bytes */
#define HEAD_ROOM (KALLSYMS_HEAD_FIXED + 10)

void kallsyms_enc__init(struct kallsyms_enc *k, bool to_end)
{
	memset(k, 0, sizeof(*k));
	k->head.zeros = true; /* as kallsyms__parse starts */
	k->to_end = to_end;
}

void kallsyms_enc__release(struct kallsyms_enc *k)
{
	xfree(k->b);
	xfree(k->carry);
	xfree(k->cur.name);
	xfree(k->fin.name);
	memset(k, 0, sizeof(*k));
}

/* Room for `more` bytes of records after len (the header's room first). */
static int reserve(struct kallsyms_enc *k, size_t more)
{
	if (!k->b) {
		k->len = HEAD_ROOM;
		k->cap = 0;
	}
	size_t need = k->len + more;
	if (k->b && need <= k->cap)
		return 0;
	if (need < (size_t)256 << 10) /* doubled from there: 2 MiB for 120 000 symbols */
		need = (size_t)256 << 10;
	return xgrow((void **)&k->b, &k->cap, need, 1);
}

/* s's record alone, or as the symbol its padding pfx precedes. */
static int emit(struct kallsyms_enc *k, const struct kenc_sym *pfx, const struct kenc_sym *s)
{
	if (reserve(k, 10 + 1 + 10 + s->len + 1))
		return -ENOMEM;
	unsigned char *b = k->b + k->len;
	size_t n = kallsyms__put_varint(b, s->addr - k->prev);
	b[n++] = pfx ? 1 : 0;
	if (pfx)
		n += kallsyms__put_varint(b + n, s->addr - pfx->addr);
	memcpy(b + n, s->name, s->len + 1);
	k->len += n + s->len + 1;
	k->prev = s->addr;
	k->count += pfx ? 2 : 1;
	return 0;
}

/* fin is the padding before cur: "__pfx_" + cur's name (kallsyms.c,
 * is_pfx_of, on the table). */
static bool is_pfx(const struct kenc_sym *fin, const struct kenc_sym *cur)
{
	return fin->len > KALLSYMS_PFX_LEN && fin->len - KALLSYMS_PFX_LEN == cur->len &&
	       memcmp(fin->name, KALLSYMS_PFX, KALLSYMS_PFX_LEN) == 0 &&
	       memcmp(fin->name + KALLSYMS_PFX_LEN, cur->name, cur->len) == 0;
}

/* cur is final (a greater address came): written with fin when fin is its
 * padding, else fin is written alone and cur waits as fin. */
static int settle(struct kallsyms_enc *k)
{
	if (k->has_fin && is_pfx(&k->fin, &k->cur)) {
		k->has_fin = k->has_cur = false;
		return emit(k, &k->fin, &k->cur);
	}
	if (k->has_fin && emit(k, NULL, &k->fin))
		return -ENOMEM;
	struct kenc_sym t = k->fin;
	k->fin = k->cur;
	k->cur = t;
	k->has_fin = true;
	k->has_cur = false;
	return 0;
}

static int set_sym(struct kenc_sym *s, const struct kallsyms_line *l)
{
	if (l->len + 1 > s->cap && xgrow((void **)&s->name, &s->cap, l->len + 1, 1))
		return -ENOMEM;
	memcpy(s->name, l->name, l->len);
	s->name[l->len] = '\0';
	s->len = l->len;
	s->addr = l->addr;
	return 0;
}

/* A core text symbol, in listing order. */
static int take_sym(struct kallsyms_enc *k, const struct kallsyms_line *l)
{
	if (k->has_cur && l->addr < k->cur.addr)
		return k->state = KALLSYMS_UNORDERED;
	if (k->has_cur && l->addr > k->cur.addr && settle(k))
		return -ENOMEM;
	if (set_sym(&k->cur, l))
		return -ENOMEM;
	k->has_cur = true;
	const struct kallsyms *h = &k->head;
	if (!k->to_end && h->has_text && h->has_etext && !h->zeros && l->addr >= h->etext)
		k->state = KALLSYMS_COMPLETE;
	return k->state;
}

/* One line [p, end) without its newline. */
static int take_line(struct kallsyms_enc *k, const char *p, const char *end, struct err *e)
{
	k->lineno++;
	struct kallsyms_line l;
	int r = end > p ? kallsyms__line(p, end, &l, &k->head) : 0;
	if (r < 0)
		return err_set(e, -EINVAL, ERR_KALLSYMS_SYNTAX,
			       "kallsyms line %zu: expected 'ADDRESS TYPE NAME [MODULE]'",
			       k->lineno);
	r = r > 0 ? take_sym(k, &l) : 0;
	return r == -ENOMEM ? err_oom(e) : r;
}

static int carry_add(struct kallsyms_enc *k, const char *p, size_t n)
{
	if (k->carry_len + n > k->carry_cap &&
	    xgrow((void **)&k->carry, &k->carry_cap, k->carry_len + n, 1))
		return -ENOMEM;
	memcpy(k->carry + k->carry_len, p, n);
	k->carry_len += n;
	return 0;
}

int kallsyms_enc__feed(struct kallsyms_enc *k, const char *buf, size_t len, struct err *e)
{
	const char *p = buf, *end = buf + len;
	int rc = k->state;
	if (rc == 0 && k->carry_len) { /* the line begun before ends here, or later */
		const char *nl = memchr(p, '\n', len);
		if (carry_add(k, p, nl ? (size_t)(nl - p) : len))
			return k->state = err_oom(e);
		if (!nl)
			return 0;
		rc = take_line(k, k->carry, k->carry + k->carry_len, e);
		k->consumed += k->carry_len + 1;
		k->carry_len = 0;
		p = nl + 1;
	}
	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return carry_add(k, p, (size_t)(end - p)) ? (k->state = err_oom(e)) : 0;
		rc = take_line(k, p, nl, e);
		k->consumed += (size_t)(nl - p) + 1;
		p = nl + 1;
	}
	if (rc < 0)
		k->state = rc;
	return rc;
}

int kallsyms_enc__finish(struct kallsyms_enc *k, char **out, size_t *len, struct err *e)
{
	int rc = k->state;
	*out = NULL;
	*len = 0;
	if (rc == 0 && k->carry_len) { /* a last line without newline */
		rc = take_line(k, k->carry, k->carry + k->carry_len, e);
		k->consumed += k->carry_len;
		k->carry_len = 0;
	}
	if (rc < 0 || rc == KALLSYMS_UNORDERED)
		return rc;
	if ((k->has_cur && settle(k)) || (k->has_fin && emit(k, NULL, &k->fin)) || reserve(k, 0))
		return err_oom(e);
	k->has_fin = false;
	unsigned char head[HEAD_ROOM];
	size_t hl = kallsyms__put_head(head, &k->head, k->count);
	memmove(k->b + hl, k->b + HEAD_ROOM, k->len - HEAD_ROOM);
	memcpy(k->b, head, hl);
	*len = k->len - HEAD_ROOM + hl;
	*out = (char *)k->b;
	k->b = NULL;
	k->len = k->cap = 0;
	return 0;
}
