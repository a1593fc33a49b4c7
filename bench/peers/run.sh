#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# paratrace side by side with uftrace, LLVM XRay and LTTng-UST: one command.
#   bench/peers/run.sh [peers.py options]      e.g. --reps 7 --scale 4
# Installs the peers' Debian packages that are missing, builds paratrace
# (libtrace.so, instrument.so, paratrace) in build-bench/, starts
# lttng-sessiond if none runs (and says so when it cannot), runs the
# benchmark and prints the markdown table. Results: build-bench/peers/
# (peers.md, peers.csv, runs.csv). See docs/BENCH.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
build="${PT_BENCH_BUILD:-$repo/build-bench}"

# The peers come from Debian (listed in scripts/deps.sh).
"$repo/scripts/deps.sh"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# Each target only if its part has landed; the driver reports what is missing.
# (The list is read whole first: with pipefail, `grep -q` closing the pipe
# early made cmake die of SIGPIPE and a present target look missing, so
# a stale analyzer was benchmarked.)
targets=()
have="$(cmake --build "$build" --target help 2>/dev/null || true)"
for t in trace instrument paratrace; do
	if grep -qw "$t" <<<"$have"; then
		targets+=(--target "$t")
	fi
done
if ((${#targets[@]})); then
	cmake --build "$build" -j"${PT_JOBS:-2}" "${targets[@]}" >/dev/null ||
		echo "peers: building paratrace failed; its contenders will be skipped" >&2
fi

exec python3 "$repo/bench/peers/peers.py" --paratrace-build "$build" --out "$build/peers" \
	--start-sessiond "$@"
