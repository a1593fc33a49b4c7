#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Start-up cost: wall time of an empty program, untraced and under
# libtrace.so (median of --reps runs, interleaved). Builds libtrace.so in
# build-bench/ unless BUILD_DIR is set; --lib PATH adds another build's
# libtrace.so to the same run (e.g. main's, for a before/after table);
# --instructions adds each configuration's instruction count (valgrind),
# which a loaded machine does not disturb.
#   bench/startup/run.sh [--reps N] [--lib PATH]... [--instructions]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target trace >/dev/null
lib="$build/lib/libtrace.so" # the build's own, not an installed copy the tests made
exec python3 "$(dirname "$0")/startup.py" --lib "$lib" "$@"
