#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The analyzer's outputs do not depend on -j nor on the run: a real
program built with -finstrument-functions (progs/cyg_jobs.c: functions
known only by their code addresses) traced with sampling and call stacks,
so its shards meet addresses in an order that depends on the workers; the
.prv/.pcf/.row of `analyze`, the Perfetto and Chrome exports, the SVG of
`plot` and the page of `report --html` (their flame graph merges the
threads' call trees) must come out byte-identical at -j1, -j3 and several
times at -j2.

Usage: test_jobs.py --prog cyg_jobs --runtime libtrace.so --paratrace P --work DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import FAILS, arguments, expect, run, valid  # noqa: E402


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
    tdir = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir, PARATRACE_SAMPLING="1ms",
               PARATRACE_CALLSTACK="4")
    subprocess.run([a.prog], env=env, stdout=subprocess.PIPE, check=True)

    outs = {}
    for i, j in enumerate(["1", "2", "2", "2", "2", "3"]):
        base = os.path.join(a.work, "a%d" % i)
        run([a.paratrace, "analyze", "-q", "-j", j, "-o", base, tdir])
        got = b"".join(open(base + ext, "rb").read() for ext in (".prv", ".pcf", ".row"))
        outs.setdefault(got, []).append("-j%s" % j)
        for fmt, ext in (("perfetto", ".pftrace"), ("chrome", ".json")):
            out = os.path.join(a.work, "e%d%s" % (i, ext))
            run([a.paratrace, "export", "-q", "-j", j, "--format", fmt, "-o", out, tdir])
            outs.setdefault((fmt, open(out, "rb").read()), []).append("-j%s" % j)
        for cmd, ext in ((["plot"], ".svg"), (["report", "--html"], ".html")):
            out = os.path.join(a.work, "p%d%s" % (i, ext))
            run([a.paratrace] + cmd + ["-q", "-j", j, "-o", out, tdir])
            outs.setdefault((cmd[-1], open(out, "rb").read()), []).append("-j%s" % j)
    kinds = {}
    for k, runs in outs.items():
        kinds.setdefault(k[0] if isinstance(k, tuple) else "analyze", []).append(runs)
    for kind, variants in sorted(kinds.items()):
        expect(len(variants) == 1, "%s: %d different outputs: %s" % (kind, len(variants), variants))
    valid(os.path.join(a.work, "a0.prv"))
    pcf = open(os.path.join(a.work, "a0.pcf")).read()
    # the trace has what makes the order matter: functions by address, call stacks, samples
    expect("leaf_3" in pcf, "functions by address not named in the .pcf")
    expect("Sampled function at level 1" in pcf, "no samples in the trace (sampling unavailable?)")
    if FAILS:
        return 1
    print("test_jobs: analyze, exports, plot and report --html identical for -j1, -j2 (x4), -j3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
