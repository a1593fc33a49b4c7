#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel-profiling cost on an OpenCL device (PoCL here): device time per
# launch of a memory-bound and a branchy kernel (kernels_bench.c), median of
# REPS runs (default 5) per configuration, run interleaved:
#   untraced        the program alone (the device compiles the source)
#   spir            the same source compiled by clang to SPIR bitcode, no
#                   plugin, loaded as a binary: the compiler path the
#                   profiled runs take, without counters
#   traced          LD_PRELOAD=libtrace.so, PARATRACE_GPU_KERNELS unset
#   entries         PARATRACE_GPU_KERNELS=entries (work-group counts)
#   blocks          PARATRACE_GPU_KERNELS=blocks (per-block counters)
# Ratios are against the untraced run (what the program sees: PoCL compiles
# the source itself) and against spir (the same compiler as the profiled
# runs, without counters: the counters' own cost).
#   bench/gpu/run.sh [--reps N] [--launches N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
reps=5 launches=10
while (($#)); do
	case $1 in
	--reps) reps=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	*) echo "usage: $0 [--reps N] [--launches N]" >&2; exit 2 ;;
	esac
done
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target pt_gpu_kernels_bench trace instrument paratrace >/dev/null
bench=$(find "$build" -name pt_gpu_kernels_bench -type f -perm -u+x | head -1)
lib=$(find "$build" -name libtrace.so -type f | head -1)
plugin=$(find "$build" -name instrument.so -type f | head -1)
clang=$(grep -m1 '^PT_INSTRUMENT_CLANG:' "$build/CMakeCache.txt" | cut -d= -f2)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export POCL_CACHE_DIR="$dir/pocl-cache"

"$bench" --source >"$dir/k.cl"
# (PoCL's verifier may print "function definition may only have a distinct
# !dbg attachment" when it loads this bitcode from its cache: PoCL's own
# builtins against clang 14's debug info; the kernel still runs.)
"$clang" -target spir64-unknown-unknown -x cl -Xclang -finclude-default-header -cl-std=CL1.2 -c \
	-emit-llvm -O2 -gline-tables-only "$dir/k.cl" -o "$dir/k.bc"

source "$root/bench/gpu/stats.sh"

declare -A out
configs=(untraced spir traced entries blocks)
for ((i = 0; i < reps; i++)); do
	for c in "${configs[@]}"; do
		rm -rf "$dir/trace"
		case $c in
		untraced) r=$("$bench" "$launches") ;;
		spir) r=$("$bench" --binary "$dir/k.bc" "$launches") ;;
		traced) r=$(PARATRACE_DIR="$dir/trace" LD_PRELOAD="$lib" "$bench" "$launches") ;;
		*) r=$(PARATRACE_DIR="$dir/trace" PARATRACE_PLUGIN="$plugin" PARATRACE_GPU_KERNELS=$c \
			LD_PRELOAD="$lib" "$bench" "$launches") ;;
		esac
		out[$c]+="$r"$'\n'
	done
done

device=$(clinfo --raw 2>/dev/null | awk '!d && /CL_DEVICE_NAME/ { $1 = $2 = ""; sub(/^ +/, ""); print; d = 1 }' || true)
echo "kernel-profiling cost on ${device:-the first OpenCL device}: device us per launch," \
	"median (and minimum) of $reps runs x $launches launches (load average $(cut -d' ' -f1 /proc/loadavg))"
echo "ratios: /untraced (what the program sees), /spir (same compiler, no counters: the counters' cost)"
printf '%-9s %9s %9s %8s %8s %10s %10s %8s %8s\n' config triad "(min)" /untr /spir branchy "(min)" /untr /spir
for c in "${configs[@]}"; do
	row=("$c")
	for k in triad_us branchy_us; do
		v=$(value "$c" $k)
		row+=("$v" "($(least "$c" $k))" "$(ratio "$(value untraced $k)" "$v")" "$(ratio "$(value spir $k)" "$v")")
	done
	printf '%-9s %9s %9s %8s %8s %10s %10s %8s %8s\n' "${row[@]}"
done
sums=$(for c in "${configs[@]}"; do printf '%s' "${out[$c]}" | awk '$1 == "checksum" { print $2 }'; done | sort -u | wc -l)
[ "$sums" = 1 ] || { echo "results differ between configurations" >&2; exit 1; }
