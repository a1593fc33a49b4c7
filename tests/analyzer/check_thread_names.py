#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Thread names in every output: progs/thread_names.c names its threads
with prctl(PR_SET_NAME), pthread_setname_np (itself, and another thread),
a write to /proc/self/task/TID/comm (the name a thread has at its end, and
at the process's end for one still running), and leaves one unnamed. Each
thread has ONE label, "PROGRAM pid P tid T (NAME)" (NAME: the start
routine's for the unnamed one), and it must be the same in the report
(text, CSV, JSON), the .row, the plot, the HTML report, the Chrome and the
Perfetto exports; dump shows the process log's records with their tid.

usage: check_thread_names.py --prog BIN --runtime LIBTRACE --paratrace CLI --work DIR
"""
import csv
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_read  # noqa: E402
import testlib  # noqa: E402
from testlib import FAILS, arguments, fail, traced  # noqa: E402



def run(a, args):
    return testlib.run([a.paratrace] + args, timeout=120).stdout


def same(what, got, want):
    if sorted(got) != sorted(want):
        fail("%s: labels\n  %r\nnot\n  %r" % (what, sorted(got), sorted(want)))


def holds(what, got, want):
    missing = [w for w in want if w not in got]
    if missing:
        fail("%s: no %r" % (what, missing))


def row_levels(path):
    lines = open(path).read().split("\n")
    levels, i = {}, 0
    while i < len(lines):
        m = re.match(r"^LEVEL (\w+) SIZE (\d+)$", lines[i])
        if m:
            n = int(m.group(2))
            levels[m.group(1)] = lines[i + 1:i + 1 + n]
            i += n
        i += 1
    return levels


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
    work = os.path.abspath(a.work)
    trace = os.path.join(work, "trace")
    out = traced("check_thread_names", [a.prog], a.runtime, trace)
    said = [line.split(" ", 1) for line in out.decode().splitlines()]
    pid = int(said[0][0])

    base = os.path.join(work, "a")
    run(a, ["analyze", trace, "-o", base])
    levels = row_levels(base + ".row")
    prog = levels.get("APPL", ["?"])[0]
    want = ["%s pid %d tid %s (%s)" % (prog, pid, tid, "unnamed_worker" if n == "-" else n)
            for tid, n in said]
    same(".row", levels.get("THREAD", []), want)

    d = json.loads(run(a, ["report", "--json", trace]))
    same("report --json", [t["name"] for t in d["threads"] if t["kind"] == "thread"], want)
    rows = list(csv.reader(io.StringIO(run(a, ["report", "--csv", trace]))))
    same("report --csv", [r[3] for r in rows if r and r[0] == "thread"], want)
    text = run(a, ["report", trace])
    table = text.split("\nThreads\n", 1)[-1].split("\n\n", 1)[0].split("\n")[1:]
    for w in want:  # cut at its start to the column: its end shows
        if not any(w[-16:] in r for r in table):
            fail("report: no Threads row ends with %r: %r" % (w[-16:], table))

    svg = os.path.join(work, "p.svg")
    run(a, ["plot", trace, "-o", svg])
    holds("plot", open(svg).read(), want)
    html = os.path.join(work, "r.html")
    run(a, ["report", "--html", trace, "-o", html])
    holds("report --html", open(html).read(), want)

    chrome = os.path.join(work, "c.json")
    run(a, ["export", "--format", "chrome", trace, "-o", chrome])
    evs = json.load(open(chrome))
    evs = evs["traceEvents"] if isinstance(evs, dict) else evs
    same("chrome", [e["args"]["name"] for e in evs if e.get("name") == "thread_name"], want)
    pf = os.path.join(work, "p.pftrace")
    run(a, ["export", "--format", "perfetto", trace, "-o", pf])
    names = [pk["track"]["thread"]["name"] for pk in perfetto_read.read(pf)
             if pk["track"] and pk["track"].get("thread")]
    same("perfetto", names, want)

    dump = run(a, ["dump", trace])
    for tid, n in said:
        if n not in ("-", "boss") and not re.search(r"THREAD_NAME.*name=%s tid=%s\b" %
                                                      (re.escape(n), tid), dump):
            fail("dump: no THREAD_NAME of %s for tid %s" % (n, tid))
    if FAILS:
        sys.exit("check_thread_names: %d failures (outputs in %s)" % (len(FAILS), work))
    print("ok: %d threads, one label each in every output" % len(want))


if __name__ == "__main__":
    main()
