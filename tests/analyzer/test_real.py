#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a real program (progs/timed.c) built with instrument.so and
run under libtrace.so; its profile and Paraver trace must show the timings
it has by construction, within tolerance (sleeps oversleep, never
undersleep; a loaded machine adds delay, so upper bounds are generous).

Usage: test_real.py --cc CLANG --plugin instrument.so --runtime libtrace.so
                    --paratrace PARATRACE --work DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_read  # noqa: E402
import prv_check  # noqa: E402
from testlib import FAILS, arguments, expect, instrumented, run  # noqa: E402

T, N = 4, 10


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    exe = instrumented(a, "timed.c", os.path.join(a.work, "timed"), "-lpthread")
    tdir = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir)
    p = subprocess.run([exe, str(T), str(N)], env=env, stdout=subprocess.PIPE, text=True, check=True)
    params = dict(line.split() for line in p.stdout.splitlines())
    hold, held, sleep = (int(params[k]) * 1000000 for k in ("hold_ms", "held_ms", "sleep_ms"))

    # profile
    rep = json.loads(run([a.paratrace, "report", "--json", tdir]).stdout)
    f = {x["name"]: x for x in rep["functions"]}
    sf = f.get("sleep_fixed")
    expect(sf is not None, "sleep_fixed not in the profile: %s" % list(f))
    expect(params.get("child_ok") == "1", "the forked child did not run: %r" % params)
    if sf:
        # T workers and the forked child; one function id for both processes
        expect(sf["calls"] == (T + 1) * N, "sleep_fixed calls %d, expected %d" % (sf["calls"], (T + 1) * N))
        expect(sleep <= sf["incl_mean_ns"] < sleep + 20000000,
               "sleep_fixed mean %d ns, expected %d..+20ms" % (sf["incl_mean_ns"], sleep))
        expect(sf["file"].endswith("timed.c"), "file %r" % sf["file"])
    hg = f.get("hold_gate")
    expect(hg is not None and hg["calls"] == T, "hold_gate calls %s" % (hg and hg["calls"]))
    gate = [l for l in rep["locks"] if l["kind"] == "mutex" and l["acquisitions"] >= T + 1]
    expect(len(gate) >= 1, "the gate mutex is not in the lock table: %s" % rep["locks"])
    if gate:
        g = gate[0]
        # every worker waited at least until main released it (hold) minus the
        # time between its request and main's sleep start; the workers
        # then waited for each other: total >= (T-1) * held as well
        expect(g["contended"] >= T, "contended acquisitions %d" % g["contended"])
        expect(g["wait_max_ns"] >= hold * 0.8, "max wait %d, hold %d" % (g["wait_max_ns"], hold))
        expect(g["wait_ns"] >= (T - 1) * held, "total wait %d" % g["wait_ns"])
        expect(g["top_waiter"] == "hold_gate", "waited most in %r" % g["top_waiter"])
    th = [t for t in rep["threads"] if t["kind"] == "thread"]
    expect(len(th) == T + 2, "threads %d (T workers, main, the child)" % len(th))
    main_t = th[0]
    expect(main_t["wait_join_ns"] > 0, "main thread join wait")

    # Paraver
    out = os.path.join(a.work, "timed")
    problems, s = prv_check.analyze_and_check(a.paratrace, tdir, out)
    for m in problems:
        expect(False, m)
    if s:
        expect(s["threads"] == T + 2, "prv threads %d" % s["threads"])
        expect(len(s["task_labels"]) == 2, "tasks (processes) %r" % s["task_labels"])
        creations = [c for c in s["comms"] if c["tag"] == 1]
        expect(len(creations) == T, "thread creation comms %d" % len(creations))
        forks = [c for c in s["comms"] if c["tag"] == 2]
        expect(len(forks) == 1 and forks[0]["from"] == "1.1.1" and forks[0]["to"] == "1.2.1",
               "fork comm %r" % forks)
        sync = sum(st.get("5", 0) for st in s["states"].values())
        expect(sync >= T * hold * 0.5, "synchronization state time %d" % sync)
        pcf = open(out + ".pcf").read()
        expect("sleep_fixed [" in pcf and "timed.c" in pcf, "function names with files in .pcf")
    # Chrome
    js = os.path.join(a.work, "timed.json")
    run([a.paratrace, "export", "--format", "chrome", "-q", "-o", js, tdir])
    ev = json.load(open(js))["traceEvents"]
    expect(sum(1 for e in ev if e.get("ph") == "B" and e.get("name") == "sleep_fixed") == (T + 1) * N,
           "chrome sleep_fixed slices")
    # Perfetto protobuf: the same slices, well formed
    pf = os.path.join(a.work, "timed.pftrace")
    run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, tdir])
    problems, _, slices = perfetto_read.check(perfetto_read.read(pf))
    expect(not problems, "perfetto: %s" % problems[:5])
    expect(sum(1 for sl in slices.values() for s in sl if s[0] == "sleep_fixed") == (T + 1) * N,
           "perfetto sleep_fixed slices")
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
