// SPDX-License-Identifier: GPL-2.0
/*
 * lib/array and lib/io: growth doubles and refuses sizes that would
 * overflow; whole reads and writes survive a signal (EINTR) and report
 * the end of a file; a file written whole replaces a regular file (or a
 * symlink's target), and writes into a device or a pipe without replacing
 * it.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/io.h"
#include "tests/test.h"

static void test_array(void)
{
	size_t cap = 0;
	int *v = NULL;
	int err;

	TEST_BEGIN("array: grows by doubling from the first capacity");
	CHECK_EQ(array__grow(&v, &cap, 1, sizeof(*v), 16), 0);
	CHECK_EQ(cap, 16);
	v[15] = 7;
	CHECK_EQ(array__grow(&v, &cap, 16, sizeof(*v), 16), 0);
	CHECK_EQ(cap, 16);
	CHECK_EQ(array__grow(&v, &cap, 17, sizeof(*v), 16), 0);
	CHECK_EQ(cap, 32);
	CHECK_EQ(v[15], 7);
	CHECK_EQ(array__grow(&v, &cap, 100, sizeof(*v), 16), 0);
	CHECK_EQ(cap, 128);
	TEST_END();

	TEST_BEGIN("array: a size that would overflow is refused, the array kept");
	err = array__grow(&v, &cap, SIZE_MAX / 2, sizeof(*v), 16);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(cap, 128);
	err = array__grow(&v, &cap, SIZE_MAX, 1, 16);
	CHECK_EQ(err, -ENOMEM);
	CHECK_EQ(cap, 128);
	CHECK_EQ(v[15], 7);
	TEST_END();
	free(v);
}

static int release_fd = -1;
static volatile sig_atomic_t alarms;

/* The alarm interrupts the parent's read, then lets the writer go. */
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
	if (write(release_fd, "x", 1) < 0) {
	}
}

static void test_eintr(void)
{
	struct itimerval it = { .it_value = { 0, 20000 } };
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	int data[2], go[2], status;
	char buf[4] = "", c;
	ssize_t n;
	pid_t pid;

	TEST_BEGIN("io: a read interrupted by a signal goes on");
	if (pipe(data) || pipe(go)) {
		CHECK(0, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* Write only once the parent has been interrupted. */
		if (read(go[0], &c, 1) == 1 && io__write_full(data[1], "abcd", 4) == 0)
			_exit(0);
		_exit(1);
	}
	release_fd = go[1];
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	n = io__read_full(data[0], buf, sizeof(buf));
	CHECK_EQ(n, 4);
	CHECK(!memcmp(buf, "abcd", 4), "read %.4s", buf);
	CHECK_EQ(alarms, 1);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "writer status %d", status);
	close(data[0]);
	close(data[1]);
	close(go[0]);
	close(go[1]);
	TEST_END();
}

static void test_files(void)
{
	char path[] = "/tmp/frugal-io-XXXXXX", buf[8];
	int fd = mkstemp(path);

	TEST_BEGIN("io: whole writes and reads at offsets, the end of a file reported");
	if (fd < 0) {
		CHECK(0, "mkstemp: %s", strerror(errno));
		return;
	}
	unlink(path);
	CHECK_EQ(io__pwrite_full(fd, "0123456789", 10, 0), 0);
	CHECK_EQ(io__pread_full(fd, buf, 4, 3), 0);
	CHECK(!memcmp(buf, "3456", 4), "read %.4s", buf);
	CHECK_EQ(io__pread_full(fd, buf, 4, 8), -ENODATA);
	CHECK_EQ(io__read_full(fd, buf, 8), 8);	/* from the start: pwrite kept the position */
	CHECK_EQ(io__read_full(fd, buf, 8), 2);
	CHECK_EQ(io__read_full(fd, buf, 8), 0);
	CHECK_EQ(io__read(-1, buf, 1), -EBADF);
	CHECK_EQ(io__write_full(-1, buf, 1), -EBADF);
	close(fd);
	TEST_END();
}

/* Read what the FIFO at PATH receives (up to LEN - 1 bytes) in a child, which
 * writes it to the pipe RES; the parent reads it back. */
static pid_t fifo_reader(const char *path, int res)
{
	pid_t pid = fork();

	if (pid == 0) {
		char buf[64];
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? 0 : io__read_full(fd, buf, sizeof(buf));

		_exit(n < 0 || io__write_full(res, buf, n) ? 1 : 0);
	}
	return pid;
}

static void test_tmpfile(void)
{
	char dir[] = "/tmp/frugal-io-XXXXXX", f[64], link[64], fifo[64], buf[64] = "";
	struct io_tmpfile t;
	struct stat st;
	int res[2], status = -1;
	pid_t pid;
	ssize_t n;
	FILE *in;

	TEST_BEGIN("io: a file whole: a regular file and a symlink's target replaced, a pipe written into");
	if (!mkdtemp(dir) || pipe(res)) {
		CHECK(0, "mkdtemp/pipe: %s", strerror(errno));
		return;
	}
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	in = fopen(f, "w");
	CHECK(in && fputs("old", in) >= 0 && !fclose(in), "setup %s", f);
	CHECK_EQ(symlink("f", link), 0);
	/* Through the link: the target gets the new bytes, the link stays. */
	CHECK_EQ(io__tmpfile_open(&t, link), 0);
	fputs("new", t.f);
	in = fopen(f, "r");
	CHECK(in && fgets(buf, sizeof(buf), in) && !strcmp(buf, "old"), "untouched before the commit: %s", buf);
	if (in)
		fclose(in);
	CHECK_EQ(io__tmpfile_commit(&t), 0);
	CHECK(!lstat(link, &st) && S_ISLNK(st.st_mode), "%s is still a symlink", link);
	in = fopen(f, "r");
	CHECK(in && fgets(buf, sizeof(buf), in) && !strcmp(buf, "new"), "the target holds %s", buf);
	if (in)
		fclose(in);
	/* A pipe (as a device would: anything but a regular file) gets
	 * everything at the commit, and stays a pipe. */
	CHECK_EQ(mkfifo(fifo, 0600), 0);
	pid = fifo_reader(fifo, res[1]);
	CHECK_EQ(io__tmpfile_open(&t, fifo), 0);
	fputs("through the pipe", t.f);
	CHECK_EQ(io__tmpfile_commit(&t), 0);
	waitpid(pid, &status, 0);
	CHECK_EQ(status, 0);
	n = read(res[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "through the pipe");
	CHECK(!stat(fifo, &st) && S_ISFIFO(st.st_mode), "%s is still a FIFO", fifo);
	/* A pipe discarded gets nothing; a directory is refused at the open. */
	pid = fifo_reader(fifo, res[1]);
	CHECK_EQ(io__tmpfile_open(&t, fifo), 0);
	fputs("partial", t.f);
	io__tmpfile_discard(&t);
	waitpid(pid, &status, 0);
	CHECK_EQ(status, 0);
	CHECK_EQ(io__tmpfile_open(&t, dir), -EISDIR);
	/* Nothing left beside the files but themselves. */
	unlink(f);
	unlink(link);
	unlink(fifo);
	CHECK(!rmdir(dir), "rmdir %s: %s (a temporary file left?)", dir, strerror(errno));
	close(res[0]);
	close(res[1]);
	TEST_END();
}

int main(void)
{
	test_array();
	test_eintr();
	test_files();
	test_tmpfile();
	TEST_EXIT();
}
