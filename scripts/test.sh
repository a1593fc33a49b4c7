#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds, and runs every test (what CI runs).
# Every build treats compiler warnings as errors (PT_WERROR).
#   build/       normal build: unit + end-to-end tests
#   build-asan/  ASan+UBSan build: unit tests (runtime modules, reader, analyzer)
#   build-tsan/  ThreadSanitizer build: the unit tests whose threads share
#                runtime state (label tsan; only those are built)
#   build-min/   every optional part left out (PT_WITH_*=OFF): the runtime
#                builds without libunwind, libpfm4, OpenCL and CUPTI headers,
#                and its tests pass
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPT_SANITIZE=ON -DPT_BUILD_BENCH=OFF \
	-DPT_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ctest --output-on-failure -j"$jobs" -L unit)

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT_SANITIZE_THREAD=ON \
	-DPT_BUILD_BENCH=OFF -DPT_BUILD_PASS=OFF -DPT_WERROR=ON >/dev/null
cmake --build build-tsan -j"$jobs" --target pt_tsan_tests
(cd build-tsan && ctest --output-on-failure -j"$jobs" -L tsan)

cmake -S . -B build-min -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT_WITH_UNWIND=OFF -DPT_WITH_PFM=OFF \
	-DPT_WITH_OPENCL=OFF -DPT_WITH_CUPTI=OFF -DPT_BUILD_PASS=OFF -DPT_BUILD_BENCH=OFF \
	-DPT_WERROR=ON >/dev/null
cmake --build build-min -j"$jobs"
(cd build-min && ctest --output-on-failure -j"$jobs" -LE slow)
