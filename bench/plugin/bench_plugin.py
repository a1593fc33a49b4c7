#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Untraced and traced cost per call of code built with instrument.so, side
by side with the same code uninstrumented, with XRay sleds (not patched),
and with -finstrument-functions (glibc's no-op hooks); and the cost of
instrumenting before inlining (stage=start) against the default (late).
Each variant runs --reps times, interleaved; the table shows medians.

  bench_plugin.py --clang clang --plugin instrument.so --runtime libtrace.so [--reps 5] [--calls N]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--clang", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--runtime", required=True)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--calls", type=int, default=200_000_000)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="pt-bench-plugin-")
    src = os.path.join(HERE, "calls.c")
    variants = [
        ("uninstrumented", []),
        ("instrument.so (untraced)", ["-fplugin=" + a.plugin]),
        ("instrument.so stage=start (untraced)", ["-fplugin=" + a.plugin, "-fplugin-arg-instrument-stage=start"]),
        ("XRay sleds, unpatched", ["-fxray-instrument", "-fxray-instruction-threshold=1"]),
        ("-finstrument-functions (no-op hooks)", ["-finstrument-functions"]),
    ]
    exes = []
    for i, (name, flags) in enumerate(variants):
        exe = os.path.join(work, "v%d" % i)
        r = subprocess.run([a.clang, "-O2", src, "-o", exe] + flags, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print("%s: build failed, left out:\n%s" % (name, r.stderr.strip()), file=sys.stderr)
            continue
        exes.append((name, exe, {}))
    # traced: the instrumented binary with libtrace.so preloaded (fewer
    # calls: every call writes two 8-byte records)
    runs = []
    for name, exe, res in exes:
        for what in ("leaf", "inline"):
            runs.append((name, exe, res, what, a.calls, None))
    traced = [e for e in exes if e[0].startswith("instrument.so")]
    for name, exe, _ in traced:
        res = {}
        exes.append((name.replace("untraced", "traced, libtrace.so"), exe, res))
        for what in ("leaf", "inline"):
            runs.append((exes[-1][0], exe, res, what, a.calls // 20, a.runtime))
    for rep in range(a.reps):
        for name, exe, res, what, n, preload in runs:
            env = dict(os.environ)
            tdir = os.path.join(work, "trace")
            if preload:
                env["LD_PRELOAD"] = preload
                env["PARATRACE_DIR"] = tdir
                env["PARATRACE_THROTTLE"] = "off"  # every call recorded (bench/throttle: throttled)
            out = subprocess.run([exe, str(n), what], stdout=subprocess.PIPE, text=True, env=env,
                                 check=True).stdout
            res.setdefault(what, []).append(float(out.split()[0]))
            shutil.rmtree(tdir, ignore_errors=True)
    print("instrument.so: cost per call, -O2, %d runs each (median [min-max]), %d calls (traced: %d)"
          % (a.reps, a.calls, a.calls // 20))
    print("%-42s %-26s %-26s" % ("variant", "leaf(): ns/call", "inlined getter: ns/iter"))
    base = {w: statistics.median(exes[0][2][w]) for w in ("leaf", "inline")}
    for name, _, res in exes:
        cells = []
        for w in ("leaf", "inline"):
            v = res[w]
            m = statistics.median(v)
            cells.append("%.2f [%.2f-%.2f] %+.2f" % (m, min(v), max(v), m - base[w]))
        print("%-42s %-26s %-26s" % (name, cells[0], cells[1]))
    print("(last number in each cell: difference from uninstrumented, ns)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
