// SPDX-License-Identifier: GPL-2.0
/*
 * frugal bench lock --owner: a lock whose holder is known.  One thread
 * ("holder") holds a shmem file's inode lock through long writes while
 * others ("waiter") write a page to it now and then; with --holder-hold,
 * each hold lasts as long as the bench chooses.  Both sides time their
 * writes, and the bench says the totals.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "cli/cli.h"
#include "lock/workload/workload_int.h"

/*
 * --owner: a write to a shmem file holds its inode's i_rwsem throughout the
 * copy; 8 MB takes milliseconds here, a page microseconds.  The waiters
 * pause between writes (--waiter-pause, 1 ms by default) so that they
 * mostly wait on the holder, not on each other: owner mode must find the
 * holder behind most of the wait.  Without a pause they also wait on each
 * other, behind holds of microseconds.  Each worker times its writes (the
 * wait for the lock, the hold and the copy): the bench says the totals.
 */
#define HOLDER_BYTES	(8 << 20)

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * --holder-hold SECS: the holder writes one page from a userfaultfd page
 * that is missing at each write.  The write takes the inode lock, then
 * faults in its source, and sleeps in the fault, the lock held, until
 * this resolver answers it SECS later: holds of a length the bench
 * chooses, timed by its own clock from the fault's arrival to its answer.
 */
void *bench_resolver(void *arg)
{
	struct bench *b = arg;
	long long p = (long long)(b->holder_hold * 1e9);
	struct timespec hold = { p / 1000000000, p % 1000000000 };
	struct pollfd pfd = { .fd = b->ufd, .events = POLLIN };
	struct uffd_msg msg;

	prctl(PR_SET_NAME, "resolver");
	bench_start_line(b);
	while (!b->holder_over && !bench_past(&b->clk->leave)) {
		struct uffdio_zeropage z = { .range = { (uintptr_t)b->upage, b->upage_size } };
		unsigned long long t;

		if (poll(&pfd, 1, 100) <= 0 || read(b->ufd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		t = now_ns();
		nanosleep(&hold, NULL);
		if (ioctl(b->ufd, UFFDIO_ZEROPAGE, &z) && errno != EEXIST)
			break;
		t = now_ns() - t;
		b->uholds++;
		b->uhold_ns += t;
		b->uhold_max_ns = t > b->uhold_max_ns ? t : b->uhold_max_ns;
	}
	/* counted among the threads the bench waits for before "run over" */
	bench_worker_done(b);
	return NULL;
}

/* --holder-hold: the holder's page, registered for its missing faults. */
static int holder_page(struct bench *b)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	b->upage_size = (size_t)sysconf(_SC_PAGESIZE);
	b->ufd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (b->ufd < 0)
		return cli_err("userfaultfd", "%s", strerror(errno));
	if (ioctl(b->ufd, UFFDIO_API, &api))
		return cli_err("userfaultfd", "UFFDIO_API: %s", strerror(errno));
	b->upage = mmap(NULL, b->upage_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (b->upage == MAP_FAILED) {
		b->upage = NULL;
		return cli_err("mmap", "%s", strerror(errno));
	}
	reg.range.start = (uintptr_t)b->upage;
	reg.range.len = b->upage_size;
	if (ioctl(b->ufd, UFFDIO_REGISTER, &reg))
		return cli_err("userfaultfd", "UFFDIO_REGISTER: %s", strerror(errno));
	return 0;
}

void *bench_holder(void *arg)
{
	struct bench *b = arg;
	long long p = (long long)(b->holder_pause * 1e9);
	struct timespec pause = { p / 1000000000, p % 1000000000 };
	unsigned long long t, ns = 0, max = 0, n = 0;
	ssize_t w;

	/* Named before anything it does can make others wait (frugal keeps
	 * the comm a task had at its first contention). */
	prctl(PR_SET_NAME, "holder");
	b->holder_tid = gettid();
	bench_start_line(b);
	do {
		t = now_ns();
		if (b->upage) {
			/* missing again: the write's copy faults on it */
			madvise(b->upage, b->upage_size, MADV_DONTNEED);
			w = pwrite(b->memfd, b->upage, b->upage_size, 0);
		} else {
			w = pwrite(b->memfd, b->holder_buf, HOLDER_BYTES, 0);
		}
		if (w < 0)
			break;
		t = now_ns() - t;
		ns += t;
		max = t > max ? t : max;
		if (p)
			nanosleep(&pause, NULL);
	} while (++n, !bench_past(&b->clk->stop));
	b->holder_writes = n;
	b->holder_ns = ns;
	b->holder_max_ns = max;
	b->holder_over = true;
	bench_worker_done(b);
	bench_wait_until(&b->clk->leave);
	return NULL;
}

void *bench_waiter(void *arg)
{
	struct bench *b = arg;
	long long p = (long long)(b->waiter_pause * 1e9);
	struct timespec pause = { p / 1000000000, p % 1000000000 };
	unsigned long long t, ns = 0, n = 0;
	char page[4096];

	prctl(PR_SET_NAME, "waiter");
	memset(page, 'w', sizeof(page));
	bench_start_line(b);
	do {
		t = now_ns();
		if (pwrite(b->memfd, page, sizeof(page), 0) < 0)
			break;
		ns += now_ns() - t;
		n++;
		if (p)
			nanosleep(&pause, NULL);
	} while (!bench_past(&b->clk->stop));
	__atomic_fetch_add(&b->waiter_writes, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&b->waiter_ns, ns, __ATOMIC_RELAXED);
	bench_worker_done(b);
	bench_wait_until(&b->clk->leave);
	return NULL;
}

/* --owner: the workers' own timing of their writes, said once. */
void bench_owner_timing(struct bench *b)
{
	if (!b->owner || b->timing_said)
		return;
	b->timing_said = true;
	fprintf(stderr, "frugal bench lock: holder: %llu writes, %.6f s in them (longest %.6f s); "
		"waiters: %llu writes, %.6f s in them\n", b->holder_writes, b->holder_ns / 1e9,
		b->holder_max_ns / 1e9, b->waiter_writes, b->waiter_ns / 1e9);
	if (b->upage)
		fprintf(stderr, "frugal bench lock: holder's faults held: %llu, %.6f s in them "
			"(longest %.6f s)\n", b->uholds, b->uhold_ns / 1e9, b->uhold_max_ns / 1e9);
}

int bench_owner_setup(struct bench *b)
{
	int err;

	b->memfd = memfd_create("frugal-owner", MFD_CLOEXEC);
	if (b->memfd < 0)
		return cli_err("memfd_create", "%s", strerror(errno));
	if (b->holder_hold > 0 && (err = holder_page(b)))
		return err;
	/*
	 * The holder's buffer, made before any thread: its mmap and page
	 * faults take mmap_lock, and a wait on that is not the inode lock's
	 * (a -o row keeps its owner's stack from the first wait on it).
	 */
	b->holder_buf = malloc(HOLDER_BYTES);
	if (!b->holder_buf)
		return cli_err(NULL, "out of memory");
	memset(b->holder_buf, 'h', HOLDER_BYTES);
	return 0;
}

void bench_owner_free(struct bench *b)
{
	if (b->memfd >= 0)
		close(b->memfd);
	if (b->ufd >= 0)
		close(b->ufd);
	if (b->upage)
		munmap(b->upage, b->upage_size);
	free(b->holder_buf);
}
