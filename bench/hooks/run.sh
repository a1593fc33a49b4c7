#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hook cost: builds the benchmark (build-bench/ unless BUILD_DIR is set) and
# runs it under libtrace.so. Arguments go to the benchmark (--reps N, --calls N).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target pt_hooks_bench trace >/dev/null
bench=$(find "$build" -name pt_hooks_bench -type f -perm -u+x | head -1)
lib=$(find "$build" -name libtrace.so -type f | head -1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Every call recorded: the cost of a traced call, not of a throttled one
# (bench/throttle measures that).
PARATRACE_THROTTLE=off PARATRACE_DIR="$dir/trace" LD_PRELOAD="$lib" "$bench" "$@"
