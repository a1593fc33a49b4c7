#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# File I/O and dynamic memory interposition cost: builds the benchmark
# (build-bench/ unless BUILD_DIR is set), runs each measurement REPS times
# (default 7) untraced and under libtrace.so, alternating, and prints the
# medians side by side.
#   bench/io/run.sh [--reps N] [--ops N] [--no-build]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=7 ops=1000000 do_build=1
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--ops) ops=$2; shift 2 ;;
	--no-build) do_build=0; shift ;;
	*) echo "usage: $0 [--reps N] [--ops N] [--no-build]" >&2; exit 2 ;;
	esac
done
if ((do_build)); then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$build" -j2 --target pt_io_bench trace >/dev/null
fi
bench=$(find "$build" -name pt_io_bench -type f -perm -u+x | head -1)
lib=$(find "$build" -name libtrace.so -type f | head -1)
[ -n "$bench" ] && [ -n "$lib" ] || { echo "run.sh: no pt_io_bench or libtrace.so in $build" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c 4096 /dev/urandom >"$dir/file"

source "$root/bench/median.sh"

row() { # label memory(0/1) args...
	local label=$1 mem=$2 plain="" pre=""
	shift 2
	for ((i = 0; i < reps; i++)); do
		plain+="$("$bench" "$@")"$'\n'
		rm -rf "$dir/trace"
		pre+="$(PARATRACE_DIR="$dir/trace" PARATRACE_MEMORY=$mem LD_PRELOAD="$lib" "$bench" "$@")"$'\n'
	done
	local p q
	p=$(printf '%s' "$plain" | median)
	q=$(printf '%s' "$pre" | median)
	printf '%-44s %10s %10s %10s\n' "$label (ns)" "$p" "$q" \
		"$(awk -v a="$p" -v b="$q" 'BEGIN { printf "%.2f", b - a }')"
}

echo "file I/O and memory interposition cost, median of $reps runs each (untraced vs LD_PRELOAD=libtrace.so)"
printf '%-44s %10s %10s %10s\n' "operation" "untraced" "traced" "added"
row "pread of 4 KiB (page cache)" 0 pread "$ops" "$dir/file"
row "write of 64 bytes to /dev/null" 0 write "$ops"
row "malloc(64)+free, PARATRACE_MEMORY=1" 1 malloc "$ops"
row "malloc(64)+free, memory off (default)" 0 malloc "$ops"
