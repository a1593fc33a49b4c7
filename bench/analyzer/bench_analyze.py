#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throughput of `paratrace analyze` (logs -> .prv/.pcf/.row) on synthetic logs.

  bench_analyze.py --paratrace build/bin/paratrace --ptgen build/bin/ptgen
                   [--events 10M | --full | --many-threads N] [--threads 8]
                   [--jobs 1,2] [--reps 3] [--work DIR] [--out DIR] [--keep]

Generates --events records over --threads threads with ptgen (--full: 100 M,
about 0.8 GB of logs), then runs `paratrace analyze --no-profile -q -jN` --reps
times per N and prints medians: wall time, CPU time (user+sys of the child),
events per second of wall time and per CPU second, peak RSS (wait4 of the
child), output size, and the speed-up of each -jN over -j1. Each run starts
without the previous run's output (removed, untimed).
--out puts the Paraver files elsewhere (e.g. /dev/shm to leave the disk out:
the .prv is ~40 bytes per event). Files are deleted at the end unless --keep.

--many-threads N: instead, N short threads one after the other (ptgen's
threads scenario, two calls each: the shape of a server starting a thread
per request), analyzed as users run it (`analyze -q`, the profile
included): what the memory and time per finished thread are.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def count(s):
    mult = {"k": 1000, "K": 1000, "M": 1000000, "G": 1000000000}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def run_child(args):
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(args), p.returncode, err[-500:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--ptgen", required=True)
    ap.add_argument("--events", default="10M")
    ap.add_argument("--full", action="store_true", help="100 M events")
    ap.add_argument("--many-threads", type=int, default=0)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default="/tmp/pt-bench-analyzer")
    ap.add_argument("--out", default=None)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    events = 100000000 if a.full else count(a.events)
    logs = os.path.join(a.work, "logs")
    outdir = a.out or a.work
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(outdir, exist_ok=True)
    shutil.rmtree(logs, ignore_errors=True)
    t0 = time.monotonic()
    if a.many_threads:
        subprocess.run([a.ptgen, "--out", logs, "--scenario", "threads", "--threads",
                        str(a.many_threads), "--calls", "2"], check=True)
        # the records, as analyze counts them (an untimed run)
        r = subprocess.run([a.paratrace, "analyze", "--no-profile", "-j1", "-o",
                            os.path.join(outdir, "count"), logs],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        events = int(r.stderr.decode().split(" events from")[0].split()[-1])
        for ext in (".prv", ".pcf", ".row"):
            os.unlink(os.path.join(outdir, "count" + ext))
    else:
        subprocess.run([a.ptgen, "--out", logs, "--scenario", "bench", "--threads",
                        str(a.threads), "--events", str(events)], check=True)
    gen_s = time.monotonic() - t0
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(logs) for f in fs)
    print("analyzer benchmark: %d events over %d threads, %.0f MB of logs (generated in %.1f s)"
          % (events, a.many_threads or a.threads, size / 1e6, gen_s))
    print("load average before: %.2f" % os.getloadavg()[0])
    print("%4s %9s %9s %12s %14s %10s %9s %8s" % ("-j", "wall s", "cpu s", "Mevents/s", "Mev/cpu-s",
                                                  "peak MB", "prv MB", "speedup"))
    base = None
    out = os.path.join(outdir, "bench")

    def remove_output():
        for ext in (".prv", ".pcf", ".row"):
            if os.path.exists(out + ext):
                os.unlink(out + ext)

    def timed_run(j):
        # The previous run's output is removed first, untimed: replacing a
        # 4 GB .prv frees its pages in the analyzer's process, serial work
        # that belongs to the cleanup, not to the conversion being measured.
        remove_output()
        profile = [] if a.many_threads else ["--no-profile"]
        return run_child([a.paratrace, "analyze"] + profile + ["-q", "-j", str(j), "-o", out,
                                                               logs])

    for j in [int(x) for x in a.jobs.split(",")]:
        runs = [timed_run(j) for _ in range(a.reps)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rss = max(r[2] for r in runs) / 1024.0
        prv = os.path.getsize(out + ".prv") / 1e6
        if base is None:
            base = wall
        print("%4d %9.2f %9.2f %12.2f %14.2f %10.1f %9.0f %7.2fx"
              % (j, wall, cpu, events / wall / 1e6, events / cpu / 1e6, rss, prv, base / wall))
    print("load average after: %.2f" % os.getloadavg()[0])
    if not a.keep:
        shutil.rmtree(logs, ignore_errors=True)
        remove_output()


if __name__ == "__main__":
    main()
