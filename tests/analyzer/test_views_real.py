#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: the report's views on a real program (progs/phases.c) built
with instrument.so and run under libtrace.so, twice: step_b takes 0.5 ms a
call, then 20 ms. Durations are spun to, so a loaded machine only makes
them longer: the checks are lower bounds, or shares of the run.

  - diff of the two runs ranks step_b first, at least 200 ms in the slow
    run (10 calls), the delta b - a;
  - report --from 50% --to 90% of the slow run, all in its second phase
    (setup's 5 ms are a fortieth of it), shows that phase's functions
    only, and 40% of the run as the thread's time;
  - the runtime throttles tick() (PARATRACE_THROTTLE=20:1ms): the window
    leaves its unrecorded calls out, and says how many;
  - report --tree: main -> setup, step_a, step_b, step_c, 10 calls each;
  - report --callers step_b: main.

Usage: test_views_real.py --cc CLANG --plugin instrument.so
                          --runtime libtrace.so --paratrace PARATRACE --work DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import FAILS, arguments, expect, instrumented, run  # noqa: E402


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    exe = instrumented(a, "phases.c", os.path.join(a.work, "phases"))
    traces = []
    for factor in (1, 40):
        tdir = os.path.join(a.work, "run%d" % factor)
        env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir,
                   PARATRACE_THROTTLE="20:1ms")
        subprocess.run([exe, str(factor)], env=env, check=True)
        traces.append(tdir)

    def pt(*args):
        return run([a.paratrace] + list(args)).stdout

    d = json.loads(pt("diff", "--json", traces[0], traces[1]))
    first = d["functions"][0]
    expect(first["name"] == "step_b", "diff ranks %s first: %s" % (first["name"], d["functions"]))
    delta = first["excl_ns"]["delta"]
    # the slow run's step_b spun 10 x 20 ms at least; a preempted fast run
    # can take more than its 5 ms, so the delta itself is checked as b - a
    ex = first["excl_ns"]
    expect(ex["b"] >= 200e6, "step_b took %d ns in the slow run, expected 200 ms or more" % ex["b"])
    expect(delta == ex["b"] - ex["a"], "step_b's delta %d ns is not b - a: %s" % (delta, ex))
    expect(first["calls"]["a"] == first["calls"]["b"] == 10, "step_b calls %s" % first["calls"])
    txt = pt("diff", traces[0], traces[1])
    expect(txt.split("\n")[5].startswith("step_b "), "text diff:\n" + txt)

    # the second phase
    rep = json.loads(pt("report", "--json", traces[1]))
    f = {x["name"]: x for x in rep["functions"]}
    expect(set(f) >= {"main", "setup", "step_a", "step_b", "step_c"}, "functions %s" % list(f))
    win = json.loads(pt("report", "--json", "--from", "50%", "--to", "90%", traces[1]))
    names = sorted(x["name"] for x in win["functions"] if x["name"] != "tick")
    run_ns = win["selection"]["run_ns"]
    tick = f.get("tick", {})
    expect(tick.get("calls") == 1000 and tick.get("throttled_calls", 0) > 0, "tick %s" % tick)
    expect(win["selection"]["throttled_left_out"] == tick.get("throttled_calls"),
           "throttled calls left out %s, tick %s" % (win["selection"], tick))
    expect(f["setup"]["incl_ns"] < 0.5 * run_ns, "setup %d of a %d ns run" % (f["setup"]["incl_ns"],
                                                                            run_ns))
    expect(names == ["main", "step_a", "step_b", "step_c"], "window functions %s" % names)
    expect(abs(win["total_thread_ns"] - 0.4 * run_ns) <= 0.01 * run_ns,
           "window thread time %d of a %d ns run" % (win["total_thread_ns"], run_ns))

    tree = json.loads(pt("report", "--tree", "--json", "--threshold", "0", traces[0]))
    m = [r for r in tree["roots"] if r["name"] == "main"]
    expect(len(m) == 1, "tree roots %s" % tree["roots"])
    if m:
        kids = {k["name"]: k for k in m[0]["children"]}
        expect(set(kids) - {"tick"} == {"setup", "step_a", "step_b", "step_c"},
               "main's children %s" % kids)
        expect(all(kids[k]["calls"] == 10 for k in ("step_a", "step_b", "step_c")),
               "10 calls each %s" % kids)
    callers = json.loads(pt("report", "--callers", "step_b", "--json", traces[1]))
    r = callers["roots"][0]
    expect(r["name"] == "step_b" and [k["name"] for k in r["children"]] == ["main"],
           "callers %s" % callers)
    if FAILS:
        sys.exit("%d failures" % len(FAILS))
    print("ok")


if __name__ == "__main__":
    main()
