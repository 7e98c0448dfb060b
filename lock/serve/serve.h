/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's service stage (lock/serve/), its contract: what `frugal
 * lock serve` keeps between its ticks and serves over HTTP (lib/web.h).
 * Each tick hands it an interval's rows, named as the report names them,
 * and the interval's accounting; it folds them into cumulative series
 * (series.c: bounded per family, the rest in one `other` series, counted)
 * and answers:
 *
 *	/metrics (or the telemetry path)  Prometheus text or OpenMetrics,
 *	                                  by the scraper's Accept (lib/prom.h)
 *	/debug/pprof/mutex?seconds=N      the contention of the next N seconds'
 *	/debug/pprof/block?seconds=N      ticks, as --pprof writes it (gzipped
 *	                                  profile.proto); block is mutex's alias
 *	/                                 a page listing them
 *
 * Threads: the ticks come from the command's loop (the only thread that
 * touches the collector, the symbols and the rows); the handlers run on
 * the server's threads and read only what the service copies under its
 * lock.  A profile is written on the tick thread when its window closes
 * and handed to the handler waiting for it.
 *
 * An engine: 0 or a negative errno, NULL with errno set, a reason in the
 * caller's buffer where one helps; log lines (a refused request, a failed
 * handler) through the caller's callback; never prints.
 */
#ifndef FRUGAL_LOCK_SERVE_H
#define FRUGAL_LOCK_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "lock/request/request.h"
#include "lock/rows/rows.h"

struct ksyms;
struct lock_run_info;
struct lock_service;

/*
 * The service for SC, naming rows as RC's report does (both outlive it).
 * LOG (may be NULL) gets one line per refused request or failed handler.
 * NULL with errno set.
 */
struct lock_service *lock_service__new(const struct lock_serve_cfg *sc,
				       const struct lock_report_cfg *rc,
				       void (*log)(void *ctx, const char *line), void *log_ctx);
/*
 * Listen as SC says: the address parsed, refused beyond loopback without
 * --web.config.file or --web.listen-remote, the configuration file read.
 * 0, or -errno with WHY ("--web.listen-address: ...").
 */
int lock_service__listen(struct lock_service *s, char *why, size_t why_size);
/* The port listened on (the one asked, or the kernel's choice for port 0). */
unsigned int lock_service__port(const struct lock_service *s);
/*
 * One tick: T's rows (the interval's, merged as the report merges them;
 * named with KS, which may be NULL) folded into the series, A's counts
 * into the cumulative accounting, the rows into the profile windows that
 * are open, and each window that SECONDS closes written.  RI describes
 * the interval.  T stays the caller's.  0 or -ENOMEM (nothing folded).
 */
int lock_service__tick(struct lock_service *s, struct lock_table *t,
		       const struct lock_accounting *a, const struct lock_run_info *ri,
		       struct ksyms *ks);
/*
 * The wait-time histogram of the lock type named TYPE (lock_type_name()'s
 * string, which outlives the service), cumulative since the start:
 * BUCKETS[i] waits of at most BOUNDS_NS[i] nanoseconds (the last bound
 * UINT64_MAX, +Inf: the count), and their total.  Replaces what the type
 * had.  A tick hands it before its rows (lock_service__tick), so a scrape
 * never finds a type's count below its contentions.  0 or -ENOMEM.
 */
int lock_service__histogram(struct lock_service *s, const char *type, const uint64_t *bounds_ns,
			    const uint64_t *buckets, size_t n, uint64_t sum_ns);
/*
 * Stop serving: the handlers in flight finish (a profile window waiting
 * for ticks is answered with what it has), then the socket is closed.
 * Before lock_service__free; NULL-safe.
 */
void lock_service__stop(struct lock_service *s);
void lock_service__free(struct lock_service *s);	/* NULL-safe; stops first */

#endif
