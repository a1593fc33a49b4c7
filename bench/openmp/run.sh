#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# OpenMP and futex tracing cost (docs/OPENMP.md, "Cost"): builds omp_bench.c
# with clang (libomp, recorded through OMPT) and gcc (libgomp, through the
# GOMP_* wrappers), runs each measurement REPS times (default 7) untraced,
# traced with PARATRACE_OPENMP=0 and traced, alternating, at 2 threads, and
# prints the medians side by side (ns per operation, wall time; each run's
# figure is already the median of its batches, omp_bench.c).
#   bench/openmp/run.sh [--reps N] [--threads N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=7 threads=2
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--threads N]" >&2; exit 2 ;;
	esac
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target trace >/dev/null
lib=$(find "$build" -name libtrace.so -type f | head -1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
src="$root/bench/openmp/omp_bench.c"
clang -O2 -fopenmp "$src" -o "$dir/omp_clang"
gcc -O2 -fopenmp "$src" -o "$dir/omp_gcc"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

row() { # label binary mode count
	local plain="" off="" on=""
	for ((i = 0; i < reps; i++)); do
		plain+="$(OMP_NUM_THREADS=$threads "$2" "$3" "$4")"$'\n'
		rm -rf "$dir/t"
		off+="$(OMP_NUM_THREADS=$threads PARATRACE_OPENMP=0 PARATRACE_DIR="$dir/t" LD_PRELOAD="$lib" "$2" "$3" "$4")"$'\n'
		rm -rf "$dir/t"
		on+="$(OMP_NUM_THREADS=$threads PARATRACE_DIR="$dir/t" LD_PRELOAD="$lib" "$2" "$3" "$4")"$'\n'
	done
	local p o q
	p=$(printf '%s' "$plain" | median)
	o=$(printf '%s' "$off" | median)
	q=$(printf '%s' "$on" | median)
	printf '%-34s %10s %10s %10s %10s\n' "$1" "$p" "$o" "$q" \
		"$(awk -v a="$o" -v b="$q" 'BEGIN { printf "%.1f", b - a }')"
}

echo "OpenMP tracing cost, ns per operation, $threads threads, median of $reps runs each"
printf '%-34s %10s %10s %10s %10s\n' "operation" "untraced" "OPENMP=0" "traced" "added"
row "clang/libomp: parallel region" "$dir/omp_clang" region 20000
row "clang/libomp: barrier" "$dir/omp_clang" barrier 100000
row "clang/libomp: dynamic loop chunk" "$dir/omp_clang" chunk 100000
row "clang/libomp: task" "$dir/omp_clang" task 100000
row "gcc/libgomp: parallel region" "$dir/omp_gcc" region 20000
row "gcc/libgomp: barrier" "$dir/omp_gcc" barrier 100000
row "gcc/libgomp: dynamic loop chunk" "$dir/omp_gcc" chunk 100000
row "gcc/libgomp: task" "$dir/omp_gcc" task 100000
row "futex wake, nobody waiting" "$dir/omp_gcc" futex-wake 200000
row "futex wait, value changed" "$dir/omp_gcc" futex-wait 200000
echo "added: traced minus traced with PARATRACE_OPENMP=0 (the futex rows: the wrapper is"
echo "not switched off by it, compare with untraced)"
