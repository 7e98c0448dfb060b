// SPDX-License-Identifier: GPL-2.0
/*
 * lib/web: listen addresses as exporters spell them, loopback told apart,
 * the web configuration file (good, each refused key, missing files, bad
 * YAML, relative names), and a real server on 127.0.0.1 driven over raw
 * sockets: routes, HEAD, 404, 405, 413, oversized headers, a malformed
 * request, a client trickling one byte at a time, the per-client limit, a
 * blocked handler beside a quick one, basic auth on a bcrypt hash, a
 * handler's error, a stop while a handler runs.
 *
 * Two more modes for tests/e2e/web.sh:
 *   test_web --serve [CONFIG]   serve /metrics and /slow on 127.0.0.1, port
 *                               0; print the port, run until SIGTERM/SIGINT
 *   test_web --bcrypt PASSWORD  print a bcrypt hash of PASSWORD (cost 5)
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/web.h"
#include "tests/test.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- addresses ---- */

static unsigned int port_of(const struct web_addr *a)
{
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

static bool parses(const char *s, struct web_addr *a)
{
	char why[256];

	return web_addr__parse(s, a, why, sizeof(why)) == 0;
}

static void test_addr(void)
{
	static const char *const bad[] = {
		"127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:", "127.0.0.1", "127.0.0.1:80x",
		"127.0.0.1: 80", "127.0.0.1:+80", "::1:80", "[::1]80", "[::1", "[nope]:80",
		"[127.0.0.1]:80", "nosuch.invalid:80", "", ":", ":123456", NULL,
	};
	struct web_addr a;
	char why[256], ip[INET6_ADDRSTRLEN];

	TEST_BEGIN("addr: :9100 is every address, port 9100");
	CHECK(parses(":9100", &a), ":9100 refused");
	CHECK_EQ(port_of(&a), 9100);
	CHECK(a.ss.ss_family == AF_INET6 ?
	      IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&a.ss)->sin6_addr) :
	      ((struct sockaddr_in *)&a.ss)->sin_addr.s_addr == htonl(INADDR_ANY), "not the any address");
	TEST_END();

	TEST_BEGIN("addr: 127.0.0.1:0 is IPv4, port 0");
	CHECK(parses("127.0.0.1:0", &a), "refused");
	CHECK_EQ(a.ss.ss_family, AF_INET);
	CHECK_EQ(a.len, sizeof(struct sockaddr_in));
	CHECK_EQ(port_of(&a), 0);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&a.ss)->sin_addr, ip, sizeof(ip));
	CHECK_STR(ip, "127.0.0.1");
	TEST_END();

	TEST_BEGIN("addr: [::1]:80 is IPv6, port 80; 65535 the highest port");
	CHECK(parses("[::1]:80", &a), "refused");
	CHECK_EQ(a.ss.ss_family, AF_INET6);
	CHECK_EQ(port_of(&a), 80);
	CHECK(IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&a.ss)->sin6_addr), "not ::1");
	CHECK(parses("127.0.0.1:65535", &a) && port_of(&a) == 65535, "65535 refused");
	TEST_END();

	TEST_BEGIN("addr: localhost:9 resolves");
	CHECK(parses("localhost:9", &a), "localhost refused");
	CHECK(web_addr__is_loopback(&a), "localhost is not loopback");
	TEST_END();

	TEST_BEGIN("addr: bad ports and hosts refused with a reason");
	for (const char *const *s = bad; *s; s++) {
		why[0] = '\0';
		CHECK_EQ(web_addr__parse(*s, &a, why, sizeof(why)), -EINVAL);
		CHECK(why[0], "%s: no reason", *s);
	}
	web_addr__parse("127.0.0.1:65536", &a, why, sizeof(why));
	CHECK(strstr(why, "65536") && strstr(why, "0 to 65535"), "why: %s", why);
	web_addr__parse("nosuch.invalid:80", &a, why, sizeof(why));
	CHECK(strstr(why, "nosuch.invalid"), "why: %s", why);
	TEST_END();

	TEST_BEGIN("addr: loopback is 127/8, ::1 and ::ffff:127/104, nothing else");
	CHECK(parses("127.0.0.1:1", &a) && web_addr__is_loopback(&a), "127.0.0.1");
	CHECK(parses("127.9.8.7:1", &a) && web_addr__is_loopback(&a), "127.9.8.7");
	CHECK(parses("[::1]:1", &a) && web_addr__is_loopback(&a), "::1");
	CHECK(parses("[::ffff:127.0.0.2]:1", &a) && web_addr__is_loopback(&a), "v4-mapped 127");
	CHECK(parses("0.0.0.0:1", &a) && !web_addr__is_loopback(&a), "0.0.0.0");
	CHECK(parses("10.1.2.3:1", &a) && !web_addr__is_loopback(&a), "10.1.2.3");
	CHECK(parses("128.0.0.1:1", &a) && !web_addr__is_loopback(&a), "128.0.0.1");
	CHECK(parses("[::]:1", &a) && !web_addr__is_loopback(&a), "::");
	CHECK(parses("[::ffff:10.0.0.1]:1", &a) && !web_addr__is_loopback(&a), "v4-mapped 10");
	CHECK(parses(":1", &a) && !web_addr__is_loopback(&a), ":1");
	TEST_END();
}

/* ---- the configuration file ---- */

static char tmpdir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Load NAME from tmpdir: the error, WHY filled. */
static int load(const char *name, struct web_config *cfg, char *why, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	why[0] = '\0';
	return web_config__load(path, cfg, why, size);
}

/* The config NAME is refused, its reason "PATH: line LINE: ..." holding WANT. */
static void refused(const char *name, const char *text, int line, const char *want)
{
	struct web_config cfg;
	char why[512], head[300];
	int err;

	put(name, text);
	err = load(name, &cfg, why, sizeof(why));
	CHECK_EQ(err, -EINVAL);
	if (line)
		snprintf(head, sizeof(head), "%s/%s: line %d: ", tmpdir, name, line);
	else
		snprintf(head, sizeof(head), "%s/%s: ", tmpdir, name);
	CHECK(!strncmp(why, head, strlen(head)), "%s: why \"%s\" does not start \"%s\"", name, why, head);
	CHECK(strstr(why, want), "%s: why \"%s\" lacks \"%s\"", name, why, want);
	CHECK(!cfg.cert_pem && !cfg.users, "%s: half a configuration left", name);
	web_config__free(&cfg);
}

#define PEM_CERT "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
#define PEM_KEY "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"
#define HASH_A "$2b$05$abcdefghijklmnopqrstuu5zX0qJ5sJmpa5zOyI/tgcR3UrMT4DOy"

static void test_config(void)
{
	struct web_config cfg;
	char why[512], dir[128];
	int err;

	snprintf(dir, sizeof(dir), "%s/sub", tmpdir);
	mkdir(dir, 0700);
	put("sub/server.crt", PEM_CERT);
	put("sub/server.key", PEM_KEY);
	put("plain.txt", "hello\n");

	TEST_BEGIN("config: TLS and users; names relative to the file's folder");
	put("sub/good.yml",
	    "# a comment\n"
	    "tls_server_config:\n"
	    "  cert_file: server.crt\n"
	    "  key_file: \"server.key\"\n"
	    "  client_auth_type: NoClientCert\n"
	    "basic_auth_users:\n"
	    "  alice: " HASH_A "\n"
	    "  bob: '" HASH_A "'\n");
	err = load("sub/good.yml", &cfg, why, sizeof(why));
	CHECK_EQ(err, 0);
	CHECK_STR(cfg.cert_pem, PEM_CERT);
	CHECK_STR(cfg.key_pem, PEM_KEY);
	CHECK_EQ(cfg.nusers, 2);
	if (cfg.nusers == 2) {
		CHECK_STR(cfg.users[0].name, "alice");
		CHECK_STR(cfg.users[1].name, "bob");
		CHECK_STR(cfg.users[1].hash, HASH_A);
	}
	web_config__free(&cfg);
	CHECK(!cfg.cert_pem && !cfg.users && !cfg.nusers, "not zeroed");
	web_config__free(NULL);
	TEST_END();

	TEST_BEGIN("config: an absolute name; an empty file; empty sections");
	snprintf(why, sizeof(why), "tls_server_config:\n  cert_file: %s/sub/server.crt\n"
		 "  key_file: %s/sub/server.key\n", tmpdir, tmpdir);
	put("abs.yml", why);
	CHECK_EQ(load("abs.yml", &cfg, why, sizeof(why)), 0);
	CHECK_STR(cfg.cert_pem, PEM_CERT);
	web_config__free(&cfg);
	put("empty.yml", "");
	CHECK_EQ(load("empty.yml", &cfg, why, sizeof(why)), 0);
	CHECK(!cfg.cert_pem && !cfg.nusers, "an empty file configured something");
	put("nulls.yml", "tls_server_config:\nbasic_auth_users:\n");
	CHECK_EQ(load("nulls.yml", &cfg, why, sizeof(why)), 0);
	CHECK(!cfg.cert_pem && !cfg.nusers, "null sections configured something");
	web_config__free(&cfg);
	TEST_END();

	TEST_BEGIN("config: the toolkit's keys we do not serve refused by name, with the line");
	refused("cat.yml", "tls_server_config:\n  cert_file: sub/server.crt\n  key_file: sub/server.key\n"
		"  client_auth_type: RequireAndVerifyClientCert\n", 4,
		"tls_server_config.client_auth_type is not supported");
	refused("ca.yml", "tls_server_config:\n  client_ca_file: ca.crt\n", 2,
		"tls_server_config.client_ca_file is not supported");
	refused("minv.yml", "\ntls_server_config:\n  min_version: TLS13\n", 3,
		"tls_server_config.min_version is not supported");
	refused("suites.yml", "tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", 2,
		"cipher_suites is not supported");
	refused("http.yml", "http_server_config:\n  http2: false\n", 1,
		"http_server_config is not supported");
	refused("rate.yml", "basic_auth_users:\n  a: " HASH_A "\nrate_limit:\n  interval: 1s\n", 3,
		"rate_limit is not supported");
	refused("unknown.yml", "tls_server_conf:\n  cert_file: x\n", 1, "tls_server_conf: unknown key");
	refused("unknown2.yml", "tls_server_config:\n  cert_fil: x\n", 2,
		"tls_server_config.cert_fil: unknown key");
	TEST_END();

	TEST_BEGIN("config: missing files, half of TLS, bad hashes, duplicates");
	refused("nocert.yml", "tls_server_config:\n  cert_file: none.crt\n  key_file: sub/server.key\n", 2,
		"none.crt: No such file or directory");
	refused("notpem.yml", "tls_server_config:\n  cert_file: plain.txt\n  key_file: sub/server.key\n", 2,
		"plain.txt: not a PEM file");
	refused("half.yml", "tls_server_config:\n  cert_file: sub/server.crt\n", 2,
		"both cert_file and key_file");
	refused("rel.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n", 2,
		"No such file");	/* relative to tmpdir, not to sub/ */
	refused("md5.yml", "basic_auth_users:\n  alice: $1$abc$def\n", 2,
		"basic_auth_users.alice: not a bcrypt hash");
	refused("plainpw.yml", "basic_auth_users:\n  alice: secret\n", 2, "not a bcrypt hash");
	refused("dup.yml", "basic_auth_users:\n  alice: " HASH_A "\n  alice: " HASH_A "\n", 3,
		"basic_auth_users.alice: given twice");
	refused("dup2.yml", "basic_auth_users:\nbasic_auth_users:\n", 2, "basic_auth_users: given twice");
	refused("colon.yml", "basic_auth_users:\n  'a:b': " HASH_A "\n", 2, "without ':'");
	refused("list.yml", "basic_auth_users:\n  - alice\n", 2, "a mapping of user names");
	refused("top.yml", "- a\n- b\n", 1, "a mapping");
	TEST_END();

	TEST_BEGIN("config: not YAML, with its line; no such file");
	refused("bad.yml", "tls_server_config:\n  cert_file: [a\n  key_file: b\n", 0, "line ");
	refused("tab.yml", "tls_server_config:\n\tcert_file: a\n", 2, "");
	err = load("nothere.yml", &cfg, why, sizeof(why));
	CHECK_EQ(err, -ENOENT);
	CHECK(strstr(why, "nothere.yml: No such file or directory"), "why: %s", why);
	err = load("sub", &cfg, why, sizeof(why));
	CHECK_EQ(err, -EISDIR);
	TEST_END();
}

/* ---- a real server ---- */

struct srv {
	struct web_server *s;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int hello_runs;
	bool slow_in, slow_release;
	double slow_max_s;	/* the longest /slow waits if not released */
	char log[4096];
	int log_lines;
};

static void srv_log(void *ctx, const char *line)
{
	struct srv *t = ctx;
	size_t n;

	pthread_mutex_lock(&t->lock);
	n = strlen(t->log);
	snprintf(t->log + n, sizeof(t->log) - n, "%s\n", line);
	t->log_lines++;
	pthread_mutex_unlock(&t->lock);
	if (getenv("TEST_WEB_LOG"))
		fprintf(stderr, "log: %s\n", line);
}

static int text(struct web_response *rs, const char *s)
{
	rs->body = strdup(s);
	if (!rs->body)
		return -ENOMEM;
	rs->len = strlen(s);
	rs->content_type = "text/plain; version=0.0.4";
	return 0;
}

static int h_hello(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct srv *t = ctx;
	char buf[64];

	pthread_mutex_lock(&t->lock);
	t->hello_runs++;
	pthread_mutex_unlock(&t->lock);
	snprintf(buf, sizeof(buf), "hi %s\n", rq->user ? rq->user : "-");
	rs->extra_header[0] = "X-Test";
	rs->extra_header[1] = "yes";
	return text(rs, buf);
}

static int h_arg(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	const char *x = web_request__arg(rq, "x");

	(void)ctx;
	rs->status = x ? 200 : 400;
	return text(rs, x ? x : "none");
}

static int h_fail(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	(void)ctx, (void)rq;
	rs->body = strdup("half");	/* freed by the server, not sent */
	return -EIO;
}

static int h_slow(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct srv *t = ctx;
	struct timespec ts;

	(void)rq;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)t->slow_max_s;
	pthread_mutex_lock(&t->lock);
	t->slow_in = true;
	pthread_cond_broadcast(&t->cond);
	while (!t->slow_release)
		if (pthread_cond_timedwait(&t->cond, &t->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&t->lock);
	if (getenv("TEST_WEB_SERVE"))
		fprintf(stderr, "slow: out\n");
	return text(rs, "slow\n");
}

static const struct web_route routes[] = {
	{ "/hello", h_hello },
	{ "/arg", h_arg },
	{ "/fail", h_fail },
	{ "/slow", h_slow },
	{ "/dir/", h_hello },
	{ NULL, NULL },
};

static int dial(unsigned int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 20 };	/* a safety net only */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Everything until the server closes (or RESP is full): its length. */
static size_t read_all(int fd, char *resp, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < size && (n = recv(fd, resp + got, size - 1 - got, 0)) > 0)
		got += (size_t)n;
	resp[got] = '\0';
	return got;
}

/* Send REQ on a new connection, read the answer to the end: its status
 * (0 when the server closed without one). */
static int exchange(unsigned int port, const char *req, char *resp, size_t size)
{
	int fd = dial(port), status = 0;

	resp[0] = '\0';
	if (fd < 0)
		return -1;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req))
		read_all(fd, resp, size);
	close(fd);
	if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1)
		status = 0;
	return status;
}

static const char *body_of(const char *resp)
{
	const char *b = strstr(resp, "\r\n\r\n");

	return b ? b + 4 : "";
}

static struct web_server *srv_start(struct srv *t, const struct web_config *cfg,
				    const struct web_limits *lim)
{
	struct web_addr a;
	char why[256];

	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	t->slow_max_s = 10;
	if (!parses("127.0.0.1:0", &a))
		return NULL;
	t->s = web_server__start(&a, cfg, routes, t, lim, srv_log, why, sizeof(why));
	if (!t->s)
		printf("# web_server__start: %s\n", why);
	return t->s;
}

static void srv_stop(struct srv *t)
{
	web_server__stop(t->s);
	t->s = NULL;
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
}

static bool logged(struct srv *t, const char *what)
{
	bool yes;

	pthread_mutex_lock(&t->lock);
	yes = strstr(t->log, what) != NULL;
	pthread_mutex_unlock(&t->lock);
	return yes;
}

#define CLOSE "Host: t\r\nConnection: close\r\n\r\n"

static void test_routes(struct srv *t, unsigned int port)
{
	struct web_stats st;
	char resp[8192];

	TEST_BEGIN("server: a route answers, with its type and extra header");
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 200);
	CHECK_STR(body_of(resp), "hi -\n");
	CHECK(strstr(resp, "Content-Type: text/plain; version=0.0.4\r\n"), "type: %s", resp);
	CHECK(strstr(resp, "X-Test: yes\r\n"), "extra header: %s", resp);
	CHECK_EQ(exchange(port, "GET /dir/any/thing HTTP/1.0\r\n\r\n", resp, sizeof(resp)), 200);
	CHECK_EQ(exchange(port, "GET /arg?x=42&y=1 HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 200);
	CHECK_STR(body_of(resp), "42");
	TEST_END();

	TEST_BEGIN("server: HEAD has the length and no body");
	CHECK_EQ(exchange(port, "HEAD /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 200);
	CHECK(strstr(resp, "Content-Length: 5\r\n"), "length: %s", resp);
	CHECK_STR(body_of(resp), "");
	TEST_END();

	TEST_BEGIN("server: two requests on one kept-alive connection");
	{
		int fd = dial(port);
		const char *two = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /arg?x=7 HTTP/1.1\r\n" CLOSE;

		CHECK(fd >= 0, "dial");
		CHECK(send(fd, two, strlen(two), MSG_NOSIGNAL) == (ssize_t)strlen(two), "send");
		read_all(fd, resp, sizeof(resp));
		close(fd);
		CHECK(strstr(resp, "hi -\n") && strstr(resp, "\r\n\r\n7"), "both answered: %s", resp);
	}
	TEST_END();

	web_server__stats(t->s, &st);
	TEST_BEGIN("server: 404, 405 (with Allow), 413, a handler's error 500, each logged and counted");
	CHECK_EQ(exchange(port, "GET /nope HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 404);
	CHECK(logged(t, "127.0.0.1:") && logged(t, " GET /nope: 404 no such path"), "log: %s", t->log);
	CHECK_EQ(exchange(port, "POST /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
			  resp, sizeof(resp)), 405);
	CHECK(strstr(resp, "Allow: GET, HEAD\r\n"), "allow: %s", resp);
	CHECK(logged(t, "POST /hello: 405"), "log: %s", t->log);
	CHECK_EQ(exchange(port, "DELETE /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 405);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
			  resp, sizeof(resp)), 413);
	CHECK_EQ(exchange(port, "GET /fail HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 500);
	CHECK(logged(t, "GET /fail: 500 Input/output error"), "log: %s", t->log);
	{
		struct web_stats st2;

		web_server__stats(t->s, &st2);
		CHECK_EQ(st2.refused_other - st.refused_other, 4);
		CHECK_EQ(st2.handler_errors - st.handler_errors, 1);
		CHECK_EQ(st2.requests - st.requests, 5);
		CHECK_EQ(st2.refused_auth, 0);
	}
	TEST_END();

	TEST_BEGIN("server: malformed requests get 400 (or a close), each one line, the handler not run");
	t->hello_runs = 0;
	web_server__stats(t->s, &st);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\n\r\n", resp, sizeof(resp)), 400);	/* no Host */
	CHECK(logged(t, "refused a request: 400 malformed request (Received HTTP/1.1 request without `Host' header)"),
	      "log: %s", t->log);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nBad Header\r\n\r\n", resp, sizeof(resp)), 400);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n",
			  resp, sizeof(resp)), 400);
	/* A line without a space: the library closes without an answer. */
	CHECK_EQ(exchange(port, "GARBAGE\r\n\r\n", resp, sizeof(resp)), 0);
	CHECK_EQ(t->hello_runs, 0);
	{
		struct web_stats st2;
		int i;

		/* The close is seen by the library's own thread: wait for its count. */
		for (i = 0; i < 500; i++) {
			web_server__stats(t->s, &st2);
			if (st2.refused_other - st.refused_other >= 4)
				break;
			usleep(10000);
		}
		CHECK_EQ(st2.refused_other - st.refused_other, 4);
	}
	CHECK(logged(t, ": closed: not an HTTP request"), "log: %s", t->log);
	CHECK(!logged(t, "http: "), "the library's own words logged: %s", t->log);
	TEST_END();
}

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Headers far over conn_memory: a 431 (or the connection closed) long
 * before the client could send them all, and no memory kept. */
static void test_big_header(struct srv *t, unsigned int port)
{
	static char chunk[65536];
	size_t sent_total = 0, limit = 64u << 20;
	struct web_stats st, st2;
	char resp[4096];
	long before, after;
	int status = -1, round;

	memset(chunk, 'a', sizeof(chunk));
	web_server__stats(t->s, &st);
	before = rss_kb();
	TEST_BEGIN("server: headers over the limit: 431 or closed, never read whole, no memory kept");
	for (round = 0; round < 3; round++) {
		const char *head = "GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: ";
		int fd = dial(port);
		ssize_t n;

		sent_total = 0;
		CHECK(fd >= 0, "dial");
		if (fd < 0)
			break;
		send(fd, head, strlen(head), MSG_NOSIGNAL);
		while (sent_total < limit && (n = send(fd, chunk, sizeof(chunk), MSG_NOSIGNAL)) > 0)
			sent_total += (size_t)n;
		read_all(fd, resp, sizeof(resp));
		close(fd);
		if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1)
			status = 0;
		CHECK(status == 431 || status == 0, "status %d", status);
		CHECK(sent_total < limit, "the server took all %zu bytes", sent_total);
	}
	after = rss_kb();
	CHECK(after - before < 4096, "RSS grew %ld kB", after - before);
	web_server__stats(t->s, &st2);
	CHECK_EQ(st2.refused_other - st.refused_other, 3);
	CHECK_EQ(t->hello_runs, 0);
	CHECK(status != 431 || logged(t, "431 request headers too large"), "log: %s", t->log);
	TEST_END();
}

/* One byte every 200 ms of a request that never ends: the library's idle
 * timeout never fires, the deadline must. */
static void test_trickle(struct srv *t, unsigned int port, unsigned int timeout_s)
{
	const char *req = "GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ";
	struct web_stats st, st2;
	double t0, elapsed;
	size_t i = 0;
	int fd;
	bool closed = false;

	TEST_BEGIN("server: a client sending a byte at a time is cut at the timeout, the handler not run");
	t->hello_runs = 0;
	web_server__stats(t->s, &st);
	t0 = now_s();
	fd = dial(port);
	CHECK(fd >= 0, "dial");
	while (fd >= 0 && now_s() - t0 < 30) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char c = i < strlen(req) ? req[i] : 'a';
		char buf[256];

		if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) {
			closed = true;
			break;
		}
		i++;
		if (poll(&p, 1, 200) > 0 && recv(fd, buf, sizeof(buf), 0) <= 0) {
			closed = true;
			break;
		}
	}
	elapsed = now_s() - t0;
	if (fd >= 0)
		close(fd);
	CHECK(closed, "still open after %.1f s (%zu bytes)", elapsed, i);
	CHECK(elapsed >= timeout_s - 0.05, "cut after %.2f s, before the %u s timeout", elapsed, timeout_s);
	CHECK_EQ(t->hello_runs, 0);
	web_server__stats(t->s, &st2);
	CHECK_EQ(st2.refused_other - st.refused_other, 1);
	CHECK(logged(t, "closed: no complete request within"), "log: %s", t->log);
	TEST_END();
}

/* The per-client bound: with max_conns_per_ip open, one more is closed at once. */
static void test_per_ip(struct srv *t, unsigned int port, unsigned int per_ip)
{
	int fds[8], extra, n;
	struct web_stats st, st2;
	char resp[4096];
	unsigned int i;

	TEST_BEGIN("server: connections per client bounded; one over the bound closed, counted");
	web_server__stats(t->s, &st);
	for (i = 0; i < per_ip; i++)
		fds[i] = dial(port);
	extra = dial(port);
	CHECK(extra >= 0, "dial");
	n = exchange(port, "GET /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp));
	CHECK_EQ(n, 0);
	if (extra >= 0) {
		CHECK(read_all(extra, resp, sizeof(resp)) == 0, "an answer on the extra: %s", resp);
		close(extra);
	}
	for (i = 0; i < per_ip; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	web_server__stats(t->s, &st2);
	CHECK_EQ(st2.refused_other - st.refused_other, 2);
	CHECK(logged(t, "refused a connection"), "log: %s", t->log);
	/* Closed ones give their places back (the library sees the close
	 * on its own time: a bounded retry, not a sleep). */
	for (i = 0; i < 200 && n != 200; i++) {
		n = exchange(port, "GET /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp));
		if (n != 200)
			usleep(10000);
	}
	CHECK_EQ(n, 200);
	TEST_END();
}

struct slow_client {
	unsigned int port;
	int status;
	char resp[1024];
};

static void *slow_get(void *arg)
{
	struct slow_client *c = arg;

	c->status = exchange(c->port, "GET /slow HTTP/1.1\r\n" CLOSE, c->resp, sizeof(c->resp));
	return NULL;
}

static void test_blocking(struct srv *t, unsigned int port)
{
	struct slow_client c = { .port = port };
	pthread_t th;
	char resp[4096];
	bool still_in;

	TEST_BEGIN("server: a handler blocking delays no other request");
	t->slow_in = t->slow_release = false;
	pthread_create(&th, NULL, slow_get, &c);
	pthread_mutex_lock(&t->lock);
	while (!t->slow_in)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 200);
	pthread_mutex_lock(&t->lock);
	still_in = !t->slow_release;
	t->slow_release = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	CHECK(still_in, "the slow handler was not running");
	pthread_join(th, NULL);
	CHECK_EQ(c.status, 200);
	CHECK_STR(body_of(c.resp), "slow\n");
	TEST_END();
}

static void test_stop_in_handler(void)
{
	struct slow_client c;
	struct srv t;
	pthread_t th;

	TEST_BEGIN("server: stopped while a handler runs: it finishes, nothing leaks");
	if (!srv_start(&t, NULL, NULL)) {
		CHECK(0, "start");
		return;
	}
	t.slow_max_s = 1;
	c.port = web_server__port(t.s);
	pthread_create(&th, NULL, slow_get, &c);
	pthread_mutex_lock(&t.lock);
	while (!t.slow_in)
		pthread_cond_wait(&t.cond, &t.lock);
	pthread_mutex_unlock(&t.lock);
	srv_stop(&t);
	pthread_join(th, NULL);
	CHECK(c.status == 200 || c.status == 0, "status %d", c.status);
	TEST_END();
}

static char *bcrypt(const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char setting[64], *out = NULL;

	if (cd && crypt_gensalt_rn("$2b$", 5, NULL, 0, setting, sizeof(setting)) &&
	    crypt_r(password, setting, cd))
		out = strdup(cd->output);
	free(cd);
	return out;
}

static void test_auth(void)
{
	struct web_user users[2] = { { "alice", NULL }, { "bob", NULL } };
	struct web_config cfg = { .users = users, .nusers = 2 };
	struct web_stats st;
	struct srv t;
	char resp[4096];
	unsigned int port;

	users[0].hash = bcrypt("s3cret");
	users[1].hash = bcrypt("other");
	TEST_BEGIN("auth: bcrypt ($2b$) users: right 200, wrong password, unknown user, none: 401");
	CHECK(users[0].hash && !strncmp(users[0].hash, "$2b$05$", 7), "hash %s", users[0].hash);
	if (!users[0].hash || !users[1].hash || !srv_start(&t, &cfg, NULL)) {
		CHECK(0, "start");
		goto out;
	}
	port = web_server__port(t.s);
	/* alice:s3cret, twice (the second from the cache) */
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic YWxpY2U6czNjcmV0\r\n" CLOSE,
			  resp, sizeof(resp)), 200);
	CHECK_STR(body_of(resp), "hi alice\n");
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic YWxpY2U6czNjcmV0\r\n" CLOSE,
			  resp, sizeof(resp)), 200);
	/* alice:s3cres */
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic YWxpY2U6czNjcmVz\r\n" CLOSE,
			  resp, sizeof(resp)), 401);
	CHECK(strstr(resp, "WWW-Authenticate: Basic realm=\"frugal\""), "no challenge: %s", resp);
	CHECK(logged(&t, "401 wrong password for user \"alice\""), "log: %s", t.log);
	CHECK(!logged(&t, "s3cre"), "a password in the log: %s", t.log);
	/* bob:s3cret: alice's password is not bob's */
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic Ym9iOnMzY3JldA==\r\n" CLOSE,
			  resp, sizeof(resp)), 401);
	/* eve:s3cret */
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic ZXZlOnMzY3JldA==\r\n" CLOSE,
			  resp, sizeof(resp)), 401);
	CHECK(logged(&t, "401 unknown user \"eve\""), "log: %s", t.log);
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\n" CLOSE, resp, sizeof(resp)), 401);
	CHECK(logged(&t, "401 no credentials"), "log: %s", t.log);
	/* bob:other */
	CHECK_EQ(exchange(port, "GET /hello HTTP/1.1\r\nAuthorization: Basic Ym9iOm90aGVy\r\n" CLOSE,
			  resp, sizeof(resp)), 200);
	web_server__stats(t.s, &st);
	CHECK_EQ(st.refused_auth, 4);
	CHECK_EQ(st.requests, 7);
	srv_stop(&t);
out:
	free(users[0].hash);
	free(users[1].hash);
	TEST_END();
}

static void test_start_errors(void)
{
	struct web_config cfg = { .cert_pem = (char *)PEM_CERT, .key_pem = (char *)PEM_KEY };
	struct web_addr a;
	struct srv t, t2;
	char why[256];

	TEST_BEGIN("server: an address in use, a bad certificate: NULL, errno and a reason");
	if (!srv_start(&t, NULL, NULL)) {
		CHECK(0, "start");
		return;
	}
	snprintf(why, sizeof(why), "127.0.0.1:%u", web_server__port(t.s));
	CHECK(parses(why, &a), "parse");
	memset(&t2, 0, sizeof(t2));
	errno = 0;
	CHECK(!web_server__start(&a, NULL, routes, &t2, NULL, NULL, why, sizeof(why)), "started twice");
	CHECK_EQ(errno, EADDRINUSE);
	CHECK(strstr(why, "in use"), "why: %s", why);
	srv_stop(&t);
	CHECK(parses("127.0.0.1:0", &a), "parse");
	errno = 0;
	CHECK(!web_server__start(&a, &cfg, routes, &t2, NULL, NULL, why, sizeof(why)), "a bad certificate");
	CHECK(errno != 0 && why[0], "errno %d why %s", errno, why);
	TEST_END();
}

/* ---- tests/e2e/web.sh's modes ---- */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static int h_metrics(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	(void)ctx;
	(void)rq;
	return text(rs, "frugal_test_up 1\n");
}

static void serve_log(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "log: %s\n", line);
}

static int h_serve_slow(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct srv *t = ctx;

	fprintf(stderr, "slow: in\n");
	return h_slow(t, rq, rs);
}

static int serve(const char *config)
{
	static const struct web_route serve_routes[] = {
		{ "/metrics", h_metrics },
		{ "/slow", h_serve_slow },
		{ NULL, NULL },
	};
	struct web_limits lim = { .timeout_s = 2 };
	struct web_config cfg = { 0 };
	struct sigaction sa = { .sa_handler = on_stop };
	struct web_addr a;
	struct srv t = { 0 };
	char why[512];
	sigset_t block, old;

	if (config && web_config__load(config, &cfg, why, sizeof(why))) {
		fprintf(stderr, "test_web: %s\n", why);
		return 1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	/* Only the main thread takes the signals: the server's inherit this. */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pthread_mutex_init(&t.lock, NULL);
	pthread_cond_init(&t.cond, NULL);
	t.slow_max_s = 2;
	setenv("TEST_WEB_SERVE", "1", 1);
	if (!parses("127.0.0.1:0", &a) ||
	    !(t.s = web_server__start(&a, &cfg, serve_routes, &t, &lim, serve_log, why, sizeof(why)))) {
		fprintf(stderr, "test_web: %s\n", why);
		web_config__free(&cfg);
		return 1;
	}
	printf("%u\n", web_server__port(t.s));
	fflush(stdout);
	while (!stop_sig)
		sigsuspend(&old);
	fprintf(stderr, "stopping\n");
	web_server__stop(t.s);
	web_config__free(&cfg);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	fprintf(stderr, "stopped\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct web_limits lim = { .max_conns = 16, .max_conns_per_ip = 3, .timeout_s = 2,
				  .conn_memory = 8192 };
	struct srv t;

	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "--serve"))
		return serve(argc >= 3 ? argv[2] : NULL);
	if (argc == 3 && !strcmp(argv[1], "--bcrypt")) {
		char *h = bcrypt(argv[2]);

		if (!h)
			return 1;
		printf("%s\n", h);
		free(h);
		return 0;
	}

	test_addr();
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_web.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		TEST_SKIP("config", "no temporary folder");
	} else {
		char cmd[128];

		test_config();
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}

	TEST_BEGIN("server: starts on 127.0.0.1, port 0 made a real port");
	if (!srv_start(&t, NULL, &lim)) {
		CHECK(0, "could not start");
		TEST_EXIT();
	}
	CHECK(web_server__port(t.s) > 0, "port 0");
	TEST_END();
	test_routes(&t, web_server__port(t.s));
	test_big_header(&t, web_server__port(t.s));
	test_trickle(&t, web_server__port(t.s), lim.timeout_s);
	test_per_ip(&t, web_server__port(t.s), lim.max_conns_per_ip);
	test_blocking(&t, web_server__port(t.s));
	srv_stop(&t);
	test_stop_in_handler();
	test_auth();
	test_start_errors();
	TEST_EXIT();
}
