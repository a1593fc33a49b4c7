#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What each choice of stage and size shows of C++ code that the optimiser
inlines into the standard library, and what it costs. Builds
tests/plugin/progs/threads_cxx.cpp (std::thread workers running a lambda and
a functor) and templates_cxx.cpp (algorithms with lambdas and functors on a
vector class template, on threads) at -O2 with each choice, runs each
untraced and traced (--reps times, interleaved, medians), and prints the
calls recorded, the functions shown, and both times (docs/PLUGIN.md).

  inlined.py --clangxx clang++ --plugin instrument.so --runtime libtrace.so
             --paratrace paratrace [--reps 3] [--scale 1.0]
"""
import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "..", "..", "tests", "plugin", "progs")

CHOICES = [
    ("uninstrumented", None),
    ("last, library-inlined=0", ["library-inlined=0"]),
    ("last (default)", []),
    ("stage=start", ["stage=start"]),
    ("stage=start,min-size=30", ["stage=start", "min-size=30"]),
    ("last,system-headers=1", ["system-headers=1"]),
]
PROGRAMS = [("threads_cxx.cpp", 2_000_000), ("templates_cxx.cpp", 300_000)]


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return r


def timed(cmd, env=None):
    t = time.perf_counter()
    run(cmd, env)
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    for o in ("--clangxx", "--plugin", "--runtime", "--paratrace"):
        p.add_argument(o, required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scale", type=float, default=1.0, help="multiplies each program's size")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="pt-bench-inlined-")
    try:
        for src, size in PROGRAMS:
            arg = str(max(1, int(size * a.scale)))
            exes = []
            for label, opts in CHOICES:
                exe = os.path.join(work, "%s.%d" % (src.split(".")[0], len(exes)))
                flags = [] if opts is None else \
                    ["-fplugin=" + a.plugin] + ["-fplugin-arg-instrument-" + o for o in opts]
                run([a.clangxx, "-std=c++17", "-O2", "-pthread", os.path.join(PROGS, src), "-o", exe] +
                    flags)
                exes.append(exe)
            plain, traced = [[] for _ in exes], [[] for _ in exes]
            tdir = os.path.join(work, "trace")
            for _ in range(a.reps):
                for i, exe in enumerate(exes):
                    plain[i].append(timed([exe, arg]))
                    shutil.rmtree(tdir, ignore_errors=True)
                    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir)
                    traced[i].append(timed([exe, arg], env))
            print("%s %s (-O2, medians of %d runs)" % (src, arg, a.reps))
            print("| choice | calls recorded | functions shown | untraced s | traced s |")
            print("|---|---:|---:|---:|---:|")
            for i, (label, opts) in enumerate(CHOICES):
                calls, names = 0, 0
                if opts is not None:
                    shutil.rmtree(tdir, ignore_errors=True)
                    run([exes[i], arg], dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir))
                    report = run([a.paratrace, "report", "--csv", "--top", "0", tdir]).stdout
                    for row in csv.reader(io.StringIO(report)):
                        if len(row) > 4 and row[0] == "function":
                            calls += int(row[4])
                            names += 1
                print("| %s | %s | %s | %.3f | %.3f |" % (
                    label, calls if opts is not None else "-", names if opts is not None else "-",
                    statistics.median(plain[i]), statistics.median(traced[i])))
            print()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
