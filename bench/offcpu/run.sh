#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Off-CPU time's cost: ns of CPU time (the process's user and system time)
# per context switch of a program that switches all the time, plain and under libtrace.so with PARATRACE_OFFCPU
# off, calls and auto (the kernel's switch records), alternating, REPS
# runs each (default 7); prints the medians and what each adds to `off`.
#   bench/offcpu/run.sh [--reps N] [--rounds N] [--sleeps N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=7 rounds=200000 sleeps=20000
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--sleeps) sleeps=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--rounds N] [--sleeps N]" >&2; exit 2 ;;
	esac
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target pt_offcpu_bench trace >/dev/null
bench=$(find "$build" -name pt_offcpu_bench -type f -perm -u+x | head -1)
lib=$(find "$build" -name libtrace.so -type f | head -1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

source "$root/bench/median.sh"

row() { # label mode count
	local plain="" off="" calls="" auto=""
	for ((i = 0; i < reps; i++)); do
		plain+="$("$bench" "$2" "$3")"$'\n'
		for m in off calls auto; do
			rm -rf "$dir/trace"
			local v
			v="$(PARATRACE_DIR="$dir/trace" PARATRACE_OFFCPU=$m LD_PRELOAD="$lib" \
				"$bench" "$2" "$3")"
			printf -v "$m" '%s%s\n' "${!m}" "$v"
		done
	done
	local p o c a
	p=$(printf '%s' "$plain" | median)
	o=$(printf '%s' "$off" | median)
	c=$(printf '%s' "$calls" | median)
	a=$(printf '%s' "$auto" | median)
	printf '%-34s %9s %9s %9s %9s %11s %11s\n' "$1" "$p" "$o" "$c" "$a" \
		"$(awk -v x="$o" -v y="$c" 'BEGIN { printf "%+.1f", y - x }')" \
		"$(awk -v x="$o" -v y="$a" 'BEGIN { printf "%+.1f", y - x }')"
}

echo "off-CPU time: CPU ns per context switch, median of $reps runs (under libtrace.so: PARATRACE_OFFCPU=...)"
printf '%-34s %9s %9s %9s %9s %11s %11s\n' "workload" "plain" "off" "calls" "auto" \
	"calls-off" "auto-off"
row "cond ping-pong, 2 threads" pingpong "$rounds"
row "nanosleep(1us) loop" sleep "$sleeps"
