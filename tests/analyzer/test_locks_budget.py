#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The .prv budget on a lock-dominated real program (progs/locks.c, built
with -finstrument-functions, run under the runtime): its lock events alone
are most of the trace, and the budget leaves out the calls and the
synchronization calls shorter than one threshold (a synchronization call's
length: how long it waited; docs/ANALYZER.md, "The size budget"):

  - the default output with a small --budget fits it, keeps Paraver's
    invariants (prv_check.py), and analyze says what it left out;
  - (nearly) every call left out, summarised call by call (thin_check.py);
  - the synchronization calls left out are exactly those summarised (per
    thread, counts and time waited), every one waited less than every one
    kept, the program's long waits (>= 1 ms) are all kept, and their
    Synchronization states became Running (sync_check.py);
  - with a larger budget, calls come back (a lower threshold): the
    shortest left out, every one shorter than every one kept, and the
    same checks;
  - the same files for -j1 and -j2; with a budget the whole trace fits,
    the --full output byte for byte.

Usage: test_locks_budget.py --prog locks --runtime libtrace.so --paratrace P --work DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sync_check  # noqa: E402
import thin_check  # noqa: E402
from testlib import arguments, expect, finish, run, same, valid  # noqa: E402

BUDGET = 60000
SAID = re.compile(r"\.prv budget 60 kB: (every call|calls shorter than \S+ \S+) left out \(.*\), "
                  r"and synchronization calls "
                  r"that waited less than [0-9.]+ (ns|us|ms) \(([0-9.]+ ?k?) of ([0-9.]+ ?k?), "
                  r".* as events 61000032/61000033\)")


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
    tdir = os.path.join(a.work, "trace")
    subprocess.run([a.prog, "10000"], env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir),
                   stdout=subprocess.PIPE, check=True)

    def analyze(name, *opts, j="2"):
        out = os.path.join(a.work, name)
        p = run([a.paratrace, "analyze", "-j", j, "--no-profile", "-o", out] + list(opts) + [tdir])
        return out, p

    full, _ = analyze("full", "--full", "--no-gz")
    valid(full + ".prv")
    size = os.path.getsize(full + ".prv")
    expect(size > 20 * BUDGET, "the trace is too small for the test: %d bytes" % size)

    thin, p = analyze("thin", "--budget", str(BUDGET))
    print(p.stdout, end="")
    got = os.path.getsize(thin + ".prv")
    expect(got <= BUDGET, ".prv of %d bytes over the budget %d" % (got, BUDGET))
    expect(SAID.search(p.stdout) is not None, "what analyze said: %r" % p.stdout)
    valid(thin + ".prv")
    problems, st = thin_check.check(full + ".prv", thin + ".prv", None)
    for m in problems:
        expect(False, "thin_check: " + m)
    # (a run with few waits leaves room for the longest calls)
    expect(st["left"] > st["kept"], "calls kept: %r" % st)
    problems, st = sync_check.check(full + ".prv", thin + ".prv", long_ns=1000000)
    for m in problems:
        expect(False, "sync_check: " + m)
    print("synchronization calls: %d kept, %d left out, %d ns waited" % (
        st["kept"], st["left"], st["left_wait"]))
    # the program's 5 long waits for the shared mutex, among those kept
    expect(st["kept"] >= 5 and st["left"] > 50000, "synchronization calls: %r" % st)
    with open(thin + ".pcf") as f:
        pcf = f.read()
    expect("61000032    Synchronization calls left out" in pcf and
           "61000033    Time waited in synchronization calls left out (ns)" in pcf,
           "the .pcf names the summaries")

    # room for some calls: they come back, the synchronization calls still
    # out (how much room that takes depends on how many waits the run had)
    for limit in (600000, 1200000, 2400000, 4800000):
        back, p = analyze("back", "--budget", str(limit))
        if re.search(r"calls shorter than \S+ \S+ left out .*, and synchronization calls that "
                     r"waited", p.stdout):
            break
    else:
        expect(False, "calls never came back: %r" % p.stdout)
    got = os.path.getsize(back + ".prv")
    expect(got <= limit, "over the budget %d: %d bytes" % (limit, got))
    valid(back + ".prv")
    problems, st = thin_check.check(full + ".prv", back + ".prv", None)
    for m in problems:
        expect(False, "thin_check (calls back): " + m)
    expect(st["kept"] > 0 and st["left"] > 0, "calls back: %r" % st)
    problems, st = sync_check.check(full + ".prv", back + ".prv", long_ns=1000000)
    for m in problems:
        expect(False, "sync_check (calls back): " + m)
    expect(st["left"] > 50000, "synchronization calls with calls back: %r" % st)

    one, _ = analyze("thin-j1", "--budget", str(BUDGET), j="1")
    same(thin, one, "-j1 and -j2")
    # a budget the trace fits: the --full output
    big, p = analyze("big", "--budget", str(size + 1000))
    same(full, big, "under the budget")
    expect("left out" not in p.stdout, "nothing left out under the budget: %r" % p.stdout)
    return finish("test_locks_budget")


if __name__ == "__main__":
    sys.exit(main())
