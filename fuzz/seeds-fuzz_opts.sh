#!/usr/bin/env bash
# Seeds for fuzz_opts: values the subcommands' options take.  The first byte
# picks the parser (k % 4: CPU list, lock types, BTF kinds, numbers).
#   fuzz/seeds-fuzz_opts.sh DIR
set -eu
dir=$1
i=0
seed() { printf "\\x$(printf %02x "$1")%s" "$2" >"$dir/s$i"; i=$((i + 1)); }
for v in 0 0-1 0,1 1-0 0-255 '' , 3- -1 '0,,1'; do seed 4 "$v"; seed 252 "$v"; done
for v in spinlock mutex rwsem rwlock 'spinlock,mutex' 'mutex, rwsem' '' bogus; do seed 1 "$v"; done
for v in all types decls struct,func int,float,anon decl_tag '' ',' struct,, \
	 enum64 float encode_force decl_tag_kfuncs; do seed 2 "$v"; done
for v in 0 1 0x10 010 1e3 0.05 ' 5' '	5' -1 +1 nan inf 1e400 12abc; do seed 3 "$v"; seed 255 "$v"; done
