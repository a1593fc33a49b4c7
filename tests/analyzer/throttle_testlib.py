# SPDX-License-Identifier: MIT
"""What the throttling tests (test_throttle*.py, test_landed.py) share:
their failure list, their command line, a program run untraced then traced
with its output compared, the counts it printed (`COUNT name n` lines), the
rows of `paratrace report --csv` and the labels of a .pcf's values."""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys

FAILS = []
# The default count, and the longest duration the setting takes: 10,000
# calls would have to take 10,000 s for a function to escape throttling,
# so a function is throttled at the first decision whatever the load.
SURE = {"PARATRACE_THROTTLE": "10000:1s"}


def expect(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg, file=sys.stderr)


def finish(test):
    print("%s: %s" % (test, "FAILED" if FAILS else "ok"))
    return 1 if FAILS else 0


def arguments(*tools):
    """--TOOL for each tool, all required; the --work folder made empty."""
    ap = argparse.ArgumentParser()
    for t in tools:
        ap.add_argument("--" + t, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    return a


def untraced_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("PARATRACE_")}


def run_both(what, cmd, runtime, tdir, extra=None, rc=0):
    """Runs cmd untraced, then under runtime into tdir with extra in its
    environment; expects exit status rc and the same output both times.
    Returns (untraced stdout, traced CompletedProcess)."""
    env = untraced_env()
    plain = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    env.update(LD_PRELOAD=runtime, PARATRACE_DIR=tdir)
    env.update(extra or {})
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    expect(plain.returncode == rc, "%s untraced: exit %d, expected %d" % (what, plain.returncode, rc))
    expect(p.returncode == rc, "%s traced: exit %d, expected %d: %s" % (what, p.returncode, rc, p.stderr))
    expect(p.stdout == plain.stdout, "%s: output %r traced, %r untraced" % (what, p.stdout, plain.stdout))
    return plain.stdout, p


def counts(stdout):
    """{name: n} of the program's `COUNT name n` lines."""
    return {l.split()[1]: int(l.split()[2]) for l in stdout.splitlines() if l.startswith("COUNT ")}


def short(name):
    """A report's function name without its signature."""
    return name.split("(")[0].strip()


def report_rows(paratrace, tdir, key=lambda name: name):
    """{key(name): row} of `paratrace report --csv`'s functions table."""
    r = subprocess.run([paratrace, "report", "--csv", tdir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "report of %s failed: %s" % (tdir, r.stderr))
    head = r.stdout.split("\n\n")[0]
    return {key(row["name"]): row for row in csv.DictReader(io.StringIO(head))}


def pcf_values(path, etype):
    """value -> label of one event type's VALUES block."""
    vals, cur, in_vals = {}, False, False
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line == "EVENT_TYPE":
            cur, in_vals = False, False
        elif line == "VALUES":
            in_vals = cur
        elif not in_vals and line.split()[1:2] == [str(etype)]:
            cur = True
        elif in_vals and line:
            v, _, name = line.partition(" ")
            vals[int(v)] = name.strip().split(" [")[0]
    return vals
