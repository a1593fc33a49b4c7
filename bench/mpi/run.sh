#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MPI: what tracing adds to MPI calls, and the analyzer's speed-up under
# mpirun. Builds what it needs (build-bench/ unless BUILD_DIR is set) and
# runs bench/mpi/mpi_bench.py (docs/BENCH.md, "MPI"; --help for options).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build-bench}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target pt_mpi_bench trace paratrace paratrace_mpi >/dev/null
# MPICH's program too, where libtrace.so has its half (--mpi mpich)
if grep -q '^PT_WITH_MPICH:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake --build "$build" -j2 --target pt_mpi_bench_mpich >/dev/null
fi
exec python3 "$root/bench/mpi/mpi_bench.py" --build "$build" "$@"
