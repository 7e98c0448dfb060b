#!/usr/bin/env bash
# Equivalence with pahole 1.32 in --pahole_compat=1.32 on a 7.x kernel: the
# newest cloud kernel debug package of trixie-backports (7.3.4 when written;
# scripts/fetch-trixie.sh --backports: a 353 MB download, a few seconds on
# this machine's mirror, then cached) encoded by Debian sid's pahole 1.32
# (scripts/fetch-sid.sh) and by frugal with the flags a 7.x build by Debian
# passes to a pahole >= 1.31 (scripts/Makefile.btf: 6.12's list plus
# `attributes` (6.16+) and `layout` (pahole >= 1.31); Debian's
# KBUILD_BUILD_TIMESTAMP adds `+reproducible_build`), compared as
# kernel612-pahole132.sh does, in every kind.  Each difference, as "FILE:
# LINE", must match a line of tests/btf/kernel7-pahole132-known.txt, and
# each line there must still match one.  In `make check` (the download is under 400 MB): the first run
# here took about 3 minutes (unpacking the package, pahole's references made
# and cached in btf-ref/), later ones 1.5 minutes.
#
# FRUGAL_SKIP_KERNEL=1 skips it, as does an archive that cannot be reached;
# FRUGAL_KERNEL7_MODULES (default 32) sets how many modules; FRUGAL_KEEP=DIR
# keeps the outputs and the difference lines (DIR/lines) there.
. "$(dirname "$0")/../lib.sh"

NMOD=${FRUGAL_KERNEL7_MODULES:-32}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
FEATS="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes,layout --btf_features=+reproducible_build --lang_exclude=rust"
KNOWN=$TOP/tests/btf/kernel7-pahole132-known.txt
W=${FRUGAL_KEEP:-$_tmp}

KLABEL=7.x
KWHAT="trixie-backports' 7.x kernel"
TRIXIE_OPTS=(--backports)
. "$(dirname "$0")/pahole132.inc"
finish
