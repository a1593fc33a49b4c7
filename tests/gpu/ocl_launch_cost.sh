#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Per-launch host cost of OpenCL tracing on this machine: R runs of
# ocl_launch_cost (N launches each) untraced, traced with PARATRACE_GPU=0
# (only the runtime's other interposition: the OpenCL implementation's own
# locks), and traced; prints median and minimum per configuration.
# Usage: ocl_launch_cost.sh BUILD_DIR [N] [R]
set -euo pipefail
build=${1:?build dir}
n=${2:-3000}
runs=${3:-7}
prog=$build/bin/gpu_ocl_launch_cost
lib=$build/lib/libtrace.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < runs; i++)); do
  echo "untraced $("$prog" "$n")"
  rm -rf "$tmp/t"; echo "gpu_off $(PARATRACE_GPU=0 PARATRACE_DIR=$tmp/t LD_PRELOAD=$lib "$prog" "$n")"
  rm -rf "$tmp/t"; echo "traced $(PARATRACE_DIR=$tmp/t LD_PRELOAD=$lib "$prog" "$n")"
done | python3 -c '
import sys, collections, statistics
d = collections.defaultdict(lambda: ([], []))
for line in sys.stdin:
    k, _, a, _, b = line.split()
    d[k][0].append(float(a)); d[k][1].append(float(b))
print("%-9s %22s %26s" % ("", "enqueue us (median/min)", "per launch us (median/min)"))
for k in ("untraced", "gpu_off", "traced"):
    a, b = d[k]
    print("%-9s %14.2f / %-7.2f %17.2f / %-7.2f" % (k, statistics.median(a), min(a), statistics.median(b), min(b)))
'
