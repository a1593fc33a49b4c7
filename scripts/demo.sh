#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job, end to end, on the bundled example (examples/demo/demo.c):
# install what is missing, build paratrace, compile the example with the
# Clang plugin, run it with paratrace record (the runtime preloaded, then the
# trace analyzed), which prints where the Paraver files are and a short profile.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
./scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# what `cmake --install build` installs, so that it can follow this script
cmake --build build -j"$(nproc)" --target installed >/dev/null

out=$top/build/demo
rm -rf "$out" && mkdir -p "$out"

echo "== 1. compile with the plugin"
set -x
clang -O2 -g -pthread -fplugin="$top/build/lib/instrument.so" examples/demo/demo.c -o "$out/demo"
{ set +x; } 2>/dev/null

echo "== 2. run it traced, then analyze (paratrace record)"
cd "$out"
set -x
"$top/build/bin/paratrace" record ./demo 4 256
{ set +x; } 2>/dev/null
echo
echo "Paraver trace: $out/demo.paratrace.prv (.pcf, .row beside it) - open it with wxparaver"
echo "Full profile:  cd $out && $top/build/bin/paratrace report"
echo "Timeline:      cd $out && $top/build/bin/paratrace export --format perfetto   (open the .pftrace in ui.perfetto.dev)"
