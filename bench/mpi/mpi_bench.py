#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MPI benchmarks (bench/mpi/run.sh builds what they need first):

1. What tracing adds to an MPI call: pt_mpi_bench untraced and under
   libtrace.so (and under --base-lib, another build's, to compare two),
   runs interleaved, each run timing BLOCKS blocks of ITER operations on
   rank 0; the median over every block of every run, per call, and the
   bytes of rank 0's thread logs per call:
     - MPI_Comm_rank (no communication: the wrapper's own cost);
     - a 0-byte message to itself, MPI_Send + MPI_Recv, and MPI_Isend +
       MPI_Irecv + MPI_Waitall;
     - MPI_Allreduce of 8 bytes and MPI_Barrier, one rank;
     - a 0-byte ping-pong between 2 ranks, each pinned to a CPU of its
       own (taskset): added per call = added per round trip / 2 (a round
       trip is two calls on each rank, one of each rank on its path).
   The 1-rank rows time the CPU time of the process (all its threads) by
   default, which other work on a shared machine inflates far less than
   the wall time (--clock wall); the ping-pong is wall time.
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
import re
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


# The MPI implementation the rows run on: its launcher, and the program
# built with its compiler wrapper (bench/mpi/CMakeLists.txt).
IMPLS = {"openmpi": (["mpirun", "--oversubscribe", "--bind-to", "none"], "pt_mpi_bench"),
         "mpich": (["mpiexec.mpich"], "pt_mpi_bench_mpich")}
impl = "openmpi"


def mpirun(np, args, preload=None, trace=None, pin=False):
    """Runs args as np ranks; pin: rank r on CPU r alone (taskset, one
    command per rank), so that each busy-polling rank has its own core."""
    cmd = list(IMPLS[impl][0])
    # Open MPI's -x reaches only the app context it is given in (the
    # first one, when given before them): each context gets its own, or
    # the ranks but the first run untraced (and the traced one waits
    # forever in MPI_Init for the others' share of its communicator).
    ctx = []
    if preload and impl == "mpich":
        cmd += ["-genv", "LD_PRELOAD", preload, "-genv", "PARATRACE_DIR", trace]
    elif preload:
        ctx = ["-x", "LD_PRELOAD=" + preload, "-x", "PARATRACE_DIR=" + trace]
    if pin:
        for r in range(np):
            cmd += (([":"] if r else []) + ["-np", "1"] + ctx +
                    ["taskset", "-c", str(r % os.cpu_count())] + args)
    else:
        cmd += ctx + ["-np", str(np)] + args
    p = subprocess.run(cmd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        sys.exit("mpi_bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                  p.stderr[-2000:]))
    return p.stdout


def log_bytes(trace):
    """Bytes of rank 0's thread logs, their headers left out."""
    total = 0
    for d in os.listdir(trace):
        # p<pid>-r0, or p<pid>-r0.1 for the image a launcher's taskset
        # exec'd (the pinned rows)
        if not re.fullmatch(r"p\d+-r0(\.\d+)?", d):
            continue
        for f in os.listdir(os.path.join(trace, d)):
            if f.startswith("t") and f.endswith(".ptl"):
                total += os.path.getsize(os.path.join(trace, d, f)) - 256
    return total


def blocks(out, col):
    return [float(line.split()[col]) for line in out.splitlines() if line.strip()]


# (ranks, mode, label, MPI calls per operation, iterations (times --iter), pinned)
ROWS = [(1, "rank", "MPI_Comm_rank", 1, 10, False),
        (1, "self", "MPI_Send+MPI_Recv to itself, 0 B", 2, 1, False),
        (1, "iself", "MPI_Isend+MPI_Irecv+MPI_Waitall, 0 B", 3, 1, False),
        (1, "allreduce", "MPI_Allreduce, 8 B", 1, 1, False),
        (1, "barrier", "MPI_Barrier", 1, 1, False),
        (2, "pingpong", "ping-pong 0 B, 2 ranks pinned", 2, 1, True)]


def call_cost(a, bench, lib, tmp):
    libs = [("traced", lib)] + ([("base", a.base_lib)] if a.base_lib else [])
    print("%s: added cost per MPI call: median of %d runs x %d blocks each, untraced and "
          "LD_PRELOAD=%s interleaved; bytes: rank 0's thread logs per call"
          % ({"openmpi": "Open MPI", "mpich": "MPICH"}[impl], a.reps, a.blocks,
             " / ".join(l for _, l in libs)))
    print("1-rank rows: %s time of the process; the ping-pong: wall time. Load average at "
          "start: %.2f" % ("CPU" if a.clock == "cpu" else "wall", os.getloadavg()[0]))
    head = "%-38s %9s" % ("operation (per call)", "untraced")
    for name, _ in libs:
        head += " %9s %9s %7s" % (name, "added", "B/call")
    print(head)
    rows = [r for r in ROWS if not a.rows or r[1] in a.rows.split(",")]
    for np, mode, label, calls, scale, pin in rows:
        it = a.iter * scale
        args = [bench, mode, str(it), str(a.blocks)]
        # 1 rank: CPU time; 2 ranks: wall time (a rank's CPU time there is
        # its polling, whatever the other one does)
        col = 1 if np == 1 and a.clock == "cpu" else 0
        plain, traced, size = [], {n: [] for n, _ in libs}, {n: [] for n, _ in libs}
        for r in range(a.reps):
            plain += blocks(mpirun(np, args, pin=pin), col)
            for name, path in libs:
                trace = os.path.join(tmp, "t")
                shutil.rmtree(trace, ignore_errors=True)
                traced[name] += blocks(mpirun(np, args, path, trace, pin), col)
                # every block and the warm-up block made `it` operations
                size[name].append(log_bytes(trace) / (it * (a.blocks + 1) * calls))
                shutil.rmtree(trace, ignore_errors=True)
        p = statistics.median(plain) / calls
        line = "%-38s %9.1f" % (label + (" (wall)" if col == 0 and np == 1 else ""), p)
        for name, _ in libs:
            q = statistics.median(traced[name]) / calls
            line += " %9.1f %9.1f %7.1f" % (q, q - p, statistics.median(size[name]))
        print(line)
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
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="what the 1-rank rows time (default: the process's CPU time)")
    ap.add_argument("--base-lib", help="another libtrace.so, run interleaved beside this one")
    ap.add_argument("--rows", help="modes to run, comma-separated (rank,self,iself,allreduce,"
                    "barrier,pingpong; default all)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--iter", type=int, default=20000, help="operations per block")
    ap.add_argument("--trace-np", type=int, default=8, help="ranks of the analyzer's trace")
    ap.add_argument("--trace-iter", type=int, default=100000)
    ap.add_argument("--procs", default="2,4", help="analyzer processes to compare with 1")
    ap.add_argument("--only", choices=("calls", "analyzer"))
    ap.add_argument("--mpi", default="openmpi",
                    help="MPI implementations whose call costs are measured, one table each, "
                    "comma-separated: openmpi (mpirun), mpich (mpiexec.mpich); default openmpi")
    a = ap.parse_args()
    global impl
    bench = os.path.join(a.build, "bin", "pt_mpi_bench")
    lib = os.path.join(a.build, "lib", "libtrace.so")
    paratrace = os.path.join(a.build, "bin", "paratrace")
    tmp = tempfile.mkdtemp(prefix="pt-mpi-bench-")
    try:
        if a.only != "analyzer":
            for i, name in enumerate(a.mpi.split(",")):
                if name not in IMPLS:
                    sys.exit("mpi_bench: --mpi: openmpi or mpich, not %s" % name)
                impl = name
                if i:
                    print()
                call_cost(a, os.path.join(a.build, "bin", IMPLS[name][1]), lib, tmp)
            impl = "openmpi"
        if a.only != "calls":
            analyzer_speedup(a, bench, lib, paratrace, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
