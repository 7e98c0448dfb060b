/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One log line through a caller's callback: how a part that never prints
 * (lib/web, lock/serve) says what it refused or what failed.  The line is
 * formatted into a fixed buffer (cut at LOGLINE_MAX bytes), never allocated.
 */
#ifndef FRUGAL_LOGLINE_H
#define FRUGAL_LOGLINE_H

#include <stdarg.h>
#include <stdio.h>

#define LOGLINE_MAX 512

typedef void (*logline_fn)(void *ctx, const char *line);

/* LOG(CTX, the formatted line); nothing when LOG is NULL. */
__attribute__((format(printf, 3, 4)))
static inline void logline(logline_fn log, void *ctx, const char *fmt, ...)
{
	char line[LOGLINE_MAX];
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log(ctx, line);
}

#endif
