// SPDX-License-Identifier: BSD-3-Clause
#include "common/timefmt.h"

#include <stdio.h>
#include <string.h>

void iso8601(time_t t, enum iso8601_zone zone, char *buf, size_t size)
{
	struct tm tm;
	if (zone == ISO8601_UTC)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	char date[24], off[8] = "";
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if (zone == ISO8601_UTC)
		strcpy(off, "+00:00");
	else if (zone == ISO8601_LOCAL) {
		char z[8];
		strftime(z, sizeof(z), "%z", &tm); /* "+0100" -> "+01:00" */
		if (strlen(z) == 5)
			snprintf(off, sizeof(off), "%.3s:%.2s", z, z + 3);
	}
	snprintf(buf, size, "%s%s", date, off);
}
