#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of what `analyze` and `export` write of a trace
(docs/ANALYZER.md, "Selecting what is written") on synthetic logs.

Usage: test_select.py PARATRACE PTGEN WORKDIR CASE
CASE:
  budget     the .prv fits a --budget: the shortest calls and lock calls
             left out by one threshold, every one shorter than every one
             kept, summarised call by call (thin_check.py, sync_check.py);
             Paraver's invariants hold (prv_check.py);
             the same for any -j; under the budget, the output is the
             --full one byte for byte; bad sizes refused
  calls      --min-duration, --include, --exclude (exact, call by call)
  window     --from/--to: time 0 moved, states clipped, calls open at the
             window's start begin there, communications outside left out
  rows       --threads/--processes: rows renumbered, the .row names only
             them, communications with an end outside counted
  export     the same selection in the Chrome and Perfetto exports
  progress   the progress bar on a terminal: units that fit the sizes
  big        a generated 16 M-event trace, whose full .prv (670 MB) is
             over the default budget: the default output fits the budget
             (160 MB) and keeps Paraver's invariants
(ptgen's `known` scenario: T workers, N iterations of sleep_fixed (S ns), a
mutex wait of W ns held H ns; see test_analyze.py)
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_read  # noqa: E402
import sync_check  # noqa: E402
import thin_check  # noqa: E402
from test_analyze import (FAILS, N, PARATRACE, PTGEN, S, T, WORK, checked, expect,  # noqa: E402
                          gen, main, run)

LEFT = re.compile(r"calls shorter than ([0-9.]+) (ns|us|ms|s) left out \(([0-9.]+ ?[kM]?) of "
                  r"([0-9.]+ ?[kM]?) calls")


def bench(name, threads, events):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    run([PTGEN, "--out", d, "--scenario", "bench", "--threads", str(threads), "--events", str(events)])
    return d


def analyze(trace, name, *opts, rc=0):
    out = os.path.join(WORK, name)
    p = run([PARATRACE, "analyze", "-j2", "--no-profile", "-o", out] + list(opts) + [trace], rc=rc)
    return out, p


def thin_ok(full, thin, min_ns, include=None, exclude=None):
    problems, stats = thin_check.check(full + ".prv", thin + ".prv", min_ns, include, exclude)
    for m in problems:
        expect(False, "thin_check %s: %s" % (thin, m))
    return stats


def case_budget():
    d = bench("budget", 4, 400000)
    full, _ = analyze(d, "b-full", "--full")
    size = os.path.getsize(full + ".prv")
    # under the budget, the default output is the full one, byte for byte
    dflt, p = analyze(d, "b-default")
    for ext in (".prv", ".pcf", ".row"):
        expect(open(dflt + ext, "rb").read() == open(full + ext, "rb").read(),
               "default output under the budget differs from --full (%s)" % ext)
    expect("left out" not in p.stdout, "nothing left out under the budget: %r" % p.stdout)
    budget = size // 4
    outs = []
    for j in ("1", "2", "3"):
        out = os.path.join(WORK, "b-thin-j" + j)
        p = run([PARATRACE, "analyze", "-j", j, "--no-profile", "--budget", str(budget), "-o", out, d])
        outs.append(b"".join(open(out + ext, "rb").read() for ext in (".prv", ".pcf", ".row")))
    expect(outs[0] == outs[1] == outs[2], "thinned traces differ between -j1, -j2, -j3")
    thin = os.path.join(WORK, "b-thin-j2")
    got = os.path.getsize(thin + ".prv")
    expect(got <= budget, ".prv of %d bytes over the budget %d" % (got, budget))
    expect(got > budget // 2, ".prv of %d bytes: far less than the budget %d" % (got, budget))
    m = LEFT.search(p.stdout)
    expect(m is not None, "no line about what was left out: %r" % p.stdout)
    expect("--full for everything" in p.stdout, "no hint about --full: %r" % p.stdout)
    s = checked(thin + ".prv")
    stats = thin_ok(full, thin, None)
    expect(stats["left"] > 0 and stats["kept"] > 0, "left out %d, kept %d" % (stats["left"], stats["kept"]))
    expect(s["left_calls"] == stats["left"], "summaries count %d calls, %d left out"
           % (s["left_calls"], stats["left"]))
    if m:
        th = float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]
        # the printed threshold (3 digits) between the longest call left out and the shortest kept
        expect(stats["left_max"] < th * 1.01 and th * 0.99 <= stats["kept_min"],
               "threshold %s: calls left out up to %d ns, kept from %d ns"
               % (m.group(0), stats["left_max"], stats["kept_min"]))
    pcf = open(thin + ".pcf").read()
    expect("61000030    Calls left out" in pcf and "61000031    Time in calls left out" in pcf,
           "summary event types not in the .pcf")
    # the mutex's lock and unlock calls by the same threshold: those that
    # waited less left out, summarised, their waits Running; the rest kept
    problems, sy = sync_check.check(full + ".prv", thin + ".prv")
    for msg in problems:
        expect(False, "sync_check: " + msg)
    expect(sy["left"] > 0 and sy["kept"] > 0, "synchronization calls: %r" % sy)
    said = re.search(r"synchronization calls that waited less than ([0-9.]+) (ns|us|ms|s) ", p.stdout)
    expect(said is not None and m is not None and said.groups() == m.groups()[:2],
           "not one threshold for calls and synchronization calls: %r" % p.stdout)
    if m:
        expect(sy["left_max"] < th * 1.01 and (sy["kept_min"] is None or th * 0.99 <= sy["kept_min"]),
               "threshold %s: waits left out up to %d ns, kept from %s ns"
               % (m.group(0), sy["left_max"], sy["kept_min"]))
    # --gz with a budget: the same trace, compressed
    gz, _ = analyze(d, "b-gz", "--budget", str(budget), "--gz")
    import gzip
    with gzip.open(gz + ".prv.gz", "rb") as z:
        expect(z.read() == open(thin + ".prv", "rb").read(), "--gz differs from the plain .prv")
    # a budget the other records alone exceed: every call left out, said so
    k = gen("budget-known")
    out, p = analyze(k, "b-tiny", "--budget", "2kB")
    expect("every call left out" in p.stdout and "more than the budget" in p.stdout,
           "a budget too small: %r" % p.stdout)
    s = checked(out + ".prv")
    expect(not any(key.startswith("60000019:") and key != "60000019:0" for key in s["events"])
           and s["left_calls"] > 0, "calls written under a budget too small")
    for bad in ("0", "12XB", "-5M", "1e9"):
        p = run([PARATRACE, "analyze", "--budget", bad, d], rc=2)
        expect("--budget" in p.stderr, "--budget %s: %r" % (bad, p.stderr))
    p = run([PARATRACE, "analyze", "--gz", "--no-gz", d], rc=2)
    p = run([PARATRACE, "report", "--full", d], rc=2)
    expect("option of analyze" in p.stderr, "report --full: %r" % p.stderr)


def case_calls():
    d = gen("calls", "--fork")
    full, _ = analyze(d, "c-full", "--full")
    for name, opts, min_ns, inc, exc in (
            ("c-min", ["--min-duration", "1ms"], 1000000, None, None),
            ("c-min2", ["--min-duration", "%dns" % (S + 1)], S + 1, None, None),
            ("c-exc", ["--exclude", "sleep"], 0, None, "sleep"),
            ("c-inc", ["--include", "^(sleep_fixed|main)$"], 0, "^(sleep_fixed|main)$", None),
            ("c-both", ["--include", "work|sleep", "--min-duration", "20us"], 20000, "work|sleep", None)):
        out, p = analyze(d, name, *opts)
        checked(out + ".prv")
        stats = thin_ok(full, out, min_ns, inc, exc)
        expect(stats["left"] > 0, "%s: nothing left out" % name)
        expect("left out" in p.stdout, "%s: no line about what was left out: %r" % (name, p.stdout))
    # sleep_fixed lasts S, and S - 2 in the .prv (its entry shares a time
    # with those of worker_main and work: ties move it 2 ns later, see
    # docs/ANALYZER.md): durations are the .prv's
    s = checked(os.path.join(WORK, "c-min2.prv"))
    expect(not s["events"].get("60000019:3"), "sleep_fixed kept at --min-duration %d" % (S + 1))
    for th, want in ((S - 2, T * N), (S + 1, None)):
        out, _ = analyze(d, "c-min3", "--min-duration", "%dns" % th)
        s = checked(out + ".prv")
        expect(s["events"].get("60000019:3") == want, "sleep_fixed at --min-duration %d: %s"
               % (th, s["events"].get("60000019:3")))
    for bad in (["--min-duration", "fast"], ["--include", "("], ["--exclude", "a", "--exclude", "b"]):
        p = run([PARATRACE, "analyze"] + bad + [d], rc=2)
        expect(bad[0] in p.stderr, "%s: %r" % (bad, p.stderr))


def case_window():
    d = gen("window")
    full, _ = analyze(d, "w-full", "--full")
    f = checked(full + ".prv")
    lo, hi = 5000000, 12000000
    out, p = analyze(d, "w", "--from", "5ms", "--to", "12ms")
    s = checked(out + ".prv")
    expect(s["end"] == hi - lo, "window: trace end %d, expected %d" % (s["end"], hi - lo))
    expect("window 5.00 ms to 12.0 ms of the run; in the .prv, time 0 is 5.00 ms" in p.stdout, "window line: %r" % p.stdout)
    expect(s["threads"] == f["threads"], "window: %d rows, the full trace %d" % (s["threads"], f["threads"]))
    # every worker was running (in a call) when the window opened: its
    # calls begin at time 0 and end at the window's end
    calls, _ = thin_check.read_calls(out + ".prv")
    for th in ("1:%d" % k for k in range(2, T + 2)):
        first = calls.get(th, [[0, None]])[0]
        expect(first[1] == 0, "thread %s: first call at %s, not at the window's start" % (th, first[1]))
        expect(all(c[2] is not None and c[2] <= hi - lo for c in calls.get(th, [])),
               "thread %s: a call ends after the window" % th)
    # states: what the full trace has inside the window, clipped
    full_calls, _ = thin_check.read_calls(full + ".prv")
    for th, cs in full_calls.items():
        inside = [c for c in cs if c[1] < hi and c[2] > lo]
        expect(len(calls.get(th, [])) == len(inside), "thread %s: %d calls in the window, expected %d"
               % (th, len(calls.get(th, [])), len(inside)))
    # thread creations (at 1000k ns, the thread's start 500 ns later)
    # happened before the window: none
    expect(not s["comms"], "communications in the window: %s" % s["comms"])
    # a window that starts between the first creation and its thread's
    # start: that one is left out, and said so
    out, p = analyze(d, "w-comm", "--from", "1200ns", "--to", "5ms")
    s = checked(out + ".prv")
    expect([c["tag"] for c in s["comms"]] == [1] * (T - 1), "communications %s" % s["comms"])
    expect("1 communication with an end outside the window left out" in p.stdout, "%r" % p.stdout)
    # a share of the run
    out, p = analyze(d, "w-pct", "--from", "50%")
    s = checked(out + ".prv")
    expect(0 < s["end"] < f["end"], "window 50%%: end %d, full %d" % (s["end"], f["end"]))
    for bad in (["--from", "2x"], ["--to", "101%"], ["--from", "10s"], ["--from", "5ms", "--to", "4ms"]):
        p = run([PARATRACE, "analyze"] + bad + [d], rc=2)
        expect(p.stderr.strip(), "%s: %r" % (bad, p.stderr))


def case_rows():
    d = gen("rows", "--fork")
    out, p = analyze(d, "r-threads", "--threads", "7001,7003")
    s = checked(out + ".prv")
    expect(s["threads"] == 2, "--threads 7001,7003: %d rows" % s["threads"])
    labels = s["thread_labels"]
    expect(len(labels) == 2 and "tid 7001" in labels[0] and "tid 7003" in labels[1], "rows %r" % labels)
    # their creation by main (not selected) is left out and counted
    expect(not s["comms"], "communications %s" % s["comms"])
    expect("2 of %d rows (2 communications with an end outside them left out)" % (T + 2) in p.stdout,
           "rows line: %r" % p.stdout)
    out, p = analyze(d, "r-main", "--threads", "r1-2")
    s = checked(out + ".prv")
    expect(s["threads"] == 2 and [c["tag"] for c in s["comms"]] == [1], "rows 1-2: %d rows, comms %s"
           % (s["threads"], s["comms"]))
    out, p = analyze(d, "r-child", "--processes", "7100")
    s = checked(out + ".prv")
    expect(s["threads"] == 1 and s["task_labels"] == ["known pid 7100"], "--processes 7100: %r" % s["task_labels"])
    expect(s["events"].get("60000019:5") == 1, "the child's call %s" % s["events"].get("60000019:5"))
    run([PARATRACE, "analyze", "--threads", "9999", d], rc=1)
    p = run([PARATRACE, "analyze", "--threads", "7001-", d], rc=2)
    expect("--threads" in p.stderr, "%r" % p.stderr)


def case_export():
    d = gen("export")
    for fmt, ext in (("chrome", ".json"), ("perfetto", ".pftrace")):
        full = os.path.join(WORK, "x-full" + ext)
        run([PARATRACE, "export", "-q", "--format", fmt, "-o", full, d])
        out = os.path.join(WORK, "x-min" + ext)
        run([PARATRACE, "export", "-q", "--format", fmt, "--min-duration", "1.1ms", "--threads", "7001,7002",
             "-o", out, d])
        if fmt == "chrome":
            ev = json.load(open(out))["traceEvents"]
            tids = {e["tid"] for e in ev if e.get("ph") in ("B", "X", "i") and e.get("tid")}
            expect(tids == {7001, 7002}, "chrome: events of threads %s" % tids)
            begins = [e for e in ev if e.get("ph") == "B"]
            left = sum(e["args"]["calls"] for e in ev if e.get("name") == "calls left out")
            fev = json.load(open(full))["traceEvents"]
            fb = [e for e in fev if e.get("ph") == "B" and e["tid"] in (7001, 7002)]
            expect(len(begins) + left == len(fb), "chrome: %d slices + %d left out, full has %d"
                   % (len(begins), left, len(fb)))
            # sleep_fixed (1 ms) and work (1.03 ms) left out, worker_main kept
            expect(left > 0 and all(e["name"] == "worker_main(void*)" for e in begins),
                   "chrome: slices kept %s" % sorted({e["name"] for e in begins}))
        else:
            pk = perfetto_read.read(out)
            threads = sorted(p["track"]["thread"]["tid"] for p in pk if p["track"] and p["track"].get("thread"))
            expect(threads == [7001, 7002], "perfetto: thread tracks %s" % threads)
            left = [p["event"] for p in pk if p["event"] and p["event"].get("name") == "calls left out"]
            expect(left, "perfetto: no 'calls left out' instants")
    out = os.path.join(WORK, "x-win.json")
    run([PARATRACE, "export", "-q", "--format", "chrome", "--from", "5ms", "--to", "6ms", "-o", out, d])
    ev = json.load(open(out))["traceEvents"]
    ts = [e["ts"] for e in ev if e.get("ph") in ("B", "E", "X")]
    expect(ts and min(ts) >= 5000 and max(ts) <= 6000, "chrome window: slices from %s to %s us"
           % (min(ts) if ts else None, max(ts) if ts else None))
    depth = {}
    for e in ev:
        if e.get("ph") in ("B", "E"):
            depth[e["tid"]] = depth.get(e["tid"], 0) + (1 if e["ph"] == "B" else -1)
            expect(depth[e["tid"]] >= 0, "chrome window: an E without its B")
    expect(all(v == 0 for v in depth.values()), "chrome window: slices left open %s" % depth)


def case_progress():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plot"))
    import check  # noqa: E402 (tests/plot/check.py)
    d = gen("progress")
    tty = check.on_terminal([PARATRACE, "analyze", "-o", os.path.join(WORK, "progress"), d])
    FAILS.extend(check.FAILS)
    bars = re.findall(r"reading \[[# ]*\] +\d+%  ([0-9.]+ \w+) of ([0-9.]+ \w+)", tty)
    expect(bars, "no progress bar on a terminal: %r" % tty[-500:])
    # a trace of ~100 kB: its sizes in kB, not "0/0 MB"
    expect(all(a.endswith(" kB") and b.endswith(" kB") for a, b in bars), "progress units %s" % bars)


def case_big():
    d = bench("big", 8, 16000000)
    out = os.path.join(WORK, "big")
    p = run([PARATRACE, "analyze", "-j2", "--no-profile", "-o", out, d])
    size = os.path.getsize(out + ".prv")
    shutil.rmtree(d, ignore_errors=True)
    expect(size <= 160000000, "default .prv of 16 M events: %d bytes, over 160 MB" % size)
    expect(LEFT.search(p.stdout), "no line about what was left out: %r" % p.stdout)
    s = checked(out + ".prv")
    expect(s["left_calls"] > 0, "no summaries")
    os.unlink(out + ".prv")


CASES = {"budget": case_budget, "calls": case_calls, "window": case_window, "rows": case_rows,
         "export": case_export, "progress": case_progress, "big": case_big}

if __name__ == "__main__":
    main(CASES)
