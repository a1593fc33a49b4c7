#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Throttling of hot tiny functions (docs/RUNTIME.md, "Throttling"): builds
# the plugin and libtrace.so (build-bench/ unless BUILD_DIR is set), then
# runs throttle_bench.py. Arguments go to it (--reps N, --calls N, --steps N).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target instrument trace >/dev/null
clang=$(sed -n 's/^PT_INSTRUMENT_CLANG:INTERNAL=//p' "$build/CMakeCache.txt")
exec python3 "$(dirname "$0")/throttle_bench.py" --clang "$clang" --plugin "$build/lib/instrument.so" \
	--runtime "$build/lib/libtrace.so" "$@"
