#!/usr/bin/env bash
# Equivalence with pahole 1.32 in --pahole_compat=1.32: Debian 13's 6.12
# vmlinux and a spread of its modules (scripts/fetch-trixie.sh) encoded by
# Debian sid's pahole 1.32 (scripts/fetch-sid.sh, run through sid's own
# loader, nothing installed) and by frugal with the flags a 6.12 build
# passes, compared with `frugal btf diff` in every kind: vmlinux, and
# modules (split BTF, each encoder on its own vmlinux BTF; both dedup with
# libbpf 1.7, docs/btf.md).  Each difference, as "FILE: LINE", must match a
# line of tests/btf/kernel-pahole132-known.txt, and each line there must
# still match one, so the list only shrinks.
#
# pahole's output is cached beside 1.30's (tests/btf/refs.inc's layout),
# keyed by package version, pahole version and flags.  FRUGAL_SKIP_KERNEL=1
# skips the check, as does an archive that cannot be reached;
# FRUGAL_KERNEL612_MODULES (default 64) sets how many modules.
. "$(dirname "$0")/../lib.sh"

NMOD=${FRUGAL_KERNEL612_MODULES:-64}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
FEATS="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
KNOWN=$TOP/tests/btf/kernel-pahole132-known.txt
W=$_tmp

KLABEL=6.12
KWHAT="trixie's 6.12 kernel"
TRIXIE_OPTS=()
. "$(dirname "$0")/pahole132.inc"
finish
