#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Paraver trace with calls left out (`analyze --min-duration`,
`--include/--exclude`, or the budget) against the same trace written with
everything (`--full`), call by call (docs/ANALYZER.md, "Selecting what is
written"):

  - every call in the thinned trace is a call of the full one (same
    thread, function, entry and exit times);
  - a call was left out exactly when its function is not selected or it
    lasted less than the threshold (calls cut by lost data are kept);
  - the summaries (61000030 = count, 61000031 = ns) inside each kept call
    (and at each thread's top level) add up to what was left out there:
    every left-out call whose innermost kept caller it is, and the time of
    the outermost ones less the kept calls inside them.

Usage: thin_check.py FULL.prv THIN.prv [--min-ns T] [--include RE] [--exclude RE]
(without --min-ns: whatever the threshold, every call left out for its
duration is shorter than every call kept)
Exit status 0 when all holds; 1 with one line per problem (at most 20).
"""
import argparse
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prv_check import base_name, open_text  # noqa: E402


def function_names(pcf):
    names, block, in_values = {}, None, False
    with open(pcf, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line == "EVENT_TYPE":
                block, in_values = [], False
            elif line == "VALUES":
                in_values = True
            elif block is not None and not in_values:
                m = re.match(r"^\d+\s+(\d+)\s", line)
                if m:
                    block.append(int(m.group(1)))
            elif block is not None and 60000019 in block and in_values:
                m = re.match(r"^(\d+)\s+(.*)$", line)
                if m:
                    # "name [file:line]": the name the analyzer matches
                    names[int(m.group(1))] = re.sub(r" \[[^\]]*\]$", "", m.group(2))
    return names


def read_calls(prv):
    """Per thread: calls [id, t_in, t_out, parent index or -1, cut] and
    summaries [(index of the innermost open call or -1, count, ns)]."""
    calls = defaultdict(list)
    sums = defaultdict(list)
    stack = defaultdict(list)
    with open_text(prv) as f:
        f.readline()
        for line in f:
            # only the lines of calls (60000019) and of what was left out
            # (61000020, 61000030, 61000031) count: the others are skipped
            # before they are split
            if line[0] != "2" or ("60000019" not in line and "61000020" not in line and
                                  "61000030" not in line and "61000031" not in line):
                continue
            p = line.rstrip("\n").split(":")
            if p[0] != "2":
                continue
            th = p[3] + ":" + p[4]
            t = int(p[5])
            if len(p) == 8 and p[6] == "60000019":  # one call's entry or exit: most lines
                val, st, cl = int(p[7]), stack[th], calls[th]
                if val:
                    cl.append([val, t, None, st[-1] if st else -1, False])
                    st.append(len(cl) - 1)
                else:
                    cl[st.pop()][2] = t
                continue
            v = [int(x) for x in p[6:]]
            pend, closed = None, None
            for i in range(0, len(v), 2):
                ty, val = v[i], v[i + 1]
                st = stack[th]
                if ty == 60000019:
                    if val:
                        calls[th].append([val, t, None, st[-1] if st else -1, False])
                        st.append(len(calls[th]) - 1)
                    else:
                        closed = st.pop()
                        calls[th][closed][2] = t
                elif ty == 61000020 and val:
                    calls[th][closed][4] = True  # the call whose exit came just before
                elif ty == 61000030:
                    pend = [st[-1] if st else -1, val, 0]
                elif ty == 61000031:
                    pend[2] = val
                    sums[th].append(tuple(pend))
    return calls, sums


def check(full, thin, min_ns, include=None, exclude=None):
    """min_ns None: the threshold is not known exactly (the budget's,
    printed rounded); then every call left out for its duration must be
    shorter than every call kept, and stats gives the bounds found
    (left_max, kept_min)."""
    problems = []

    def bad(msg):
        if len(problems) < 20:
            problems.append(msg)

    names = function_names(base_name(full) + ".pcf")
    inc = re.compile(include) if include else None
    exc = re.compile(exclude) if exclude else None

    def excluded(fid):
        n = names.get(fid, "")
        return (inc is not None and not inc.search(n)) or (exc is not None and exc.search(n) is not None)

    fc, _ = read_calls(full)
    tc, ts = read_calls(thin)
    stats = {"left": 0, "kept": 0, "summaries": 0, "left_max": -1, "kept_min": None}
    for th in sorted(set(fc) | set(tc)):
        F, T = fc.get(th, []), tc.get(th, [])
        by_entry = {(c[1], c[0]): i for i, c in enumerate(F)}
        kept = {}  # full index -> thin index
        for j, c in enumerate(T):
            i = by_entry.get((c[1], c[0]))
            if i is None or F[i][2] != c[2]:
                bad("thread %s: call %s at %d..%s is not a call of the full trace" % (th, c[0], c[1], c[2]))
                continue
            kept[i] = j
        for i, c in enumerate(F):
            dur = c[2] - c[1]
            if min_ns is None:  # bounds of the threshold, checked at the end
                if not excluded(c[0]) and not c[4]:
                    if i in kept:
                        stats["kept_min"] = dur if stats["kept_min"] is None else min(stats["kept_min"], dur)
                    else:
                        stats["left_max"] = max(stats["left_max"], dur)
                continue
            should_go = excluded(c[0]) or (not c[4] and dur < min_ns)
            if should_go == (i in kept):
                bad("thread %s: call %d (function %d, %d ns%s) %s" % (
                    th, i, c[0], dur, ", cut" if c[4] else "",
                    "kept but should be left out" if should_go else "left out but should stay"))
        # expected summaries per kept call (full index, -1 = the thread)
        want_calls, want_ns = defaultdict(int), defaultdict(int)
        inside = defaultdict(int)  # left-out call -> time of kept calls in it

        def kept_anc(i):
            p = F[i][3]
            while p != -1 and p not in kept:
                p = F[p][3]
            return p

        # children end before their parents: go by exit time, innermost first
        order = sorted(range(len(F)), key=lambda i: (F[i][2], -F[i][1]))
        for i in order:
            c, p = F[i], F[i][3]
            dur = 0 if c[4] else c[2] - c[1]
            if i in kept:
                if p != -1 and p not in kept:
                    inside[p] += dur
                continue
            stats["left"] += 1
            want_calls[kept_anc(i)] += 1
            if p != -1 and p not in kept:
                inside[p] += inside[i]
            else:
                want_ns[p] += max(dur - inside[i], 0)
        got_calls, got_ns = defaultdict(int), defaultdict(int)
        thin_to_full = {j: i for i, j in kept.items()}
        for where, n, ns in ts.get(th, []):
            k = thin_to_full.get(where, -1) if where != -1 else -1
            got_calls[k] += n
            got_ns[k] += ns
            stats["summaries"] += 1
        for k in sorted(set(want_calls) | set(got_calls)):
            if want_calls[k] != got_calls[k] or want_ns[k] != got_ns[k]:
                bad("thread %s: in %s: summaries say %d calls, %d ns; left out: %d calls, %d ns" % (
                    th, "call %d" % k if k != -1 else "the thread", got_calls[k], got_ns[k],
                    want_calls[k], want_ns[k]))
        stats["kept"] += len(kept)
    if min_ns is None and stats["kept_min"] is not None and stats["left_max"] >= stats["kept_min"]:
        bad("a call of %d ns was left out and one of %d ns kept" % (stats["left_max"], stats["kept_min"]))
    return problems, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("full")
    ap.add_argument("thin")
    ap.add_argument("--min-ns", type=int)
    ap.add_argument("--include")
    ap.add_argument("--exclude")
    a = ap.parse_args()
    problems, stats = check(a.full, a.thin, a.min_ns, a.include, a.exclude)
    for p in problems:
        print("thin_check: %s" % p, file=sys.stderr)
    print("thin_check: %d calls kept, %d left out, %d summaries" % (stats["kept"], stats["left"], stats["summaries"]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
