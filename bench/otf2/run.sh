#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OTF2 export beside the Paraver writer on one synthetic trace: events
# per second, their ratio, bytes per event. Builds what it needs
# (build-bench/ unless BUILD_DIR is set) and runs bench/otf2/bench_otf2.py
# (docs/BENCH.md, "OTF2 export"; --help for options).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target paratrace ptgen >/dev/null
exec python3 "$root/bench/otf2/bench_otf2.py" --paratrace "$build/bin/paratrace" \
	--ptgen "$build/bin/ptgen" "$@"
