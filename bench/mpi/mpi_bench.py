#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MPI benchmarks (bench/mpi/run.sh builds what they need first):

1. What tracing adds to an MPI call: pt_mpi_bench untraced and under
   libtrace.so, runs alternating, each run timing BLOCKS blocks of ITER
   operations on rank 0; the median over every block of every run:
     - 0-byte ping-pong between 2 ranks: added per call = added per round
       trip / 2 (a round trip is two calls on each rank, and the time of
       one call of each rank lies on its path);
     - MPI_Allreduce of one double over the ranks;
     - the same calls with one rank, where no other process's scheduling
       adds its noise: a 0-byte message to itself (MPI_Send + MPI_Recv,
       and MPI_Irecv + MPI_Isend + MPI_Waitall) and MPI_Allreduce;
     - MPI_Comm_rank, no communication: the wrappers' own cost.
2. The analyzer under mpirun: one trace of NP ranks (Allreduce-heavy),
   analyzed by 1 process (no mpirun) and by `mpirun -np M paratrace
   analyze --full` for M in --procs (default 2 and 4), with the default
   workers (all CPUs per process) and with -j 1; the median wall time of
   REPS runs and the speed-up over one process. Every configuration must
   write the same bytes (a trace over 1 GB of text is a .prv.gz).
"""
import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def env():
    e = dict(os.environ)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for k in ("LD_PRELOAD", "PARATRACE_DIR"):
        e.pop(k, None)
    return e


def mpirun(np, args, preload=None, trace=None, capture=True):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np)]
    if preload:
        cmd += ["-x", "LD_PRELOAD=" + preload, "-x", "PARATRACE_DIR=" + trace]
    p = subprocess.run(cmd + args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        sys.exit("mpi_bench: %s failed (%d): %s" % (" ".join(cmd + args), p.returncode,
                                                  p.stderr[-2000:]))
    return p.stdout


def call_cost(a, bench, lib, tmp):
    rows = [(a.np, "pingpong", "0-byte ping-pong, per call", 2, a.iter),
            (a.np, "allreduce", "MPI_Allreduce (1 double), per call", 1, a.iter),
            (1, "self", "0-byte Send+Recv to itself, per call", 2, a.iter),
            (1, "iself", "0-byte Irecv+Isend+Waitall to itself, per call", 3, a.iter),
            (1, "allreduce", "MPI_Allreduce (1 double), per call", 1, a.iter),
            (1, "rank", "MPI_Comm_rank, per call (wrapper alone)", 1, a.iter * 10)]
    print("added cost per MPI call: median of %d runs x %d blocks each "
          "(untraced vs LD_PRELOAD=libtrace.so, alternating)" % (a.reps, a.blocks))
    print("%-5s %-42s %12s %12s %12s" % ("ranks", "operation", "untraced ns", "traced ns",
                                         "added ns"))
    for np, mode, label, calls, it in rows:
        plain, traced = [], []
        for r in range(a.reps):
            plain += [float(x) for x in mpirun(np, [bench, mode, str(it), str(a.blocks)]).split()]
            trace = os.path.join(tmp, "t")
            shutil.rmtree(trace, ignore_errors=True)
            out = mpirun(np, [bench, mode, str(it), str(a.blocks)], lib, trace)
            traced += [float(x) for x in out.split()]
        p, q = statistics.median(plain) / calls, statistics.median(traced) / calls
        print("%-5d %-42s %12.1f %12.1f %12.1f" % (np, label, p, q, q - p))
        sys.stdout.flush()


def output_digest(name):
    h = hashlib.sha256()
    for ext in (".prv", ".prv.gz", ".pcf", ".row"):
        if os.path.exists(name + ext):
            with open(name + ext, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()


def analyzer_speedup(a, bench, lib, paratrace, tmp):
    trace = os.path.join(tmp, "big")
    shutil.rmtree(trace, ignore_errors=True)
    mpirun(a.trace_np, [bench, "allreduce", str(a.trace_iter), "1"], lib, trace)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(trace) for f in fs)
    print("\nanalyzer under mpirun: a trace of %d ranks, %.0f MB of logs; median of %d runs "
          "(wall s), speed-up over 1 process" % (a.trace_np, size / 1e6, a.reps))
    print("%-30s %10s %10s" % ("analyzer processes x workers", "wall s", "speed-up"))
    out = os.path.join(tmp, "out")
    for jobs in (None, 1):
        base = ref = None  # a .prv.gz's members follow the workers: compare within a row
        for m in [1] + [int(x) for x in a.procs.split(",") if int(x) > 1]:
            # --full: what several processes write (they do not thin calls),
            # so that every configuration writes the same bytes
            cmd = [paratrace, "analyze", "-q", "--full", trace, "-o", out]
            if jobs:
                cmd += ["-j", str(jobs)]
            walls = []
            for r in range(a.reps):
                t0 = time.monotonic()
                if m == 1:
                    subprocess.run(cmd, env=env(), check=True, stdout=subprocess.DEVNULL)
                else:
                    mpirun(m, cmd)
                walls.append(time.monotonic() - t0)
            w = statistics.median(walls)
            base = base or w
            digest = output_digest(out)
            ref = ref or digest
            if digest != ref:
                sys.exit("mpi_bench: %d analyzer processes wrote other bytes than one" % m)
            print("%-30s %10.2f %9.2fx" % ("%d x %s" % (m, jobs or "all CPUs"), w, base / w))
            sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--np", type=int, default=2, help="ranks of the call-cost runs")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--iter", type=int, default=20000, help="operations per block")
    ap.add_argument("--trace-np", type=int, default=8, help="ranks of the analyzer's trace")
    ap.add_argument("--trace-iter", type=int, default=100000)
    ap.add_argument("--procs", default="2,4", help="analyzer processes to compare with 1")
    ap.add_argument("--only", choices=("calls", "analyzer"))
    a = ap.parse_args()
    bench = os.path.join(a.build, "bin", "pt_mpi_bench")
    lib = os.path.join(a.build, "lib", "libtrace.so")
    paratrace = os.path.join(a.build, "bin", "paratrace")
    tmp = tempfile.mkdtemp(prefix="pt-mpi-bench-")
    try:
        if a.only != "analyzer":
            call_cost(a, bench, lib, tmp)
        if a.only != "calls":
            analyzer_speedup(a, bench, lib, paratrace, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
