// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file (lib/web.h) over arbitrary bytes: the exporter
 * toolkit's YAML, read by libyaml, walked by our code.  The input is
 * written to a file in a private folder beside a certificate and a key
 * named cert.pem and key.pem, so a config that names them loads them.
 * Invariants:
 *  - a file that loads has both PEMs or neither, and every user has a
 *    non-empty name and hash;
 *  - a file that is refused says why in one line that starts with the
 *    file's name, and leaves the config empty;
 *  - nothing leaks (the fuzzer's LeakSanitizer).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/web.h"

static char dir[64], path[96];

/* The folder's three files and the folder, at the fuzzer's exit. */
static void cleanup(void)
{
	static const char *const names[] = { "web.yml", "cert.pem", "key.pem" };
	char p[128];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void put(const char *name, const void *data, size_t len)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config cfg;
	char why[512] = "";
	size_t i;
	int err;

	if (!dir[0]) {
		strcpy(dir, "/tmp/fuzz-web-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		put("cert.pem", "-----BEGIN CERTIFICATE-----\n", 28);
		put("key.pem", "-----BEGIN PRIVATE KEY-----\n", 28);
		snprintf(path, sizeof(path), "%s/web.yml", dir);
		atexit(cleanup);
	}
	put("web.yml", data, size);
	err = web_config__load(path, &cfg, why, sizeof(why));
	if (err) {
		if (err == -ENOMEM || err == -ELIBACC || err == -ELIBBAD)
			return 0;
		if (strncmp(why, path, strlen(path)) || strchr(why, '\n'))
			abort();
		if (cfg.cert_pem || cfg.key_pem || cfg.users || cfg.nusers)
			abort();
		return 0;
	}
	if (!cfg.cert_pem != !cfg.key_pem)
		abort();
	for (i = 0; i < cfg.nusers; i++)
		if (!cfg.users[i].name || !cfg.users[i].name[0] || !cfg.users[i].hash ||
		    !cfg.users[i].hash[0])
			abort();
	web_config__free(&cfg);
	return 0;
}
