// SPDX-License-Identifier: GPL-2.0
/* The kernel plumbing both collectors share: see rows.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/tracefs.h"
#include "lock/rows/rows.h"

/*
 * One perf buffer a CPU.  The kernel's overflow buffers wake their reader
 * when half full, not at each record (which would be an interrupt per
 * overflowing end); it also drains at every poll timeout.
 */
void lock_perf__output_attr(struct perf_event_attr *attr, size_t wake_bytes)
{
	*attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
	};
	if (wake_bytes) {
		attr->watermark = 1;
		attr->wakeup_watermark = wake_bytes;
	} else {
		attr->wakeup_events = 1;
	}
}

struct bpf_link *lock_perf__attach_tp(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *name;
	char category[64];
	struct bpf_link *link;
	int fd, err;

	/* "tracepoint/CATEGORY/NAME" */
	sec = strchr(sec, '/');
	name = sec ? strchr(sec + 1, '/') : NULL;
	if (!name || (size_t)(name - sec) > sizeof(category)) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(category, sizeof(category), "%.*s", (int)(name - sec - 1), sec + 1);
	fd = tracefs__open_event(category, name + 1);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		err = errno;
		close(fd);	/* the link owns it only once made */
		errno = err;
	}
	return link;
}

int lock_counters__read(int fd, uint32_t nr, uint64_t *sums)
{
	int nr_cpus = libbpf_num_possible_cpus(), j, err = 0;
	uint64_t *v;
	uint32_t i;

	if (nr_cpus < 0)
		return nr_cpus;
	v = calloc(nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		sums[i] = 0;
		err = bpf_map_lookup_elem(fd, &i, v) ? -errno : 0;
		for (j = 0; !err && j < nr_cpus; j++)
			sums[i] += v[j];
	}
	free(v);
	return err;
}

void lock_prog__stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns, uint64_t *misses)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!bpf_program__autoload(p) || bpf_program__fd(p) < 0 ||
	    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return;
	if (runs)
		*runs += info.run_cnt;
	if (ns)
		*ns += info.run_time_ns;
	if (misses)
		*misses += info.recursion_misses;
}

double lock_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
