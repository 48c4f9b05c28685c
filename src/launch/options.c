// SPDX-License-Identifier: BSD-3-Clause
// The first MPI launcher's options (launch/options.h).
#include "launch/options.h"

#include <ctype.h>
#include <string.h>

#include "launch/launchers.h"

int launch_option__is(const struct launch_option *o, const char *name)
{
	size_t n = strlen(name);
	return o->name_len == n && strncmp(o->name, name, n) == 0;
}

/* Name of tok for tool t: dashes dropped for dash-free tools. */
static struct launch_option named(const struct launch_tool *t, const char *tok, size_t len)
{
	struct launch_option o = {tok, len, {NULL, NULL}, 0};
	if (t->style == STYLE_DASH_FREE)
		while (o.name_len && *o.name == '-') {
			o.name++;
			o.name_len--;
		}
	return o;
}

/* One option token at cmd[*i]: reported, *i past it and its values. */
static void take(const struct launch_tool *t, char *const *cmd, size_t *i, size_t n,
		 launch_option_fn fn, void *ctx)
{
	const char *tok = cmd[*i];
	const struct launch_opt *o = launch_tool__opt(t, tok);
	const char *eq = strchr(tok, '=');
	(*i)++;
	struct launch_option r;
	if (o) {
		r = named(t, tok, strlen(tok));
		for (int k = 0; k < o->nargs && *i < n; k++)
			r.values[r.nr_values++] = cmd[(*i)++];
	} else if (eq && (tok[1] == '-' || t->style == STYLE_DASH_FREE)) {
		r = named(t, tok, (size_t)(eq - tok));
		r.values[r.nr_values++] = eq + 1;
	} else if (tok[1] != '-' && tok[2] && t->style == STYLE_GETOPT) {
		char name[3] = {'-', tok[1], '\0'};
		o = launch_tool__opt(t, name);
		r = named(t, tok, o && o->nargs == 1 ? 2 : strlen(tok));
		if (o && o->nargs == 1)
			r.values[r.nr_values++] = tok + 2;
	} else {
		r = named(t, tok, strlen(tok));
	}
	fn(&r, ctx);
}

enum launcher_kind launch_options(char *const *prefix, launch_option_fn fn, void *ctx,
				  size_t *launcher_at)
{
	size_t n = 0, i = 0;
	while (prefix && prefix[n])
		n++;
	const struct launch_tool *t = NULL;
	for (; i < n && !t; i++) {
		const struct launch_tool *c = launch_tool_find(prefix[i]);
		if (c && c->kind != LAUNCHER_NONE)
			t = c;
	}
	if (!t)
		return LAUNCHER_NONE;
	if (launcher_at)
		*launcher_at = i - 1;
	if (t->subcommand) /* flux: global options, then `run` */
		while (i < n && (prefix[i][0] == '-' || !strcmp(prefix[i], "mini")))
			i++;
	if (t->subcommand && i < n)
		i++;
	while (i < n && prefix[i][0] == '-' && prefix[i][1] && strcmp(prefix[i], "--") != 0)
		take(t, prefix, &i, n, fn, ctx);
	return t->kind;
}
