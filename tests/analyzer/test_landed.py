#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a longjmp landing is never a new call, also where nothing
recorded is open above the function it lands in (docs/ABI.md, "After a
longjmp lands"; docs/ANALYZER.md, "Call stacks"). progs/landed.c (built
with instrument.so) linked with progs/landed_lib.c (built without it), run
under libtrace.so with a threshold every function meets after 10,000 calls:
lander() has longjmps land in it from throttled frames, lib_lander() from a
function without hooks, each LANDINGS times per call. Checked, for both:

  - `paratrace dump`: one FUNC_LANDED of the function per landing;
  - `paratrace report --csv` counts every function's calls exactly as the
    program did (a landing counted as a call breaks it);
  - the Paraver trace nests (prv_check) and holds one burst of each per
    call; so do the Chrome and Perfetto exports (one slice per call);
  - `--interval-us` counts the calls the profile recorded;
  - the program's output is the same traced or not.

Usage: test_landed.py --cc CLANG --plugin instrument.so --runtime libtrace.so
                      --paratrace PARATRACE --work DIR
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfetto_read  # noqa: E402
import prv_check  # noqa: E402
from testlib import (SURE, arguments, counts as program_counts, expect,  # noqa: E402
                     finish, pcf_values, report_rows, run_both, short)

LANDERS = ("lander", "lib_lander")


def run(paratrace, *args):
    r = subprocess.run([paratrace] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    expect(r.returncode == 0, "paratrace %s failed: %s" % (" ".join(args), r.stderr))
    return r.stdout


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    progs = os.path.join(HERE, "progs")
    lib = os.path.join(a.work, "landed_lib.o")
    exe = os.path.join(a.work, "landed")
    subprocess.run([a.cc, "-O2", "-c", os.path.join(progs, "landed_lib.c"), "-o", lib], check=True)
    subprocess.run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, os.path.join(progs, "landed.c"),
                    lib, "-o", exe], check=True)

    tdir = os.path.join(a.work, "trace")
    plain, _ = run_both("landed", [exe], a.runtime, tdir, SURE)
    counts = program_counts(plain)
    landed = {l.split()[1]: int(l.split()[2]) for l in plain.splitlines()
              if l.startswith("LANDED ")}
    expect(len(counts) == 6 and all(counts.get(f) == 3 for f in LANDERS) and
           all(landed.get(f) == 15 for f in LANDERS), "program output: %r" % plain)

    dump = run(a.paratrace, "dump", tdir)
    records = {}
    for m in re.finditer(r"^\d+ \d+ \d+ FUNC_LANDED .* name=(.*)$", dump, re.M):
        records[short(m.group(1))] = records.get(short(m.group(1)), 0) + 1
    expect(records == landed, "FUNC_LANDED records %r, the program's landings %r" %
           (records, landed))

    rows = report_rows(a.paratrace, tdir, short)
    for name, n in counts.items():
        row = rows.get(name)
        expect(row is not None and int(row["calls"]) == n,
               "report: %s: %s calls, the program made %d" % (name, row and row["calls"], n))
    for name in ("hop", "leap"):
        row = rows.get(name)
        expect(row is not None and int(row["throttled_calls"]) > 0,
               "report: %s not throttled: %r" % (name, row))

    out = os.path.join(a.work, "prv")
    problems, summary = prv_check.analyze_and_check(a.paratrace, tdir, out)
    for m in problems:
        expect(False, m)
    if summary:
        values = pcf_values(out + ".pcf", 60000019)
        for name in LANDERS:
            v = [k for k, label in values.items() if label == name]
            bursts = summary["events"].get("60000019:%d" % v[0]) if v else None
            expect(bursts == counts.get(name), "Paraver: %r bursts of %s, %d calls" %
                   (bursts, name, counts.get(name, -1)))

    js = os.path.join(a.work, "landed.json")
    run(a.paratrace, "export", "--format", "chrome", "-q", "-o", js, tdir)
    events = json.load(open(js))["traceEvents"] if os.path.exists(js) else []
    pf = os.path.join(a.work, "landed.pftrace")
    run(a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, tdir)
    problems, _, slices = perfetto_read.check(perfetto_read.read(pf)) if os.path.exists(pf) \
        else (["no export"], {}, {})
    expect(not problems, "perfetto: %s" % problems[:5])
    for name in LANDERS:
        n = sum(1 for e in events if e.get("ph") == "B" and e.get("name") == name)
        expect(n == counts.get(name), "Chrome: %d slices of %s, %d calls" %
               (n, name, counts.get(name, -1)))
        n = sum(1 for sl in slices.values() for s in sl if s[0] == name)
        expect(n == counts.get(name), "Perfetto: %d slices of %s, %d calls" %
               (n, name, counts.get(name, -1)))

    # one interval holds the whole run: its calls are those recorded
    text = run(a.paratrace, "report", "--csv", "--interval-us", "100000000", tdir)
    iv = list(csv.DictReader(io.StringIO(text.split("\ntable,")[0])))
    recorded = sum(int(r["calls"]) - int(r["throttled_calls"]) for r in rows.values())
    expect(iv and sum(int(r["calls"]) for r in iv) == recorded,
           "intervals: %r calls, the profile recorded %d" % (iv, recorded))

    return finish("test_landed")


if __name__ == "__main__":
    sys.exit(main())
