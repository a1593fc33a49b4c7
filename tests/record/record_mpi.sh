#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpirun -np 2 paratrace record PROGRAM: both ranks in one directory named
# after the program and the job, rank 0 saying how to analyze it, and the
# analysis of that directory finding both ranks. LAUNCHER: openmpi (the
# default: Open MPI's mpirun) or mpich (MPICH's mpiexec, Hydra), with a
# PROGRAM built with that MPI.
# usage: record_mpi.sh MPIRUN PARATRACE MPI_PINGPONG WORKDIR [LAUNCHER]
set -uo pipefail
mpirun=$1 pt=$2 prog=$3 work=$4 launcher=${5:-openmpi}
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
flags=(--oversubscribe --bind-to none)
[ "$launcher" = mpich ] && flags=()
"$mpirun" "${flags[@]}" -np 2 "$pt" record "$prog" 20 64 >out 2>err ||
	fail "mpirun: $(cat err)"
name=$(basename "$prog")
dirs=$(ls -d "$name".paratrace-mpi-*)
[ "$(echo "$dirs" | wc -l)" = 1 ] || fail "not one directory: $(ls)"
ls -d "$dirs"/p*-r0 "$dirs"/p*-r1 >/dev/null || fail "the ranks' folders: $(ls "$dirs")"
[ "$(grep -c "an MPI job" err)" = 1 ] || fail "not one note from rank 0: $(cat err)"
grep -q "paratrace analyze $work/$dirs\$" err || fail "how to analyze: $(cat err)"
"$pt" analyze "$dirs" >report 2>err2 || fail "analyze: $(cat err2)"
grep -q " logs of 2 processes " err2 || fail "both ranks not read: $(cat err2)"
grep -q "^Profile:" report || fail "no profile: $(head -3 report)"
# one job: every message of the ping-pong matched between its two ranks
grep -Eq "^MPI: [1-9][0-9]* messages matched$" report || fail "messages: $(grep '^MPI' report)"
echo ok
