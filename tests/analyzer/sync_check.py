#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Paraver trace whose budget left synchronization calls out
(docs/ANALYZER.md, "The size budget") against the same trace written with
everything (`--full`), call by call:

  - a synchronization call (61000000 = a lock, unlock, semaphore, spin or
    condition call) is the span from its value to the 0 that ends it (one
    line for a call that did not wait); every one in the thinned trace is
    one of the full trace (same thread, value, times), and the other
    pthread calls (create, join, exit, barrier) are all there;
  - every call left out waited less than every call kept, and every wait
    of at least --long-ns is kept;
  - per thread, the summaries (61000032 = count, 61000033 = ns waited)
    add up exactly to the calls left out and their waits;
  - per thread, the Synchronization states are the full trace's less
    those of the waits left out (Running there instead), and the states
    cover the same time.

Usage: sync_check.py FULL.prv THIN.prv [--long-ns N]
Exit status 0 when all holds; 1 with one line per problem (at most 20).
"""
import argparse
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prv_check import open_text  # noqa: E402

SYNC = {5, 6, 7, 8, 9, 10, 11, 12, 20, 21, 22, 23, 24, 25}
SYNC_STATE = 5


def read(prv):
    """Per thread: pthread calls {(value, begin, end)}, summaries [count,
    ns], Synchronization states {(begin, end)}, state time."""
    calls = defaultdict(set)
    sums = defaultdict(lambda: [0, 0])
    sync = defaultdict(set)
    covered = defaultdict(int)
    open_call = {}
    with open_text(prv) as f:
        f.readline()
        for line in f:
            # an event line counts only with one of these three types: the
            # others are skipped before they are split (most of a trace)
            if line[0] == "2" and "61000000" not in line and "61000032" not in line and \
                    "61000033" not in line:
                continue
            p = line.rstrip("\n").split(":")
            th = p[3] + ":" + p[4]
            if p[0] == "1":
                b, e, s = int(p[5]), int(p[6]), int(p[7])
                covered[th] += e - b
                if s == SYNC_STATE:
                    sync[th].add((b, e))
                continue
            if p[0] != "2":
                continue
            t = int(p[5])
            v = [int(x) for x in p[6:]]
            for i in range(0, len(v), 2):
                ty, val = v[i], v[i + 1]
                if ty == 61000000:
                    if val:
                        open_call[th] = (val, t)
                    elif th in open_call:
                        val0, t0 = open_call.pop(th)
                        calls[th].add((val0, t0, t))
                elif ty == 61000032:
                    sums[th][0] += val
                elif ty == 61000033:
                    sums[th][1] += val
    return calls, sums, sync, covered


def check(full, thin, long_ns=None):
    problems = []

    def bad(msg):
        if len(problems) < 20:
            problems.append(msg)

    fc, _, fsync, fcov = read(full)
    tc, ts, tsync, tcov = read(thin)
    stats = {"left": 0, "kept": 0, "left_wait": 0, "left_max": -1, "kept_min": None}
    for th in sorted(set(fc) | set(tc)):
        F, T = fc.get(th, set()), tc.get(th, set())
        for c in sorted(T - F):
            bad("thread %s: pthread call %d at %d..%d is not one of the full trace" % ((th,) + c))
        left = F - T
        for c in sorted(left):
            if c[0] not in SYNC:
                bad("thread %s: pthread call %d at %d..%d left out" % ((th,) + c))
        kept = [c for c in F & T if c[0] in SYNC]
        waits = sum(c[2] - c[1] for c in left)
        stats["left"] += len(left)
        stats["kept"] += len(kept)
        stats["left_wait"] += waits
        for c in left:
            stats["left_max"] = max(stats["left_max"], c[2] - c[1])
            if long_ns is not None and c[2] - c[1] >= long_ns:
                bad("thread %s: a wait of %d ns (call %d at %d) left out" % (th, c[2] - c[1], c[0], c[1]))
        for c in kept:
            d = c[2] - c[1]
            stats["kept_min"] = d if stats["kept_min"] is None else min(stats["kept_min"], d)
        got = ts.get(th, [0, 0])
        if got[0] != len(left) or got[1] != waits:
            bad("thread %s: summaries say %d calls, %d ns waited; left out: %d calls, %d ns" % (
                th, got[0], got[1], len(left), waits))
        want_sync = fsync.get(th, set()) - {(c[1], c[2]) for c in left}
        if tsync.get(th, set()) != want_sync:
            bad("thread %s: Synchronization states: %d, want %d (the full trace's %d less the waits "
                "left out)" % (th, len(tsync.get(th, set())), len(want_sync), len(fsync.get(th, set()))))
        if tcov.get(th, 0) != fcov.get(th, 0):
            bad("thread %s: states cover %d ns, the full trace's %d" % (th, tcov.get(th, 0), fcov.get(th, 0)))
    if stats["kept_min"] is not None and stats["left_max"] >= stats["kept_min"]:
        bad("a synchronization call that waited %d ns was left out and one of %d ns kept" % (
            stats["left_max"], stats["kept_min"]))
    return problems, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("full")
    ap.add_argument("thin")
    ap.add_argument("--long-ns", type=int)
    a = ap.parse_args()
    problems, stats = check(a.full, a.thin, a.long_ns)
    for p in problems:
        print("sync_check: %s" % p, file=sys.stderr)
    print("sync_check: %d synchronization calls kept, %d left out (%d ns waited)" % (
        stats["kept"], stats["left"], stats["left_wait"]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
