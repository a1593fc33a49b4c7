#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: a recorded call that a longjmp skips does not keep its
function from being throttled (docs/RUNTIME.md, "Throttling": the hooks'
stack of open calls). progs/skipped.c (built with instrument.so) linked
with progs/skipped_lib.c (built without it), run under libtrace.so with
PARATRACE_THROTTLE=100:2us: g, g2 and g3 each have one recorded call
skipped by a longjmp (landing in an instrumented caller, in a library
without hooks, and in the outer call of a recursion), then thousands of
calls far shorter than 2 us, 5 us apart. Their sums counting the skipped
call open would make every round's mean longer than the gap; ended at the
landing (or at the caller's exit), it is tens of ns. Checked:

  - `paratrace dump`: a THROTTLE record of each of g, h, g2 and g3;
  - `paratrace report --csv`: their throttled_calls are not 0, and every
    function's calls are the program's count;
  - the program's output is the same traced or not.

Usage: test_throttle_skipped.py --cc CLANG --plugin instrument.so
                                --runtime libtrace.so --paratrace PARATRACE --work DIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from testlib import (arguments, counts as program_counts, expect, finish,  # noqa: E402
                     instrumented, report_rows, run_both, short)

# Calls of a few tens of ns, 5 us apart: under 2 us unless the sums count a
# call open for the whole round.
THROTTLE = {"PARATRACE_THROTTLE": "100:2us"}
SKIPPED = ("g", "h", "g2", "g3")


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    lib = os.path.join(a.work, "skipped_lib.o")
    subprocess.run([a.cc, "-O2", "-c", os.path.join(HERE, "progs", "skipped_lib.c"), "-o", lib],
                   check=True)
    exe = instrumented(a, "skipped.c", os.path.join(a.work, "skipped"), lib)

    tdir = os.path.join(a.work, "trace")
    plain, _ = run_both("skipped", [exe], a.runtime, tdir, THROTTLE)
    counts = program_counts(plain)
    expect(len(counts) == 9 and all(counts.get(f, 0) > 1000 for f in SKIPPED),
           "program output: %r" % plain)

    r = subprocess.run([a.paratrace, "dump", tdir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "paratrace dump failed: %s" % r.stderr)
    throttled = {short(m.group(1)) for m in
                 re.finditer(r"^\d+ \d+ \d+ THROTTLE .* name=(\S+)", r.stdout, re.M)}
    for name in SKIPPED:
        expect(name in throttled, "no THROTTLE record of %s (throttled: %s)" %
               (name, sorted(throttled)))

    rows = report_rows(a.paratrace, tdir, short)
    for name, n in counts.items():
        row = rows.get(name)
        expect(row is not None and int(row["calls"]) == n,
               "report: %s: %s calls, the program made %d" % (name, row and row["calls"], n))
    for name in SKIPPED:
        row = rows.get(name)
        expect(row is not None and int(row["throttled_calls"]) > 0,
               "report: %s not throttled: %r" % (name, row))
    return finish("test_throttle_skipped")


if __name__ == "__main__":
    sys.exit(main())
