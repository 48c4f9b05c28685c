// SPDX-License-Identifier: BSD-3-Clause
#include "common/signame.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	int sig;
	const char *name;
} names[] = {
	{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
	{SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
	{SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
	{SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
	{SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},
	{SIGTTOU, "SIGTTOU"}, {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
	{SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
	{SIGIO, "SIGIO"},     {SIGSYS, "SIGSYS"},
};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))

const char *sig_name(int sig, char *buf, size_t cap)
{
	for (size_t i = 0; i < NR_NAMES; i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, cap, "SIG%d", sig);
	return buf;
}

int sig_number(const char *name)
{
	for (size_t i = 0; name && i < NR_NAMES; i++)
		if (!strcmp(names[i].name, name))
			return names[i].sig;
	if (name && !strncmp(name, "SIG", 3) && name[3] >= '1' && name[3] <= '9')
		return atoi(name + 3);
	return 0;
}
