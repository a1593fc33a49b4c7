#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel-profiling cost on a CUDA GPU: time per launch of a memory-bound and
# a branchy kernel (cuda_kernels_bench.cu, run by cuda_bench_host.c through
# the driver API), median of REPS runs (default 5) per configuration, run
# interleaved:
#   plain      PTX from clang without the plugin, untraced
#   prof       PTX from clang with instrument.so, untraced (the kernels
#              check their profile slot, which stays 0)
#   traced     prof under LD_PRELOAD=libtrace.so, PARATRACE_GPU_KERNELS unset
#   entries    PARATRACE_GPU_KERNELS=entries (work-group counts and times)
#   blocks     PARATRACE_GPU_KERNELS=blocks (per-block counters)
# Ratios are against plain. Where clang is not installed (a GPU machine),
# --ptx-dir names a folder holding plain.ptx and prof.ptx compiled
# beforehand with the two clang commands below; --bin and --lib name the
# host program and libtrace.so instead of building them.
#   bench/gpu/cuda_bench.sh [--reps N] [--launches N] [--ptx-dir D --bin F --lib F]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=5 launches=50 ptx="" bench="" lib=""
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--ptx-dir) ptx=$2; shift 2 ;;
	--bin) bench=$2; shift 2 ;;
	--lib) lib=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--launches N] [--ptx-dir D --bin F --lib F]" >&2; exit 2 ;;
	esac
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -z "$ptx" ]; then
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$build" -j2 --target pt_cuda_bench_host trace instrument >/dev/null
	bench="$build/bin/pt_cuda_bench_host" lib="$build/lib/libtrace.so" ptx="$dir"
	clang=$(grep -m1 '^PT_INSTRUMENT_CLANGXX:' "$build/CMakeCache.txt" | cut -d= -f2)
	for v in plain prof; do
		plugin=()
		[ $v = prof ] && plugin=("-fplugin=$build/lib/instrument.so")
		"$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
			-Wno-unknown-cuda-version -S -O2 -gline-tables-only "${plugin[@]}" \
			"$root/bench/gpu/cuda_kernels_bench.cu" -o "$ptx/$v.ptx"
	done
fi
"$bench" "$ptx/plain.ptx" 1 1024 >/dev/null || { echo "no usable CUDA GPU" >&2; exit 77; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A out
configs=(plain prof traced entries blocks)
for ((i = 0; i < reps; i++)); do
	for c in "${configs[@]}"; do
		rm -rf "$dir/trace"
		case $c in
		plain) r=$("$bench" "$ptx/plain.ptx" "$launches") ;;
		prof) r=$("$bench" "$ptx/prof.ptx" "$launches") ;;
		traced) r=$(PARATRACE_DIR="$dir/trace" LD_PRELOAD="$lib" "$bench" "$ptx/prof.ptx" "$launches") ;;
		*) r=$(PARATRACE_DIR="$dir/trace" PARATRACE_GPU_KERNELS=$c LD_PRELOAD="$lib" \
			"$bench" "$ptx/prof.ptx" "$launches") ;;
		esac
		out[$c]+="$r"$'\n'
	done
done

value() { printf '%s' "${out[$1]}" | awk -v k="$2" '$1 == k { print $2 }' | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b / a }'; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "kernel-profiling cost on ${device:-the first CUDA GPU}: us per launch (CUDA events around" \
	"the launch), median of $reps runs x $launches launches, ratio to plain"
printf '%-8s %10s %8s %10s %8s\n' config triad /plain branchy /plain
for c in "${configs[@]}"; do
	row=("$c")
	for k in triad branchy; do
		v=$(value "$c" $k)
		row+=("$v" "$(ratio "$(value plain $k)" "$v")")
	done
	printf '%-8s %10s %8s %10s %8s\n' "${row[@]}"
done
sums=$(for c in "${configs[@]}"; do printf '%s' "${out[$c]}" | awk '$1 ~ /^sum_/'; done | sort -u | wc -l)
[ "$sums" = 2 ] || { echo "results differ between configurations" >&2; exit 1; }
