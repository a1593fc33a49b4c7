#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The .prv budget on a trace shaped like an MPI benchmark's (Intel MPI
Benchmarks under Open MPI: 46 k function events and 1.44 M lock events, the
MPI library's own uncontended locks, about 30 to one): generated with
ptgen's script scenario, two processes whose calls each make an "MPI call"
(user events, always written) that takes and releases locks 30 times.

One duration threshold applies to calls and synchronization calls alike
(docs/ANALYZER.md, "The size budget"), so the budget never empties one
family while shorter items of another stay:

  - with a budget that the trace fits without its lock calls, every call
    is kept and the lock calls (none of which waited) are left out,
    summarised (thin_check.py, sync_check.py, prv_check.py), and analyze
    says so;
  - with a smaller one, both go by the same threshold: every call and lock
    call left out shorter than every one kept;
  - with --min-duration above that threshold, the lock calls still go by
    the budget's, and analyze says so;
  - the same files for -j1 and -j2, and the same report (its lock rows tie
    between the processes).

Usage: test_budget_families.py --paratrace P --ptgen G --work DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sync_check  # noqa: E402
import thin_check  # noqa: E402
from testlib import arguments, expect, finish, run, same, valid  # noqa: E402

RANKS = (7000, 7100)
ITERATIONS = 500  # per process
LOCKS = 30  # lock and unlock pairs per "MPI call"


def script():
    """The ptgen script: per process, main calls PingPong ITERATIONS times
    (every tenth also IMB_init_buffers); each PingPong makes one "MPI call"
    (user event 1000 = 1 ... 0) taking LOCKS uncontended mutexes."""
    out = []
    for p in RANKS:
        out += ["process %d IMB-MPI1" % p, "func 1 main imb.c 10", "func 2 PingPong imb.c 20",
                "func 3 IMB_init_buffers imb.c 30"]
        t = 0
        out += ["0 %d start main" % p, "0 %d user-type 1000 MPI_call" % p, "0 %d enter 1" % p]
        t = 100
        for i in range(ITERATIONS):
            out.append("%d %d enter 2" % (t, p))
            t += 50
            if i % 10 == 0:
                out.append("%d %d enter 3" % (t, p))
                out.append("%d %d exit 3" % (t + 300, p))
                t += 320
            out.append("%d %d user-event 1000 1" % (t, p))
            t += 10
            for k in range(LOCKS):
                obj = 0x601000 + 64 * (k % 4)
                out.append("%d %d lock-acquired mutex 0x%x" % (t, p, obj))
                out.append("%d %d lock-released mutex 0x%x" % (t + 15, p, obj))
                t += 40
            out.append("%d %d user-event 1000 0" % (t, p))
            out.append("%d %d exit 2" % (t + 40, p))
            t += 140
        out += ["%d %d exit 1" % (t, p), "%d %d end" % (t + 10, p), "%d p%d exited 0" % (t + 20, p)]
    return "\n".join(out) + "\n"


def count_entries(prv):
    with open(prv) as f:
        return sum(len(re.findall(r":60000019:[1-9]", line)) for line in f)


def main():
    a = arguments("paratrace", "ptgen", "work")
    path = os.path.join(a.work, "imb.trace")
    with open(path, "w") as f:
        f.write(script())
    tdir = os.path.join(a.work, "trace")
    subprocess.run([a.ptgen, "--out", tdir, "--scenario", "script", "--script", path], check=True)

    def analyze(name, *opts, j="2"):
        out = os.path.join(a.work, name)
        p = run([a.paratrace, "analyze", "-j", j, "--no-profile", "-o", out] + list(opts) + [tdir])
        return out, p

    full, _ = analyze("full", "--full")
    valid(full + ".prv")
    calls = count_entries(full + ".prv")
    expect(calls == len(RANKS) * (ITERATIONS + ITERATIONS // 10 + 1),
           "%d calls in the full trace" % calls)
    with open(full + ".prv") as f:
        lines = f.readlines()
    size = sum(len(x) for x in lines)
    locks = sum(len(x) for x in lines if ":61000000:" in x)
    expect(locks > 20 * (size - locks), "lock lines %d of %d bytes: not the shape wanted" % (locks, size))

    def thinned(name, budget):
        """The default output with this budget: it fits, it is valid, and
        its calls and lock calls are those of the full trace less the ones
        left out, summarised; (name, what analyze said, calls, lock calls)."""
        out, p = analyze(name, "--budget", str(budget))
        print(p.stdout, end="")
        got = os.path.getsize(out + ".prv")
        expect(got <= budget, "%s: .prv of %d bytes over the budget %d" % (name, got, budget))
        valid(out + ".prv")
        problems, fn = thin_check.check(full + ".prv", out + ".prv", None)
        for msg in problems:
            expect(False, "%s: thin_check: %s" % (name, msg))
        problems, sy = sync_check.check(full + ".prv", out + ".prv")
        for msg in problems:
            expect(False, "%s: sync_check: %s" % (name, msg))
        return out, p.stdout, fn, sy

    # room for everything but the lock calls (and their summaries)
    budget = (size - locks) * 3 // 2
    thin, said, fn, sy = thinned("thin", budget)
    expect(count_entries(thin + ".prv") == calls and fn["left"] == 0,
           "%d of the %d calls kept: %r" % (count_entries(thin + ".prv"), calls, fn))
    expect(sy["kept"] == 0 and sy["left"] == len(RANKS) * ITERATIONS * LOCKS * 2,
           "lock calls: %r" % sy)
    expect(re.search(r"synchronization calls that waited less than 1 ns left out \(60 k of 60 k, "
                     r".*\); every call kept \(%d\)" % calls, said) is not None,
           "what analyze said: %r" % said)
    one, _ = analyze("thin-j1", "--budget", str(budget), j="1")
    same(thin, one, "-j1 and -j2")

    # less room: calls and lock calls by one threshold
    _, said, fn, sy = thinned("both", (size - locks) * 21 // 20)
    m = re.search(r"calls shorter than (\S+ \S+) left out .*, and synchronization calls that "
                  r"waited less than (\S+ \S+) ", said)
    expect(m is not None and m.group(1) == m.group(2), "one threshold: %r" % said)
    expect(fn["kept"] > 0 and fn["left"] > 0, "calls with a smaller budget: %r" % fn)

    # --min-duration above the budget's threshold: the lock calls still go
    # by the budget's, and analyze says it was the budget
    _, p = analyze("min", "--min-duration", "100us", "--budget", str(budget))
    expect(re.search(r"\.prv budget \S+ \S+: calls left out as selected .*, and synchronization "
                     r"calls that waited less than 1 ns .*; --full for everything", p.stdout)
           is not None, "--min-duration and the budget: %r" % p.stdout)

    # The two processes' locks tie (the same addresses, waits and counts):
    # the report's rows must not come in the order the workers finished.
    reports = set()
    for j in ["1"] + ["2"] * 9:
        reports.add(run([a.paratrace, "report", "-j", j, "--json", "--top", "0", tdir]).stdout)
    expect(len(reports) == 1, "report --json: %d different outputs for -j1 and -j2" % len(reports))
    return finish("test_budget_families")


if __name__ == "__main__":
    sys.exit(main())
