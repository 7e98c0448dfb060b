#!/usr/bin/env bash
# Seeds for fuzz_args: command lines the tests and docs use.  The first byte
# picks the parser (k % 5: lock, btf encode, pahole, btf diff, btf stat);
# the arguments after argv[0] follow, each ended by a NUL.
#   fuzz/seeds-fuzz_args.sh DIR
set -eu
dir=$1
i=0
seed() {
	local k=$1
	shift
	{ printf "\\x$(printf %02x "$k")"; printf '%s\0' "$@"; } >"$dir/s$i"
	i=$((i + 1))
}
# lock
seed 0 -t -M 8 -x , -p 1,2
seed 0 contention -a -v --max-stack 6
seed 0 -v -t -M 8 --ring-size 4 -x , -p 1,2,3
seed 0 -k contended -E 2 -x , -F contended,wait_min,avg_wait -- true
seed 0 -a -g -x , -- bash workload.sh
seed 0 -L 0x1000 --json -- true
seed 0 -S anon_pipe_write --json -- true
seed 0 -Y rwsem:W,mutex --json -- true
seed 0 -C 0-1 -d 0.05 --stack-skip 0 --max-stack 64
seed 0 --stack-skip=3 -tv --raw-tp -b
seed 0 --tid 5 -l -d 10
seed 0 -t -l -d 0.1
seed 0 --json -x ,
seed 0 -p 1 -- true
seed 0 -a -p 1
seed 0 --folded --weight contended --svg a.svg --pprof a.pb.gz -t -- true
seed 0 top -I 0.5 -k wait_max -- true
seed 0 -I 1 -x , --output r.csv
seed 0 -a -I 2 --json -d 10
seed 0 -p 1 --tid 2
seed 0 -M 12x
seed 0 -h
seed 0 -tZ
seed 0 --lock
# btf encode, and pahole as a kernel build runs it
seed 1 -J --btf_features=default -j4 vmlinux
seed 1 --btf_encode_detached out.btf --btf_base vmlinux --lang_exclude=rust mod.ko
seed 1 --btf_features_strict=encode_force,var,float x.o
seed 1 --btf_features=bogus,,all -V --version
seed 2 -J -j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust vmlinux
seed 2 -J --skip_encoding_btf_enum64 --btf_gen_floats --skip_encoding_btf_vars -j8 vmlinux
seed 2 -J --btf_gen_optimized --skip_encoding_btf_inconsistent_proto --btf_encode_force --encode_btf_global_vars --reproducible_build -j1 vmlinux
seed 2 -j0 x
seed 2 --help
# btf diff, btf stat
seed 3 --base-a base1.btf --base-b base2.btf split1.btf split2.btf
seed 3 --kinds decls --summary -q a.btf b.btf
seed 3 --base vmlinux --full -v a.ko b.ko
seed 3 --kinds bogus a b
seed 4 --base vmlinux --dump -v mod.ko
seed 4 -h
seed 4 a b
