#!/usr/bin/env bash
# callers.sh N OUT: build OUT, a program whose threads take one pthread
# mutex from N distinct functions, f0 ... f(N-1), each a call site of its
# own: under `frugal lock serve -U`, N caller series (bench/serve.sh's
# series fixture, scripts/serve-soak.sh's source of new stacks).
#   OUT [SECONDS [THREADS [STRIDE]]]: run that long (0: forever); each
#   thread walks the functions from its own start, STRIDE apart.
set -eu
n=$1 out=$2
src=$(mktemp --suffix=.c)
trap 'rm -f "$src"' EXIT
{
	cat <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;
#define F(k) __attribute__((noinline)) static void f##k(void) \
	{ pthread_mutex_lock(&m); for (int i = 0; i < 200; i++) sink += i; pthread_mutex_unlock(&m); }
C
	for ((k = 0; k < n; k++)); do echo "F($k)"; done
	echo "static void (*const fs[])(void) = {"
	for ((k = 0; k < n; k++)); do echo "	f$k,"; done
	cat <<'C'
};
#define NF (sizeof(fs) / sizeof(fs[0]))
static double secs;
static unsigned long stride;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void *run(void *arg)
{
	unsigned long k = (unsigned long)arg * stride;
	double end = now() + secs;
	for (;;) {
		for (int j = 0; j < 256; j++)
			fs[k++ % NF]();
		if (secs > 0 && now() > end)
			return NULL;
	}
}
int main(int argc, char **argv)
{
	int nt = argc > 2 ? atoi(argv[2]) : 4;
	pthread_t t[64];
	secs = argc > 1 ? atof(argv[1]) : 10;
	stride = argc > 3 ? strtoul(argv[3], NULL, 10) : NF / 4 + 1;
	if (nt < 1 || nt > 64)
		return 2;
	for (long i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
} >"$src"
gcc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o "$out" "$src"
