#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Locks named by symbol: progs/lock_names.c locks a global mutex
(result_mu), one at offset 0x28 of a global struct (q+0x28) and one on the
heap, and waits once for each. The report (text, CSV, JSON) and the .pcf
name the first two by symbol and show the heap one's address; the Chrome
and Perfetto wait slices of the first two carry the same names ("wait mutex
result_mu", the symbol beside the address in their arguments), the heap
one's is "wait mutex".

usage: check_lock_names.py --prog BIN --runtime LIBTRACE --paratrace CLI --work DIR
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


def check_waits(fmt, waits, heap):
    """waits: (slice name, {argument: value}) of every lock wait slice."""
    by_object = {}
    for name, args in waits:
        by_object.setdefault(args.get("object"), set()).add((name, args.get("symbol")))
    named = {}
    for obj, seen in by_object.items():
        for name, sym in seen:
            if sym is not None and name != "wait mutex " + sym:
                fail("%s: the wait slice %r of %s is not named after its lock %r" %
                     (fmt, name, obj, sym))
            named.setdefault(sym, set()).add(name)
    for sym in ("result_mu", "q+0x28"):
        if named.get(sym) != {"wait mutex " + sym}:
            fail("%s: no wait slice named 'wait mutex %s' (slices by symbol: %r)" %
                 (fmt, sym, named))
    if by_object.get(heap) != {("wait mutex", None)}:
        fail("%s: the heap lock's waits are %r, want 'wait mutex' with no symbol" %
             (fmt, by_object.get(heap)))


def check_timelines(a, trace, work, heap):
    js = os.path.join(work, "t.json")
    run(a, ["export", "--format", "chrome", "-q", "-o", js, trace])
    try:
        ev = json.load(open(js))["traceEvents"]
    except (OSError, ValueError) as e:
        fail("chrome export unreadable: %s" % e)
        ev = []
    check_waits("chrome", [(e["name"], e.get("args") or {}) for e in ev
                           if e.get("ph") == "X" and e.get("cat") == "wait"
                           and e["name"].startswith("wait mutex")], heap)
    pf = os.path.join(work, "t.pftrace")
    run(a, ["export", "--format", "perfetto", "-q", "-o", pf, trace])
    try:
        problems, _, slices = perfetto_read.check(perfetto_read.read(pf))
    except (OSError, ValueError) as e:
        fail("perfetto export unreadable: %s" % e)
        return
    for m in problems:
        fail("perfetto: " + m)
    check_waits("perfetto", [(n, ev["annotations"]) for sl in slices.values()
                             for n, _, _, ev in sl
                             if ev["categories"] == ["wait"] and n.startswith("wait mutex")], heap)


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
    work = os.path.abspath(a.work)
    trace = os.path.join(work, "trace")
    out = traced("check_lock_names", [a.prog], a.runtime, trace)
    heap = "0x%x" % int(out.split()[0], 16)
    want = ["result_mu", "q+0x28", heap]

    d = json.loads(run(a, ["report", "--json", trace]))
    objs = sorted(l.get("object", "") for l in d["locks"])
    if objs != sorted(want):
        fail("report --json: objects %r, not %r" % (objs, sorted(want)))
    rows = [r for r in csv.reader(io.StringIO(run(a, ["report", "--csv", trace])))
            if r and r[0] == "lock"]
    if sorted(r[-1] for r in rows) != sorted(want):
        fail("report --csv: objects %r" % [r[-1] for r in rows])
    text = run(a, ["report", trace])
    for w in want:
        if not re.search(r"^mutex\s+%s\s" % re.escape(w), text, re.M):
            fail("report: no mutex row for %s:\n%s" % (w, text))
    base = os.path.join(work, "a")
    run(a, ["analyze", trace, "-o", base])
    pcf = open(base + ".pcf").read()
    for w in ("result_mu", "q+0x28"):
        if not re.search(r"^\d+\s+mutex %s \(0x[0-9a-f]+, pid \d+\)$" % re.escape(w), pcf, re.M):
            fail(".pcf: no label of %s" % w)
    if not re.search(r"^\d+\s+mutex %s \(pid \d+\)$" % heap, pcf, re.M):
        fail(".pcf: the heap lock is not %s" % heap)
    check_timelines(a, trace, work, heap)
    if FAILS:
        sys.exit("check_lock_names: %d failures (outputs in %s)" % (len(FAILS), work))
    print("ok: locks named by symbol, the heap one by address")


if __name__ == "__main__":
    main()
