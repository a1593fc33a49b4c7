#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# File I/O and dynamic memory interposition cost: builds the benchmark
# (build-bench/ unless BUILD_DIR is set), runs each measurement REPS times
# (default 7) untraced and under the build's lib/libtrace.so, alternating,
# and prints the medians side by side. --before LIB adds a column for
# another libtrace.so (main's, before a change), run in the same rounds, so
# that the machine's load falls on both alike.
#   bench/io/run.sh [--reps N] [--ops N] [--no-build] [--before LIB]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=7 ops=1000000 do_build=1 before=""
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--ops) ops=$2; shift 2 ;;
	--no-build) do_build=0; shift ;;
	--before) before=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--ops N] [--no-build] [--before LIB]" >&2; exit 2 ;;
	esac
done
if ((do_build)); then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$build" -j2 --target pt_io_bench pt_io_fake pt_io_null trace >/dev/null
fi
# The build's own library: a tree also holds installed copies (tests'
# prefixes) that may be older than it.
bench="$build/bin/pt_io_bench" lib="$build/lib/libtrace.so" fake="$build/lib/libpt_io_fake.so"
null="$build/lib/libpt_io_null.so"
[ -x "$bench" ] && [ -f "$lib" ] || { echo "run.sh: no bin/pt_io_bench or lib/libtrace.so in $build" >&2; exit 1; }
[ -z "$before" ] || [ -f "$before" ] || { echo "run.sh: no $before" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c 4096 /dev/urandom >"$dir/file"

source "$root/bench/median.sh"

# $stand_in: the system calls replaced by io_fake.c's (preloaded after the
# library, so that its wrappers call them)
stand_in=""
traced() { # library memory(0/1) args...: one run under the library
	local l=$1 mem=$2
	shift 2
	rm -rf "$dir/trace"
	PARATRACE_DIR="$dir/trace" PARATRACE_MEMORY=$mem LD_PRELOAD="$l${stand_in:+:$stand_in}" "$bench" "$@"
}
plain() { LD_PRELOAD="$stand_in" "$bench" "$@"; }

added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

row() { # label memory(0/1) args...
	local label=$1 mem=$2 plain="" pre="" old=""
	shift 2
	for ((i = 0; i < reps; i++)); do
		plain+="$(plain "$@")"$'\n'
		if [ -n "$before" ]; then
			old+="$(traced "$before" "$mem" "$@")"$'\n'
		fi
		pre+="$(traced "$lib" "$mem" "$@")"$'\n'
	done
	local p q o
	p=$(printf '%s' "$plain" | median)
	q=$(printf '%s' "$pre" | median)
	if [ -n "$before" ]; then
		o=$(printf '%s' "$old" | median)
		printf '%-44s %10s %10s %10s %10s %10s\n' "$label (ns)" "$p" "$o" "$(added "$p" "$o")" \
			"$q" "$(added "$p" "$q")"
	else
		printf '%-44s %10s %10s %10s\n' "$label (ns)" "$p" "$q" "$(added "$p" "$q")"
	fi
}

echo "file I/O and memory interposition cost, median of $reps runs each (untraced vs LD_PRELOAD=libtrace.so)"
if [ -n "$before" ]; then
	echo "before: $before"
	printf '%-44s %10s %10s %10s %10s %10s\n' "operation" "untraced" "before" "added" "after" "added"
else
	printf '%-44s %10s %10s %10s\n' "operation" "untraced" "traced" "added"
fi
row "pread of 4 KiB (page cache)" 0 pread "$ops" "$dir/file"
row "write of 64 bytes to /dev/null" 0 write "$ops"
if [ -f "$fake" ]; then
	# our instructions and clock reads alone: no system call, no TLB flush
	stand_in=$fake
	row "pread, no system call (io_fake.c)" 0 pread "$ops" "$dir/file"
	row "write, no system call (io_fake.c)" 0 write "$ops"
	stand_in=""
fi
if [ -f "$null" ]; then
	# the same with a null system call: our part with its page walks
	stand_in=$null
	row "pread, a null system call (getppid)" 0 pread "$ops" "$dir/file"
	row "write, a null system call (getppid)" 0 write "$ops"
	stand_in=""
fi
# with a system call of no wrapper's between two preads: the TLB is
# emptied before the wrapper's begin too
row "pread, then getppid, the two" 0 pread-sys "$ops" "$dir/file"
row "malloc(64)+free, PARATRACE_MEMORY=1" 1 malloc "$ops"
row "malloc(64)+free, memory off (default)" 0 malloc "$ops"
# The machine's part of what the wrappers add, untraced: the clock, per
# read; a system call of no wrapper's followed by loads from no page and
# from 5 pages far apart, alternating (the difference, over 5: what one
# page touched after a system call costs, a page walk where the call
# empties the TLB).
machine() { # label args...
	local label=$1 v=""
	shift
	for ((i = 0; i < reps; i++)); do v+="$(plain "$@")"$'\n'; done
	printf '%-44s %10s\n' "$label (ns)" "$(printf '%s' "$v" | median)"
}
echo "the machine, untraced (median of $reps runs)"
machine "the clock (rdtsc), one read" clock "$ops"
pages0="" pages5=""
for ((i = 0; i < reps; i++)); do
	pages0+="$(plain pages "$ops" 0)"$'\n'
	pages5+="$(plain pages "$ops" 5)"$'\n'
done
p0=$(printf '%s' "$pages0" | median) p5=$(printf '%s' "$pages5" | median)
printf '%-44s %10s\n' "getppid, then no page touched (ns)" "$p0"
printf '%-44s %10s\n' "getppid, then 5 pages touched (ns)" "$p5"
printf '%-44s %10s\n' "one page touched after a system call (ns)" \
	"$(awk -v a="$p0" -v b="$p5" 'BEGIN { printf "%.2f", (b - a) / 5 }')"
