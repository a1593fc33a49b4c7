#!/usr/bin/env bash
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
# Ratios are against the untraced run.
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
"$clang" -target spir64-unknown-unknown -x cl -Xclang -finclude-default-header -cl-std=CL1.2 -c \
	-emit-llvm -O2 -gline-tables-only "$dir/k.cl" -o "$dir/k.bc"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

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

value() { printf '%s' "${out[$1]}" | awk -v k="$2" '$1 == k { print $2 }' | median; }
device=$(clinfo --raw 2>/dev/null | awk '/CL_DEVICE_NAME/ { $1 = $2 = ""; sub(/^ +/, ""); print; exit }')
echo "kernel-profiling cost on ${device:-the first OpenCL device}: device us per launch," \
	"median of $reps runs x $launches launches (load average $(cut -d' ' -f1 /proc/loadavg))"
printf '%-10s %12s %8s %12s %8s\n' "config" "triad us" "ratio" "branchy us" "ratio"
t0=$(value untraced triad_us)
b0=$(value untraced branchy_us)
for c in "${configs[@]}"; do
	t=$(value "$c" triad_us)
	b=$(value "$c" branchy_us)
	printf '%-10s %12s %8s %12s %8s\n' "$c" "$t" "$(awk -v a="$t0" -v b="$t" 'BEGIN { printf "%.2fx", b / a }')" \
		"$b" "$(awk -v a="$b0" -v b="$b" 'BEGIN { printf "%.2fx", b / a }')"
done
sums=$(for c in "${configs[@]}"; do printf '%s' "${out[$c]}" | awk '$1 == "checksum" { print $2 }'; done | sort -u | wc -l)
[ "$sums" = 1 ] || { echo "results differ between configurations" >&2; exit 1; }
