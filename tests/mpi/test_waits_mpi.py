#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wait states on a real 2-rank run (waits.c, built with the plugin, under
mpirun with libtrace.so preloaded): rank 1 computes 4 ms before each of 10
sends rank 0 already waits for, then rank 0 computes 30 ms before a
barrier rank 1 reached at once. `report --csv` must show at least 36 ms of
late_sender on rank 0 and 28 ms of wait_at_barrier on rank 1, each at most
the computing that caused it as the critical path has it (a loaded machine
stretches a busy loop), and compute as the program's function on top of
the critical path, with at least 70 ms; `analyze --waits` under mpirun (two analyzer processes)
must write the same .prv, .pcf and .row, byte for byte, as one process, and
say the same wait states.

usage: test_waits_mpi.py --mpirun M --lib libtrace.so --paratrace P --prog mpi_waits
                         --work DIR --prv-check prv_check.py
"""
import argparse
import os
import shutil
import subprocess
import sys

from check_mpi import mpi_env

MS = 1000000


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env(),
                       timeout=150)
    if p.returncode:
        sys.exit("FAIL: %s: status %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                               p.stderr[-2000:]))
    return p.stdout


def within(what, got, lo, hi):
    print("%s: %.1f ms (expected %.0f-%.0f ms)" % (what, got / MS, lo / MS, hi / MS))
    if not lo <= got <= hi:
        sys.exit("FAIL: %s: %d ns" % (what, got))


def from_dump(a, trace):
    """(late_sender of rank 0, wait_at_barrier of rank 1) by their
    definitions, from the main threads' MPI records."""
    rank = {}
    for d in os.listdir(trace):
        if d.startswith("p") and "-r" in d:
            rank[d[1:].split("-")[0]] = int(d.split("-r")[1])
    calls, sends, recvs, barriers = {}, {}, {}, {}
    for line in run([a.paratrace, "dump", trace]).splitlines():
        f = line.split()
        if len(f) < 4 or f[1] != f[2] or f[1] not in rank:
            continue
        t, r, kind = int(f[0]), rank[f[1]], f[3]
        kv = dict(x.split("=", 1) for x in f[4:] if "=" in x)
        if kind == "MPI_CALL":
            calls[r] = (kv.get("call"), t)
        elif kind == "MPI_CALL_END" and r in calls:
            name, begin = calls.pop(r)
            if name == "MPI_Barrier":
                barriers[r] = (begin, t)
            for x in recvs.get(r, []):
                if x[1] is None:
                    x[1] = t
        elif kind == "MPI_SEND":
            sends.setdefault((r, int(kv["peer"])), []).append(calls[r][1])
        elif kind == "MPI_RECV":
            recvs.setdefault(r, []).append([calls[r][1], None, int(kv["peer"])])
    late = 0
    got = [x for x in recvs.get(0, []) if x[2] == 1]
    for s, (cb, end, _) in zip(sends.get((1, 0), []), got):
        late += max(0, min(s, end) - cb)
    (b0, _), (b1, e1) = barriers[0], barriers[1]
    return late, max(0, min(b0, e1) - b1)


def main():
    ap = argparse.ArgumentParser()
    for k in ("mpirun", "lib", "paratrace", "prog", "work", "prv-check"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    trace = os.path.join(a.work, "trace")
    run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", "2", "env",
         "LD_PRELOAD=" + a.lib, "PARATRACE_DIR=" + trace, a.prog, "10", "4", "30"])
    out = run([a.paratrace, "report", "--csv", trace])
    waits, path = {}, {}
    for line in out.splitlines():
        c = [x.strip('"') for x in line.split(",")]
        if c[0] == "wait_state":
            waits[c[1], c[2]] = waits.get((c[1], c[2]), 0) + int(c[6])
        elif c[0] == "critical_path":
            path[c[1], c[2]] = int(c[3])
    print(out)
    # The same figures from the records themselves (paratrace dump), by the
    # patterns' definitions: each receive waited from its call's begin
    # until its send began; rank 1 at the barrier until rank 0 came. On one
    # host the ranks' clocks differ by nanoseconds (the analyzer's map).
    want_late, want_bar = from_dump(a, trace)
    for what, got, want, n in (("late_sender on rank 0", waits.get(("late_sender", "0"), 0),
                                want_late, 10),
                               ("wait_at_barrier on rank 1",
                                waits.get(("wait_at_barrier", "1"), 0), want_bar, 1)):
        print("%s: %.3f ms, %.3f ms from the records" % (what, got / MS, want / MS))
        if abs(got - want) > n * 20000:
            sys.exit("FAIL: %s: %d ns, the records say %d" % (what, got, want))
    # A busy loop lasts at least what it was asked (more when the machine
    # takes its CPU; a receive that the machine starts late waits less):
    # rank 0 reaches the barrier 30 ms after its last receive ended, which
    # was after rank 1's last send began
    within("wait_at_barrier on rank 1", waits.get(("wait_at_barrier", "1"), 0), 29 * MS,
           10 ** 12)
    if not waits.get(("late_sender", "0")):
        sys.exit("FAIL: no late sender on rank 0")
    within("compute on the critical path", sum(v for (f, r), v in path.items() if f == "compute"),
           30 * MS, 10 ** 12)
    # MPI_Init and MPI_Finalize take long on a loaded machine: the top
    # function of the program's own
    funcs = {}
    for (name, rank), ns in path.items():
        if not name.startswith("MPI_"):
            funcs[name] = funcs.get(name, 0) + ns
    top = max(funcs, key=funcs.get) if funcs else None
    if top != "compute":
        sys.exit("FAIL: %r on top of the critical path, not compute: %r" % (top, path))
    # the analyzer alone and under mpirun: the same files
    one = os.path.join(a.work, "one")
    said_one = run([a.paratrace, "analyze", "--waits", "--no-profile", "-o", one, trace])
    dist = os.path.join(a.work, "dist")
    said_dist = run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", "2", a.paratrace,
                     "analyze", "--waits", "-o", dist, trace])
    for ext in (".prv", ".pcf", ".row"):
        with open(one + ext, "rb") as f, open(dist + ext, "rb") as g:
            x, y = f.read(), g.read()
        if x != y:
            sys.exit("FAIL: %s%s differs under mpirun" % (dist, ext))
    lines = [[ln for ln in s.splitlines() if ln.startswith(("Wait states:", "Critical path:"))]
             for s in (said_one, said_dist)]
    print("\n".join(lines[0]))
    if len(lines[0]) != 2 or lines[0] != lines[1]:
        sys.exit("FAIL: analyze says %r alone, %r under mpirun" % tuple(lines))
    if b":69000000:1" not in open(one + ".prv", "rb").read():
        sys.exit("FAIL: no late_sender event in %s.prv" % one)
    p = subprocess.run([sys.executable, a.prv_check, one + ".prv"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        sys.exit("FAIL: %s.prv:\n%s" % (one, p.stdout))
    print("wait states of a real MPI run: OK")


if __name__ == "__main__":
    main()
