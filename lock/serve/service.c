// SPDX-License-Identifier: GPL-2.0
/*
 * The service of `frugal lock serve` (serve.h): each tick's rows folded
 * into cumulative series, the accounting summed by reason, the profile
 * windows filled, and the routes that serve them over lib/web.
 *
 * Counters only ever add: a tick's rows are what came in its interval
 * (the collector's -I reads difference the kernel's counts), so summing
 * them keeps every counter monotonic, whatever happens to the kernel's
 * table in between, and each wait is in exactly one tick.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "lib/ksyms.h"
#include "lib/logline.h"
#include "lib/prom.h"
#include "lib/web.h"
#include "lock/out/out.h"
#include "lock/report/report.h"
#include "lock/serve/serve.h"
#include "lock/serve/series_int.h"

/* The accounting lines a report has, at most (report.c's MAX_ACCT_LINES). */
#define ACCT_MAX	64
/* Lock types with a histogram (LCB_F_* | LOCK_F_USER kinds): a few dozen. */
#define HIST_TYPES	32
#define HIST_BOUNDS	32

/* An accounting line summed over the ticks, by its JSON key. */
struct acct_sum {
	const char *key;		/* report.c's, a string literal */
	uint64_t v;
	bool level;			/* a level (open waits), not a count: the last one */
};

struct hist {
	const char *type;		/* lock_type_name()'s */
	size_t n;
	double bounds[HIST_BOUNDS];	/* seconds */
	uint64_t buckets[HIST_BOUNDS];	/* cumulative */
	uint64_t count;
	double sum;			/* seconds */
};

/* A profile asked for: the rows of the ticks in its window, and its body once written. */
struct window {
	struct window *next;
	double end;			/* cli_now() at which it closes */
	double seconds;			/* of the ticks it holds */
	struct lock_table *t;
	struct lock_accounting a;
	bool done;
	int err;
	char *body;
	size_t len;
};

struct lock_service {
	const struct lock_serve_cfg *sc;
	const struct lock_report_cfg *rc;
	void (*log)(void *ctx, const char *line);
	void *log_ctx;
	struct web_server *web;
	struct web_route routes[6];
	struct web_config wcfg;
	pthread_mutex_t mu;		/* what the handlers read, below */
	pthread_cond_t cv;		/* a window written, or the stop */
	struct lock_series *rows;	/* contentions and wait per label set */
	struct acct_sum acct[ACCT_MAX];
	size_t nacct;
	struct hist hist[HIST_TYPES];
	size_t nhist;
	/* the BPF programs' run statistics, summed: begin, end, release, futex entry, return */
	uint64_t prog_ns[5], prog_runs[5];
	uint64_t ticks;
	double start_time;		/* process_start_time_seconds */
	double last_scrape_s;		/* the previous /metrics' duration */
	uint64_t scrapes;
	struct window *windows;
	bool stopping;
};

static const char *const prog_names[5] = {
	"contention_begin", "contention_end", "contended_release", "futex_entry", "futex_return",
};

/* One line through the command's callback (lib/logline.h). */
#define logf_(s, ...) logline((s)->log, (s)->log_ctx, __VA_ARGS__)

/* lib/web's log lines, to the caller's. */
static void web_log(void *ctx, const char *line)
{
	struct lock_service *s = ctx;

	if (s->log)
		s->log(s->log_ctx, line);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the fold: a struct lock_output whose rows go into the series ---- */

/*
 * The service a tick folds into.  lock_report_write() hands a format no
 * context of its caller's; the tick thread is the only one that folds.
 */
static _Thread_local struct lock_service *folding;
static _Thread_local int fold_err;

/* Does NAME look like a bare address ("ffffffff81234567", "0x...")? */
static bool is_address(const char *name)
{
	size_t n;

	if (!strncmp(name, "0x", 2))
		name += 2;
	n = strspn(name, "0123456789abcdefABCDEF");
	return n >= 8 && (!name[n] || name[n] == '+');
}

/* The caller as a label: its function, without the offset (one series
 * per function, not per call site); an address only when asked. */
static void caller_label(const struct lock_service *s, const struct lock_row_name *rn,
			 char *buf, size_t size)
{
	size_t n = strcspn(rn->a, "+");

	if (is_address(rn->a) && !s->sc->export_addresses) {
		snprintf(buf, size, "[unknown]");
		return;
	}
	snprintf(buf, size, "%.*s", (int)n, rn->a);
}

/*
 * -l: the lock's name, as the report's symbol column says it but without
 * the object's instance (a file name, a pid: unbounded, and a pid is not
 * a label): the member and its struct, or the lock's symbol.
 */
static void lock_label(const struct lock_service *s, const struct lock_row_name *rn,
		       char *buf, size_t size)
{
	if (rn->member[0] && rn->object[0])
		snprintf(buf, size, "%s of %s", rn->member, rn->object);
	else if (rn->sym[0] && !is_address(rn->sym))
		snprintf(buf, size, "%s", rn->sym);
	else if (s->sc->export_addresses)
		snprintf(buf, size, "%s", rn->a);
	else
		snprintf(buf, size, "[unnamed]");
}

static void fold_header(struct lock_out *out)
{
	(void)out;
}

static void fold_row(struct lock_out *out, const struct lock_row *r,
		     const struct lock_row_name *rn, size_t i)
{
	struct lock_service *s = folding;
	const char *values[3] = { lock_type_name(r->st.flags), NULL, rn->abuf };
	char name[256];
	int err;

	(void)out, (void)i;
	switch (s->sc->mode) {
	case LOCK_AGGR_ADDR:
		lock_label(s, rn, name, sizeof(name));
		break;
	case LOCK_AGGR_CGROUP:
		snprintf(name, sizeof(name), "%s", rn->a);
		break;
	default:
		caller_label(s, rn, name, sizeof(name));
		break;
	}
	values[1] = name;
	err = lock_series__add(s->rows, values, r->st.count, r->st.total_ns);
	if (err)
		fold_err = err;
}

/* Levels: what a read finds open, not what came in the interval. */
static bool is_level(const char *key)
{
	return !strcmp(key, "open_at_stop") || !strcmp(key, "user_open_at_stop") ||
	       !strcmp(key, "user_queue_peak_bytes");
}

static void fold_accounting(struct lock_out *out, const struct lock_accounting *a,
			    const struct lock_acct_line *l, size_t n)
{
	struct lock_service *s = folding;
	size_t i, j;

	(void)out;
	for (i = 0; i < n; i++) {
		for (j = 0; j < s->nacct && strcmp(s->acct[j].key, l[i].json); j++)
			;
		if (j == s->nacct) {
			if (s->nacct == ACCT_MAX)
				continue;
			s->acct[s->nacct++] = (struct acct_sum){ l[i].json, 0, is_level(l[i].json) };
		}
		s->acct[j].v = s->acct[j].level ? l[i].v : s->acct[j].v + l[i].v;
	}
	s->prog_ns[0] += a->begin_ns;
	s->prog_runs[0] += a->begin_runs + a->begin2_runs;
	s->prog_ns[1] += a->end_ns;
	s->prog_runs[1] += a->end_runs + a->end2_runs;
	s->prog_ns[2] += a->release_ns;
	s->prog_runs[2] += a->release_runs;
	s->prog_ns[3] += a->u_begin_ns;
	s->prog_runs[3] += a->u_begin_runs;
	s->prog_ns[4] += a->u_end_ns;
	s->prog_runs[4] += a->u_end_runs;
}

static const struct lock_output fold_output = {
	.header = fold_header,
	.row = fold_row,
	.accounting = fold_accounting,
};

/* ---- profile windows ---- */

/* R's rows into the window's table, as the kernel's rows would come. */
static int window_add(struct lock_table *w, const struct lock_row *r, unsigned int frames)
{
	struct lock_slab_tail st;

	if (r->stack)
		return lock_table__add(w, r->key, &r->st, r->stack, frames * sizeof(uint64_t));
	if (r->off_why || r->obj) {
		memset(&st, 0, sizeof(st));
		memcpy(st.name, r->comm, sizeof(st.name) < sizeof(r->comm) ?
		       sizeof(st.name) : sizeof(r->comm));
		st.off = r->obj_off;
		st.why = r->off_why;
		if (r->obj)
			st.obj = *r->obj;
		return lock_table__add(w, r->key, &r->st, &st, sizeof(st));
	}
	return lock_table__add(w, r->key, &r->st, r->comm[0] ? r->comm : NULL,
			       r->comm[0] ? sizeof(r->comm) : 0);
}

static void acct_add(struct lock_accounting *sum, const struct lock_accounting *a)
{
	size_t i;

	for (i = 0; i < LC_NR; i++)
		sum->c[i] += a->c[i];
	for (i = 0; i < UL_NR; i++)
		sum->u[i] += a->u[i];
	sum->merged += a->merged;
	sum->u_merged += a->u_merged;
	sum->user = a->user;
	sum->at_release = a->at_release;
	sum->open_waits = a->open_waits;
}

/* The window's profile, as --pprof writes it, into its body (tick thread). */
static void window_write(struct lock_service *s, struct window *w,
			 const struct lock_run_info *tick_ri)
{
	struct lock_run_info ri = tick_ri ? *tick_ri : (struct lock_run_info){ 0 };
	struct ksyms *ks = NULL;
	FILE *f;

	ri.seconds = w->seconds;
	if (lock_table__len(w->t))
		ks = lock_report_syms(s->rc, w->t);
	f = open_memstream(&w->body, &w->len);
	if (!f) {
		w->err = -errno;
	} else {
		w->err = lock_report(f, LOCK_FMT_PPROF, s->rc, w->t, &w->a, &ri, ks);
		if (fclose(f) && !w->err)
			w->err = -ENOMEM;
	}
	ksyms__free(ks);
	lock_table__free(w->t);
	w->t = NULL;
	w->done = true;
}

/* The windows open: this tick's rows added, those it closes written. */
static int windows_tick(struct lock_service *s, struct lock_table *t,
			const struct lock_accounting *a, const struct lock_run_info *ri)
{
	struct lock_row **rows = NULL;
	size_t i, n = lock_table__len(t);
	struct window *w;
	double now = cli_now();
	int err = 0;

	for (w = s->windows; w; w = w->next) {
		if (w->done)
			continue;
		if (!rows && n && !(rows = lock_table__sorted(t, s->rc->sort)))
			return -ENOMEM;
		for (i = 0; i < n && !err; i++)
			err = window_add(w->t, rows[i], s->rc->row_frames);
		acct_add(&w->a, a);
		w->seconds += ri ? ri->seconds : 0;
		if (err) {
			w->err = err;
			w->done = true;
		} else if (now >= w->end) {
			window_write(s, w, ri);
		}
	}
	free(rows);
	pthread_cond_broadcast(&s->cv);
	return 0;
}

int lock_service__tick(struct lock_service *s, struct lock_table *t,
		       const struct lock_accounting *a, const struct lock_run_info *ri,
		       struct ksyms *ks)
{
	int err;

	pthread_mutex_lock(&s->mu);
	folding = s;
	fold_err = 0;
	err = lock_report_write(NULL, &fold_output, LOCK_FMT_TABLE, s->rc, t, a, ri, ks);
	folding = NULL;
	err = err ?: fold_err;
	err = err ?: windows_tick(s, t, a, ri);
	s->ticks++;
	pthread_mutex_unlock(&s->mu);
	return err;
}

int lock_service__histogram(struct lock_service *s, const char *type, const uint64_t *bounds_ns,
			    const uint64_t *buckets, size_t n, uint64_t sum_ns)
{
	struct hist *h;
	size_t i;

	if (n > HIST_BOUNDS)
		n = HIST_BOUNDS;
	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nhist && strcmp(s->hist[i].type, type); i++)
		;
	if (i == s->nhist && s->nhist < HIST_TYPES)
		s->hist[s->nhist++].type = type;
	if (i < s->nhist) {
		h = &s->hist[i];
		/* the last bound is +Inf: prom__histogram adds it */
		h->n = n && bounds_ns[n - 1] == UINT64_MAX ? n - 1 : n;
		for (i = 0; i < h->n; i++) {
			h->bounds[i] = bounds_ns[i] / 1e9;
			h->buckets[i] = buckets[i];
		}
		h->count = n ? buckets[n - 1] : 0;
		h->sum = sum_ns / 1e9;
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* ---- /metrics ---- */

/* The process's own health: resident memory, CPU time. */
static void process_metrics(struct lock_service *s, struct prom_writer *w)
{
	struct rusage ru;
	unsigned long long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	prom__family(w, "process_resident_memory_bytes", PROM_GAUGE,
		     "Resident memory size in bytes.", "bytes");
	prom__sample_u64(w, NULL, rss * (uint64_t)sysconf(_SC_PAGESIZE));
	getrusage(RUSAGE_SELF, &ru);
	prom__family(w, "process_cpu_seconds", PROM_COUNTER,
		     "Total user and system CPU time spent in seconds.", "seconds");
	prom__sample(w, NULL, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	prom__family(w, "process_start_time_seconds", PROM_GAUGE,
		     "Start time of the process since unix epoch in seconds.", "seconds");
	prom__sample(w, NULL, s->start_time);
}

static void accounting_metrics(struct lock_service *s, struct prom_writer *w)
{
	const char *labels[3] = { "outcome", NULL, NULL };
	size_t i;

	prom__family(w, "frugal_lock_events", PROM_COUNTER,
		     "Where every contention event went, by the accounting's reason "
		     "(frugal lock's accounting block, its JSON keys).", NULL);
	for (i = 0; i < s->nacct; i++) {
		if (s->acct[i].level)
			continue;
		labels[1] = s->acct[i].key;
		prom__sample_u64(w, labels, s->acct[i].v);
	}
	prom__family(w, "frugal_lock_open_waits", PROM_GAUGE,
		     "Waits begun and not ended at the last tick (kernel and -U's).", NULL);
	labels[0] = "side";
	for (i = 0; i < s->nacct; i++) {
		if (!s->acct[i].level || !strstr(s->acct[i].key, "open_at_stop"))
			continue;
		labels[1] = strncmp(s->acct[i].key, "user_", 5) ? "kernel" : "user";
		prom__sample_u64(w, labels, s->acct[i].v);
	}
}

static void bpf_metrics(struct lock_service *s, struct prom_writer *w)
{
	const char *labels[3] = { "program", NULL, NULL };
	size_t i;

	prom__family(w, "frugal_lock_bpf_run_seconds", PROM_COUNTER,
		     "Time the BPF programs ran, from the kernel's statistics "
		     "(a pair's two programs together).", "seconds");
	for (i = 0; i < 5; i++) {
		if (!s->prog_runs[i])
			continue;
		labels[1] = prog_names[i];
		prom__sample(w, labels, s->prog_ns[i] / 1e9);
	}
	prom__family(w, "frugal_lock_bpf_runs", PROM_COUNTER,
		     "Runs of the BPF programs, from the kernel's statistics.", NULL);
	for (i = 0; i < 5; i++) {
		if (!s->prog_runs[i])
			continue;
		labels[1] = prog_names[i];
		prom__sample_u64(w, labels, s->prog_runs[i]);
	}
}

static void histogram_metrics(struct lock_service *s, struct prom_writer *w)
{
	const char *labels[3] = { "type", NULL, NULL };
	size_t i;

	if (!s->nhist)
		return;
	/* Not frugal_lock_wait_seconds: OpenMetrics names the counter's family so. */
	prom__family(w, "frugal_lock_wait_duration_seconds", PROM_HISTOGRAM,
		     "Kernel lock waits by length, per lock type.", "seconds");
	for (i = 0; i < s->nhist; i++) {
		const struct hist *h = &s->hist[i];

		labels[1] = h->type;
		prom__histogram(w, labels, h->bounds, h->buckets, h->n, h->count, h->sum);
	}
}

/* The series: contentions, then wait, per label set (and the `other` one). */
static void series_metrics(struct lock_service *s, struct prom_writer *w)
{
	const char *const *names = lock_series__label_names(s->rows);
	size_t nl = lock_series__nlabels(s->rows), i, j, fam;
	const char *labels[2 * LOCK_SERIES_MAX_LABELS + 1];
	const struct lock_series_row *row;
	struct lock_series_fold f;

	for (fam = 0; fam < 2; fam++) {
		if (fam == 0)
			prom__family(w, "frugal_lock_contentions", PROM_COUNTER,
				     "Lock contentions (waits) that ended, by lock type and row.", NULL);
		else
			prom__family(w, "frugal_lock_wait_seconds", PROM_COUNTER,
				     "Time waited for locks, by lock type and row.", "seconds");
		lock_series__for_each(s->rows, i, row) {
			for (j = 0; j < nl; j++) {
				labels[2 * j] = names[j];
				labels[2 * j + 1] = row->values[j];
			}
			labels[2 * nl] = NULL;
			if (fam == 0)
				prom__sample_u64(w, labels, row->contentions);
			else
				prom__sample(w, labels, row->wait_ns / 1e9);
		}
	}
	lock_series__folded(s->rows, &f);
	prom__family(w, "frugal_lock_series_folded", PROM_COUNTER,
		     "Label sets folded into the `other` series (--series-max).", NULL);
	prom__sample_u64(w, NULL, f.sets);
}

/* The windows not yet written (s->mu held). */
static uint64_t open_windows(const struct lock_service *s)
{
	const struct window *w;
	uint64_t n = 0;

	for (w = s->windows; w; w = w->next)
		n += !w->done;
	return n;
}

static int metrics_handler(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct lock_service *s = ctx;
	enum prom_format f = prom__negotiate(rq->accept);
	struct prom_writer w;
	double t0 = cli_now();
	int err;

	prom__init(&w, f);
	pthread_mutex_lock(&s->mu);
	series_metrics(s, &w);
	histogram_metrics(s, &w);
	accounting_metrics(s, &w);
	bpf_metrics(s, &w);
	prom__family(&w, "frugal_lock_ticks", PROM_COUNTER,
		     "Intervals read from the kernel and folded.", NULL);
	prom__sample_u64(&w, NULL, s->ticks);
	/* A continuous profiler holds a window open between its pulls: a
	 * profile that never comes back shows here, not only in its logs. */
	prom__family(&w, "frugal_lock_profile_windows", PROM_GAUGE,
		     "Profiles asked for at /debug/pprof/ whose window is still open.", NULL);
	prom__sample_u64(&w, NULL, open_windows(s));
	prom__family(&w, "frugal_lock_scrape_duration_seconds", PROM_GAUGE,
		     "How long the previous scrape of this endpoint took.", "seconds");
	prom__sample(&w, NULL, s->last_scrape_s);
	process_metrics(s, &w);
	s->scrapes++;
	s->last_scrape_s = cli_now() - t0;
	pthread_mutex_unlock(&s->mu);
	err = prom__finish(&w);
	if (err) {
		prom__free(&w);
		return err;
	}
	rs->content_type = prom__content_type(f);
	rs->body = w.buf;
	rs->len = w.len;
	w.buf = NULL;
	return 0;
}

/* ---- /debug/pprof/ ---- */

/* ?seconds=N: Go's default for a delta profile is 30; at most LOCK_SERVE_PPROF_MAX. */
static int window_seconds(const struct web_request *rq, double *secs)
{
	const char *v = web_request__arg(rq, "seconds");
	char *end;
	double d;

	*secs = 30;
	if (!v)
		return 0;
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d > 0) || d > LOCK_SERVE_PPROF_MAX)
		return -EINVAL;
	*secs = d;
	return 0;
}

static int text_response(struct web_response *rs, unsigned int status, const char *text)
{
	rs->status = status;
	rs->content_type = "text/plain; charset=utf-8";
	rs->body = strdup(text);
	if (!rs->body)
		return -ENOMEM;
	rs->len = strlen(text);
	return 0;
}

static void window_unlink(struct lock_service *s, struct window *w)
{
	struct window **p;

	for (p = &s->windows; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
}

static int pprof_handler(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct lock_service *s = ctx;
	const char *name = rq->path + strlen("/debug/pprof/");
	struct window *w;
	double secs;
	int err;

	if (!*name)
		return text_response(rs, 200, "/debug/pprof/mutex?seconds=N\n"
				     "/debug/pprof/block?seconds=N (the same: lock waits)\n");
	if (strcmp(name, "mutex") && strcmp(name, "block"))
		return text_response(rs, 404, "no such profile: mutex and block are served\n");
	if (window_seconds(rq, &secs)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "seconds: a number in (0, %d]\n", LOCK_SERVE_PPROF_MAX);
		return text_response(rs, 400, msg);
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->t = lock_table__new(s->rc->row_frames);
	if (!w->t) {
		free(w);
		return -ENOMEM;
	}
	w->end = cli_now() + secs;
	pthread_mutex_lock(&s->mu);
	if (s->stopping) {
		pthread_mutex_unlock(&s->mu);
		lock_table__free(w->t);
		free(w);
		return text_response(rs, 503, "stopping\n");
	}
	w->next = s->windows;
	s->windows = w;
	while (!w->done)
		pthread_cond_wait(&s->cv, &s->mu);
	window_unlink(s, w);
	pthread_mutex_unlock(&s->mu);
	err = w->err;
	if (!err) {
		rs->content_type = "application/octet-stream";
		rs->extra_header[0] = "Content-Disposition";
		rs->extra_header[1] = "attachment; filename=\"mutex.pb.gz\"";
		rs->body = w->body;
		rs->len = w->len;
		w->body = NULL;
	}
	free(w->body);
	lock_table__free(w->t);
	free(w);
	return err;
}

/* ---- / ---- */

static int index_handler(void *ctx, const struct web_request *rq, struct web_response *rs)
{
	struct lock_service *s = ctx;
	char *body = NULL;
	int n;

	if (strcmp(rq->path, "/"))
		return text_response(rs, 404, "not found\n");
	n = asprintf(&body,
		     "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		     "<title>frugal lock serve</title></head><body>\n"
		     "<h1>frugal lock serve</h1>\n<ul>\n"
		     "<li><a href=\"%s\">%s</a>: Prometheus metrics (text or OpenMetrics)</li>\n"
		     "<li><a href=\"/debug/pprof/mutex?seconds=30\">/debug/pprof/mutex?seconds=N</a>: "
		     "lock contention over the next N seconds, gzipped pprof "
		     "(/debug/pprof/block: the same)</li>\n"
		     "</ul>\n</body></html>\n", s->sc->telemetry_path, s->sc->telemetry_path);
	if (n < 0)
		return -ENOMEM;
	rs->content_type = "text/html; charset=utf-8";
	rs->body = body;
	rs->len = n;
	return 0;
}

/* ---- the service ---- */

/* The rows' labels, by mode: callers, -l (its address last, if exported), -g. */
static const char *const label_names[3][3] = {
	{ "type", "caller" }, { "type", "lock", "address" }, { "type", "cgroup" },
};

struct lock_service *lock_service__new(const struct lock_serve_cfg *sc,
				       const struct lock_report_cfg *rc,
				       void (*log)(void *ctx, const char *line), void *log_ctx)
{
	struct lock_service *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->sc = sc;
	s->rc = rc;
	s->log = log;
	s->log_ctx = log_ctx;
	s->start_time = wall_now();
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->rows = lock_series__new(label_names[sc->mode == LOCK_AGGR_ADDR ? 1 :
					       sc->mode == LOCK_AGGR_CGROUP ? 2 : 0],
				   sc->mode == LOCK_AGGR_ADDR && sc->export_addresses ? 3 : 2,
				   sc->series_max);
	if (!s->rows) {
		lock_service__free(s);
		return NULL;
	}
	s->routes[0] = (struct web_route){ sc->telemetry_path, metrics_handler };
	s->routes[1] = (struct web_route){ "/debug/pprof/", pprof_handler };
	s->routes[2] = (struct web_route){ "/", index_handler };
	return s;
}

int lock_service__listen(struct lock_service *s, char *why, size_t why_size)
{
	char reason[200] = "";
	struct web_addr addr;
	int err;

	err = web_addr__parse(s->sc->listen_address, &addr, reason, sizeof(reason));
	if (err) {
		snprintf(why, why_size, "--web.listen-address: %s", reason);
		return err;
	}
	if (!web_addr__is_loopback(&addr) && !s->sc->web_config && !s->sc->listen_remote) {
		snprintf(why, why_size, "--web.listen-address: %s is not a loopback address: "
			 "give --web.config.file (TLS, users) or --web.listen-remote",
			 s->sc->listen_address);
		return -EPERM;
	}
	if (s->sc->web_config) {
		err = web_config__load(s->sc->web_config, &s->wcfg, reason, sizeof(reason));
		if (err) {
			snprintf(why, why_size, "--web.config.file: %s", reason);
			return err;
		}
	}
	s->web = web_server__start(&addr, s->sc->web_config ? &s->wcfg : NULL, s->routes, s,
				   NULL, web_log, reason, sizeof(reason));
	if (!s->web) {
		err = -errno;
		snprintf(why, why_size, "%s: %s", s->sc->listen_address, reason);
		return err;
	}
	logf_(s, "listening on %s (port %u)", s->sc->listen_address,
	      web_server__port(s->web));
	return 0;
}

unsigned int lock_service__port(const struct lock_service *s)
{
	return s->web ? web_server__port(s->web) : 0;
}

void lock_service__stop(struct lock_service *s)
{
	struct window *w;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	/* A window still open is answered with the ticks it has. */
	for (w = s->windows; w; w = w->next)
		if (!w->done)
			window_write(s, w, NULL);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	web_server__stop(s->web);
	s->web = NULL;
}

void lock_service__free(struct lock_service *s)
{
	if (!s)
		return;
	lock_service__stop(s);
	lock_series__free(s->rows);
	web_config__free(&s->wcfg);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
