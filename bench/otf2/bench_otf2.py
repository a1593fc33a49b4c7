#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The OTF2 export's throughput beside the Paraver writer's, on one trace.

  bench_otf2.py --paratrace build/bin/paratrace --ptgen build/bin/ptgen
                [--events 2M] [--threads 8] [--jobs 1,2] [--reps 3] [--work DIR]

Generates --events records over --threads threads with ptgen (its bench
scenario: nested function calls, locks), then, for each -jN, runs
`paratrace analyze --no-profile --full -q` (the .prv/.pcf/.row, all of
it: no size budget) and `paratrace
export --format otf2 -q` (the archive) --reps times each, alternating, and
prints their medians: wall time, events per second, the OTF2 export's time
over the Paraver writer's (the goal: at most 1.5), and the output's bytes per
event (the .prv and the archive's folder). Each run starts without the
previous run's output (removed, untimed)."""
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


def timed(args):
    t0 = time.monotonic()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(args), p.returncode,
                                                p.stderr.decode(errors="replace")[-500:]))
    return wall


def size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--ptgen", required=True)
    ap.add_argument("--events", default="2M")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default="/tmp/pt-bench-otf2")
    a = ap.parse_args()
    events = count(a.events)
    logs = os.path.join(a.work, "logs")
    prv, arch = os.path.join(a.work, "out"), os.path.join(a.work, "archive")
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    subprocess.run([a.ptgen, "--out", logs, "--scenario", "bench", "--threads", str(a.threads),
                    "--events", str(events)], check=True)
    print("OTF2 export vs Paraver writer: %d events over %d threads, %.0f MB of logs"
          % (events, a.threads, size(logs) / 1e6))
    print("%4s %-8s %9s %11s %8s %10s" % ("-j", "output", "wall s", "Mevents/s", "ratio",
                                          "bytes/ev"))
    for j in [int(x) for x in a.jobs.split(",")]:
        walls = {"paraver": [], "otf2": []}
        for _ in range(a.reps):
            for f in (prv + ".prv", prv + ".pcf", prv + ".row"):
                if os.path.exists(f):
                    os.unlink(f)
            walls["paraver"].append(timed([a.paratrace, "analyze", "--no-profile", "--full", "-q",
                                           "-j%d" % j, "-o", prv, logs]))
            shutil.rmtree(arch, ignore_errors=True)
            walls["otf2"].append(timed([a.paratrace, "export", "--format", "otf2", "-q",
                                        "-j%d" % j, "-o", arch, logs]))
        base = statistics.median(walls["paraver"])
        for name, out in (("paraver", prv + ".prv"), ("otf2", arch)):
            w = statistics.median(walls[name])
            print("%4d %-8s %9.3f %11.2f %8.2f %10.1f" % (j, name, w, events / w / 1e6,
                                                          w / base, size(out) / events))
    shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
