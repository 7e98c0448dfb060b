/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP(S) server for an exporter, on libmicrohttpd (which does the
 * HTTP parsing and, through GnuTLS, the TLS: we write neither).  What is
 * ours: the exporter toolkit's web configuration file (TLS certificate and
 * key, basic-auth users with bcrypt hashes checked by the system's crypt),
 * the listen address as Prometheus exporters spell it, bounds on every
 * request (connections, per-client connections, header and body bytes,
 * time), and a table of routes whose handlers fill a response in memory.
 *
 * Threads: each connection is served by a thread of its own (bounded by
 * web_limits.max_conns), so a handler may block (a profile over ?seconds=N)
 * and a slow or hostile client stalls nobody else.  Handlers run
 * concurrently: they must lock what they share.
 *
 * Never prints, never exits: 0 or a negative errno, with a reason in the
 * caller's buffer where one helps.  Log lines (one per refused request, an
 * error of the library) go through the caller's callback.
 *
 * The libraries are not linked: the first web_config__load or
 * web_server__start dlopens them (libmicrohttpd.so.12 with GnuTLS,
 * libyaml-0.so.2, libcrypt.so.1), so that no other run of the binary pays
 * for loading them.  Either fails with -ELIBACC when one is missing, or
 * -ELIBBAD when one lacks a function, WHY naming the Debian package
 * (web_addr__* and web_config__free need none of them; the rest are called
 * on a started server).
 */
#ifndef FRUGAL_WEB_H
#define FRUGAL_WEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* --web.config.file, as the exporter toolkit reads it (a YAML subset):
 *
 *	tls_server_config:
 *	  cert_file: server.crt
 *	  key_file: server.key
 *	basic_auth_users:
 *	  alice: $2y$10$...		# bcrypt
 *
 * Relative file names are relative to the configuration file's folder.
 * Keys the toolkit has and we do not support are refused by name (a user
 * who asked for client certificates must not get a server without them). */
struct web_user {
	char *name;
	char *hash;		/* bcrypt ($2a$, $2b$, $2y$), checked with crypt_r */
};

struct web_config {
	char *cert_pem, *key_pem;	/* the files' contents; both or neither */
	struct web_user *users;		/* none: no authentication */
	size_t nusers;
};

/* 0, or -errno with WHY ("FILE: line N: what is wrong"). */
int web_config__load(const char *path, struct web_config *cfg, char *why, size_t why_size);
void web_config__free(struct web_config *cfg);	/* NULL-safe; zeroes CFG */

/* "host:port", ":port" (every address), "[v6]:port"; a host name is
 * resolved (the first address).  0, or -EINVAL with WHY. */
struct web_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};
int web_addr__parse(const char *s, struct web_addr *a, char *why, size_t why_size);
bool web_addr__is_loopback(const struct web_addr *a);	/* 127/8, ::1 */

struct web_request {
	const char *method;	/* "GET", "HEAD" (others are refused before a handler) */
	const char *path;	/* "/metrics" */
	const char *accept;	/* the Accept header, or "" */
	const char *user;	/* the authenticated user, or NULL */
	void *priv;		/* the library's: for web_request__arg */
};
/* A query argument's value ("?seconds=30"), or NULL. */
const char *web_request__arg(const struct web_request *rq, const char *name);

struct web_response {
	unsigned int status;		/* 200 unless set */
	const char *content_type;	/* a static string */
	char *body;			/* malloc'd by the handler; the server frees it */
	size_t len;
	const char *extra_header[2];	/* {name, value} or {NULL, NULL}: e.g. Content-Disposition */
};

/* A handler fills RS and returns 0, or returns -errno (a 500 is sent and
 * the error logged).  CTX is web_server__start's. */
typedef int (*web_handler_fn)(void *ctx, const struct web_request *rq, struct web_response *rs);

struct web_route {
	const char *path;	/* exact, or a prefix if it ends in '/' */
	web_handler_fn fn;
};

struct web_limits {
	unsigned int max_conns;		/* at once (default 32) */
	unsigned int max_conns_per_ip;	/* (default 8) */
	unsigned int timeout_s;		/* idle connection (default 10): a client
					 * sending one byte a second is cut here */
	size_t conn_memory;		/* header bytes per connection (default 32 KiB):
					 * larger headers get 431, never more memory */
};

struct web_stats {
	uint64_t requests;	/* answered, any status */
	uint64_t refused_auth;	/* 401 */
	uint64_t refused_other;	/* 400, 404, 405, 413, 431 ... */
	uint64_t handler_errors;	/* 500 */
};

struct web_server;

/*
 * Listen on ADDR (TLS and basic auth as CFG says; CFG may be NULL: plain
 * HTTP, no auth; CFG, ROUTES and CTX must stay until web_server__stop) and serve ROUTES (ended by a row with path NULL) with CTX.
 * LIMITS NULL: the defaults.  LOG (may be NULL) gets one line per refused
 * request or error, from any of the server's threads, at times under its
 * lock: it must not call back into the server.  NULL with errno set and WHY filled on failure (address
 * in use, bad certificate...).
 */
struct web_server *web_server__start(const struct web_addr *addr, const struct web_config *cfg,
				     const struct web_route *routes, void *ctx,
				     const struct web_limits *limits,
				     void (*log)(void *ctx, const char *line),
				     char *why, size_t why_size);
/* The port it listens on (useful after asking for port 0). */
unsigned int web_server__port(const struct web_server *s);
void web_server__stats(struct web_server *s, struct web_stats *st);
/* Stop accepting, wait for the handlers in flight, free.  NULL-safe. */
void web_server__stop(struct web_server *s);

#endif
