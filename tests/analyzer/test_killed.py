#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a program killed with SIGKILL while its threads wait
(progs/killed.c). Its logs have no CLOSE record but the one of the thread
that returned; `report` and `analyze` must say so once, with the counts
(the logs in the trace; the unclosed ones as `dump` notes them), list
every thread with a lifetime up to its last record, and end the open
calls there (nap: open, but 50 ms between its entry and its last record).
The waits the kill cut short (main's join, blocked's lock request) last
until the process's last record, in the report and in the .prv alike.

Usage: test_killed.py --prog killed --runtime libtrace.so
                      --paratrace PARATRACE --work DIR
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import FAILS, arguments, expect  # noqa: E402

WARN = re.compile(r"(\d+) of (\d+) logs not closed: the program is still running or was killed")


def check_warning(cmd, stderr):
    hits = [m for m in (WARN.search(line) for line in stderr.splitlines()) if m]
    expect(len(hits) == 1, "%s: %d unclosed-log warnings, want 1:\n%s" % (cmd, len(hits), stderr))
    return (int(hits[0].group(1)), int(hits[0].group(2))) if hits else None


PTHREAD = 61000000  # the pthread call event (Extrae's numbering), 0 when it ends
SYNC = 5  # the Synchronization state


def check_prv(base):
    """main's join and blocked's lock wait, open at the kill, end at the
    process's last record in the .prv as in the report: a Synchronization
    state and a pthread call of at least 20 ms, ending at the same time."""
    rows = open(base + ".row").read().split("LEVEL THREAD SIZE")[1].splitlines()[1:]
    row_of = {}
    for k, label in enumerate(rows):
        m = re.search(r"\((\w+)\)$", label.strip())
        if m:
            row_of[m.group(1)] = k + 1
    lines = [l.split(":") for l in open(base + ".prv") if l[:2] in ("1:", "2:")]
    end = int(re.search(r"\):(\d+)_ns:", open(base + ".prv").readline()).group(1))
    for name in ("main", "blocked"):
        row = row_of.get(name)
        if not row:
            expect(False, ".row: no thread (%s): %s" % (name, rows))
            continue
        sync = [(int(l[5]), int(l[6])) for l in lines
                if l[0] == "1" and int(l[4]) == row and int(l[7]) == SYNC]
        calls = []  # (begin, end) of the pthread calls
        for l in lines:
            if l[0] != "2" or int(l[4]) != row:
                continue
            for typ, val in zip(l[6::2], l[7::2]):
                if int(typ) == PTHREAD and int(val):
                    calls.append([int(l[5]), None])
                elif int(typ) == PTHREAD and calls and calls[-1][1] is None:
                    calls[-1][1] = int(l[5])
        last_sync = max(sync, key=lambda x: x[1]) if sync else (0, 0)
        expect(last_sync[1] - last_sync[0] >= 20000000,
               ".prv: %s's last Synchronization state %s lasts %d ns, want >= 20 ms" %
               (name, last_sync, last_sync[1] - last_sync[0]))
        last_call = calls[-1] if calls else [0, None]
        expect(last_call[1] is not None and last_call[1] - last_call[0] >= 20000000,
               ".prv: %s's last pthread call %s, want one of >= 20 ms" % (name, last_call))
        expect(last_call[1] == last_sync[1] and last_sync[1] <= end,
               ".prv: %s's wait ends at %s, its state at %d (trace end %d)" %
               (name, last_call[1], last_sync[1], end))


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
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
    if os.path.exists(out + ".prv"):
        check_prv(out)
    if FAILS:
        return 1
    print("killed: %d of %d logs unclosed; nap %d ns; threads %s" %
          (unclosed, len(logs), nap["incl_ns"], [t["lifetime_ns"] for t in th]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
