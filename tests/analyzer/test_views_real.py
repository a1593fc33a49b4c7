#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: the report's views on a real program (progs/phases.c) built
with instrument.so and run under libtrace.so, twice: step_b takes 1 ms a
call, then 4 ms.

  - diff of the two runs ranks step_b first, about 30 ms more (10 calls);
  - report --from/--to on the second phase shows its functions only;
  - report --tree: main -> setup, step_a, step_b, step_c, 10 calls each;
  - report --callers step_b: main.

Usage: test_views_real.py --cc CLANG --plugin instrument.so
                          --runtime libtrace.so --paratrace PARATRACE --work DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

FAILS = []


def expect(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    for a in ("cc", "plugin", "runtime", "paratrace", "work"):
        ap.add_argument("--" + a, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "phases.c")
    exe = os.path.join(a.work, "phases")
    subprocess.run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, src, "-o", exe], check=True)
    traces = []
    for factor in (1, 4):
        tdir = os.path.join(a.work, "run%d" % factor)
        env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir)
        subprocess.run([exe, str(factor)], env=env, check=True)
        traces.append(tdir)

    def pt(*args):
        p = subprocess.run([a.paratrace] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        expect(p.returncode == 0, "%s: %s" % (" ".join(args), p.stderr))
        return p.stdout

    d = json.loads(pt("diff", "--json", traces[0], traces[1]))
    first = d["functions"][0]
    expect(first["name"] == "step_b", "diff ranks %s first: %s" % (first["name"], d["functions"]))
    delta = first["excl_ns"]["delta"]
    expect(25e6 <= delta < 60e6, "step_b's delta %d ns, expected about 30 ms" % delta)
    expect(first["calls"]["a"] == first["calls"]["b"] == 10, "step_b calls %s" % first["calls"])
    txt = pt("diff", traces[0], traces[1])
    expect(txt.split("\n")[4].startswith("step_b "), "text diff:\n" + txt)

    # the second phase: after setup's 20 ms
    rep = json.loads(pt("report", "--json", traces[0]))
    f = {x["name"]: x for x in rep["functions"]}
    expect(set(f) >= {"main", "setup", "step_a", "step_b", "step_c"}, "functions %s" % list(f))
    lo = f["setup"]["incl_ns"] + 3000000
    win = json.loads(pt("report", "--json", "--from", "%dns" % lo, "--to", "%dns" % (lo + 5000000),
                        traces[0]))
    names = sorted(x["name"] for x in win["functions"])
    expect(names == ["main", "step_a", "step_b", "step_c"], "window functions %s" % names)
    expect(4.9e6 <= win["total_thread_ns"] <= 5.0e6, "window thread time %d" % win["total_thread_ns"])

    tree = json.loads(pt("report", "--tree", "--json", "--threshold", "0", traces[0]))
    m = [r for r in tree["roots"] if r["name"] == "main"]
    expect(len(m) == 1, "tree roots %s" % tree["roots"])
    if m:
        kids = {k["name"]: k for k in m[0]["children"]}
        expect(set(kids) == {"setup", "step_a", "step_b", "step_c"}, "main's children %s" % kids)
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
