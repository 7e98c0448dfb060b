// SPDX-License-Identifier: GPL-2.0
/*
 * --pprof FILE: the report as a gzipped profile.proto, what go tool pprof,
 * Pyroscope and Parca read (github.com/google/pprof, proto/profile.proto).
 * Shaped like Go's own mutex profile, so their views of it apply as they are:
 *
 *   sample_type    [contentions/count, delay/nanoseconds]; default: delay
 *   period_type    contentions/count, period 1
 *   sample         one a printed row, values [contended, total wait ns],
 *                  locations leaf first, label lock_type = "rwsem:W", ...;
 *                  rows with no contention (a definition only) are left out
 *   location       a kernel frame: its address in the kernel's mapping,
 *                  one a distinct address; a frame that is no code (the
 *                  lock type as the leaf, "[mutex]"; the task "comm-tid",
 *                  lock or cgroup at the root with -t, -l, -g): no
 *                  address, no mapping, one a distinct name
 *   function       one a distinct name, no file or line
 *   mapping        [kernel.kallsyms], from the lowest frame seen (or
 *                  _stext) to ~0, has_functions; only if a frame is code
 *   comment        the run, then each accounting line ("completed 1234"),
 *                  so what is not in a sample is still in the file
 *   time_nanos     the start: now, the report's time, less the duration
 *
 * The frames are lock_out__stack()'s, as the folded and SVG outputs draw
 * them: the task, lock or cgroup is a frame rather than a label so that a
 * flame graph shows it; the type is both, a frame and a label that
 * -tagfocus can select.  Strings, functions and locations are each kept
 * once, found again through hash maps (16384 rows of 16 frames would make
 * a quadratic search felt).  The message is built in memory, each
 * repeated field in its own buffer (protobuf's fields may come in any
 * order; a repeated field keeps its own), and the buffers are deflated
 * into the file at the footer.  The encoding is a few varints and
 * length-prefixed bytes: no protobuf library needed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "lib/array.h"
#include "lib/hash.h"
#include "lib/idxmap.h"
#include "lib/ksyms.h"
#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD, PROFILE_COMMENT,
	PROFILE_DEFAULT_SAMPLE_TYPE,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL,
	LABEL_KEY = 1, LABEL_STR,
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILENAME = 5,
	MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME,
};
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

#define KERNEL_MAPPING_ID 1

/*
 * A growing byte buffer.  A failed growth is kept in ERR and every later
 * write to the buffer is dropped, so the encoders need not check each
 * write: the footer checks once, and writes nothing if any failed.
 */
struct pb {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* The profile's parts, in the order they go into the file. */
enum {
	SEC_HEAD,	/* sample types, period, default sample type */
	SEC_SAMPLE,
	SEC_LOCATION,
	SEC_FUNCTION,
	SEC_STRING,
	SEC_TAIL,	/* mapping, times, comments */
	NR_SEC,
};

struct pprof {
	struct pb sec[NR_SEC];
	struct pb msg, sub, packed;	/* scratch: a message, one nested in it, a packed field */
	struct idxmap strs;		/* string indexes, by the string's hash */
	struct idxmap funcs;		/* function id - 1, by func_key */
	struct idxmap locs_ip;		/* location id - 1, by address */
	struct idxmap locs_fn;		/* location id - 1, by function id (non-code frames) */
	uint64_t *func_key;		/* function id - 1 -> its name's string index */
	uint64_t *loc_key;		/* location id - 1 -> its address or function id */
	size_t func_cap, loc_cap;
	struct { uint32_t off, len; } *str_at;	/* string I's bytes in sec[SEC_STRING] */
	size_t nstr, str_cap;
	uint32_t nfunc, nloc;
	uint64_t *comments;		/* string indices */
	size_t ncomments, comments_cap;
	uint64_t low_ip;		/* the lowest code address seen; 0: none */
	uint32_t lock_type_key;		/* "lock_type" */
};

/* ---- the wire format ---- */

static void pb_put(struct pb *b, const void *data, size_t len)
{
	if (b->err)
		return;
	if (b->len + len < b->len) {
		b->err = -ENOMEM;
		return;
	}
	b->err = array__grow(&b->p, &b->cap, b->len + len, 1, 256);
	if (b->err)
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	pb_put(b, buf, n);
}

/* A varint field; zero is the default and is left out, as protobuf does. */
static void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned int field, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | WIRE_LEN);
	pb_varint(b, len);
	pb_put(b, data, len);
}

/* MSG, finished, as field FIELD of B; MSG is emptied for the next one. */
static void pb_msg(struct pb *b, unsigned int field, struct pb *msg)
{
	if (msg->err && !b->err)
		b->err = msg->err;
	pb_bytes(b, field, msg->p, msg->len);
	msg->len = 0;
	msg->err = 0;
}

/* A packed repeated field: the varints of V[0..N). */
static void pb_packed(struct pb *b, unsigned int field, struct pb *scratch,
		      const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(scratch, v[i]);
	pb_msg(b, field, scratch);
}

/* ---- maps ---- */

/* KEY's index in the map M over KEYS: true and *IDX, or false with P where it goes. */
static bool map_find(const struct idxmap *m, const uint64_t *keys, uint64_t key,
		     struct idxmap_probe *p, uint32_t *idx)
{
	uint32_t i;

	idxmap__for_each_candidate(m, key, p, i)
		if (keys[i] == key) {
			*idx = i;
			return true;
		}
	return false;
}

/* ---- the profile's tables ---- */

static bool same_str(const struct pprof *pp, uint32_t i, const char *s)
{
	const struct pb *b = &pp->sec[SEC_STRING];

	return pp->str_at[i].len == strlen(s) &&
	       !memcmp(b->p + pp->str_at[i].off, s, pp->str_at[i].len);
}

/* S's index in the string table, added if new; 0 ("") when out of memory. */
static uint32_t pp_string(struct pprof *pp, const char *s)
{
	struct pb *b = &pp->sec[SEC_STRING];
	uint64_t h = hash_fnv1a_str(s);
	size_t len = strlen(s);
	struct idxmap_probe p;
	uint32_t i;

	if (b->err || (b->err = idxmap__reserve(&pp->strs, 1)) ||
	    (b->err = array__grow(&pp->str_at, &pp->str_cap, pp->nstr + 1,
				  sizeof(*pp->str_at), 64)))
		return 0;
	idxmap__for_each_candidate(&pp->strs, h, &p, i)
		if (same_str(pp, i, s))
			return i;
	pb_varint(b, PROFILE_STRING_TABLE << 3 | WIRE_LEN);
	pb_varint(b, len);
	pp->str_at[pp->nstr].off = b->len;
	pp->str_at[pp->nstr].len = len;
	pb_put(b, s, len);
	if (b->err)
		return 0;
	idxmap__probe_put(&pp->strs, &p, pp->nstr);
	return pp->nstr++;
}

/* The id of the function called NAME, added if new; 0 when out of memory. */
static uint32_t pp_function(struct pprof *pp, const char *name)
{
	struct pb *b = &pp->sec[SEC_FUNCTION];
	uint32_t str = pp_string(pp, name), i;
	struct idxmap_probe p;

	if (b->err || (b->err = idxmap__reserve(&pp->funcs, 1)) ||
	    (b->err = array__grow(&pp->func_key, &pp->func_cap, pp->nfunc + 1,
				  sizeof(*pp->func_key), 64)))
		return 0;
	if (map_find(&pp->funcs, pp->func_key, str, &p, &i))
		return i + 1;
	pp->func_key[pp->nfunc] = str;
	idxmap__probe_put(&pp->funcs, &p, pp->nfunc);
	pp->nfunc++;
	pb_uint(&pp->msg, FUNCTION_ID, pp->nfunc);
	pb_uint(&pp->msg, FUNCTION_NAME, str);
	pb_uint(&pp->msg, FUNCTION_SYSTEM_NAME, str);
	pb_msg(b, PROFILE_FUNCTION, &pp->msg);
	return pp->nfunc;
}

/* The id of FR's location: by address for code, by name for the rest. */
static uint32_t pp_location(struct pprof *pp, const struct lock_frame *fr)
{
	struct pb *b = &pp->sec[SEC_LOCATION];
	struct idxmap *m = fr->ip ? &pp->locs_ip : &pp->locs_fn;
	uint32_t fn = 0, i;
	struct idxmap_probe p;
	uint64_t key;

	if (!fr->ip)
		fn = pp_function(pp, fr->name);
	if (b->err || (b->err = idxmap__reserve(m, 1)) ||
	    (b->err = array__grow(&pp->loc_key, &pp->loc_cap, pp->nloc + 1,
				  sizeof(*pp->loc_key), 64)))
		return 0;
	key = fr->ip ? fr->ip : fn;
	if (map_find(m, pp->loc_key, key, &p, &i))
		return i + 1;
	/* pp_function() changes other maps only: P stays good for M. */
	if (fr->ip)
		fn = pp_function(pp, fr->name);
	pp->loc_key[pp->nloc] = key;
	idxmap__probe_put(m, &p, pp->nloc);
	pp->nloc++;
	pb_uint(&pp->msg, LOCATION_ID, pp->nloc);
	if (fr->ip) {
		pb_uint(&pp->msg, LOCATION_MAPPING_ID, KERNEL_MAPPING_ID);
		pb_uint(&pp->msg, LOCATION_ADDRESS, fr->ip);
		if (!pp->low_ip || fr->ip < pp->low_ip)
			pp->low_ip = fr->ip;
	}
	pb_uint(&pp->sub, LINE_FUNCTION_ID, fn);
	pb_msg(&pp->msg, LOCATION_LINE, &pp->sub);
	pb_msg(b, PROFILE_LOCATION, &pp->msg);
	return pp->nloc;
}

static void pp_comment(struct pprof *pp, const char *text)
{
	struct pb *b = &pp->sec[SEC_TAIL];
	uint32_t str = pp_string(pp, text);

	if (!b->err)
		b->err = array__grow(&pp->comments, &pp->comments_cap, pp->ncomments + 1,
				     sizeof(*pp->comments), 32);
	if (!b->err)
		pp->comments[pp->ncomments++] = str;
}

/* A ValueType {type, unit} as field FIELD of B. */
static void pp_value_type(struct pprof *pp, struct pb *b, unsigned int field,
			  const char *type, const char *unit)
{
	pb_uint(&pp->msg, VALUE_TYPE_TYPE, pp_string(pp, type));
	pb_uint(&pp->msg, VALUE_TYPE_UNIT, pp_string(pp, unit));
	pb_msg(b, field, &pp->msg);
}

static void pprof_free(struct pprof *pp)
{
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < NR_SEC; i++)
		free(pp->sec[i].p);
	free(pp->msg.p);
	free(pp->sub.p);
	free(pp->packed.p);
	idxmap__free(&pp->strs);
	idxmap__free(&pp->funcs);
	idxmap__free(&pp->locs_ip);
	idxmap__free(&pp->locs_fn);
	free(pp->func_key);
	free(pp->loc_key);
	free(pp->str_at);
	free(pp->comments);
	free(pp);
}

/* ---- the format ---- */

static void header(struct lock_out *out)
{
	const struct lock_run_info *ri = out->ri;
	struct pprof *pp = calloc(1, sizeof(*pp));
	const char *nname = out->rc->hold ? "holds" : "contentions";
	const char *tname = out->rc->hold ? "hold" : "delay";
	char buf[512];

	out->priv = pp;
	if (!pp) {
		out->err = -ENOMEM;
		return;
	}
	pp_string(pp, "");	/* string_table[0] must be "" */
	/* --hold: holds and their time, not contentions and delay */
	pp_value_type(pp, &pp->sec[SEC_HEAD], PROFILE_SAMPLE_TYPE, nname, "count");
	pp_value_type(pp, &pp->sec[SEC_HEAD], PROFILE_SAMPLE_TYPE, tname, "nanoseconds");
	pp_value_type(pp, &pp->sec[SEC_HEAD], PROFILE_PERIOD_TYPE, nname, "count");
	pb_uint(&pp->sec[SEC_HEAD], PROFILE_PERIOD, 1);
	pb_uint(&pp->sec[SEC_HEAD], PROFILE_DEFAULT_SAMPLE_TYPE, pp_string(pp, tname));
	pp->lock_type_key = pp_string(pp, "lock_type");
	/* (the mode shows in the frames: a task, lock or cgroup at the root) */
	snprintf(buf, sizeof(buf), "frugal lock, attached with %s, kernel %s%s%s",
		 ri && ri->attach ? ri->attach : "?",
		 ri && ri->kernel ? ri->kernel : "?", ri && ri->command ? ", command " : "",
		 ri && ri->command ? ri->command : "");
	pp_comment(pp, buf);
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	struct lock_frame frames[LOCK_MAX_FRAMES];
	uint64_t ids[LOCK_MAX_FRAMES], values[2];
	struct pprof *pp = out->priv;
	struct pb *b;
	size_t i, n;

	(void)idx;
	if (!pp || (!r->st.count && !r->st.total_ns))
		return;
	b = &pp->sec[SEC_SAMPLE];
	/* pprof wants the leaf first, lock_out__stack gives the root first. */
	n = lock_out__stack(out, r, rn, frames);
	for (i = 0; i < n; i++)
		ids[i] = pp_location(pp, &frames[n - 1 - i]);
	values[0] = r->st.count;
	values[1] = r->st.total_ns;
	pb_packed(&pp->msg, SAMPLE_LOCATION_ID, &pp->packed, ids, n);
	pb_packed(&pp->msg, SAMPLE_VALUE, &pp->packed, values, 2);
	pb_uint(&pp->sub, LABEL_KEY, pp->lock_type_key);
	pb_uint(&pp->sub, LABEL_STR, pp_string(pp, lock_type_name(r->st.flags)));
	pb_msg(&pp->msg, SAMPLE_LABEL, &pp->sub);
	pb_msg(b, PROFILE_SAMPLE, &pp->msg);
}

static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	struct pprof *pp = out->priv;
	char buf[128];
	size_t i;

	if (!pp)
		return;
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s %" PRIu64, l[i].json, l[i].v);
		pp_comment(pp, buf);
	}
	if (a->have_stats) {
		snprintf(buf, sizeof(buf), "bpf_cost_ns begin %.0f end %.0f",
			 a->begin_runs ? (double)a->begin_ns / a->begin_runs : 0.0,
			 a->end_runs ? (double)a->end_ns / a->end_runs : 0.0);
		pp_comment(pp, buf);
	}
}

/* The kernel's mapping, the times and the comments, once every row is in. */
static void tail(struct lock_out *out, struct pprof *pp)
{
	struct pb *b = &pp->sec[SEC_TAIL];
	double secs = out->ri ? out->ri->seconds : 0;
	uint64_t stext, dur = secs > 0 ? (uint64_t)(secs * 1e9 + 0.5) : 0;
	struct timespec now;

	if (pp->low_ip) {
		if (out->ks && !ksyms__find(out->ks, "_stext", &stext) && stext &&
		    stext < pp->low_ip)
			pp->low_ip = stext;
		pb_uint(&pp->msg, MAPPING_ID, KERNEL_MAPPING_ID);
		pb_uint(&pp->msg, MAPPING_MEMORY_START, pp->low_ip);
		pb_uint(&pp->msg, MAPPING_MEMORY_LIMIT, ~0ULL);
		pb_uint(&pp->msg, MAPPING_FILENAME, pp_string(pp, "[kernel.kallsyms]"));
		pb_uint(&pp->msg, MAPPING_HAS_FUNCTIONS, 1);
		pb_msg(b, PROFILE_MAPPING, &pp->msg);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	pb_uint(b, PROFILE_TIME_NANOS,
		(uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec - dur);
	pb_uint(b, PROFILE_DURATION_NANOS, dur);
	pb_packed(b, PROFILE_COMMENT, &pp->packed, pp->comments, pp->ncomments);
}

/* LEN bytes at P into the gzip stream Z, and what comes out into F. */
static int deflate_to(z_stream *z, const uint8_t *p, size_t len, int flush, FILE *f)
{
	unsigned char obuf[16384];
	size_t chunk, have;
	int zerr;

	do {
		chunk = len > (1u << 30) ? 1u << 30 : len;
		z->next_in = (unsigned char *)p;
		z->avail_in = chunk;
		p += chunk;
		len -= chunk;
		do {
			z->next_out = obuf;
			z->avail_out = sizeof(obuf);
			zerr = deflate(z, len ? Z_NO_FLUSH : flush);
			if (zerr == Z_STREAM_ERROR)
				return -EIO;
			have = sizeof(obuf) - z->avail_out;
			errno = 0;
			if (fwrite(obuf, 1, have, f) != have)
				return errno ? -errno : -EIO;
		} while (!z->avail_out);
	} while (len);
	return 0;
}

/* The sections, one protobuf message, gzipped into F. */
static int gzip_out(FILE *f, const struct pprof *pp)
{
	z_stream z;
	int err = 0;
	size_t i;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	for (i = 0; i < NR_SEC && !err; i++)
		err = deflate_to(&z, pp->sec[i].p, pp->sec[i].len,
				 i + 1 == NR_SEC ? Z_FINISH : Z_NO_FLUSH, f);
	deflateEnd(&z);
	return err;
}

static void footer(struct lock_out *out)
{
	struct pprof *pp = out->priv;
	size_t i;

	if (!pp)
		return;
	tail(out, pp);
	for (i = 0; i < NR_SEC && !out->err; i++)
		out->err = pp->sec[i].err;
	if (!out->err)
		out->err = gzip_out(out->f, pp);
	pprof_free(pp);
	out->priv = NULL;
}

const struct lock_output lock_output_pprof = {
	.header = header,
	.row = row,
	.accounting = accounting,
	.footer = footer,
};
