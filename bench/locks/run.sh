#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Interposition cost: builds the benchmark (build-bench/ unless BUILD_DIR is
# set), runs each measurement REPS times (default 5) plain and under
# libtrace.so, alternating, and prints the medians side by side.
#   bench/locks/run.sh [--reps N] [--pairs N] [--threads N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=5 pairs=1000000 threads=2000
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--pairs N] [--threads N]" >&2; exit 2 ;;
	esac
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target pt_locks_bench trace >/dev/null
bench=$(find "$build" -name pt_locks_bench -type f -perm -u+x | head -1)
lib=$(find "$build" -name libtrace.so -type f | head -1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

source "$root/bench/median.sh"

row() { # label mode count unit
	local plain="" pre=""
	for ((i = 0; i < reps; i++)); do
		plain+="$("$bench" "$2" "$3")"$'\n'
		rm -rf "$dir/trace"
		pre+="$(PARATRACE_DIR="$dir/trace" LD_PRELOAD="$lib" "$bench" "$2" "$3")"$'\n'
	done
	local p q
	p=$(printf '%s' "$plain" | median)
	q=$(printf '%s' "$pre" | median)
	printf '%-40s %10s %10s %10s %8s\n' "$1 ($4)" "$p" "$q" \
		"$(awk -v a="$p" -v b="$q" 'BEGIN { printf "%.2f", b - a }')" \
		"$(awk -v a="$p" -v b="$q" 'BEGIN { if (a > 0) printf "%.2fx", b / a; else print "-" }')"
}

echo "interposition cost, median of $reps runs each (plain vs LD_PRELOAD=libtrace.so)"
printf '%-40s %10s %10s %10s %8s\n' "operation" "plain" "preloaded" "added" "ratio"
row "mutex lock+unlock, uncontended" mutex "$pairs" ns
row "same, multithreaded process" mutex-mt "$pairs" ns
row "spin lock+unlock, uncontended" spin "$pairs" ns
row "pthread_create+join, empty thread" create "$threads" us
row "clock read (rdtsc), for reference" clock "$pairs" ns
