// SPDX-License-Identifier: GPL-2.0
/*
 * web.h for `make static`'s binary, which has no web server: Debian ships
 * no static p11-kit, which GnuTLS (and so libmicrohttpd) needs, and glibc
 * cannot resolve a host name (getaddrinfo, NSS) from a static binary.  Each
 * entry that would start something fails with -ENOTSUP and says so; the
 * Makefile links this file ahead of libfrugal.a there, so lib/web.c and
 * its libraries never reach that link.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/web.h"

#define WEB_NONE "this static binary has no web server; use the package"

int web_config__load(const char *path, struct web_config *cfg, char *why, size_t why_size)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(why, why_size, "%s: %s", path, WEB_NONE);
	return -ENOTSUP;
}

void web_config__free(struct web_config *cfg)
{
	if (cfg)
		memset(cfg, 0, sizeof(*cfg));
}

int web_addr__parse(const char *s, struct web_addr *a, char *why, size_t why_size)
{
	memset(a, 0, sizeof(*a));
	snprintf(why, why_size, "%s: %s", s, WEB_NONE);
	return -ENOTSUP;
}

bool web_addr__is_loopback(const struct web_addr *a)
{
	(void)a;
	return false;
}

const char *web_request__arg(const struct web_request *rq, const char *name)
{
	(void)rq;
	(void)name;
	return NULL;
}

struct web_server *web_server__start(const struct web_addr *addr, const struct web_config *cfg,
				     const struct web_route *routes, void *ctx,
				     const struct web_limits *limits,
				     void (*log)(void *ctx, const char *line),
				     char *why, size_t why_size)
{
	(void)addr, (void)cfg, (void)routes, (void)ctx, (void)limits, (void)log;
	snprintf(why, why_size, "%s", WEB_NONE);
	errno = ENOTSUP;
	return NULL;
}

unsigned int web_server__port(const struct web_server *s)
{
	(void)s;
	return 0;
}

void web_server__stats(struct web_server *s, struct web_stats *st)
{
	(void)s;
	memset(st, 0, sizeof(*st));
}

void web_server__stop(struct web_server *s)
{
	(void)s;
}
