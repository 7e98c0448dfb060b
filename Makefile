# frugal: one binary, one core library, one folder per tool.
#
#   make            build $(O)/frugal
#   make check      every test (unit, unit under ASan/UBSan, end to end)
#   make demo       install what it needs that is missing, build, run the main job
#   make bench      benchmarks beside their anchors
#   make fuzz       libFuzzer harnesses, FUZZ_TIME seconds each
#   make static     $(O)/static/frugal, needing no shared library (make check-static)
#   make deb        the Debian package, into $(O)/deb/ (make check-deb installs it)
#   make man        man pages into $(O)/man/; make completion: bash's, $(O)/completion/
#   make V=1        show the commands
#   make BPF_CFLAGS=-DX   build the BPF programs with more flags (a variant to measure, in its own O=)
#
# Everything built lands in $(O); `make clean` removes it.

O        ?= build
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
# The web server (lib/web.c, frugal lock serve): libmicrohttpd on GnuTLS,
# libyaml for --web.config.file, the system's crypt for bcrypt.  Their
# headers only: lib/web.c dlopens them on first use, so that no other run
# of frugal loads them (tests/e2e/web-libs.sh checks the binary's NEEDED).
WEB_PKGS := libmicrohttpd gnutls yaml-0.1 libcrypt
PKGS     := libbpf libelf libdw zlib
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS   ?= -O2 -g
# Option and command tables leave their trailing fields to zero (bpftool
# builds with the same -Wno-).
CFLAGS   += -Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat=2 -Wno-missing-field-initializers \
	    -std=gnu11 -D_GNU_SOURCE -I. -I$(O)
# CI builds with WERROR=1: a warning fails the build there.
ifeq ($(WERROR),1)
CFLAGS   += -Werror
endif
CFLAGS   += $(shell pkg-config --cflags $(PKGS) $(WEB_PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lbpf -ldw -lelf -lz) -lpthread
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# Sources: the core library, the command layer, and each tool's folder.
# A tool's folder holds one folder per stage (docs/ARCHITECTURE.md).
TOOLS     := lock btf
TOOL_C    := $(sort $(foreach t,$(TOOLS),$(wildcard $(t)/*.c $(t)/*/*.c)))
BPF_SRCS  := $(filter %.bpf.c,$(TOOL_C))
SKELS     := $(patsubst %.bpf.c,$(O)/%.skel.h,$(BPF_SRCS))
CORE_SRCS := $(filter-out lib/web_none.c,$(wildcard lib/*.c)) $(filter-out cli/main.c cli/static.c,$(wildcard cli/*.c)) \
             $(filter-out %.bpf.c,$(TOOL_C))
CORE_OBJS := $(patsubst %.c,$(O)/%.o,$(CORE_SRCS))
ASAN_OBJS := $(patsubst %.c,$(O)/asan/%.o,$(CORE_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
ASAN_BINS := $(patsubst tests/unit/%.c,$(O)/asan/tests/%,$(UNIT_SRCS))
FUZZ_SRCS := $(wildcard fuzz/*.c)
FUZZ_BINS := $(patsubst fuzz/%.c,$(O)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst %.c,$(O)/fuzz/obj/%.o,$(CORE_SRCS))
FUZZ_SAN  := address,undefined
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(O)/bench/%,$(BENCH_SRCS))

all: $(O)/frugal

# libbpf 1.7's dedup, for btf/encode/dedup_lb.c only.  The encoder's output is
# what btf__dedup() makes of its types, and each pahole release ran on its
# libbpf: 1.24 on Debian 12's 1.1, 1.30 on Debian 13's 1.5 (which 1.1
# matches on every kernel we check), 1.32 on sid's 1.7, whose dedup folds a
# module's types into the base otherwise.  So pahole 1.32's output (the
# default) dedups split BTF with Debian sid's libbpf (>= 1.7), compiled
# from its source package (scripts/fetch-libbpf.sh, cached;
# LIBBPF_BTF_SRC=DIR names a tree instead) into one object whose API is
# renamed btflib_* (names.h maps each name for the compiler) and whose
# internals are local, so that it links beside the system's libbpf, which
# everything else uses.
LB        := $(O)/libbpf-btf
LB_CFLAGS := -I$(LB)/include -include $(LB)/names.h

$(LB)/names.h:
	$(call msg,LIBBPF,$(LB))
	$(Q)rm -rf $(LB) && mkdir -p $(LB)
	$(Q)src=$${LIBBPF_BTF_SRC:-$$(scripts/fetch-libbpf.sh)} || \
		{ echo "make: the BTF encoder's libbpf: scripts/fetch-libbpf.sh failed (LIBBPF_BTF_SRC=DIR names a libbpf >= 1.7 source tree)" >&2; exit 1; }; \
	$(MAKE) -s --no-print-directory -C "$$src/src" MAKEFLAGS= BUILD_STATIC_ONLY=1 CFLAGS="-g -O2" \
		OBJDIR=$(abspath $(LB))/obj DESTDIR=$(abspath $(LB)) PREFIX= INCLUDEDIR=/include \
		$(abspath $(LB))/obj/libbpf.a install_headers >$(LB)/build.log 2>&1 || \
		{ echo "make: building libbpf from $$src failed: $$(tail -1 $(LB)/build.log)" >&2; exit 1; }
	$(Q)ld -r -o $(LB)/all.o --whole-archive $(LB)/obj/libbpf.a && \
	objcopy --localize-hidden $(LB)/all.o $(LB)/local.o && \
	nm -g --defined-only $(LB)/local.o | awk '{ print $$3, "btflib_" $$3 }' > $(LB)/syms && \
	objcopy --redefine-syms=$(LB)/syms $(LB)/local.o $(LB)/libbpf-btf.o && \
	awk '{ print "#define", $$1, $$2 }' $(LB)/syms > $(LB)/names.h.tmp && \
	rm -f $(LB)/all.o $(LB)/local.o && mv $(LB)/names.h.tmp $@

$(LB)/libbpf-btf.o: $(LB)/names.h

$(O)/frugal: $(O)/cli/main.o $(O)/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# `make static`: $(O)/static/frugal, one file with libbpf, libelf, libdw and
# their compression libraries linked in from Debian's -dev archives, for a
# host or a container that has none of them.  Every dlopen() lands in
# cli/static.c (--wrap); --fatal-warnings turns glibc's link warnings for
# what a static binary cannot do at run time (dlopen, NSS: getpwnam,
# getaddrinfo...) into a failed build.  docs/install.md has the details.
# No web server there (lib/web_none.c in place of lib/web.c): GnuTLS needs
# p11-kit, of which Debian ships no static archive, and a host name in
# --web.listen-address needs NSS.
STATIC_LIBS := $(shell pkg-config --static --libs $(PKGS) libzstd 2>/dev/null || \
		 echo -lbpf -ldw -lelf -lz -lbz2 -llzma -lzstd) -lpthread
STATIC_LDFLAGS := -static -Wl,--fatal-warnings \
		  -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose,--wrap=dlerror

static: $(O)/static/frugal

$(O)/static/frugal: $(O)/cli/main.o $(O)/cli/static.o $(O)/lib/web_none.o $(O)/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(STATIC_LDFLAGS) -o $@ $^ $(STATIC_LIBS)

$(O)/asan/frugal: $(O)/asan/cli/main.o $(O)/asan/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

$(O)/libfrugal.a: $(CORE_OBJS) $(LB)/libbpf-btf.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/asan/libfrugal.a: $(ASAN_OBJS) $(LB)/libbpf-btf.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# C objects.  -MMD keeps header dependencies; the skeletons are generated
# before any C file is compiled, since tool loaders include them.
$(O)/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/asan/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

LB_OBJS := $(O)/btf/encode/dedup_lb.o $(O)/asan/btf/encode/dedup_lb.o $(O)/fuzz/obj/btf/encode/dedup_lb.o
$(LB_OBJS): private CPPFLAGS += $(LB_CFLAGS)
$(LB_OBJS): $(LB)/names.h

# BPF: clang -target bpf -> bpftool gen skeleton -> *.skel.h.
# vmlinux.h is generated from the running kernel's BTF (see docs/ARCHITECTURE.md).
$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(O)/%.bpf.o: %.bpf.c $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(O) -I. -I$(<D) \
		$(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(O)/%.skel.h: $(O)/%.bpf.o
	$(call msg,GENSKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# Tests and benchmark helpers link the library archive.
$(O)/tests/%: tests/unit/%.c tests/test.h $(O)/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(O)/libfrugal.a $(LDLIBS)

$(O)/asan/tests/%: tests/unit/%.c tests/test.h $(O)/asan/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN) -MMD -MP -o $@ $< $(O)/asan/libfrugal.a $(LDLIBS)

# test_web makes bcrypt hashes of its own (crypt_gensalt_rn, crypt_r);
# lib/web.c still reaches libcrypt through its dlopen.
$(O)/tests/test_web $(O)/asan/tests/test_web: LDLIBS += -lcrypt

# libFuzzer harnesses: clang, the library instrumented for coverage.
$(O)/fuzz/obj/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -MMD -MP -c -o $@ $<

$(O)/fuzz/libfrugal.a: $(FUZZ_OBJS) $(LB)/libbpf-btf.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# A harness's entry points are libFuzzer's, declared by no header of ours.
$(O)/fuzz/%: fuzz/%.c $(O)/fuzz/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CFLAGS) -Wno-missing-prototypes -fsanitize=fuzzer,$(FUZZ_SAN) -MMD -MP -o $@ $< $(O)/fuzz/libfrugal.a $(LDLIBS)

$(O)/bench/%: bench/%.c $(O)/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(O)/libfrugal.a $(LDLIBS)

# Man pages and the bash completion, written by frugal-gen (cli/gen/) from
# the option tables --help prints and the prose of docs/man/*.1.in.
GEN_OBJS  := $(patsubst %.c,$(O)/%.o,$(wildcard cli/gen/*.c))
MAN_PAGES := $(patsubst docs/man/%.in,$(O)/man/%,$(wildcard docs/man/*.1.in))

$(O)/frugal-gen: $(GEN_OBJS) $(O)/libfrugal.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/man/%.1: docs/man/%.1.in $(O)/frugal-gen
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(O)/frugal-gen man $< > $@.tmp && mv $@.tmp $@

$(O)/completion/frugal: $(O)/frugal-gen
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(O)/frugal-gen bash > $@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)
completion: $(O)/completion/frugal

# Every package the tests and benchmarks need (make check, check-*); make
# demo asks only for what building and the demo need.
deps:
	$(Q)bash scripts/install-deps.sh check

check-build: $(O)/frugal $(O)/asan/frugal $(UNIT_BINS) $(ASAN_BINS) $(FUZZ_BINS) $(BENCH_BINS) \
             man completion

check: deps
	$(Q)$(MAKE) --no-print-directory check-build
	$(Q)O=$(O) bash tests/run

# Real kernel builds with frugal as PAHOLE, 6.12 and 7.x (about 25 minutes; not in check).
check-kernel-build: deps
	$(Q)$(MAKE) --no-print-directory $(O)/frugal
	$(Q)O=$(O) TEST_TIMEOUT=5400 bash tests/run long/kernel-build

# Debian's 5.10, 6.1, 6.12 and 7.x cloud kernels booted under qemu (TCG),
# frugal lock's checks inside each (about 4 minutes; not in check, CI runs it).
check-kernels: deps
	$(Q)$(MAKE) --no-print-directory $(O)/frugal
	$(Q)O=$(O) bash tests/run long/kernels

# `frugal btf abi` on two Debian 6.1 kernel ABIs against their genksyms CRCs
# (downloads about 57 MB once, 566 MB more of -dbg packages for the DWARF
# model; seconds after that; not in check), and on two
# 7.x kernels, which have no CRCs (tests/long/abi-crc-7x.sh: the -dbg
# packages of sid and trixie-backports, about 710 MB once).
check-abi-crc: deps
	$(Q)$(MAKE) --no-print-directory $(O)/frugal
	$(Q)O=$(O) bash tests/run long/abi-crc

# `make static`'s binary through its own checks (tests/e2e/static.sh), the
# lock tests and the kernel matrix (not in check; CI runs it).  Each runs
# even when one before it fails.
STATIC_BIN = $(abspath $(O))/static/frugal
check-static: deps
	$(Q)$(MAKE) --no-print-directory $(O)/static/frugal $(O)/tests/test_lock_svg
	$(Q)FRUGAL=$(STATIC_BIN) O=$(O) bash tests/run e2e/static; a=$$?; \
	FRUGAL=$(STATIC_BIN) O=$(O) bash tests/run lock/; b=$$?; \
	FRUGAL=$(STATIC_BIN) O=$(O) bash tests/run long/kernels && exit $$((a | b))

# `make deb`: the Debian package of debian/, built by dpkg-buildpackage in a
# copy of the tree (git's files, committed or not) under $(O)/deb/, so that
# the .deb and its .buildinfo and .changes land in $(O)/deb/, not in the
# tree's parent.  `make check-deb` installs it (into this system), runs
# lintian and checks it, then purges it.  The BTF encoder's libbpf source
# (scripts/fetch-libbpf.sh) is handed to the package build fetched.
deb:
	$(Q)rm -rf $(O)/deb && mkdir -p $(O)/deb/src
	$(Q)git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C $(O)/deb/src
	$(Q)src=$${LIBBPF_BTF_SRC:-$$(scripts/fetch-libbpf.sh)} && \
	cd $(O)/deb/src && LIBBPF_BTF_SRC=$$src dpkg-buildpackage -us -uc -b -jauto
	$(Q)rm -rf $(O)/deb/src

check-deb: deps
	$(Q)$(MAKE) --no-print-directory deb
	$(Q)O=$(O) bash tests/run long/deb

# `make demo` on a fresh machine: its packages only, then the binary and
# the one benchmark scripts/demo.sh runs, in parallel unless -j says how.
demo:
	$(Q)bash scripts/install-deps.sh demo
	$(Q)$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) all $(O)/bench/walkbench
	$(Q)O=$(O) bash scripts/demo.sh

# `make fuzz [FUZZ_TIME=60]`: every harness for that many seconds; crashes
# land in fuzz/regress/, which `make check` replays.
FUZZ_TIME ?= 60
fuzz: $(FUZZ_BINS)
	$(Q)O=$(O) FUZZ_TIME=$(FUZZ_TIME) bash fuzz/run.sh

bench: bench-iodir bench-lock bench-serve bench-btf bench-abi

bench-iodir: $(O)/frugal $(BENCH_BINS)
	$(Q)O=$(O) bash bench/iodir.sh

bench-lock: $(O)/frugal $(BENCH_BINS)
	$(Q)O=$(O) bash bench/lock.sh

# The service's cost (bench/serve.sh); scripts/serve-soak.sh is its
# 30-minute soak, not in bench.
bench-serve: $(O)/frugal
	$(Q)O=$(O) bash bench/serve.sh

bench-btf: $(O)/frugal $(BENCH_BINS)
	$(Q)O=$(O) bash bench/btf.sh
	$(Q)O=$(O) bash bench/show.sh

bench-abi: $(O)/frugal
	$(Q)O=$(O) bash bench/abi.sh

# `make install` also links $(PREFIX)/libexec/frugal/pahole -> frugal, so a
# kernel build can take it as `make PAHOLE=$(PREFIX)/libexec/frugal/pahole`.
# Not in bin/: it must not shadow a real pahole on PATH.
PREFIX ?= /usr/local
install: $(O)/frugal man completion
	$(Q)install -D -m 0755 $(O)/frugal $(DESTDIR)$(PREFIX)/bin/frugal
	$(Q)mkdir -p $(DESTDIR)$(PREFIX)/libexec/frugal
	$(Q)ln -sf ../../bin/frugal $(DESTDIR)$(PREFIX)/libexec/frugal/pahole
	$(Q)install -d $(DESTDIR)$(PREFIX)/share/man/man1
	$(Q)install -m 0644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	$(Q)install -D -m 0644 $(O)/completion/frugal \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/frugal

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

.PHONY: all man completion static check check-static deb check-deb check-build check-kernel-build check-kernels check-abi-crc demo deps install fuzz bench bench-iodir bench-lock bench-serve bench-btf bench-abi clean
.DELETE_ON_ERROR:
.SECONDARY:

-include $(shell find $(O) -name '*.d' 2>/dev/null)
