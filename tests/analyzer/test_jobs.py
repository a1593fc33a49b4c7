#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The analyzer's outputs do not depend on -j nor on the run: a real
program built with -finstrument-functions (progs/cyg_jobs.c: functions
known only by their code addresses) traced with sampling and call stacks,
so its shards meet addresses in an order that depends on the workers; the
.prv/.pcf/.row of `analyze`, the Perfetto, Chrome and OTF2 exports (the
OTF2 archive as otf2-print reads it, where both are built and installed),
the SVG of `plot`, `report`'s tables and JSON, and the page of `report
--html` (their flame graph merges the threads' call trees) must come out
byte-identical at -j1, -j3 and several times at -j2.

Usage: test_jobs.py --prog cyg_jobs --runtime libtrace.so --paratrace P --work DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import FAILS, arguments, expect, run, valid  # noqa: E402


def otf2_text(paratrace, j, out, tdir):
    """The OTF2 archive's definitions and events as otf2-print writes them
    (the archive's files hold its creation time); None where the export is
    not built in or otf2-print is not installed."""
    p = subprocess.run([paratrace, "export", "-q", "-j", j, "--format", "otf2", "-o", out, tdir],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 2 and "without the OTF2 library" in p.stderr:
        return None
    expect(p.returncode == 0, "export --format otf2 -j%s: exit %d: %s" % (j, p.returncode, p.stderr))
    anchor = os.path.join(out, "traces.otf2")
    try:
        return b"".join(subprocess.run(["otf2-print"] + opt + [anchor], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, check=True).stdout
                        for opt in (["-G"], []))
    except FileNotFoundError:
        return None


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
        for cmd in (["report"], ["report", "--json", "--top", "0"]):
            p = run([a.paratrace] + cmd + ["-q", "-j", j, tdir])
            outs.setdefault((" ".join(cmd[:2]), p.stdout), []).append("-j%s" % j)
        otf2 = otf2_text(a.paratrace, j, os.path.join(a.work, "o%d" % i), tdir)
        if otf2 is not None:
            outs.setdefault(("otf2", otf2), []).append("-j%s" % j)
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
    print("test_jobs: analyze, exports, plot and report identical for -j1, -j2 (x4), -j3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
