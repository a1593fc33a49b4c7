#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: throttling under hook ABI 2 (docs/ABI.md), where a
throttled call makes one hook call and no exit hook call, and an ABI-1
module (both hooks for every call) in the same process.
progs/throttle_abi.cpp (built with instrument.so) linked with
progs/throttle_abi_v1.c (a hand-written ABI-1 module, built without it),
run under libtrace.so with a threshold every function meets after 10,000
calls. Checked:

  - the trace's FUNC records of the thread, replayed as docs/ABI.md says,
    nest: every exit closes the innermost open frame; one FUNC_LANDED per
    longjmp landing closes the frame the longjmp skipped; nothing is left
    open at the end (a throttled call's exit recorded, or a recorded call's
    exit missing, breaks it): a recursion throttled while its outer
    call is open, exceptions through throttled and unthrottled frames,
    longjmp out of both, ABI-1 functions throttled while open and mixed
    with ABI-2 ones;
  - `paratrace report --csv` counts every function's calls exactly as the
    program did, and the throttled ones were throttled;
  - the Paraver trace nests (prv_check);
  - the program's output is the same traced or not.

Usage: test_throttle_abi.py --cc CLANG --cxx CLANG++ --plugin instrument.so
                            --runtime libtrace.so --paratrace PARATRACE --work DIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import prv_check  # noqa: E402
from testlib import (SURE, arguments, counts as program_counts, expect,  # noqa: E402
                     finish, report_rows, run_both, short)

THROTTLED = ("rec", "thrower", "mid", "jdeep", "jmid", "v2_leaf", "v1_tiny")
LINE = re.compile(r"^\d+ \d+ (\d+) (FUNC_ENTER|FUNC_EXIT|FUNC_LANDED) .*?\bid=(\d+)\b.* name=(.*)$")


def replay(dump):
    """Replays each thread's FUNC records: (exits that skipped frames,
    landings that closed frames, exits and landings of no open frame,
    frames open at the end, entries per name)."""
    stacks, skipped, closing, stray, entered = {}, 0, 0, 0, {}
    for line in dump.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        stack = stacks.setdefault(m.group(1), [])
        fid, name = int(m.group(3)), short(m.group(4))
        if m.group(2) == "FUNC_ENTER":
            stack.append(fid)
            entered[name] = entered.get(name, 0) + 1
        elif fid not in stack:
            stray += 1
        elif m.group(2) == "FUNC_LANDED":
            closing += stack[-1] != fid
            while stack[-1] != fid:
                stack.pop()
        else:
            if stack[-1] != fid:
                skipped += 1
            while stack.pop() != fid:
                pass
    return skipped, closing, stray, sum(len(s) for s in stacks.values()), entered


def main():
    a = arguments("cc", "cxx", "plugin", "runtime", "paratrace", "work")
    progs = os.path.join(HERE, "progs")
    inc = os.path.join(HERE, "..", "..", "include")
    v1 = os.path.join(a.work, "v1.o")
    exe = os.path.join(a.work, "throttle_abi")
    subprocess.run([a.cc, "-O2", "-I", inc, "-c", os.path.join(progs, "throttle_abi_v1.c"), "-o", v1],
                   check=True)
    subprocess.run([a.cxx, "-O2", "-g", "-fplugin=" + a.plugin,
                    os.path.join(progs, "throttle_abi.cpp"), v1, "-o", exe], check=True)

    tdir = os.path.join(a.work, "trace")
    plain, _ = run_both("throttle_abi", [exe], a.runtime, tdir, SURE)
    counts = program_counts(plain)
    landed = [int(l.split()[2]) for l in plain.splitlines() if l.startswith("LANDED ")]
    expect(len(counts) == 13 and landed and landed[0] == 200, "program output: %r" % plain)

    dump = subprocess.run([a.paratrace, "dump", tdir], stdout=subprocess.PIPE, text=True).stdout
    skipped, closing, stray, still_open, entered = replay(dump)
    print("replay: %d exits skipped frames, %d landings closed frames, %d stray, %d open at "
          "the end" % (skipped, closing, stray, still_open))
    expect(stray == 0, "%d exits or landings of no open frame (a throttled call's exit "
           "recorded?)" % stray)
    expect(skipped == 0, "%d exits closed more than the innermost frame" % skipped)
    expect(closing == (landed[0] if landed else -1),
           "%d landings closed the frame the longjmp skipped; expected one per landing (%r)" %
           (closing, landed))
    expect(still_open == 0, "%d frames left open at the end (a recorded call's exit missing?)" %
           still_open)
    for name in THROTTLED:
        expect(entered.get(name, 0) < counts.get(name, 0),
               "%s: %d entries recorded of %d calls: not throttled" %
               (name, entered.get(name, 0), counts.get(name, 0)))

    rows = report_rows(a.paratrace, tdir, short)
    for name, n in counts.items():
        row = rows.get(name)
        expect(row is not None and int(row["calls"]) == n,
               "report: %s: %s calls, the program made %d" % (name, row and row["calls"], n))
        if row and name in THROTTLED:
            expect(int(row["throttled_calls"]) > 0, "report: %s not throttled: %r" % (name, row))

    out = os.path.join(a.work, "prv")
    for m in prv_check.analyze_and_check(a.paratrace, tdir, out)[0]:
        expect(False, m)

    return finish("test_throttle_abi")


if __name__ == "__main__":
    sys.exit(main())
