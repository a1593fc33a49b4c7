#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the .prv budget does to real traces: the peer benchmark's workloads
(bench/peers/workloads, built with the plugin and run under libtrace.so at
a size that makes tens of millions of events) and ptgen's synthetic
trace, each analyzed with everything (--full --no-gz: the text Paraver
parses) and by default (the budget):
.prv sizes, analyze times (wall and CPU, medians), the threshold chosen
and how many calls it left out. Prints a markdown table
(docs/ANALYZER.md, "The size budget").

  python3 bench/analyzer/bench_budget.py --build build [--reps 3]
      [--ptgen-events 100000000] [--scale 1] [--out /tmp/pt-budget] [-j 2]
      [--only mutex-2t,ptgen]

Traces and outputs go under --out and are deleted as it goes (a 100 M-event
trace: 330 MB of logs, a 4 GB .prv with --full).
"""
import argparse
import gzip
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "peers", "workloads")
# name, source, threads, SIZE at scale 1 (~20 M traced calls each)
RUNS = [("leaf-2t", "leaf", 2, 10_000_000), ("fib-2t", "fib", 2, 450),
        ("mutex-2t", "mutex", 2, 5_000_000), ("pool-2t", "pool", 2, 75_000)]
LEFT = re.compile(r"(calls shorter than \S+ \S+|every call) left out \((\S+(?: [kM])?) of "
                  r"(\S+(?: [kM])?) calls")
SYNC = re.compile(r"synchronization calls that waited less than (\S+ \S+)(?: left out)? \((\S+(?: [kM])?) of "
                  r"(\S+(?: [kM])?), (\S+ \S+) of waiting")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def timed(cmd):
    """(wall s, CPU s of the child, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = sh(cmd)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout + p.stderr


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


def prv_size(out):
    """Bytes of the .prv text (a .prv.gz decompressed), the file removed."""
    if os.path.exists(out + ".prv"):
        size = os.path.getsize(out + ".prv")
        os.unlink(out + ".prv")
        return size
    size = 0
    with gzip.open(out + ".prv.gz", "rb") as z:
        for chunk in iter(lambda: z.read(1 << 20), b""):
            size += len(chunk)
    os.unlink(out + ".prv.gz")
    return size


def measure(a, name, trace):
    row = {"name": name, "logs": dir_bytes(trace)}
    for mode, opts in (("full", ["--full", "--no-gz"]), ("default", [])):
        out = os.path.join(a.out, "out-" + mode)
        walls, cpus = [], []
        for _ in range(a.reps):
            w, c, text = timed([a.paratrace, "analyze", "-j", str(a.jobs), "--no-profile", "-o", out]
                               + opts + [trace])
            walls.append(w)
            cpus.append(c)
            row["gz"] = " (`.prv.gz`)" if os.path.exists(out + ".prv.gz") else ""
            size = prv_size(out)
        row[mode] = (size, statistics.median(walls), statistics.median(cpus))
        m = re.search(r"(\d+) events from", text)
        row["events"] = int(m.group(1)) if m else 0
        if mode == "default":
            m = LEFT.search(text)
            kept = re.search(r"every call kept \((\S+(?: [kM])?)\)", text)
            row["left"] = "%s: %s of %s calls" % (
                m.group(1).replace("calls shorter than ", ""), m.group(2), m.group(3)) if m else \
                "no call of %s" % kept.group(1) if kept else "nothing left out"
            m = SYNC.search(text)
            if m:
                row["left"] += "; synchronization calls that waited < %s: %s of %s (%s of waiting)" % \
                    m.groups()
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="CMake build with paratrace, ptgen, libtrace.so, instrument.so")
    ap.add_argument("--out", default="/tmp/pt-budget")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1)
    ap.add_argument("--ptgen-events", type=int, default=100_000_000)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--cc", default="clang")
    ap.add_argument("--only", help="comma-separated rows: leaf-2t,fib-2t,mutex-2t,pool-2t,ptgen")
    a = ap.parse_args()
    b = os.path.abspath(a.build)
    a.paratrace = os.path.join(b, "bin", "paratrace")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    rows = []
    plugin = os.path.join(b, "lib", "instrument.so")
    only = set(a.only.split(",")) if a.only else None
    for name, src, threads, size in RUNS:
        if only and name not in only:
            continue
        exe = os.path.join(a.out, src)
        sh([a.cc, "-O2", "-pthread", "-fplugin=" + plugin, os.path.join(WORKLOADS, src + ".c"),
            "-o", exe])
        trace = os.path.join(a.out, "trace")
        n = int(size * a.scale)
        sh([exe, str(threads), str(n)], env=dict(os.environ, LD_PRELOAD=os.path.join(b, "lib", "libtrace.so"),
                                                  PARATRACE_DIR=trace, PARATRACE_THROTTLE="off"))
        rows.append(measure(a, "%s SIZE %d" % (name, n), trace))
        shutil.rmtree(trace)
        print(rows[-1], file=sys.stderr, flush=True)
    trace = os.path.join(a.out, "ptgen")
    if not only or "ptgen" in only:
        sh([os.path.join(b, "bin", "ptgen"), "--out", trace, "--scenario", "bench", "--threads", "8",
            "--events", str(a.ptgen_events)])
        rows.append(measure(a, "ptgen bench, 8 threads", trace))
        shutil.rmtree(trace)
    print("| trace | events | logs | .prv with --full | analyze --full (wall / CPU) | default .prv |"
          " analyze (wall / CPU) | left out |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| %s | %.1f M | %.0f MB | %.0f MB | %.2f s / %.2f s | %.0f MB%s | %.2f s / %.2f s | %s |" % (
            r["name"], r["events"] / 1e6, r["logs"] / 1e6, r["full"][0] / 1e6, r["full"][1],
            r["full"][2], r["default"][0] / 1e6, r["gz"], r["default"][1], r["default"][2], r["left"]))
    shutil.rmtree(a.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
