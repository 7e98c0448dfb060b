#!/usr/bin/env bash
# bench-btf, in two parts.
#
# 1. frugal btf encode beside pahole 1.24 on Debian 12's 6.1 cloud vmlinux
#    (scripts/fetch-kernel-dbg.sh), same features, at -j1 and -j2, runs
#    interleaved (pahole -j1, frugal -j1, pahole -j2, frugal -j2;
#    BENCH_ROUNDS times, default 1).  Prints CPU (user+sys), wall and peak
#    RSS of each run, then frugal/pahole ratios of the medians against the
#    targets, and whether each tool's output is byte-identical across runs
#    and -j values.
# 2. Beside pahole 1.30 on Debian 13's 6.12 cloud kernel
#    (scripts/fetch-trixie.sh), with the flags a 6.12 build passes: the
#    vmlinux at -j1 and -j2, interleaved, BENCH_ROUNDS_612 times (default
#    3: the verdicts are on medians, as pahole's own CPU time moves 20%
#    between runs), then every module of the package as
#    split BTF on each tool's own vmlinux BTF, two at a time as a build's
#    make -j2 runs them: total CPU, wall of the pass, largest and median
#    peak RSS.  BENCH_MODULES=N takes N modules spread by size instead of
#    all; BENCH_612=0 skips the part.
# 3. Beside Debian sid's pahole 1.32 (scripts/fetch-sid.sh) in
#    --pahole_compat=1.32: the 6.12 vmlinux and, when trixie-backports'
#    7.x debug package can be fetched (scripts/fetch-trixie.sh --backports),
#    the 7.x vmlinux with a 7.x build's flags, -j1 and -j2 interleaved
#    (BENCH_ROUNDS_132 times, default 1), then every module of each package
#    (BENCH_MODULES as above) as part 2 does.  Every pahole run is under
#    `timeout` (BENCH_TIMEOUT seconds, default 300): a run it ends is marked
#    HUNG and left out of the ratios.  BENCH_132=0 skips the part;
#    BENCH_ONLY_132=1 runs it alone.
# Parts 2 and 3 also run one bare pass over the vmlinux's DWARF a round
# (bench/dwarfwalk raw: every DIE and attribute) and print frugal's -j1
# CPU over it (issue 53's target: 2.5x), its -j2 wall over its -j1 CPU
# (0.6x), and the modules' total CPU over their bare passes summed (3x).
set -eu
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$TOP/$O" ;; esac
FRUGAL=${FRUGAL:-$O/frugal}
PAHOLE=${PAHOLE:-/usr/bin/pahole}
ROUNDS=${BENCH_ROUNDS:-1}
ROUNDS_612=${BENCH_ROUNDS_612:-3}
FEATS="--btf_gen_floats --lang_exclude=rust"
GTIME=/usr/bin/time	# GNU time (package "time"): peak RSS via %M

TIMEOUT=${BENCH_TIMEOUT:-300}
COMPAT=()	# frugal's extra options (part 2: --pahole_compat=1.30, 3: 1.32)

[ -x "$FRUGAL" ] || { echo "bench-btf: $FRUGAL missing (make $FRUGAL)" >&2; exit 1; }
[ -x "$GTIME" ] || { echo "bench-btf: $GTIME missing (scripts/install-deps.sh installs 'time')" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run TOOL J ROUND: one encode under GNU time; appends "tool j cpu wall rss_kib".
run() {
	local tool=$1 j=$2 r=$3 out=$tmp/$1-j$2-$3.btf
	local cmd=(timeout "$TIMEOUT" "$PAHOLE" -J) rc=0
	[ "$tool" = frugal ] && cmd=("$FRUGAL" btf encode "${COMPAT[@]}")
	"$GTIME" -f '%U %S %e %M' -o "$tmp/time" \
		"${cmd[@]}" -j"$j" $FEATS --btf_encode_detached="$out" "$VMLINUX" >/dev/null 2>"$tmp/err" || rc=$?
	if [ $rc = 124 ]; then	# timeout's: the run hung, it counts nowhere
		printf '%-5s %-7s -j%-2s HUNG (ended after %s s)\n' "$r" "$tool" "$j" "$TIMEOUT"
		rm -f "$out"
		return 0
	fi
	[ $rc = 0 ] || { echo "bench-btf: $tool -j$j failed: $(head -1 "$tmp/err")" >&2; exit 1; }
	read -r u s e m < <(tail -1 "$tmp/time")
	awk -v t="$tool" -v j="$j" -v u="$u" -v s="$s" -v e="$e" -v m="$m" \
		'BEGIN { printf "%s %s %.2f %.2f %d\n", t, j, u + s, e, m }' >> "$tmp/runs"
	printf '%-5s %-7s -j%-2s %8.2f %8.2f %9.0f\n' "$r" "$tool" "$j" \
		"$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$e" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
}

# median FIELD TOOL J: the median over rounds (field 3 cpu, 4 wall, 5 rss).
median() {
	awk -v f="$1" -v t="$2" -v j="$3" '$1 == t && $2 == j { print $f }' "$tmp/runs" |
		sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# line LABEL FIELD J UNIT_DIV UNIT TARGET: pahole, frugal, ratio, target verdict.
line() {
	local p f
	p=$(median "$2" pahole "$3")
	f=$(median "$2" frugal "$3")
	awk -v l="$1" -v p="$p" -v f="$f" -v d="$4" -v u="$5" -v t="$6" 'BEGIN {
		r = p > 0 ? f / p : 0
		v = t == "" ? "" : (r <= t ? "met" : "MISSED")
		printf "%-14s %10.2f %-3s %10.2f %-3s %7.2fx  %s\n", l, p / d, u, f / d, u, r,
			t == "" ? "" : sprintf("target <= %.2fx %s", t, v)
	}'
}
# same TOOL: every output of TOOL against its first (determinism).
same() {
	local first= f
	for f in "$tmp"/"$1"-*.btf; do
		[ -n "$first" ] || { first=$f; continue; }
		cmp -s "$first" "$f" || { echo no; return; }
	done
	echo yes
}
# rounds N: N rounds over VMLINUX, -j1 then -j2, pahole then frugal, each
# round's runs interleaved; the file read first so that both tools start
# with it in the page cache.
rounds() {
	local r j
	cat "$VMLINUX" > /dev/null
	printf '%-5s %-7s %-4s %8s %8s %9s\n' round tool jobs cpu_s wall_s rss_MiB
	: > "$tmp/walks"
	for r in $(seq 1 "$1"); do
		for j in 1 2; do
			run pahole "$j" "$r"
			run frugal "$j" "$r"
		done
		walk "$VMLINUX" >> "$tmp/walks"
	done
	echo
}
# walk FILE: the CPU seconds of one bare pass over FILE's DWARF (every DIE
# and attribute, bench/dwarfwalk.c's minimal decoder, the file opened
# outside the time): the floor issue 53 measures the encoder against.
walk() {
	local c
	c=$("$O/bench/dwarfwalk" raw "$1" | awk '{ print $9 }') ||
		{ echo "bench-btf: dwarfwalk raw $1 failed" >&2; exit 1; }
	echo "${c:-0}"
}
# floor: frugal's -j1 CPU over the bare walk (medians of the rounds, the
# walk run once a round beside them), and its -j2 wall over its -j1 CPU.
floor() {
	local w f1 f2
	w=$(sort -n "$tmp/walks" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	f1=$(median 3 frugal 1)
	f2=$(median 4 frugal 2)
	awk -v w="$w" -v f="$f1" -v g="$f2" 'BEGIN {
		r = w > 0 ? f / w : 0; q = f > 0 ? g / f : 0
		printf "%-14s %10.2f s / %.2f s bare walk = %.2fx  target <= 2.50x %s\n", "-j1 CPU/walk", f, w, r, r <= 2.5 ? "met" : "MISSED"
		printf "%-14s %10.2f s / %.2f s -j1 CPU   = %.2fx  target <= 0.60x %s\n", "-j2 wall/CPU", g, f, q, q <= 0.6 ? "met" : "MISSED"
	}'
}
# modwalk: the bare walks of every module of $tmp/mods, summed (CPU s).
modwalk() {
	local m t=0 c
	while read -r m; do
		c=$(walk "$1/modules/$m")
		t=$(awk -v t="$t" -v c="$c" 'BEGIN { print t + c }')
	done < "$tmp/mods"
	echo "$t"
}
# modfloor CPU WALK: the modules' total CPU over their bare walks.
modfloor() {
	awk -v f="$1" -v w="$2" 'BEGIN { r = w > 0 ? f / w : 0
		printf "%-20s %10.2f s / %.2f s bare walks = %.2fx  target <= 3.00x %s\n", "frugal CPU/walks", f, w, r, r <= 3 ? "met" : "MISSED" }'
}
# pickmods KDIR: KDIR's modules into $tmp/mods (BENCH_MODULES of them spread
# by size, or all); their number in total.
pickmods() {
	awk '{ print $2 }' "$1/modules.list" > "$tmp/mods"
	total=$(wc -l < "$tmp/mods")
	if [ -n "${BENCH_MODULES:-}" ] && [ "$BENCH_MODULES" -lt "$total" ]; then
		awk -v n="$BENCH_MODULES" -v t="$total" 'BEGIN { for (i = 0; i < n; i++) pick[int(i * (t - 1) / (n > 1 ? n - 1 : 1)) + 1] = 1 }
			pick[NR]' "$tmp/mods" > "$tmp/mods.n"
		mv "$tmp/mods.n" "$tmp/mods"
	fi
}
# modpass TOOL BASE KDIR LIMIT: every module of $tmp/mods once, each tool
# on its own vmlinux BTF BASE, two at a time as a build's make -j2 runs them
# (each single-threaded as a module is); pahole under `timeout LIMIT` (0:
# none).  "cpu rss name" per module in $tmp/TOOL.mods, a HUNG one as
# "- - name"; the pass's wall in $tmp/TOOL.wall.
modpass() {
	local t0 t1
	mkdir -p "$tmp/$1.out"
	COMPAT_S="${COMPAT[*]}"
	export GTIME FRUGAL PAHOLE FEATS COMPAT_S tmp
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016
	xargs -P2 -I{} bash -c '
		tool=$1 base=$2 k=$3 limit=$4 m=$5 n=${5//\//_} rc=0
		if [ "$tool" = pahole ]; then cmd=(timeout "$limit" "$PAHOLE" -J)
		else cmd=("$FRUGAL" btf encode $COMPAT_S); fi
		"$GTIME" -f "%U %S %M" -o "$tmp/$tool.out/$n.time" "${cmd[@]}" -j1 $FEATS \
			--btf_base="$base" --btf_encode_detached="$tmp/$tool.out/$n.btf" \
			"$k/modules/$m" >/dev/null 2>&1 || rc=$?
		rm -f "$tmp/$tool.out/$n.btf"
		if [ $rc = 124 ]; then echo "- - $m"; exit 0; fi
		[ $rc = 0 ] || echo "bench-btf: $tool failed on $m" >&2
		read -r u s r < <(tail -1 "$tmp/$tool.out/$n.time")
		echo "$(awk -v u="$u" -v s="$s" "BEGIN { print u + s }") $r $m"' _ "$1" "$2" "$3" "$4" {} \
		< "$tmp/mods" > "$tmp/$1.mods"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$tmp/$1.wall"
}
# modstat TOOL: total cpu, wall, largest rss (KiB), its module, median rss
# (KiB), HUNG modules left out.
modstat() {
	grep -v '^- ' "$tmp/$1.mods" | sort -n -k2,2 | awk -v w="$(cat "$tmp/$1.wall")" '
		{ cpu += $1; rss[NR] = $2; name[NR] = $3 }
		END { printf "%.2f %s %d %s %d\n", cpu, w, rss[NR], name[NR], rss[int((NR + 1) / 2)] }'
}

if [ "${BENCH_ONLY_132:-0}" != 1 ]; then
[ -x "$PAHOLE" ] || { echo "bench-btf: no pahole at $PAHOLE (package dwarves)" >&2; exit 1; }
KDIR=$(bash "$TOP/scripts/fetch-kernel-dbg.sh")
VMLINUX=$(readlink -f "$KDIR/vmlinux")
echo "bench-btf: $(cat "$KDIR/PACKAGE"), $(basename "$VMLINUX"), $(( $(stat -c %s "$VMLINUX") >> 20 )) MiB"
echo "features: $FEATS; pahole $("$PAHOLE" --version); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
rounds "$ROUNDS"
printf '%-14s %14s %14s %8s\n' "" pahole frugal ratio
line "-j1 CPU" 3 1 1 s 0.6
line "-j1 wall" 4 1 1 s ""
line "-j1 peak RSS" 5 1 1024 MiB 0.25
line "-j2 CPU" 3 2 1 s 0.6
line "-j2 wall" 4 2 1 s 0.6
line "-j2 peak RSS" 5 2 1024 MiB 0.25

n=$(( ROUNDS * 2 ))
echo
echo "frugal output byte-identical across its $n runs (-j1 and -j2): $(same frugal)"
echo "pahole output byte-identical across its $n runs (-j1 and -j2): $(same pahole)"

fi	# part 1

# ---- 2. the 6.12 kernel beside pahole 1.30 -------------------------------------------
if [ "${BENCH_ONLY_132:-0}" != 1 ] && [ "${BENCH_612:-1}" != 0 ]; then
echo
TDIR=$(bash "$TOP/scripts/fetch-trixie.sh" --all-modules) ||
	{ echo "bench-btf: cannot fetch Debian trixie's pahole and kernel" >&2; exit 1; }
P130=$TDIR/pahole/bin/pahole
K612=$TDIR/kernel-dbg
V612=$(readlink -f "$K612/vmlinux")
F612="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
PAHOLE=$P130 FEATS=$F612 VMLINUX=$V612
COMPAT=(--pahole_compat=1.30)	# frugal's default is 1.32
: > "$tmp/runs"
rm -f "$tmp"/*.btf	# part 1's outputs share the names
echo "bench-btf: $(cat "$K612/PACKAGE"), $(basename "$V612"), $(( $(stat -c %s "$V612") >> 20 )) MiB"
echo "features: $F612; pahole $("$P130" --version) (trixie's, through its own ld.so); load average $(cut -d' ' -f1-3 /proc/loadavg)"
rounds "$ROUNDS_612"
echo "medians of $ROUNDS_612 rounds:"
printf '%-14s %14s %14s %8s\n' "" "pahole 1.30" frugal ratio
# The targets of 6.12's vmlinux against pahole 1.30 (docs/btf-encode.md).
line "-j1 CPU" 3 1 1 s 0.35
line "-j1 peak RSS" 5 1 1024 MiB 0.12
line "-j2 CPU" 3 2 1 s ""
line "-j2 wall" 4 2 1 s 0.35
line "-j2 peak RSS" 5 2 1024 MiB 0.15
floor
echo "frugal output byte-identical across its $(( ROUNDS_612 * 2 )) runs (-j1 and -j2): $(same frugal)"
if "$FRUGAL" btf diff -q "$tmp/pahole-j2-1.btf" "$tmp/frugal-j2-1.btf"; then
	echo "frugal vs pahole 1.30: no canonical difference; bytes $(stat -c %s "$tmp/frugal-j2-1.btf") vs $(stat -c %s "$tmp/pahole-j2-1.btf")"
else
	echo "frugal vs pahole 1.30: canonical DIFFERENCES (frugal btf diff)"
fi

# The floor under the -j1 figure: where frugal's CPU goes (its --verbose
# breakdown), and what walking every DIE and reading every attribute costs
# through libdw, with the minimal decoder (lib/dwarf_scan) and with the
# encoder's own DIE cursor (lib/dwarf_die) (bench/dwarfwalk.c; all three
# must meet the same DIEs and attributes).
echo
echo "the floor, 6.12 vmlinux, -j1 (CPU s):"
"$FRUGAL" btf encode --verbose -j1 $F612 --btf_encode_detached="$tmp/floor.btf" "$V612" 2>&1 >/dev/null |
	sed -n 's/^btf: CPU s: /  frugal: /p'
for w in libdw raw die; do
	"$O/bench/dwarfwalk" "$w" "$V612" > "$tmp/walk.$w" ||
		{ echo "bench-btf: dwarfwalk $w failed" >&2; exit 1; }
	read -r _ _ u _ d _ a _ c _ < "$tmp/walk.$w"
	case $w in libdw) l=libdw ;; raw) l="minimal decoder" ;; die) l="encoder's cursor" ;; esac
	printf '  walk every DIE, read every attribute, %-17s %6.2f s  (%s units, %s DIEs, %s attributes)\n' \
		"$l:" "$c" "$u" "$d" "$a"
done
for w in raw die; do
	[ "$(cut -d' ' -f2-7 "$tmp/walk.libdw")" = "$(cut -d' ' -f2-7 "$tmp/walk.$w")" ] ||
		echo "  the walkers DISAGREE on what they met (libdw, $w)"
done

# The modules, pahole 1.30 with no time limit (part 3 limits pahole 1.32).
pickmods "$K612"
nmods=$(wc -l < "$tmp/mods")
modpass pahole "$tmp/pahole-j2-1.btf" "$K612" 0
modpass frugal "$tmp/frugal-j2-1.btf" "$K612" 0
read -r pc pw pr pn pm < <(modstat pahole)
read -r fc fw fr fn fm < <(modstat frugal)
echo
echo "modules: $nmods of $total, split BTF on each tool's vmlinux BTF, 2 at a time (make -j2)"
printf '%-20s %12s %12s %8s\n' "" "pahole 1.30" frugal ratio
awk -v p="$pc" -v f="$fc" 'BEGIN { printf "%-20s %10.2f s %10.2f s %7.2fx  target <= 0.50x %s\n", "total CPU", p, f, f / p, f / p <= 0.5 ? "met" : "MISSED" }'
awk -v p="$pw" -v f="$fw" 'BEGIN { printf "%-20s %10.1f s %10.1f s %7.2fx\n", "wall (-j2)", p, f, f / p }'
awk -v p="$pr" -v f="$fr" 'BEGIN { printf "%-20s %8.1f MiB %8.1f MiB %7.2fx  target <= 0.50x %s\n", "largest peak RSS", p / 1024, f / 1024, f / p, f / p <= 0.5 ? "met" : "MISSED" }'
awk -v p="$pm" -v f="$fm" 'BEGIN { printf "%-20s %8.1f MiB %8.1f MiB %7.2fx\n", "median peak RSS", p / 1024, f / 1024, f / p }'
echo "largest: pahole's $pn, frugal's $fn"
modfloor "$fc" "$(modwalk "$K612")"
# A module's fixed cost: the smallest module, where nearly all the work is
# libbpf's on the base (its strings indexed, its types hashed for dedup).
small=$(sort -n -k2,2 "$tmp/pahole.mods" | head -1 | cut -d' ' -f3)
printf '%-20s %10.3f s %10.3f s   (%s, CPU)\n' "smallest module" \
	"$(grep " $small\$" "$tmp/pahole.mods" | cut -d' ' -f1)" \
	"$(grep " $small\$" "$tmp/frugal.mods" | cut -d' ' -f1)" "$small"
fi	# part 2

# ---- 3. beside pahole 1.32, --pahole_compat=1.32 ---------------------------------------
[ "${BENCH_132:-1}" = 0 ] && exit 0
ROUNDS_132=${BENCH_ROUNDS_132:-1}
SDIR=$(bash "$TOP/scripts/fetch-sid.sh") ||
	{ echo "bench-btf: cannot fetch Debian sid's pahole 1.32" >&2; exit 1; }
TDIR=$(bash "$TOP/scripts/fetch-trixie.sh" --all-modules) ||
	{ echo "bench-btf: cannot fetch Debian trixie's kernel" >&2; exit 1; }
P132=$SDIR/pahole/bin/pahole
F612="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
# A 7.x Debian build's (tests/btf/kernel7-pahole132.sh).
F7="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes,layout --btf_features=+reproducible_build --lang_exclude=rust"
kernels="$TDIR/kernel-dbg"
if BDIR=$(bash "$TOP/scripts/fetch-trixie.sh" --backports --all-modules 2>"$tmp/fetch.err"); then
	kernels="$kernels $BDIR/kernel-dbg"
else
	echo "bench-btf: no 7.x kernel ($(tail -1 "$tmp/fetch.err")); 6.12 only"
fi
COMPAT=(--pahole_compat=1.32)
PAHOLE=$P132
for K in $kernels; do
	V=$(readlink -f "$K/vmlinux")
	case $(readlink "$K/vmlinux") in *vmlinux-6.*) FEATS=$F612 ;; *) FEATS=$F7 ;; esac
	VMLINUX=$V
	: > "$tmp/runs"
	rm -rf "$tmp"/*.btf "$tmp"/pahole.out "$tmp"/frugal.out
	echo
	echo "bench-btf: $(cat "$K/PACKAGE"), $(basename "$(readlink "$K/vmlinux")"), $(( $(stat -c %s "$V") >> 20 )) MiB"
	echo "features: $FEATS; pahole $("$P132" --version) (sid's, through its own ld.so) vs frugal --pahole_compat=1.32; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	rounds "$ROUNDS_132"
	echo "medians of $ROUNDS_132 rounds (HUNG runs left out):"
	printf '%-14s %14s %14s %8s\n' "" "pahole 1.32" frugal ratio
	line "-j1 CPU" 3 1 1 s 0.35
	line "-j1 wall" 4 1 1 s ""
	line "-j1 peak RSS" 5 1 1024 MiB 0.12
	line "-j2 CPU" 3 2 1 s ""
	line "-j2 wall" 4 2 1 s 0.35
	line "-j2 peak RSS" 5 2 1024 MiB ""
	floor
	if [ -s "$tmp/pahole-j2-1.btf" ] && "$FRUGAL" btf diff -q "$tmp/pahole-j2-1.btf" "$tmp/frugal-j2-1.btf"; then
		echo "frugal vs pahole 1.32: no canonical difference"
	else
		echo "frugal vs pahole 1.32: canonical differences (tests/btf/kernel*-pahole132.sh lists the known ones)"
	fi
	[ -s "$tmp/pahole-j2-1.btf" ] || { echo "no pahole vmlinux BTF: modules skipped"; continue; }
	pickmods "$K"
	modpass pahole "$tmp/pahole-j2-1.btf" "$K" "$TIMEOUT"
	modpass frugal "$tmp/frugal-j2-1.btf" "$K" "$TIMEOUT"
	read -r pc pw pr pn _ < <(modstat pahole)
	read -r fc fw fr fn _ < <(modstat frugal)
	echo
	echo "modules: $(wc -l < "$tmp/mods") of $total, split BTF on each tool's vmlinux BTF, 2 at a time; pahole runs HUNG: $(grep -c '^- ' "$tmp/pahole.mods" || :)"
	printf '%-20s %12s %12s %8s\n' "" "pahole 1.32" frugal ratio
	awk -v p="$pc" -v f="$fc" 'BEGIN { printf "%-20s %10.2f s %10.2f s %7.2fx  target <= 0.30x %s\n", "total CPU", p, f, f / p, f / p <= 0.3 ? "met" : "MISSED" }'
	awk -v p="$pw" -v f="$fw" 'BEGIN { printf "%-20s %10.1f s %10.1f s %7.2fx\n", "wall (-j2)", p, f, f / p }'
	awk -v p="$pr" -v f="$fr" 'BEGIN { printf "%-20s %8.1f MiB %8.1f MiB %7.2fx  target <= 0.40x %s\n", "largest peak RSS", p / 1024, f / 1024, f / p, f / p <= 0.4 ? "met" : "MISSED" }'
	echo "largest: pahole's $pn, frugal's $fn"
	modfloor "$fc" "$(modwalk "$K")"
done
