#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Throttling's effect, side by side in one run (medians of --reps runs,
interleaved so that every configuration sees the same machine load):

  tiny     ns of CPU time per call of a tiny leaf function called --calls
           times (the thread's CPU time, the runtime's kernel work included): plain
           build, instrument.so untraced, traced with throttling (the
           default: the function is throttled after its first 10,000
           calls) and traced with PARATRACE_THROTTLE=off; the "added"
           column is the difference from the plain build
  interp   CPU time of an interpreter's dispatch loop (--steps handler
           calls of a few ns each), and its ratio to the plain build
  start-up wall time of an empty program, untraced and traced

  throttle_bench.py --clang clang --plugin instrument.so --runtime libtrace.so
                    [--reps 5] [--calls N] [--steps N]
                    [--base-plugin instrument.so --base-runtime libtrace.so]

With --base-plugin/--base-runtime (another build, e.g. main before a
change), the workload is also built with that plugin and run traced under
that runtime, in the same interleaved rounds: the "base:" rows.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clang", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--runtime", required=True)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--calls", type=int, default=20_000_000)
    p.add_argument("--steps", type=int, default=10_000_000)
    p.add_argument("--base-plugin")
    p.add_argument("--base-runtime")
    a = p.parse_args()
    if bool(a.base_plugin) != bool(a.base_runtime):
        p.error("--base-plugin and --base-runtime go together")
    work = tempfile.mkdtemp(prefix="pt-bench-throttle-")
    try:
        return run(a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build(a, work):
    src = os.path.join(HERE, "workload.c")
    plain = os.path.join(work, "plain")
    inst = os.path.join(work, "inst")
    empty_c = os.path.join(work, "empty.c")
    empty = os.path.join(work, "empty")
    with open(empty_c, "w") as f:
        f.write("int main(void) { return 0; }\n")
    subprocess.run([a.clang, "-O2", src, "-o", plain], check=True)
    subprocess.run([a.clang, "-O2", "-g", "-fplugin=" + a.plugin, src, "-o", inst], check=True)
    subprocess.run([a.clang, "-O2", empty_c, "-o", empty], check=True)
    inst_base = None
    if a.base_plugin:
        inst_base = os.path.join(work, "inst_base")
        subprocess.run([a.clang, "-O2", "-g", "-fplugin=" + a.base_plugin, src, "-o", inst_base],
                       check=True)
    return plain, inst, empty, inst_base


def run(a, work):
    plain, inst, empty, inst_base = build(a, work)
    trace = os.path.join(work, "trace")
    base = {k: v for k, v in os.environ.items() if not k.startswith("PARATRACE_")}
    traced = dict(base, LD_PRELOAD=a.runtime, PARATRACE_DIR=trace)
    configs = [
        ("plain build", plain, base),
        ("instrument.so, untraced", inst, base),
        ("traced, throttling on (default)", inst, traced),
        ("traced, PARATRACE_THROTTLE=off", inst, dict(traced, PARATRACE_THROTTLE="off")),
    ]
    if inst_base:
        btraced = dict(traced, LD_PRELOAD=a.base_runtime)
        configs += [
            ("base: traced, throttling on", inst_base, btraced),
            ("base: traced, THROTTLE=off", inst_base, dict(btraced, PARATRACE_THROTTLE="off")),
        ]
    res = {c[0]: {"tiny": [], "interp": []} for c in configs}
    starts = {"untraced": [], "traced": []}
    sums = {}
    for _ in range(a.reps):
        for name, exe, env in configs:
            for what, n in (("tiny", a.calls), ("interp", a.steps)):
                out = subprocess.run([exe, what, str(n)], env=env, stdout=subprocess.PIPE,
                                     text=True, check=True).stdout.split()
                res[name][what].append(float(out[0]))
                # the program's output must not change with tracing
                if sums.setdefault(what, out[1]) != out[1]:
                    print("%s: %s printed %s, the plain build %s" % (name, what, out[1], sums[what]),
                          file=sys.stderr)
                    return 1
                shutil.rmtree(trace, ignore_errors=True)
        for name, env in (("untraced", base), ("traced", traced)):
            t = time.perf_counter()
            subprocess.run([empty], env=env, check=True)
            starts[name].append((time.perf_counter() - t) * 1e3)
            shutil.rmtree(trace, ignore_errors=True)
    med = {n: {w: statistics.median(v) for w, v in r.items()} for n, r in res.items()}
    p0 = med["plain build"]
    print("throttling: medians of %d runs; tiny: %d calls, interp: %d handler calls; load %.1f on %d CPUs"
          % (a.reps, a.calls, a.steps, os.getloadavg()[0], os.cpu_count()))
    print("%-34s %10s %10s %12s %8s" % ("configuration (thread CPU time)", "tiny ns", "added",
                                        "interp ms", "ratio"))
    for name, _, _ in configs:
        m = med[name]
        print("%-34s %10.2f %+10.2f %12.1f %7.2fx" % (name, m["tiny"], m["tiny"] - p0["tiny"],
                                                    m["interp"] / 1e6, m["interp"] / p0["interp"]))
    su, st = statistics.median(starts["untraced"]), statistics.median(starts["traced"])
    print("%-34s %10s %10s %12s" % ("start-up, empty program", "untraced", "traced", "added ms"))
    print("%-34s %10.2f %10.2f %+12.2f" % ("", su, st, st - su))
    return 0


if __name__ == "__main__":
    sys.exit(main())
