#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost per call of instrument.so's hooks (docs/PLUGIN.md): builds the plugin
# and libtrace.so (build-bench/ unless BUILD_DIR is set), then runs
# bench_plugin.py. Arguments go to it (--reps N, --calls N).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target instrument trace >/dev/null
clang=$(sed -n 's/^PT_INSTRUMENT_CLANG:INTERNAL=//p' "$build/CMakeCache.txt")
exec python3 "$(dirname "$0")/bench_plugin.py" --clang "$clang" --plugin "$build/lib/instrument.so" \
	--runtime "$build/lib/libtrace.so" "$@"
