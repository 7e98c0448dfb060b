// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the report's addresses, from the kernel itself (see
 * symbolize.bpf.c), in batches; the answers go into a small ksyms table so
 * the report looks them up like any other.  When the kernel cannot run the
 * program, /proc/kallsyms is read instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/ksyms.h"
#include "lock/report/report.h"
#include "lock/rows/rows.h"
#include "lock/report/symbolize.skel.h"

#define NR_SLOTS (sizeof(((struct symbolize_bpf__bss *)0)->addrs) / sizeof(uint64_t))

/* "name+0x1f/0x80 [module]" for ADDR: the symbol starts at ADDR - 0x1f. */
static int add_answer(struct ksyms *ks, uint64_t addr, const char *s, char type)
{
	const char *plus = strrchr(s, '+');
	char name[128];
	uint64_t off;
	char *end;

	if (!plus || plus == s || strncmp(plus, "+0x", 3))
		return 0;	/* no symbol: the address stays a number */
	off = strtoull(plus + 1, &end, 16);
	if (*end != '/' || off > addr || (size_t)(plus - s) >= sizeof(name))
		return 0;
	memcpy(name, s, plus - s);
	name[plus - s] = '\0';
	return ksyms__add(ks, addr - off, type, name);
}

/* N addresses from ADDRS, the first NR_DATA of them data. */
static int run_batch(struct symbolize_bpf *skel, struct ksyms *ks,
		     const uint64_t *addrs, size_t n, size_t nr_data)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	size_t i;
	int err;

	skel->bss->nr = n;
	memcpy(skel->bss->addrs, addrs, n * sizeof(*addrs));
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.symbolize), &opts);
	if (err)
		return -errno;
	for (i = 0; i < n; i++) {
		skel->bss->names[i][sizeof(skel->bss->names[i]) - 1] = '\0';
		err = add_answer(ks, addrs[i], skel->bss->names[i], i < nr_data ? 'd' : 't');
		if (err)
			return err;
	}
	return 0;
}

struct ksyms *lock_symbolize(const uint64_t *addrs, size_t n, size_t nr_data,
			     const char *const *marks, size_t nr_marks)
{
	struct symbolize_bpf *skel = NULL;
	struct ksyms *ks = ksyms__new();
	size_t i, len;
	int err = -ENOMEM;

	if (!ks)
		goto fail;
	skel = symbolize_bpf__open_and_load();
	err = skel ? 0 : -errno;
	if (err)
		goto fail;
	for (i = 0; i < nr_marks && i < 4; i++)
		snprintf(skel->bss->mark_names[i], sizeof(skel->bss->mark_names[i]),
			 "%s", marks[i]);
	for (i = 0; i < n || (i == 0 && nr_marks); i += NR_SLOTS) {
		len = n - i < NR_SLOTS ? n - i : NR_SLOTS;
		err = run_batch(skel, ks, addrs + i, len, nr_data > i ? nr_data - i : 0);
		if (err)
			goto fail;
		memset(skel->bss->mark_names, 0, sizeof(skel->bss->mark_names));
	}
	for (i = 0; i < nr_marks && i < 4; i++)
		if (skel->bss->marks[i] && (err = ksyms__add(ks, skel->bss->marks[i], 'T', marks[i])))
			goto fail;
	ksyms__sort(ks);
	symbolize_bpf__destroy(skel);
	return ks;
fail:
	symbolize_bpf__destroy(skel);
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

struct ksyms *lock_report_syms(const struct lock_report_cfg *rc, struct lock_table *t)
{
	static const char *const marks[] = {
		"__lock_text_start", "__lock_text_end",
		"__sched_text_start", "__sched_text_end",
	};
	struct lock_row **rows = lock_table__sorted(t, rc->sort);
	size_t i, j, n = lock_table__len(t), nr = 0, nr_data, frames;
	struct ksyms *ks = NULL;
	uint64_t *addrs;

	/* Rows about to be merged (lock_report_merged) are named first, all. */
	if (rc->entries && n > rc->entries && !lock_report_merges(rc))
		n = rc->entries;
	frames = rc->row_frames;
	addrs = malloc((n ? n : 1) * (frames + 1) * sizeof(*addrs));
	if (rows && addrs) {
		/* the locks' addresses first (data), then the frames (code) */
		for (i = 0; i < n && rc->mode == LOCK_AGGR_ADDR; i++)
			if (!(rows[i]->st.flags & LOCK_F_USER))	/* named by lock/ustack.c */
				addrs[nr++] = rows[i]->key;
		nr_data = nr;
		for (i = 0; i < n; i++)
			for (j = 0; !(rows[i]->st.flags & LOCK_F_USER) && rows[i]->stack &&
				    j < frames && rows[i]->stack[j]; j++)
				addrs[nr++] = rows[i]->stack[j];
		/* The kernel names them fastest; /proc/kallsyms is the fallback. */
		ks = lock_symbolize(addrs, nr, nr_data, marks, 4);
		if (!ks) {
			cli_log("lock: kernel symbolizer unavailable (%s): reading /proc/kallsyms\n",
				strerror(errno));
			ks = ksyms__load_addrs(NULL, addrs, nr, marks, 4);
		}
	} else {
		errno = ENOMEM;
	}
	free(addrs);
	free(rows);
	return ks;
}
