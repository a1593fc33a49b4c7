#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what paratrace needs to build and test, from Debian 12's packages,
# skipping what is already there. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3
  ccache   # scripts/test.sh: build-min's files compiled as build/'s are the cache's hits
  clang llvm-dev libclang-dev libclang-rt-dev   # plugin, fuzzer, sanitizers
  clang-15   # tests/plugin (version.py): instrument.so loaded by a clang it is not built for
  libomp-dev   # tests/intercept, tests/openmp, bench/openmp: clang -fopenmp (libomp, OMPT), gcc on libomp
  libunwind-dev libpfm4-dev libdw-dev libelf-dev zlib1g-dev
  libcunit1-dev
  autoconf   # tests/plugin: ./configure CC=paratrace-cc
  strace libcap2-bin util-linux   # tests/runtime: start-up without sleeping, setcap/setpriv (secure), unshare --time (clock_timens)
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo   # OpenCL, tested on PoCL
  uftrace lttng-tools liblttng-ust-dev babeltrace2   # bench/peers: the tracers we compare with
  librsvg2-bin fonts-dejavu-core   # paratrace plot --png (rsvg-convert), the pictures' font
  chromium   # tests/plot: the HTML report loaded in headless Chromium
  openmpi-bin libopenmpi-dev gfortran   # MPI tracing (Open MPI's mpi.h), tests/mpi, bench/mpi
  libopen-trace-format2-dev otf2-tools python3-otf2   # export --format otf2; tests/otf2: otf2-print, the Python bindings
  mpich libmpich-dev   # MPICH beside Open MPI (its mpi.h: libtrace.so's MPICH half; tests/mpi run on both, Fortran through mpif90.mpich with gfortran); the default mpicc stays Open MPI's
  ${PT_EXTRA_PACKAGES:-}
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "paratrace: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
