#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: throttling of hot tiny functions (docs/RUNTIME.md,
"Throttling"). progs/throttled.c built with instrument.so, run under
libtrace.so:

  - 20 M calls of a tiny function under the default thresholds: `report
    --csv` shows exactly 20,000,000, most of them throttled (counted, with
    estimated times);
  - a 200 us function called 100 times among 300,000 tiny calls keeps all
    its 100 calls on the Paraver timeline (the tiny one is summarised by a
    throttling event labelled in the .pcf);
  - a recursive function throttled while open: exact count, and the
    Paraver trace still nests;
  - SIGKILL in the middle of throttled calls: the calls up to it are kept;
  - fork and exec of a throttled program: every process's calls;
  - PARATRACE_THROTTLE=off records every call; a bad value is warned about
    and the default used;
  - the program's output never changes.

The checks that need a function throttled at its first decision (exact
counts, one THROTTLE record per process) set a duration no machine misses
(SURE): under load a window of calls can be preempted, and its mean then
exceeds the default 1 us, so the decision would wait for a later window.
The default is checked where a late decision changes nothing checked.

Usage: test_throttle.py --cc CLANG --plugin instrument.so --runtime libtrace.so
                        --paratrace PARATRACE --work DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prv_check  # noqa: E402
from testlib import (SURE, arguments, expect, finish, instrumented, pcf_values,  # noqa: E402
                     report_rows, run_both)


class Env:
    def __init__(self, a):
        self.a = a
        self.n = 0

    def run(self, args, extra=None, check_rc=0):
        self.n += 1
        tdir = os.path.join(self.a.work, "trace%d" % self.n)
        _, p = run_both(" ".join(args), [self.a.exe] + args, self.a.runtime, tdir, extra, check_rc)
        self.last_out = p.stdout
        return tdir, p.stderr

    def report(self, tdir):
        return report_rows(self.a.paratrace, tdir)

    def dump_kinds(self, tdir):
        r = subprocess.run([self.a.paratrace, "dump", tdir], stdout=subprocess.PIPE, text=True)
        kinds = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) > 3:
                kinds[f[3]] = kinds.get(f[3], 0) + 1
        return kinds


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    a.exe = instrumented(a, "throttled.c", os.path.join(a.work, "throttled"))
    e = Env(a)

    # 20 M calls: the exact count, most of them throttled
    tdir, _ = e.run(["tiny", "20000000"])
    f = e.report(tdir).get("tiny")
    expect(f is not None, "tiny not in the report")
    if f:
        expect(int(f["calls"]) == 20000000, "tiny: %s calls, expected 20000000" % f["calls"])
        thr = int(f["throttled_calls"])
        expect(19000000 <= thr < 20000000, "tiny: %d calls throttled" % thr)
        expect(int(f["throttled_since_ns"]) > 0, "tiny: no time it was throttled from")
        expect(int(f["estimated_incl_ns"]) > 0, "tiny: no estimated time")
    k = e.dump_kinds(tdir)
    expect(k.get("THROTTLE") == 1 and k.get("THROTTLE_COUNTS") == 1, "dump: %r" % k)
    r = subprocess.run([a.paratrace, "report", "--json", tdir], stdout=subprocess.PIPE, text=True)
    js = {x["name"]: x for x in json.loads(r.stdout)["functions"]}
    expect(js.get("tiny", {}).get("estimated") is True and js["tiny"]["calls"] == 20000000,
           "json: %r" % js.get("tiny"))
    r = subprocess.run([a.paratrace, "report", tdir], stdout=subprocess.PIPE, text=True)
    expect("~20000000" in r.stdout and "throttled by the runtime" in r.stdout, "text report: %s" % r.stdout)

    # slow keeps its 100 calls on the Paraver timeline
    tdir, _ = e.run(["slow"], SURE)
    rep = e.report(tdir)
    expect(int(rep.get("slow", {}).get("calls", 0)) == 100, "slow: %r" % rep.get("slow"))
    expect(int(rep.get("slow", {}).get("throttled_calls", 1)) == 0, "slow was throttled")
    expect(int(rep.get("tiny", {}).get("calls", 0)) == 300000, "tiny: %r" % rep.get("tiny"))
    out = os.path.join(a.work, "slow")
    problems, s = prv_check.analyze_and_check(a.paratrace, tdir, out)
    for m in problems:
        expect(False, m)
    values = pcf_values(out + ".pcf", 60000019)
    slow_v = [v for v, n in values.items() if n == "slow"]
    expect(len(slow_v) == 1, "slow has no value in the .pcf: %r" % values)
    if slow_v:
        expect(s["events"].get("60000019:%d" % slow_v[0]) == 100,
               "slow: %r calls on the timeline" % s["events"].get("60000019:%d" % slow_v[0]))
    pcf = open(out + ".pcf").read()
    expect("Function throttled by the runtime" in pcf, "no throttling type in the .pcf")
    thr_v = [k for k in s["events"] if k.startswith("61000040:")]
    tiny_v = [v for v, n in values.items() if n == "tiny"]
    expect(tiny_v and thr_v == ["61000040:%d" % tiny_v[0]], "throttling events: %r" % thr_v)
    cnt = [k for k in s["events"] if k.startswith("61000041:")]
    expect(cnt == ["61000041:%d" % (300000 - 10000)], "throttled counts on the timeline: %r" % cnt)
    pf = os.path.join(a.work, "slow.perfetto")
    r = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-o", pf, tdir],
                       stderr=subprocess.PIPE, text=True)
    expect(r.returncode == 0, "perfetto export failed: %s" % r.stderr)
    names = perfetto_text(pf)
    expect(any("throttled" in n and "tiny" in n and "290000 calls" in n for n in names),
           "perfetto: no throttling mark for tiny")

    # recursion: throttled while an outer call is open, the stack stays right
    tdir, _ = e.run(["rec", "100000"], SURE)
    rep = e.report(tdir)
    calls = int(e.last_out.split()[1])
    f = rep.get("rec", {})
    expect(int(f.get("calls", 0)) == calls, "rec: %r, expected %d calls" % (f, calls))
    expect(int(f.get("throttled_calls", 0)) > 0, "rec was not throttled")
    # the outer call's exit was recorded: it ran the whole loop
    expect(int(f.get("incl_max_ns", 0)) >= int(rep["main"]["incl_ns"]) // 2,
           "rec's outer call: %r, main %r" % (f, rep["main"]))
    out = os.path.join(a.work, "rec")
    problems, s = prv_check.analyze_and_check(a.paratrace, tdir, out)
    for m in problems:
        expect(False, "(rec) " + m)

    # killed in the middle of throttled calls: counts up to the kill
    tdir, _ = e.run(["crash", "3000000"], SURE, check_rc=-9)
    rep = e.report(tdir)
    expect(int(rep.get("tiny", {}).get("calls", 0)) == 3000000, "crash: %r" % rep.get("tiny"))

    # fork and exec: 3 processes, each throttles tiny on its own
    tdir, _ = e.run(["fork", "500000"], SURE)
    rep = e.report(tdir)
    expect(int(rep.get("tiny", {}).get("calls", 0)) == 1500000, "fork/exec: %r" % rep.get("tiny"))
    expect(e.dump_kinds(tdir).get("THROTTLE") == 3, "fork/exec: THROTTLE records %r" % e.dump_kinds(tdir))

    # off: every call recorded; a bad value: warned, default used
    tdir, _ = e.run(["tiny", "300000"], {"PARATRACE_THROTTLE": "off"})
    k = e.dump_kinds(tdir)
    expect("THROTTLE" not in k and k.get("FUNC_ENTER", 0) >= 300000, "off: %r" % k)
    tdir, err = e.run(["tiny", "300000"], {"PARATRACE_THROTTLE": "many"})
    expect("PARATRACE_THROTTLE=many" in err, "no warning for a bad value: %r" % err)
    expect(e.dump_kinds(tdir).get("THROTTLE") == 1, "bad value: the default was not used")
    tdir, _ = e.run(["tiny", "300000"], {"PARATRACE_THROTTLE": "1000:1ms"})
    rep = e.report(tdir)
    expect(int(rep["tiny"]["throttled_calls"]) == 300000 - 1000, "1000:1ms: %r" % rep["tiny"])

    return finish("test_throttle")


def perfetto_text(path):
    """Every string in the export (names and arguments)."""
    import re
    data = open(path, "rb").read()
    return [m.decode("utf-8", "replace") for m in re.findall(rb"[ -~]{6,}", data)]


if __name__ == "__main__":
    sys.exit(main())
