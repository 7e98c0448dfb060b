// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP server (web.h): libmicrohttpd parses HTTP and, with
 * GnuTLS, speaks TLS; this file holds the web configuration file (libyaml),
 * the listen address, basic auth (the system's crypt), the routes, and a
 * watchdog for what libmicrohttpd's idle timeout does not bound.
 *
 * Why a watchdog: the library's timeout counts from a connection's last
 * read, so a client sending one byte a second is never idle and would hold
 * its thread for ever.  Each connection gets a deadline instead (its
 * opening, or the end of its previous response, plus timeout_s); a request
 * whose headers are not complete by then is cut with shutdown(2) on its
 * socket, which the library's thread sees as the peer leaving.  The socket
 * is only ever shut down, never closed, here, and only while the library
 * still holds it (its CLOSED notification, under our lock, comes before
 * its close(2)), so no other connection can own that number by then.
 *
 * What it costs, measured on Debian 12 (libmicrohttpd 0.9.75, GnuTLS 3.7.9,
 * 2 CPUs): 18 KB of code here, 25 KB more in a stripped binary; twelve
 * more shared objects (libmicrohttpd, GnuTLS and the eight it needs,
 * libyaml; libcrypt), 1.5-1.8 ms to load, paid only by a process that calls
 * in here (they are dlopen'd on first use, below).  Idle: three threads (the
 * caller's, the library's listener, the watchdog), ~0.6 MB of anonymous
 * memory with the caller's; each open connection a thread and ~20 KB.  A
 * request over a kept-alive connection on loopback, client included:
 * 0.10 ms median plain, 0.16 ms over TLS; a new connection 0.19 ms plain,
 * 1.0 ms with the TLS handshake; a bcrypt of cost 10 is 55 ms, paid once
 * per user and password thanks to the cache below.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <limits.h>
#include <linux/tcp.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/io.h"
#include "lib/logline.h"
#include "lib/web.h"

#define WEB_FILE_MAX	(1 << 20)	/* a configuration, a certificate or a key */
#define WEB_REALM	"frugal"

/* ---- the libraries, loaded on first use ---- */

/*
 * libmicrohttpd, GnuTLS, libyaml and libcrypt are dlopen'd by the first
 * call that needs them (web_config__load, web_server__start), not linked:
 * linked, they and what they need were loaded by every exec of frugal
 * (1.8 ms of `frugal --version`'s 3.1, measured), and a kernel build runs
 * frugal as pahole once per module, while only `frugal lock serve` serves.  This file still compiles against
 * their headers, and each pointer below takes its type from the header's
 * prototype (__typeof__), so a call through it is checked as a direct call
 * would be.  GnuTLS comes with libmicrohttpd (it is already loaded then);
 * we ask it for a random key and SHA-256 only.
 */
enum web_so { SO_MHD, SO_GNUTLS, SO_YAML, SO_CRYPT, SO_COUNT };

static const struct {
	const char *soname;
	const char *package;	/* Debian's */
} web_sos[SO_COUNT] = {
	[SO_MHD] = { "libmicrohttpd.so.12", "libmicrohttpd12" },
	[SO_GNUTLS] = { "libgnutls.so.30", "libgnutls30" },
	[SO_YAML] = { "libyaml-0.so.2", "libyaml-0-2" },
	[SO_CRYPT] = { "libcrypt.so.1", "libcrypt1" },
};

#define WEB_FUNCS(X)							\
	X(SO_MHD, MHD_add_response_header)				\
	X(SO_MHD, MHD_basic_auth_get_username_password)			\
	X(SO_MHD, MHD_create_response_from_buffer)			\
	X(SO_MHD, MHD_destroy_response)					\
	X(SO_MHD, MHD_free)						\
	X(SO_MHD, MHD_get_connection_info)				\
	X(SO_MHD, MHD_get_daemon_info)					\
	X(SO_MHD, MHD_lookup_connection_value)				\
	X(SO_MHD, MHD_queue_basic_auth_fail_response)			\
	X(SO_MHD, MHD_queue_response)					\
	X(SO_MHD, MHD_start_daemon)					\
	X(SO_MHD, MHD_stop_daemon)					\
	X(SO_GNUTLS, gnutls_hash_fast)					\
	X(SO_GNUTLS, gnutls_rnd)					\
	X(SO_YAML, yaml_document_delete)				\
	X(SO_YAML, yaml_document_get_node)				\
	X(SO_YAML, yaml_document_get_root_node)				\
	X(SO_YAML, yaml_parser_delete)					\
	X(SO_YAML, yaml_parser_initialize)				\
	X(SO_YAML, yaml_parser_load)					\
	X(SO_YAML, yaml_parser_set_input_string)			\
	X(SO_CRYPT, crypt_checksalt)					\
	X(SO_CRYPT, crypt_rn)

/* Filled once by lib_load, read-only after: no lock to call through it. */
static struct {
#define WEB_FUNC_PTR(so, name) __typeof__(name) *name;
	WEB_FUNCS(WEB_FUNC_PTR)
#undef WEB_FUNC_PTR
} lib;

static const struct {
	enum web_so so;
	const char *name;
	size_t off;
} lib_syms[] = {
#define WEB_FUNC_ROW(so, name) { so, #name, offsetof(__typeof__(lib), name) },
	WEB_FUNCS(WEB_FUNC_ROW)
#undef WEB_FUNC_ROW
};

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_err;
static char lib_why[256];

/* dlerror's words, with the package to install in place of "No such file". */
static int lib_fail(enum web_so so, int err)
{
	static const char enoent[] = ": No such file or directory";
	const char *e = dlerror();
	size_t n = e ? strlen(e) : 0;

	if (n > sizeof(enoent) - 1 && !strcmp(e + n - (sizeof(enoent) - 1), enoent))
		snprintf(lib_why, sizeof(lib_why), "%.*s: install %s", (int)(n - (sizeof(enoent) - 1)),
			 e, web_sos[so].package);
	else
		snprintf(lib_why, sizeof(lib_why), "%s (%s, from %s)", e ? e : "dlopen failed",
			 web_sos[so].soname, web_sos[so].package);
	return err;
}

static int lib_open(void)
{
	void *h[SO_COUNT];
	size_t i;

	for (i = 0; i < SO_COUNT; i++) {
		/* Never closed: the process keeps what it loaded. */
		h[i] = dlopen(web_sos[i].soname, RTLD_NOW | RTLD_LOCAL);
		if (!h[i])
			return lib_fail((enum web_so)i, -ELIBACC);
	}
	for (i = 0; i < sizeof(lib_syms) / sizeof(lib_syms[0]); i++) {
		void *f;

		dlerror();
		f = dlsym(h[lib_syms[i].so], lib_syms[i].name);
		if (!f)
			return lib_fail(lib_syms[i].so, -ELIBBAD);
		/* POSIX: a function's address survives the trip through void *. */
		memcpy((char *)&lib + lib_syms[i].off, &f, sizeof(f));
	}
	return 0;
}

static void lib_load_once(void)
{
	lib_err = lib_open();
}

/* 0, or -ELIBACC (a library is missing) / -ELIBBAD (a symbol is) with WHY. */
static int lib_load(char *why, size_t why_size)
{
	pthread_once(&lib_once, lib_load_once);
	if (lib_err)
		snprintf(why, why_size, "%s", lib_why);
	return lib_err;
}

/* ---- the configuration file ---- */

struct cfg_load {
	const char *path;	/* the configuration file */
	char *dir;		/* its folder, for relative names */
	char *why;
	size_t why_size;
};

__attribute__((format(printf, 3, 4)))
static int cfg_err(struct cfg_load *L, const yaml_node_t *n, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(L->why, L->why_size, "%s: line %zu: %s", L->path, n->start_mark.line + 1, what);
	else
		snprintf(L->why, L->why_size, "%s: %s", L->path, what);
	return -EINVAL;
}

/* A whole file of at most WEB_FILE_MAX bytes, NUL-terminated; 0 or -errno. */
static int read_small_file(const char *path, char **out, size_t *len)
{
	struct stat st;
	ssize_t n;
	char *buf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (st.st_size > WEB_FILE_MAX) {
		err = -EFBIG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	n = io__read_full(fd, buf, (size_t)st.st_size);
	if (n < 0) {
		free(buf);
		err = (int)n;
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = (size_t)n;
	err = 0;
out:
	close(fd);
	return err;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* "key:" with nothing after it: YAML's null, which the toolkit reads as absent. */
static bool is_null(const yaml_node_t *n)
{
	const char *v = scalar(n);

	return v && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* A PEM file named in the configuration, relative to its folder. */
static int cfg_pem(struct cfg_load *L, const char *key, const yaml_node_t *n, char **pem)
{
	const char *name = scalar(n);
	char *path = NULL, *buf = NULL;
	int err;

	if (!name || is_null(n))
		return cfg_err(L, n, "%s: a file name is expected", key);
	if (*pem)
		return cfg_err(L, n, "%s: given twice", key);
	if (name[0] == '/')
		path = strdup(name);
	else if (asprintf(&path, "%s/%s", L->dir, name) < 0)
		path = NULL;
	if (!path)
		return -ENOMEM;
	err = read_small_file(path, &buf, NULL);
	if (err == -EFBIG)
		err = cfg_err(L, n, "%s: %s: larger than %d bytes", key, path, WEB_FILE_MAX);
	else if (err)
		err = cfg_err(L, n, "%s: %s: %s", key, path, strerror(-err));
	else if (!strstr(buf, "-----BEGIN "))
		err = cfg_err(L, n, "%s: %s: not a PEM file", key, path);
	if (err)
		free(buf);
	else
		*pem = buf;
	free(path);
	return err;
}

/* The exporter toolkit's keys we refuse by name: a server that silently
 * lacked what they ask (client certificates, TLS versions, headers) would
 * be weaker than its configuration says. */
static const char *const tls_refused[] = {
	"client_auth_type", "client_ca_file", "client_ca", "client_allowed_sans", "cert", "key",
	"cipher_suites", "curve_preferences", "min_version", "max_version",
	"prefer_server_cipher_suites", NULL,
};
static const char *const top_refused[] = { "http_server_config", "rate_limit", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Each key of mapping N once: -EINVAL naming the second. */
static int cfg_unique_keys(struct cfg_load *L, yaml_document_t *doc, const yaml_node_t *n,
			   const char *where)
{
	yaml_node_pair_t *p, *q;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		for (q = n->data.mapping.pairs.start; q < p; q++) {
			const yaml_node_t *kp = lib.yaml_document_get_node(doc, p->key);
			const char *a = scalar(kp);
			const char *b = scalar(lib.yaml_document_get_node(doc, q->key));

			if (a && b && !strcmp(a, b))
				return cfg_err(L, kp, "%s%s: given twice", where, a);
		}
	return 0;
}

static int cfg_tls(struct cfg_load *L, yaml_document_t *doc, const yaml_node_t *n,
		   struct web_config *cfg)
{
	yaml_node_pair_t *p;
	int err;

	if (n->type != YAML_MAPPING_NODE)
		return cfg_err(L, n, "tls_server_config: a mapping (cert_file, key_file) is expected");
	err = cfg_unique_keys(L, doc, n, "tls_server_config.");
	for (p = n->data.mapping.pairs.start; !err && p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = lib.yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = lib.yaml_document_get_node(doc, p->value);
		const char *key = scalar(k);

		if (!key)
			err = cfg_err(L, k, "tls_server_config: a key is expected");
		else if (!strcmp(key, "cert_file"))
			err = cfg_pem(L, "tls_server_config.cert_file", v, &cfg->cert_pem);
		else if (!strcmp(key, "key_file"))
			err = cfg_pem(L, "tls_server_config.key_file", v, &cfg->key_pem);
		/* The toolkit's default, said aloud: nothing to refuse. */
		else if (!strcmp(key, "client_auth_type") && scalar(v) &&
			 !strcmp(scalar(v), "NoClientCert"))
			continue;
		else if (in_list(tls_refused, key))
			err = cfg_err(L, k, "tls_server_config.%s is not supported by frugal's server "
				      "(it serves TLS 1.2 and 1.3 with GnuTLS's defaults, no client certificates)",
				      key);
		else
			err = cfg_err(L, k, "tls_server_config.%s: unknown key", key);
	}
	if (!err && (!cfg->cert_pem || !cfg->key_pem))
		err = cfg_err(L, n, "tls_server_config: both cert_file and key_file are needed");
	return err;
}

/* bcrypt as crypt(3) writes it: $2a$, $2b$ or $2y$, a two-digit cost, 53 more. */
static bool is_bcrypt(const char *h)
{
	return strlen(h) == 60 && h[0] == '$' && h[1] == '2' && strchr("aby", h[2]) && h[2] &&
	       h[3] == '$' && h[6] == '$' && lib.crypt_checksalt(h) == CRYPT_SALT_OK;
}

static int cfg_users(struct cfg_load *L, yaml_document_t *doc, const yaml_node_t *n,
		     struct web_config *cfg)
{
	yaml_node_pair_t *p;
	size_t count;
	int err;

	if (n->type != YAML_MAPPING_NODE)
		return cfg_err(L, n, "basic_auth_users: a mapping of user names to bcrypt hashes is expected");
	count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (cfg->users)
		return cfg_err(L, n, "basic_auth_users: given twice");
	err = cfg_unique_keys(L, doc, n, "basic_auth_users.");
	if (err)
		return err;
	cfg->users = calloc(count ? count : 1, sizeof(*cfg->users));
	if (!cfg->users)
		return -ENOMEM;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = lib.yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = lib.yaml_document_get_node(doc, p->value);
		struct web_user *u = &cfg->users[cfg->nusers];

		if (!scalar(k) || !*scalar(k) || strchr(scalar(k), ':'))
			return cfg_err(L, k, "basic_auth_users: a user name (without ':') is expected");
		if (!scalar(v) || !is_bcrypt(scalar(v)))
			return cfg_err(L, v, "basic_auth_users.%s: not a bcrypt hash ($2a$, $2b$ or $2y$) "
				       "this system's crypt can check", scalar(k));
		u->name = strdup(scalar(k));
		u->hash = strdup(scalar(v));
		cfg->nusers++;
		if (!u->name || !u->hash)
			return -ENOMEM;
	}
	return 0;
}

static int cfg_doc(struct cfg_load *L, yaml_document_t *doc, struct web_config *cfg)
{
	const yaml_node_t *root = lib.yaml_document_get_root_node(doc);
	yaml_node_pair_t *p;
	int err;

	if (!root || is_null(root))
		return 0;	/* an empty file: plain HTTP, no users */
	if (root->type != YAML_MAPPING_NODE)
		return cfg_err(L, root, "a mapping (tls_server_config, basic_auth_users) is expected");
	err = cfg_unique_keys(L, doc, root, "");
	for (p = root->data.mapping.pairs.start; !err && p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = lib.yaml_document_get_node(doc, p->key);
		const yaml_node_t *v = lib.yaml_document_get_node(doc, p->value);
		const char *key = scalar(k);

		if (!key)
			err = cfg_err(L, k, "a key is expected");
		else if (is_null(v) && (!strcmp(key, "tls_server_config") ||
					!strcmp(key, "basic_auth_users")))
			continue;
		else if (!strcmp(key, "tls_server_config"))
			err = cfg_tls(L, doc, v, cfg);
		else if (!strcmp(key, "basic_auth_users"))
			err = cfg_users(L, doc, v, cfg);
		else if (in_list(top_refused, key))
			err = cfg_err(L, k, "%s is not supported by frugal's server", key);
		else
			err = cfg_err(L, k, "%s: unknown key", key);
	}
	return err;
}

int web_config__load(const char *path, struct web_config *cfg, char *why, size_t why_size)
{
	struct cfg_load L = { .path = path, .why = why, .why_size = why_size };
	yaml_parser_t parser;
	yaml_document_t doc;
	char *text = NULL, *slash;
	size_t len;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	err = lib_load(why, why_size);
	if (err)
		return err;
	err = read_small_file(path, &text, &len);
	if (err) {
		if (err == -EFBIG)
			snprintf(why, why_size, "%s: larger than %d bytes", path, WEB_FILE_MAX);
		else
			snprintf(why, why_size, "%s: %s", path, strerror(-err));
		return err == -EFBIG ? -EINVAL : err;
	}
	L.dir = strdup(path);
	if (!L.dir) {
		free(text);
		return -ENOMEM;
	}
	slash = strrchr(L.dir, '/');
	if (!slash)
		strcpy(L.dir, ".");
	else
		slash[slash == L.dir] = '\0';	/* "/x.yml" -> "/" */

	if (!lib.yaml_parser_initialize(&parser)) {
		err = -ENOMEM;
		goto out;
	}
	lib.yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!lib.yaml_parser_load(&parser, &doc)) {
		snprintf(why, why_size, "%s: line %zu: %s%s%s", path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		err = -EINVAL;
	} else {
		err = cfg_doc(&L, &doc, cfg);
		lib.yaml_document_delete(&doc);
	}
	lib.yaml_parser_delete(&parser);
out:
	free(L.dir);
	free(text);
	if (err) {
		if (err == -ENOMEM)
			snprintf(why, why_size, "%s: %s", path, strerror(ENOMEM));
		web_config__free(cfg);
	}
	return err;
}

void web_config__free(struct web_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		if (cfg->users[i].hash)
			explicit_bzero(cfg->users[i].hash, strlen(cfg->users[i].hash));
		free(cfg->users[i].hash);
	}
	free(cfg->users);
	if (cfg->key_pem)
		explicit_bzero(cfg->key_pem, strlen(cfg->key_pem));
	free(cfg->key_pem);
	free(cfg->cert_pem);
	memset(cfg, 0, sizeof(*cfg));
}

/* ---- the listen address ---- */

static int parse_port(const char *s, unsigned int *port)
{
	unsigned long v = 0;
	const char *p;

	if (!*s || strlen(s) > 5)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 65535)
		return -EINVAL;
	*port = (unsigned int)v;
	return 0;
}

/* ":PORT": every address, IPv6 and IPv4 on one socket where the host has
 * IPv6 (Go's exporters listen so), IPv4 alone where it has not. */
static void addr_any(struct web_addr *a, unsigned int port)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(a, 0, sizeof(*a));
	if (fd >= 0) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

		close(fd);
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((uint16_t)port);
		a->len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons((uint16_t)port);
		a->len = sizeof(*s4);
	}
}

int web_addr__parse(const char *s, struct web_addr *a, char *why, size_t why_size)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	const char *colon, *host_end;
	unsigned int port;
	char host[256], portstr[8];
	size_t hlen;
	int rc;

	if (s[0] == '[') {
		host_end = strchr(s, ']');
		if (!host_end || host_end[1] != ':') {
			snprintf(why, why_size, "%s: an IPv6 address is written [ADDRESS]:PORT", s);
			return -EINVAL;
		}
		colon = host_end + 1;
		s++;
		hints.ai_family = AF_INET6;
		hints.ai_flags |= AI_NUMERICHOST;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(why, why_size, "%s: no port (HOST:PORT, :PORT or [IPv6]:PORT)", s);
			return -EINVAL;
		}
		host_end = colon;
		if (memchr(s, ':', (size_t)(colon - s))) {
			snprintf(why, why_size, "%s: an IPv6 address is written [ADDRESS]:PORT", s);
			return -EINVAL;
		}
	}
	if (parse_port(colon + 1, &port)) {
		snprintf(why, why_size, "%s: the port is not a number from 0 to 65535", colon + 1);
		return -EINVAL;
	}
	hlen = (size_t)(host_end - s);
	if (!hlen && hints.ai_family != AF_INET6) {
		addr_any(a, port);
		return 0;
	}
	if (!hlen || hlen >= sizeof(host)) {
		snprintf(why, why_size, "%.*s: not a host name or address", (int)(hlen ? 64 : 2),
			 hlen ? s : "[]");
		return -EINVAL;
	}
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc || !res || res->ai_addrlen > sizeof(a->ss)) {
		snprintf(why, why_size, "%s: %s", host,
			 rc == EAI_SYSTEM ? strerror(errno) : rc ? gai_strerror(rc) : "no address");
		if (res)
			freeaddrinfo(res);
		return -EINVAL;
	}
	memset(a, 0, sizeof(*a));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

bool web_addr__is_loopback(const struct web_addr *a)
{
	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a->ss;

		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	}
	if (a->ss.ss_family == AF_INET6) {
		const struct in6_addr *v6 = &((const struct sockaddr_in6 *)&a->ss)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(v6))
			return true;
		return IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127;
	}
	return false;
}

/* ---- the server ---- */

/* One accepted connection, from the library's STARTED to its CLOSED. */
struct web_conn {
	struct web_conn *next, *prev;
	int fd;
	uint64_t deadline_ms;	/* 0: not armed (a request is being answered) */
	bool kept_alive;	/* armed after a response, not at the opening */
	bool line_seen;		/* the current request's first line came */
	bool cut;		/* by the watchdog, which said so */
	bool answered;		/* a request on it was */
	char peer[INET6_ADDRSTRLEN + 8];
};

struct web_server {
	struct MHD_Daemon *mhd;
	const struct web_route *routes;
	void *ctx;
	struct web_limits lim;
	void (*log)(void *ctx, const char *line);
	const struct web_config *cfg;	/* users: the caller's, kept while we run */
	unsigned int port;
	bool tls;

	pthread_mutex_t lock;	/* conns, the watchdog's state, the auth cache, busy */
	pthread_cond_t wake;
	/* Requests past their first checks whose response is not yet sent:
	 * the stop lets them finish (WEB_STOP_GRACE_MS at most). */
	unsigned int busy;
	pthread_cond_t idle;
	pthread_t watchdog;
	bool watchdog_started, stopping;
	struct web_conn *conns;

	/* Per user: a digest of the last password that passed bcrypt, so that
	 * a scrape every second pays bcrypt once, not every time (the exporter
	 * toolkit caches for the same reason).  Keyed with KEY, random per run. */
	unsigned char key[32];
	unsigned char (*good)[32];
	bool *good_set;

	char *start_why;	/* the library's first error while starting */
	size_t start_why_size;

	struct web_stats st;	/* updated with __atomic builtins */
};

static void stat_add(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* One line through the caller's callback (lib/logline.h). */
#define web_log(s, ...) logline((s)->log, (s)->ctx, __VA_ARGS__)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* What a client sent, fit for a log line: printable ASCII, cut at 120. */
static void clean(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < size && i < 120; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

static void conn_arm(struct web_server *s, struct web_conn *c, bool kept_alive)
{
	pthread_mutex_lock(&s->lock);
	c->deadline_ms = now_ms() + (uint64_t)s->lim.timeout_s * 1000;
	c->kept_alive = kept_alive;
	c->line_seen = false;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

static struct web_conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		lib.MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void *watchdog_main(void *arg)
{
	struct web_server *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		uint64_t next = 0, now = now_ms();
		struct web_conn *c, *cut = NULL;
		struct timespec ts;

		for (c = s->conns; c && !cut; c = c->next) {
			if (!c->deadline_ms)
				continue;
			if (c->deadline_ms <= now)
				cut = c;
			else if (!next || c->deadline_ms < next)
				next = c->deadline_ms;
		}
		if (cut) {
			/* A kept-alive connection that has not begun another
			 * request is idle, not slow: cut quietly, as the
			 * library's idle timeout would. */
			bool quiet = cut->kept_alive && !cut->line_seen;

			cut->deadline_ms = 0;
			cut->cut = true;
			/* Said and counted before the cut, so that whoever sees
			 * the connection close finds both; under the lock, since
			 * only then is the socket surely still this one's. */
			if (!quiet) {
				stat_add(&s->st.refused_other);
				web_log(s, "%s: closed: no complete request within %u s",
					cut->peer, s->lim.timeout_s);
			}
			shutdown(cut->fd, SHUT_RDWR);
			continue;
		}
		if (!next) {
			pthread_cond_wait(&s->wake, &s->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)((next - now) / 1000);
		ts.tv_nsec += (long)((next - now) % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Whether the peer sent any data on this socket: the kernel counts its
 * segments with a payload (its byte count takes a FIN for a byte). */
static bool bytes_received(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) ||
	    len < offsetof(struct tcp_info, tcpi_data_segs_in) + sizeof(ti.tcpi_data_segs_in))
		return false;
	return ti.tcpi_data_segs_in > 0;
}

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct web_server *s = cls;
	struct web_conn *c = *socket_ctx;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd = lib.MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ad = lib.MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

		c = calloc(1, sizeof(*c));
		if (!c) {
			/* Unwatched, a slow client could stay: refuse it. */
			if (fd)
				shutdown(fd->connect_fd, SHUT_RDWR);
			return;
		}
		c->fd = fd ? fd->connect_fd : -1;
		if (ad && ad->client_addr && ad->client_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *a6 = (const void *)ad->client_addr;

			c->peer[0] = '[';
			inet_ntop(AF_INET6, &a6->sin6_addr, c->peer + 1, INET6_ADDRSTRLEN);
			snprintf(c->peer + strlen(c->peer), 8, "]:%u", ntohs(a6->sin6_port));
		} else if (ad && ad->client_addr && ad->client_addr->sa_family == AF_INET) {
			const struct sockaddr_in *a4 = (const void *)ad->client_addr;

			inet_ntop(AF_INET, &a4->sin_addr, c->peer, INET_ADDRSTRLEN);
			snprintf(c->peer + strlen(c->peer), 8, ":%u", ntohs(a4->sin_port));
		} else {
			strcpy(c->peer, "?");
		}
		*socket_ctx = c;
		pthread_mutex_lock(&s->lock);
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		pthread_mutex_unlock(&s->lock);
		if (c->fd >= 0)
			conn_arm(s, c, false);
		return;
	}
	if (!c)
		return;
	if (!c->line_seen && !c->cut && !c->answered && c->fd >= 0 && bytes_received(c->fd)) {
		/* Bytes came and no request line the library would take: it
		 * closes such a connection without a word (a line without a
		 * space, plain HTTP or junk on a TLS port). */
		stat_add(&s->st.refused_other);
		web_log(s, "%s: closed: %s", c->peer, s->tls ?
			"no TLS handshake (plain HTTP on an HTTPS port?) or no request" :
			"not an HTTP request");
	}
	pthread_mutex_lock(&s->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&s->lock);
	*socket_ctx = NULL;
	free(c);
}

/* The first line of a request came: see watchdog_main. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *mc)
{
	struct web_server *s = cls;
	struct web_conn *c = conn_of(mc);

	(void)uri;
	if (c) {
		pthread_mutex_lock(&s->lock);
		c->line_seen = true;
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

/* A response went out (or the request ended otherwise): the connection's
 * next request has timeout_s from now. */
static void on_completed(void *cls, struct MHD_Connection *mc, void **req_ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct web_server *s = cls;
	struct web_conn *c = conn_of(mc);

	if (*req_ctx) {
		pthread_mutex_lock(&s->lock);
		if (!--s->busy)
			pthread_cond_broadcast(&s->idle);
		pthread_mutex_unlock(&s->lock);
	}
	*req_ctx = NULL;
	if (c)
		c->answered = true;
	if (c && c->fd >= 0 && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		conn_arm(s, c, true);
}

/* The library's own messages.  Its refusals (a malformed request, headers
 * over conn_memory, the connection limits) are counted and said in one
 * line of ours, with the detail it gave just before on the same thread;
 * a client that went away is no news; anything else is passed on. */
static __thread char mhd_detail[160];

static const char *const mhd_details[] = {
	"Received HTTP/1.1 request without", "Not enough memory in pool",
	"Failed to parse `Content-Length'", "Too large value of 'Content-Length'", NULL,
};
static const char *const mhd_gone[] = {
	"Connection socket is closed", "Socket has been disconnected", "Connection was closed by remote",
	"Failed to send", "Error: received handshake message out of context", NULL,
};

static bool starts_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(s, *list, strlen(*list)))
			return true;
	return false;
}

__attribute__((format(printf, 2, 0)))
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	static const char refused_fmt[] = "Error processing request (HTTP response code is %u";
	struct web_server *s = cls;
	char msg[400];
	size_t n;

	if (!strncmp(fmt, refused_fmt, sizeof(refused_fmt) - 1)) {
		va_list aq;
		unsigned int status;
		const char *what;

		va_copy(aq, ap);
		status = va_arg(aq, unsigned int);
		va_end(aq);
		switch (status) {
		case 400: what = "malformed request"; break;
		case 413: what = "request body too large"; break;
		case 414: what = "request line too long"; break;
		case 431: what = "request headers too large"; break;
		case 505: what = "HTTP version not supported"; break;
		default: what = "refused by the HTTP library"; break;
		}
		stat_add(&s->st.requests);
		stat_add(&s->st.refused_other);
		web_log(s, "refused a request: %u %s%s%s%s", status, what, mhd_detail[0] ? " (" : "",
			mhd_detail, mhd_detail[0] ? ")" : "");
		mhd_detail[0] = '\0';
		return;
	}
	if (!strncmp(fmt, "Server reached connection limit", 31)) {
		stat_add(&s->st.refused_other);
		web_log(s, "refused a connection: %u at once or %u from one client already",
			s->lim.max_conns, s->lim.max_conns_per_ip);
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (s->start_why) {
		if (!*s->start_why)
			snprintf(s->start_why, s->start_why_size, "%s", msg);
		return;
	}
	if (starts_any(msg, mhd_details)) {
		snprintf(mhd_detail, sizeof(mhd_detail), "%s", msg);
		return;
	}
	if (starts_any(msg, mhd_gone))
		return;
	web_log(s, "http: %s", msg);
}

static bool ct_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return !d;
}

/* The password against user U's bcrypt hash (crypt's result compared in
 * constant time), through the per-user cache of the last good one. */
static bool password_ok(struct web_server *s, size_t u, const char *hash, const char *password)
{
	unsigned char digest[32];
	struct crypt_data *cd;
	size_t plen = strlen(password);
	unsigned char *msg;
	bool ok = false;
	const char *out;

	msg = malloc(sizeof(s->key) + plen);
	if (!msg)
		return false;
	memcpy(msg, s->key, sizeof(s->key));
	memcpy(msg + sizeof(s->key), password, plen);
	if (lib.gnutls_hash_fast(GNUTLS_DIG_SHA256, msg, sizeof(s->key) + plen, digest) < 0) {
		explicit_bzero(msg, sizeof(s->key) + plen);
		free(msg);
		return false;
	}
	explicit_bzero(msg, sizeof(s->key) + plen);
	free(msg);

	if (u != SIZE_MAX) {
		pthread_mutex_lock(&s->lock);
		ok = s->good_set[u] && ct_equal(s->good[u], digest, sizeof(digest));
		pthread_mutex_unlock(&s->lock);
		if (ok)
			return true;
	}
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	out = lib.crypt_rn(password, hash, cd, sizeof(*cd));
	ok = out && strlen(out) == strlen(hash) && ct_equal(out, hash, strlen(hash));
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok && u != SIZE_MAX) {
		pthread_mutex_lock(&s->lock);
		memcpy(s->good[u], digest, sizeof(digest));
		s->good_set[u] = true;
		pthread_mutex_unlock(&s->lock);
	}
	return ok && u != SIZE_MAX;
}

/* 0 with *USER set, or 401 after logging why (never the password). */
static unsigned int check_auth(struct web_server *s, struct MHD_Connection *mc, const char *who,
			       const char **user)
{
	char *password = NULL, *name;
	char shown[64];
	size_t u;
	bool ok;

	*user = NULL;
	if (!s->cfg || !s->cfg->nusers)
		return 0;
	name = lib.MHD_basic_auth_get_username_password(mc, &password);
	if (!name) {
		web_log(s, "%s: 401 no credentials", who);
		return 401;
	}
	for (u = 0; u < s->cfg->nusers; u++)
		if (!strcmp(s->cfg->users[u].name, name))
			break;
	/* An unknown user costs a bcrypt too: the time does not tell
	 * which names exist. */
	ok = password_ok(s, u < s->cfg->nusers ? u : SIZE_MAX,
			 s->cfg->users[u < s->cfg->nusers ? u : 0].hash, password ? password : "");
	clean(shown, sizeof(shown), name);
	if (!ok)
		web_log(s, "%s: 401 %s \"%s\"", who,
			u < s->cfg->nusers ? "wrong password for user" : "unknown user", shown);
	else
		*user = s->cfg->users[u].name;
	if (password) {
		explicit_bzero(password, strlen(password));
		lib.MHD_free(password);
	}
	lib.MHD_free(name);
	return ok ? 0 : 401;
}

static const struct web_route *route_of(const struct web_server *s, const char *path)
{
	const struct web_route *r;

	for (r = s->routes; r->path; r++) {
		size_t n = strlen(r->path);

		if (n && r->path[n - 1] == '/' ? !strncmp(path, r->path, n) : !strcmp(path, r->path))
			return r;
	}
	return NULL;
}

static enum MHD_Result send_body(struct MHD_Connection *mc, unsigned int status, char *body,
				 size_t len, const char *type, const char *const hdr[2])
{
	struct MHD_Response *rs;
	enum MHD_Result ret;

	if (body)
		rs = lib.MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	else
		rs = lib.MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!rs) {
		free(body);
		return MHD_NO;
	}
	if (type)
		lib.MHD_add_response_header(rs, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (hdr && hdr[0] && hdr[1])
		lib.MHD_add_response_header(rs, hdr[0], hdr[1]);
	if (status == 401)
		ret = lib.MHD_queue_basic_auth_fail_response(mc, WEB_REALM, rs);
	else
		ret = lib.MHD_queue_response(mc, status, rs);
	lib.MHD_destroy_response(rs);
	return ret;
}

static enum MHD_Result refuse(struct web_server *s, struct MHD_Connection *mc, unsigned int status,
			      const char *text)
{
	static const char *const allow[2] = { "Allow", "GET, HEAD" };
	char *body = NULL;

	stat_add(&s->st.requests);
	stat_add(status == 401 ? &s->st.refused_auth : &s->st.refused_other);
	if (asprintf(&body, "%s\n", text) < 0)
		body = NULL;
	return send_body(mc, status, body, body ? strlen(body) : 0, "text/plain; charset=utf-8",
			 status == 405 ? allow : NULL);
}

static bool has_body(struct MHD_Connection *mc)
{
	const char *cl = lib.MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return lib.MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	       (cl && strspn(cl, "0") != strlen(cl));
}

/*
 * The library calls this once the headers are in (*REQ_CTX NULL), then
 * once more when the (empty) body is.  Refusals of what might carry a
 * body go out at the first call, so that the body is never read (the
 * library then closes the connection); the route runs at the second, so
 * that a kept-alive connection stays open.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_ctx)
{
	struct web_server *s = cls;
	struct web_conn *c = conn_of(mc);
	const struct web_route *r;
	struct web_request rq = { .method = method, .path = url, .priv = mc };
	struct web_response rs = { .status = 200 };
	char who[sizeof(c->peer) + 160], path[128];
	unsigned int status;
	int err;

	(void)version;
	(void)upload;
	clean(path, sizeof(path), url);
	snprintf(who, sizeof(who), "%s %s %s", c ? c->peer : "?", method, path);
	if (!*req_ctx) {
		if (c) {
			pthread_mutex_lock(&s->lock);
			c->deadline_ms = 0;	/* the headers are in: answering now */
			pthread_mutex_unlock(&s->lock);
		}
		if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
			web_log(s, "%s: 405 method not allowed", who);
			return refuse(s, mc, 405, "only GET and HEAD are served");
		}
		if (has_body(mc)) {
			web_log(s, "%s: 413 a request body", who);
			return refuse(s, mc, 413, "requests have no body here");
		}
		pthread_mutex_lock(&s->lock);
		s->busy++;
		pthread_mutex_unlock(&s->lock);
		*req_ctx = s;
		return MHD_YES;
	}
	if (*upload_size) {	/* not reached: bodies are refused above */
		*upload_size = 0;
		return MHD_YES;
	}
	r = route_of(s, url);
	if (!r) {
		web_log(s, "%s: 404 no such path", who);
		return refuse(s, mc, 404, "not found");
	}
	status = check_auth(s, mc, who, &rq.user);
	if (status)
		return refuse(s, mc, status, "unauthorized");
	rq.accept = lib.MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	if (!rq.accept)
		rq.accept = "";
	err = r->fn(s->ctx, &rq, &rs);
	if (err) {
		free(rs.body);
		stat_add(&s->st.handler_errors);
		stat_add(&s->st.requests);
		web_log(s, "%s: 500 %s", who, strerror(err < 0 ? -err : err));
		return send_body(mc, 500, strdup("internal error\n"), 15, "text/plain; charset=utf-8", NULL);
	}
	stat_add(&s->st.requests);
	return send_body(mc, rs.status ? rs.status : 200, rs.body, rs.body ? rs.len : 0,
			 rs.content_type, rs.extra_header);
}

const char *web_request__arg(const struct web_request *rq, const char *name)
{
	return lib.MHD_lookup_connection_value(rq->priv, MHD_GET_ARGUMENT_KIND, name);
}

/* How long a stop waits for the responses being sent. */
#define WEB_STOP_GRACE_MS 5000

static const struct web_limits web_defaults = {
	.max_conns = 32, .max_conns_per_ip = 8, .timeout_s = 10, .conn_memory = 32 << 10,
};

static int server_init(struct web_server *s, const struct web_config *cfg,
		       const struct web_limits *limits)
{
	pthread_condattr_t ca;
	size_t n = cfg ? cfg->nusers : 0;

	s->lim = web_defaults;
	if (limits) {
		if (limits->max_conns)
			s->lim.max_conns = limits->max_conns;
		if (limits->max_conns_per_ip)
			s->lim.max_conns_per_ip = limits->max_conns_per_ip;
		if (limits->timeout_s)
			s->lim.timeout_s = limits->timeout_s;
		if (limits->conn_memory)
			s->lim.conn_memory = limits->conn_memory;
	}
	s->good = calloc(n ? n : 1, sizeof(*s->good));
	s->good_set = calloc(n ? n : 1, sizeof(*s->good_set));
	if (!s->good || !s->good_set)
		return -ENOMEM;
	if (lib.gnutls_rnd(GNUTLS_RND_KEY, s->key, sizeof(s->key)) < 0)
		return -EIO;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_cond_init(&s->idle, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

struct web_server *web_server__start(const struct web_addr *addr, const struct web_config *cfg,
				     const struct web_route *routes, void *ctx,
				     const struct web_limits *limits,
				     void (*log)(void *ctx, const char *line),
				     char *why, size_t why_size)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_POLL | MHD_USE_ERROR_LOG;
	bool tls = cfg && cfg->cert_pem && cfg->key_pem;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	/* TLS 1.2 at least, as the exporter toolkit's default */
	struct MHD_OptionItem tls_opts[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" },
		{ MHD_OPTION_END, 0, NULL },
	};
	struct MHD_OptionItem no_opts[] = { { MHD_OPTION_END, 0, NULL } };
	const union MHD_DaemonInfo *di;
	struct web_server *s;
	int err;

	err = lib_load(why, why_size);
	if (err) {
		errno = -err;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	s->routes = routes;
	s->ctx = ctx;
	s->log = log;
	s->cfg = cfg;
	err = server_init(s, cfg, limits);
	if (err) {
		snprintf(why, why_size, "%s", strerror(-err));
		free(s->good);
		free(s->good_set);
		free(s);
		errno = -err;
		return NULL;
	}
	if (pthread_create(&s->watchdog, NULL, watchdog_main, s) == 0)
		s->watchdog_started = true;
	else {
		err = -EAGAIN;
		snprintf(why, why_size, "cannot start the watchdog thread");
		goto fail;
	}
	if (addr->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const void *)&addr->ss;

		flags |= IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	}
	if (tls) {
		s->tls = true;
		flags |= MHD_USE_TLS;
		tls_opts[0].ptr_value = cfg->cert_pem;
		tls_opts[1].ptr_value = cfg->key_pem;
	}
	why[0] = '\0';
	s->start_why = why;
	s->start_why_size = why_size;
	s->mhd = lib.MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,	/* first: it sees the others' errors */
		MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&addr->ss,
		MHD_OPTION_CONNECTION_LIMIT, s->lim.max_conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->lim.max_conns_per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, s->lim.timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->lim.conn_memory,
		MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
		MHD_OPTION_ARRAY, tls ? tls_opts : no_opts,
		MHD_OPTION_END);
	if (!s->mhd) {
		if (!why[0])
			snprintf(why, why_size, "the HTTP library could not start");
		err = strstr(why, "in use") ? -EADDRINUSE : strstr(why, "ermission") ? -EACCES : -EINVAL;
		goto fail;
	}
	s->start_why = NULL;
	di = lib.MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_LISTEN_FD);
	if (di && !getsockname(di->listen_fd, (struct sockaddr *)&bound, &blen))
		s->port = ntohs(bound.ss_family == AF_INET6 ?
				((struct sockaddr_in6 *)&bound)->sin6_port :
				((struct sockaddr_in *)&bound)->sin_port);
	return s;
fail:
	s->start_why = NULL;
	web_server__stop(s);
	errno = -err;
	return NULL;
}

unsigned int web_server__port(const struct web_server *s)
{
	return s->port;
}

void web_server__stats(struct web_server *s, struct web_stats *st)
{
	st->requests = __atomic_load_n(&s->st.requests, __ATOMIC_RELAXED);
	st->refused_auth = __atomic_load_n(&s->st.refused_auth, __ATOMIC_RELAXED);
	st->refused_other = __atomic_load_n(&s->st.refused_other, __ATOMIC_RELAXED);
	st->handler_errors = __atomic_load_n(&s->st.handler_errors, __ATOMIC_RELAXED);
}

void web_server__stop(struct web_server *s)
{
	if (!s)
		return;
	/* The requests being answered are answered (a profile a signal cut
	 * short still goes out), for WEB_STOP_GRACE_MS at most; then the
	 * library closes every connection and joins its thread. */
	if (s->mhd) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += WEB_STOP_GRACE_MS / 1000;
		pthread_mutex_lock(&s->lock);
		while (s->busy && pthread_cond_timedwait(&s->idle, &s->lock, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&s->lock);
		lib.MHD_stop_daemon(s->mhd);
	}
	if (s->watchdog_started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->watchdog, NULL);
	}
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
	explicit_bzero(s->good, sizeof(*s->good) * (s->cfg ? s->cfg->nusers : 0));
	free(s->good);
	free(s->good_set);
	free(s);
}
