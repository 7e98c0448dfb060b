// SPDX-License-Identifier: GPL-2.0
/*
 * What `make static` links in place of dlopen().
 *
 * A static glibc binary can dlopen() only shared objects built against the
 * very glibc it was linked with, and what it loads brings a second C
 * library into the process: on another machine, the one a static frugal is
 * copied to, that fails or crashes at run time.  So the static build links
 * with -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose,--wrap=dlerror: every
 * call in our objects and in the libraries' archives lands here, and glibc's
 * dlopen is never linked (the Makefile checks the binary with nm).
 *
 * Two callers exist, both optional features:
 * - lib/elf_file.c loads libzstd.so.1 for zstd-compressed sections: here
 *   libzstd.a is linked in, and its two functions are served from a table;
 * - libdwfl (elfutils) loads libdebuginfod.so.1 when DEBUGINFOD_URLS is set,
 *   to fetch missing debug files over the network: a static frugal does not
 *   (docs/install.md), and says so once, on stderr, the first time libdwfl
 *   asks, since the user's environment asked for it.
 * Any other library is refused with an error naming it, never silently.
 *
 * Not part of libfrugal.a (the Makefile leaves it out of CORE_SRCS): only
 * the static link pulls it in.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <zstd.h>

#include "cli/cli.h"

struct static_sym {
	const char *name;
	void *addr;
};

struct static_lib {
	const char *soname;
	const struct static_sym *syms;	/* ends with a NULL name */
};

static const struct static_sym zstd_syms[] = {
	{ "ZSTD_decompress", (void *)ZSTD_decompress },
	{ "ZSTD_isError", (void *)ZSTD_isError },
	{ NULL, NULL },
};

static const struct static_lib static_libs[] = {
	{ "libzstd.so.1", zstd_syms },
	{ NULL, NULL },
};

static const char *last_error;

void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);
char *__wrap_dlerror(void);

void *__wrap_dlopen(const char *file, int mode)
{
	static bool told_debuginfod;
	const struct static_lib *l;

	(void)mode;
	for (l = static_libs; file && l->soname; l++)
		if (!strcmp(file, l->soname))
			return (void *)l;
	if (file && !strncmp(file, "libdebuginfod", 13)) {
		if (!told_debuginfod)
			cli_err(NULL, "DEBUGINFOD_URLS is set, but this static build does not "
				"load %s: debug files are looked for on this machine only", file);
		told_debuginfod = true;
		last_error = "debuginfod is not used by a static frugal";
		return NULL;
	}
	cli_err(file, "not loaded: this static build of frugal loads no shared library "
		"(a dynamically linked frugal does)");
	last_error = "a static frugal loads no shared library";
	return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
	const struct static_lib *l;
	const struct static_sym *s;

	for (l = static_libs; l->soname; l++) {
		if (handle != (void *)l)
			continue;
		for (s = l->syms; s->name; s++)
			if (!strcmp(s->name, name))
				return s->addr;
	}
	last_error = "no such symbol in a static frugal";
	return NULL;
}

int __wrap_dlclose(void *handle)
{
	(void)handle;
	return 0;
}

char *__wrap_dlerror(void)
{
	const char *e = last_error;

	last_error = NULL;
	return (char *)e;
}
