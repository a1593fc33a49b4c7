#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   build/       normal build: unit + end-to-end tests
#   build-asan/  ASan+UBSan build: unit tests (runtime modules, reader, analyzer)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPT_SANITIZE=ON -DPT_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ctest --output-on-failure -j"$jobs" -L unit)
