# SPDX-License-Identifier: MIT
"""What this folder's end-to-end tests share: their failure list, their
command line, a command that must succeed, a program of progs/ built with
instrument.so, a .prv checked by prv_check.py, two Paraver outputs
compared; for the throttling tests (test_throttle*.py, test_landed.py), a
program run untraced then traced with its output compared, the counts it
printed (`COUNT name n` lines), the rows of `paratrace report --csv` and
the labels of a .pcf's values."""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = []
# The default count, and the longest duration the setting takes: 10,000
# calls would have to take 10,000 s for a function to escape throttling,
# so a function is throttled at the first decision whatever the load.
SURE = {"PARATRACE_THROTTLE": "10000:1s"}


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def expect(cond, msg):
    if not cond:
        fail(msg)


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


def run(args, rc=0, timeout=None):
    """Runs args; a failure unless it exits rc (None: any status)."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if rc is not None and p.returncode != rc:
        fail("%s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (" ".join(args), p.returncode, rc, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def traced(test, cmd, runtime, trace):
    """cmd's output, run under runtime into trace; the test ends here if
    the program fails, as nothing after could be checked."""
    env = dict(os.environ, PARATRACE_DIR=trace, LD_PRELOAD=runtime)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        sys.exit("%s: the program exited %d" % (test, p.returncode))
    return p.stdout


def instrumented(a, source, exe, *extra):
    """progs/SOURCE built by a.cc with instrument.so (a.plugin) into exe."""
    subprocess.run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, os.path.join(HERE, "progs", source),
                    "-o", exe] + list(extra), check=True)
    return exe


def valid(prv):
    """A failure per problem prv_check.py finds; its summary."""
    import prv_check  # only the tests that read a .prv pay for it
    P, summary = prv_check.check(prv)
    for m in P.items:
        fail("prv_check %s: %s" % (prv, m))
    return summary


def same(a, b, what):
    """The .prv, .pcf and .row of the outputs a and b are byte-identical."""
    import filecmp
    for ext in (".prv", ".pcf", ".row"):
        expect(filecmp.cmp(a + ext, b + ext, False), "%s: %s differs" % (what, ext))


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
