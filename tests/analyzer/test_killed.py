#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a program killed with SIGKILL while its threads wait
(progs/killed.c). Its logs have no CLOSE record but the one of the thread
that returned; `report` and `analyze` must say so once, with the counts
(the logs in the trace; the unclosed ones as `dump` notes them), list
every thread with a lifetime up to its last record, and end the open
calls there (nap: open, but 50 ms between its entry and its last record).

Usage: test_killed.py --prog killed --runtime libtrace.so
                      --paratrace PARATRACE --work DIR
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

FAILS = []
WARN = re.compile(r"(\d+) of (\d+) logs not closed: the program is still running or was killed")


def expect(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg, file=sys.stderr)


def check_warning(cmd, stderr):
    hits = [m for m in (WARN.search(line) for line in stderr.splitlines()) if m]
    expect(len(hits) == 1, "%s: %d unclosed-log warnings, want 1:\n%s" % (cmd, len(hits), stderr))
    return (int(hits[0].group(1)), int(hits[0].group(2))) if hits else None


def main():
    ap = argparse.ArgumentParser()
    for a in ("prog", "runtime", "paratrace", "work"):
        ap.add_argument("--" + a, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    tdir = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir)
    p = subprocess.Popen([a.prog], env=env, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if line.strip() != "ready":
        p.kill()
        p.wait()
        print("FAIL: the program did not get ready: %r" % line)
        return 1
    time.sleep(0.2)
    p.send_signal(signal.SIGKILL)
    p.wait()

    logs = [os.path.join(r, f) for r, _, fs in os.walk(tdir) for f in fs if f.endswith(".ptl")]
    d = subprocess.run([a.paratrace, "dump", tdir], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    unclosed = d.stderr.count("has no CLOSE record") + d.stderr.count(": log cut short at")
    # main, sleeper, blocked and the process log are open; `done` returned
    expect(unclosed == len(logs) - 1,
           "dump notes %d unclosed logs of %d, want all but done's" % (unclosed, len(logs)))

    r = subprocess.run([a.paratrace, "report", "--json", tdir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "report --json: status %d: %s" % (r.returncode, r.stderr))
    expect(check_warning("report --json", r.stderr) == (unclosed, len(logs)),
           "report --json: counts, want %d of %d" % (unclosed, len(logs)))
    rep = json.loads(r.stdout)
    th = [t for t in rep["threads"] if t["kind"] == "thread"]
    expect(len(th) == 4, "threads %d, want 4 (main, done, sleeper, blocked)" % len(th))
    live = [t for t in th if t["lifetime_ns"] >= 50000000]
    # main (waits >= 70 ms before its join) and sleeper (50 ms nap) at least
    expect(len(live) >= 2, "threads living >= 50 ms: %d of %s" % (len(live), th))
    f = {x["name"]: x for x in rep["functions"]}
    nap = f.get("nap")
    expect(nap is not None and nap["calls"] == 1, "nap: %s" % nap)
    if nap:
        expect(nap["incl_ns"] >= 50000000, "nap, still open, took %d ns, want >= 50 ms" %
               nap["incl_ns"])
    m = f.get("main")
    expect(m is not None and m["incl_ns"] >= 70000000, "main, still open: %s" % m)
    # the waits the kill cut short last until the process's last record
    # (sleeper's, 150 ms into nap; main joins from about 70 ms): main's join,
    # blocked's lock request
    joins = sorted(t["wait_join_ns"] for t in th)
    locks = sorted(t["wait_lock_ns"] for t in th)
    expect(joins[-1] >= 20000000, "the open join counts %d ns, want >= 20 ms" % joins[-1])
    expect(locks[-1] >= 20000000, "the open lock wait counts %d ns, want >= 20 ms" % locks[-1])

    r = subprocess.run([a.paratrace, "report", tdir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "report: status %d: %s" % (r.returncode, r.stderr))
    check_warning("report", r.stderr)
    rows = r.stdout.split("\nThreads\n", 1)
    expect(len(rows) == 2, "report: no Threads table:\n%s" % r.stdout)
    if len(rows) == 2:
        body = [x for x in rows[1].split("\n\n")[0].splitlines()[1:] if x.strip()]
        expect(len(body) == 4, "report: Threads table has %d rows, want 4:\n%s" %
               (len(body), rows[1]))

    out = os.path.join(a.work, "out")
    r = subprocess.run([a.paratrace, "analyze", tdir, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "analyze: status %d: %s" % (r.returncode, r.stderr))
    check_warning("analyze", r.stderr)
    expect(os.path.exists(out + ".prv"), "analyze wrote no .prv")
    if FAILS:
        return 1
    print("killed: %d of %d logs unclosed; nap %d ns; threads %s" %
          (unclosed, len(logs), nap["incl_ns"], [t["lifetime_ns"] for t in th]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
