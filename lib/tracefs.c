// SPDX-License-Identifier: GPL-2.0
/* tracefs found, mounted if need be, and tracepoints opened as perf events. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "lib/io.h"
#include "lib/tracefs.h"

#define TRACEFS_MAGIC	0x74726163
#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"

static bool is_tracefs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == TRACEFS_MAGIC;
}

static const char *find_dir(void)
{
	if (is_tracefs(TRACEFS))
		return TRACEFS;
	/* Its mount point is there (the kernel has tracefs): mount it. */
	if (!access(TRACEFS, F_OK) && !mount("nodev", TRACEFS, "tracefs", 0, NULL) &&
	    is_tracefs(TRACEFS))
		return TRACEFS;
	/* The kernel mounts it under debugfs on first look (and may warn). */
	if (is_tracefs(DEBUGFS_TRACING))
		return DEBUGFS_TRACING;
	errno = ENOENT;
	return NULL;
}

const char *tracefs__dir(void)
{
	static const char *dir;
	static int err;

	if (!dir && !err) {
		dir = find_dir();
		err = dir ? 0 : errno;
	}
	errno = err;
	return dir;
}

static int event_path(char *buf, size_t size, const char *category, const char *name,
		      const char *file)
{
	const char *dir = tracefs__dir();
	int n;

	if (!dir)
		return -errno;
	n = snprintf(buf, size, "%s/events/%s/%s%s", dir, category, name, file);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int tracefs__has_event(const char *category, const char *name)
{
	char path[256];
	int err = event_path(path, sizeof(path), category, name, "");

	if (err)
		return err;
	return !access(path, F_OK) ? 1 : errno == ENOENT ? 0 : -errno;
}

int tracefs__open_event(const char *category, const char *name)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT };
	char path[256], buf[32], *end;
	ssize_t n;
	int fd, err = event_path(path, sizeof(path), category, name, "/id");

	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = io__read_full(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	buf[n] = '\0';
	errno = 0;
	attr.config = strtoull(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || errno)
		return -EINVAL;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
