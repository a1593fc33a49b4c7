#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds side by side, in one run: the hook cost, the mutex pair and the
# analyzer's throughput of build A (e.g. the last release, or main before a
# change) and build B, each measurement alternating A and B so that the
# machine's load falls on both alike. Medians of --reps runs.
#   bench/compare.sh [--reps N] BUILD_A BUILD_B
# Both builds must have the benchmarks built (PT_BUILD_BENCH, the default):
# bin/pt_hooks_bench, bin/pt_locks_bench, bin/ptgen, bin/paratrace and
# lib/libtrace.so.
set -euo pipefail
reps=5
while (($#)) && [[ $1 == --* ]]; do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] BUILD_A BUILD_B" >&2; exit 2 ;;
	esac
done
if (($# != 2)); then
	echo "usage: $0 [--reps N] BUILD_A BUILD_B" >&2
	exit 2
fi
builds=("$(cd "$1" && pwd)" "$(cd "$2" && pwd)")
for b in "${builds[@]}"; do
	for f in bin/pt_hooks_bench bin/pt_locks_bench bin/ptgen bin/paratrace lib/libtrace.so; do
		if [ ! -x "$b/$f" ]; then
			echo "compare.sh: $b/$f missing: build the benchmarks there first" >&2
			exit 2
		fi
	done
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

source "$(dirname "$0")/median.sh"

# one figure of build $1 (0 or 1): the command's output filtered by $2 (awk)
hooks() { # the paratrace ABI row, 1 thread, cpu ns per call
	rm -rf "$dir/t"
	PARATRACE_DIR="$dir/t" LD_PRELOAD="${builds[$1]}/lib/libtrace.so" \
		"${builds[$1]}/bin/pt_hooks_bench" --reps 1 --only 4 2>/dev/null |
		awk '/^paratrace ABI/ { print $3; exit }'
}
mutex() { # ns per uncontended lock+unlock pair, preloaded
	rm -rf "$dir/t"
	PARATRACE_DIR="$dir/t" LD_PRELOAD="${builds[$1]}/lib/libtrace.so" \
		"${builds[$1]}/bin/pt_locks_bench" mutex 1000000
}
analyze() { # seconds of wall time for `analyze -j1` of 5 M generated events
	rm -rf "$dir/out"
	mkdir -p "$dir/out"
	local t0 t1
	t0=$(date +%s.%N)
	"${builds[$1]}/bin/paratrace" analyze --no-profile -q -j1 -o "$dir/out/t" "$dir/logs" >/dev/null
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# the analyzer's input: one set of logs, written by build A's generator
"${builds[0]}/bin/ptgen" --out "$dir/logs" --scenario bench --threads 4 --events 5000000 >/dev/null

printf 'A: %s\nB: %s\nmedians of %d runs, A and B alternating\n' "${builds[0]}" "${builds[1]}" "$reps"
printf '%-46s %10s %10s %8s\n' "measurement" "A" "B" "B/A"
for m in "hooks:hook, paratrace ABI, 1 thread (cpu ns/call)" \
	"mutex:mutex lock+unlock, preloaded (ns/pair)" \
	"analyze:analyze -j1, 5 M events (s)"; do
	fn=${m%%:*}
	a="" b=""
	for ((i = 0; i < reps; i++)); do
		a+="$($fn 0)"$'\n'
		b+="$($fn 1)"$'\n'
	done
	ma=$(printf '%s' "$a" | median)
	mb=$(printf '%s' "$b" | median)
	printf '%-46s %10s %10s %8s\n' "${m#*:}" "$ma" "$mb" \
		"$(awk -v a="$ma" -v b="$mb" 'BEGIN { if (a > 0) printf "%.2fx", b / a; else print "-" }')"
done
