#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Signal handlers built with the plugin, interrupting hot loops of traced
calls (progs/signal_main.c), run under libtrace.so:

  return: the handler returns. Every call of the main flow is in the trace
          (exact counts), the log reads without damage, and each handler
          run is either in the trace or among the LOST (reentrant) records:
          recorded handler calls + lost events / 4 == handler runs.
  jump:   the handler leaves by siglongjmp, every time. The log reads
          without damage and the thread is still traced afterwards: the
          100,000 calls of tail() made after the last jump are all there.

  signals.py --cc clang --plugin instrument.so --runtime libtrace.so \\
             --paratrace paratrace --work DIR [--iterations N] MODE
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, env=None, status=0):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != status:
        print(r.stdout + r.stderr)
        fail("%s exited with %d, expected %d" % (cmd[0], r.returncode, status))
    return r


def main():
    p = argparse.ArgumentParser()
    for a in ("--cc", "--plugin", "--runtime", "--paratrace", "--work"):
        p.add_argument(a, required=True)
    p.add_argument("--iterations", type=int, default=5000000)
    p.add_argument("mode", choices=["return", "jump"])
    a = p.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    exe = os.path.join(a.work, "signal_main")
    run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, os.path.join(PROGS, "signal_main.c"), "-o", exe])

    tdir = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir)
    out = run([exe, a.mode, str(a.iterations)], env=env).stdout
    print(out)
    expect = {m.group(1): int(m.group(2)) for m in re.finditer(r"^expect (\w+) (\d+)$", out, re.M)}
    handled = int(re.search(r"^handled (\d+)$", out, re.M).group(1))
    jumps = int(re.search(r"^jumps (\d+)$", out, re.M).group(1))
    # Untraced, the program does the same (its counts are not timing-bound).
    plain = run([exe, a.mode, "1000"]).stdout
    if "expect tail 100000" not in plain:
        fail("untraced run: %r" % plain)

    # No damage: dump exits 0 only if every log reads cleanly.
    lost_lines = run([a.paratrace, "dump", "--raw", "--kind", "LOST", tdir]).stdout
    lost = 0
    for line in lost_lines.splitlines():
        m = re.search(r"records=(\d+) .*reason=(\w+)", line)
        if not m or m.group(2) != "reentrant":
            fail("unexpected LOST record: %s" % line)
        lost += int(m.group(1))
    calls = {}
    report = run([a.paratrace, "report", "--csv", tdir]).stdout
    for row in csv.reader(io.StringIO(report)):
        if len(row) > 4 and row[0] == "function":
            calls[row[1]] = calls.get(row[1], 0) + int(row[4])
    print("handled %d, jumps %d, lost events %d, calls %s" % (handled, jumps, lost, calls))
    for name, n in expect.items():
        if calls.get(name) != n:
            fail("%s: %s calls in the trace, the program made %d" % (name, calls.get(name), n))
    if handled == 0:
        fail("the handler never ran: nothing was tested")
    recorded = calls.get("on_prof", 0)
    if a.mode == "return":
        if calls.get("in_handler", 0) != recorded:
            fail("in_handler %s calls, on_prof %d" % (calls.get("in_handler"), recorded))
        if lost % 4 or recorded + lost // 4 != handled:
            fail("handler runs: %d recorded + %d lost events / 4 != %d" % (recorded, lost, handled))
    else:
        if jumps != handled or recorded > handled:
            fail("jumps %d, handled %d, on_prof recorded %d" % (jumps, handled, recorded))
    print("OK")


if __name__ == "__main__":
    main()
