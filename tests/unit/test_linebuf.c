// SPDX-License-Identifier: GPL-2.0
/* linebuf: lines across refills, last line without newline, overlong lines. */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/linebuf.h"
#include "tests/test.h"

/* A pipe whose writer sends DATA one byte per write, so every read is short. */
static int trickle_fd(const char *data, size_t len, pid_t *pid)
{
	int p[2];

	if (pipe(p))
		return -1;
	*pid = fork();
	if (*pid == 0) {
		close(p[0]);
		for (size_t i = 0; i < len; i++)
			if (write(p[1], data + i, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

static int file_fd(const char *data, size_t len)
{
	char path[] = "/tmp/frugal-linebuf-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET))
		return -1;
	return fd;
}

/* Read all of FD through a SIZE-byte buffer into OUT as "line|line|...",
 * with "<E2BIG>" for overlong lines. */
static void read_all(int fd, size_t size, char *out, size_t outsz)
{
	char *buf = malloc(size), *line;
	struct linebuf lb;
	size_t len;
	int r;

	out[0] = '\0';
	linebuf__init(&lb, fd, buf, size);
	while ((r = linebuf__next(&lb, &line, &len)) != 0) {
		if (r == -E2BIG) {
			strncat(out, "<E2BIG>|", outsz - strlen(out) - 1);
			continue;
		}
		if (r < 0) {
			strncat(out, "<ERR>|", outsz - strlen(out) - 1);
			break;
		}
		CHECK_EQ(strlen(line), len);
		strncat(out, line, outsz - strlen(out) - 1);
		strncat(out, "|", outsz - strlen(out) - 1);
	}
	linebuf__close(&lb);
	free(buf);
}

static void case_file(const char *name, const char *data, size_t size, const char *want)
{
	char out[4096];
	int fd = file_fd(data, strlen(data));

	TEST_BEGIN(name);
	if (CHECK(fd >= 0, "temp file")) {
		read_all(fd, size, out, sizeof(out));
		CHECK_STR(out, want);
		close(fd);
	}
	TEST_END();
}

static void case_trickle(void)
{
	const char *data = "ffffffff81000000 T _stext\nffffffff81000010 t foo [mod]\nlast";
	char out[4096];
	pid_t pid;
	int fd = trickle_fd(data, strlen(data), &pid);

	TEST_BEGIN("linebuf/short-reads-from-pipe");
	read_all(fd, 20, out, sizeof(out));
	/* 20-byte buffer: the first two lines (25 and 30 bytes) are too long. */
	CHECK_STR(out, "<E2BIG>|<E2BIG>|last|");
	close(fd);
	waitpid(pid, NULL, 0);
	fd = trickle_fd(data, strlen(data), &pid);
	read_all(fd, 64, out, sizeof(out));
	CHECK_STR(out, "ffffffff81000000 T _stext|ffffffff81000010 t foo [mod]|last|");
	close(fd);
	waitpid(pid, NULL, 0);
	TEST_END();
}

static void case_lineno_and_open_error(void)
{
	char buf[64], *line;
	struct linebuf lb;
	size_t len;

	TEST_BEGIN("linebuf/open-missing-file");
	CHECK_EQ(linebuf__open(&lb, "/nonexistent/frugal", buf, sizeof(buf)), -ENOENT);
	TEST_END();

	TEST_BEGIN("linebuf/lineno-counts-skipped-lines");
	int fd = file_fd("a\nBBBBBBBBBBBBBBBBBBBBBBBB\nc\n", 29);
	linebuf__init(&lb, fd, buf, 8);
	CHECK_EQ(linebuf__next(&lb, &line, &len), 1);
	CHECK_EQ(linebuf__next(&lb, &line, &len), -E2BIG);
	CHECK_EQ(linebuf__next(&lb, &line, &len), 1);
	CHECK_STR(line, "c");
	CHECK_EQ(lb.lineno, 3);
	CHECK_EQ(linebuf__next(&lb, &line, &len), 0);
	CHECK_EQ(linebuf__next(&lb, &line, &len), 0);
	close(fd);
	TEST_END();
}

int main(void)
{
	case_file("linebuf/empty-file", "", 16, "");
	case_file("linebuf/lines-split-across-refills",
		  "0123456789\nabcdefghij\nklm\n\nxyz\n", 16,
		  "0123456789|abcdefghij|klm||xyz|");
	case_file("linebuf/last-line-without-newline", "one\ntwo", 16, "one|two|");
	case_file("linebuf/line-exactly-fills-buffer", "abcdef\nabcdefg\n", 8,
		  "abcdef|<E2BIG>|");
	case_file("linebuf/overlong-line-reported-and-skipped",
		  "short\nthis line is far longer than sixteen bytes\nafter\n", 16,
		  "short|<E2BIG>|after|");
	case_file("linebuf/overlong-last-line-without-newline",
		  "ok\nthis line is far longer than sixteen bytes", 16, "ok|<E2BIG>|");
	case_trickle();
	case_lineno_and_open_error();
	TEST_EXIT();
}
