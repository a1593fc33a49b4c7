#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Off-CPU time end to end: sleeper.c (one thread sleeps 10 ms at a time,
another computes) built with the plugin and run under libtrace.so with
PARATRACE_OFFCPU auto (the kernel's context switches, where this machine
allows them), calls (the sleeps themselves) and off. The report and the
Paraver trace must show the sleeper off its CPU most of its life and the
computer running; with off, nothing of it.

The computer may be preempted on a loaded machine, which the kernel's
records rightly count as off-CPU: what is checked of it is what it did not
choose (off-CPU less preempted), and that it ran more than the sleeper.

Usage: offcpu_check.py --cc CLANG --plugin instrument.so --runtime libtrace.so
                       --paratrace PARATRACE --work DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

NAPS = 25  # of 10 ms
OFFCPU_STATE = 100
FAILS = []


def expect(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg, file=sys.stderr)


def run(args, env=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-3000:]))
    return p.stdout, p.stderr


def by_name(threads, name):
    got = [t for t in threads if "(%s)" % name in t["name"]]
    expect(len(got) == 1, "report: %d threads named %s in %s" % (len(got), name,
                                                                 [t["name"] for t in threads]))
    return got[0] if got else None


def prv_states(base):
    """Per thread label: {state: ns} of the .prv, and each row's span."""
    labels = []
    lines = open(base + ".row").read().split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("LEVEL THREAD"))
    n = int(lines[i].split()[-1])
    labels = lines[i + 1:i + 1 + n]
    states = {l: {} for l in labels}
    for line in open(base + ".prv"):
        f = line.rstrip("\n").split(":")
        if f[0] != "1":
            continue
        row, begin, end, st = int(f[1]), int(f[5]), int(f[6]), int(f[7])
        d = states[labels[row - 1]]
        d[st] = d.get(st, 0) + end - begin
    return states


def check_mode(a, exe, mode):
    tdir = os.path.join(a.work, "trace-" + mode)
    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir, PARATRACE_OFFCPU=mode)
    out, err = run([exe, str(NAPS)], env)
    expect(out.strip() == "naps %d" % NAPS, "%s: the program printed %r" % (mode, out))
    refused = "off-CPU time from the blocking calls only" in err
    expect(err.count("off-CPU time from") <= 1, "%s: the warning more than once:\n%s" % (mode, err))
    want = {"auto": "calls" if refused else "switches", "calls": "calls", "off": "none"}[mode]

    rep = json.loads(run([a.paratrace, "report", "--json", tdir])[0])
    expect("offcpu" in rep, "%s: no offcpu member in report --json" % mode)
    oc = rep.get("offcpu", {"threads": [], "functions": []})
    sl, co = by_name(oc["threads"], "sleeper"), by_name(oc["threads"], "computer")
    for t in oc["threads"]:
        expect(t["source"] == want, "%s: thread %s from %s, expected %s" % (mode, t["name"],
                                                                            t["source"], want))
    text = run([a.paratrace, "report", tdir])[0]
    dump = run([a.paratrace, "dump", tdir])[0]
    base = os.path.join(a.work, mode)
    run([a.paratrace, "analyze", "-q", "-o", base, tdir])
    states = prv_states(base)
    srow = [l for l in states if l.endswith("(sleeper)")]
    crow = [l for l in states if l.endswith("(computer)")]
    expect(len(srow) == 1 and len(crow) == 1, "%s: .row labels %s" % (mode, list(states)))
    if mode == "off":
        expect(" OFFCPU" not in dump, "off: OFFCPU records in the dump")
        expect(all(t["offcpu_ns"] == 0 for t in oc["threads"]), "off: off-CPU time %s" % oc)
        expect("Off-CPU time" not in text, "off: the report has the off-CPU section")
        expect(all(OFFCPU_STATE not in s for s in states.values()), "off: state 100 in the .prv")
        return
    if not (sl and co and srow and crow):
        return
    # the report: the sleeper off its CPU, the computer running
    expect(sl["offcpu_ns"] >= 0.7 * sl["time_ns"],
           "%s: sleeper off-CPU %d of %d ns" % (mode, sl["offcpu_ns"], sl["time_ns"]))
    expect(sl["offcpu_ns"] >= NAPS * 10000000 * 0.9,
           "%s: sleeper off-CPU %d ns for %d naps of 10 ms" % (mode, sl["offcpu_ns"], NAPS))
    chose = co["offcpu_ns"] - co["preempted_ns"]
    expect(chose <= 0.1 * co["time_ns"],
           "%s: computer off-CPU (not preempted) %d of %d ns" % (mode, chose, co["time_ns"]))
    expect(co["running_ns"] > 2 * sl["running_ns"],
           "%s: computer ran %d ns, sleeper %d ns" % (mode, co["running_ns"], sl["running_ns"]))
    if mode == "calls":
        expect(co["offcpu_ns"] == 0, "calls: the computer made no call, yet %d ns off-CPU"
               % co["offcpu_ns"])
    fn = {f["name"]: f for f in oc["functions"]}
    nap = fn.get("nap")
    expect(nap is not None and nap["offcpu_ns"] >= 0.7 * nap["excl_ns"],
           "%s: nap's split %s" % (mode, nap))
    expect(re.search(r"\nOff-CPU time ", text) is not None and "nap" in text,
           "%s: no off-CPU section in the text report" % mode)
    # the dump: one stretch per nap at least, of the expected cause
    cause = "call" if want == "calls" else "blocked"
    naps = [l for l in dump.splitlines() if " OFFCPU " in l + " " and " cause=%s" % cause in l]
    expect(len(naps) >= NAPS, "%s: %d OFFCPU cause=%s lines for %d naps" % (mode, len(naps),
                                                                            cause, NAPS))
    # Paraver: the sleeper's row mostly Off-CPU, the computer's mostly Running
    s, c = states[srow[0]], states[crow[0]]
    expect(s.get(OFFCPU_STATE, 0) >= 0.7 * sum(s.values()),
           "%s: sleeper's states %s" % (mode, s))
    expect(c.get(1, 0) > c.get(OFFCPU_STATE, 0) and c.get(1, 0) > s.get(1, 0),
           "%s: computer's states %s (sleeper's %s)" % (mode, c, s))
    pcf = open(base + ".pcf").read()
    expect(re.search(r"\n%d\s+Off-CPU\n" % OFFCPU_STATE, pcf) is not None,
           "%s: no Off-CPU state in the .pcf" % mode)


def main():
    ap = argparse.ArgumentParser()
    for o in ("cc", "plugin", "runtime", "paratrace", "work"):
        ap.add_argument("--" + o, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sleeper.c")
    exe = os.path.join(a.work, "sleeper")
    subprocess.run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, src, "-o", exe, "-lpthread"],
                   check=True)
    for mode in ("auto", "calls", "off"):
        check_mode(a, exe, mode)
    print("offcpu: %s" % ("FAILED" if FAILS else "ok"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
