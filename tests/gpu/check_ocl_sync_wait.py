#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real clFinish waiting for a kernel on PoCL's CPU device (the wait-state
section's gpu_sync_wait, docs/ANALYZER.md "Wait states"): ocl_sync_wait runs
`spin` for about 150 ms and calls clFinish right after its launch. From the
trace's own records (paratrace dump) the checker derives what every clFinish
waited for: the last kernel launched on its queue before it began that still
ran then, until its end (or the call's return); `report --csv` must give
exactly that total, `report --json` the kernel `spin` on its queue as the
cause, the last clFinish a wait of at least 50 ms (the kernel's length, less
the launch), `spin` on the critical path at least as long as the last
kernel, and `analyze --waits` the pattern's value (10) on the main thread's
row for the same time, with its .pcf label.

usage: check_ocl_sync_wait.py --lib libtrace.so --paratrace P --prog ocl_sync_wait --dir DIR
"""
import argparse
import csv
import json
import os
import subprocess
import sys

from gpu_testlib import fresh


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        sys.exit("FAIL: %s: status %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def fields(line):
    head, _, name = line.partition(" name=")
    p = head.split()
    f = dict(x.split("=", 1) for x in p[4:] if "=" in x)
    f["name"] = name
    return int(p[0]), int(p[2]), p[3], f


def main():
    ap = argparse.ArgumentParser()
    for k in ("lib", "paratrace", "prog", "dir"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    fresh(a.dir)
    trace = os.path.join(a.dir, "trace")
    env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace,
               POCL_CACHE_DIR=os.path.join(a.dir, "pocl-cache"))
    said = run([a.prog, "150"], env)
    print(said, end="")
    pt = a.paratrace
    launches, finishes, kernels = {}, [], []
    begun = {}
    for line in run([pt, "dump", trace]).splitlines():
        if " GPU_" not in line:
            continue
        t, tid, kind, f = fields(line)
        if kind == "GPU_API_BEGIN":
            begun[tid] = (t, f)
        elif kind == "GPU_API_END" and tid in begun:
            b, bf = begun.pop(tid)
            if f["name"] == "clFinish":
                finishes.append((b, t, bf["stream"]))
            elif f["name"] == "clEnqueueNDRangeKernel":
                launches[bf["corr"]] = (b, bf["stream"])
        elif kind == "GPU_KERNEL":
            kernels.append((int(f["start"]), int(f["end"]), f["corr"], f["name"]))
    if not finishes or not kernels:
        sys.exit("FAIL: no clFinish or no kernel in the trace")
    want, last = 0, None
    for b, e, stream in finishes:
        ends = [k[1] for k in kernels if k[2] in launches and launches[k[2]][0] <= b and
                launches[k[2]][1] == stream and k[1] > b]
        if ends:
            last = min(max(ends), e) - b
            want += last
    out = run([pt, "report", "--csv", trace])
    rows = [r for r in csv.reader(out.splitlines()) if r and r[0] == "wait_state"
            and r[1] == "gpu_sync_wait"]
    got = sum(int(r[6]) for r in rows)
    if got != want or [r[4] for r in rows] != ["clFinish"]:
        sys.exit("FAIL: gpu_sync_wait rows %r, want clFinish %d ns" % (rows, want))
    if last is None or last < 50000000:
        sys.exit("FAIL: the last clFinish waited %r ns, not the kernel's ~150 ms" % last)
    path = {r[1]: int(r[3]) for r in csv.reader(out.splitlines()) if r and r[0] == "critical_path"}
    spin = kernels[-1][1] - kernels[-1][0]
    if path.get("spin", 0) < spin:
        sys.exit("FAIL: spin on the critical path %r ns, the last kernel ran %d ns" %
                 (path.get("spin"), spin))
    j = json.loads(run([pt, "report", "--json", trace]))
    causes = [(w["cause"]["function"], w["cause"]["thread"], w["cause"]["gpu"].split("-")[0])
              for w in j["wait_states"] if w["pattern"] == "gpu_sync_wait"]
    if causes != [("spin", None, "OpenCL")]:
        sys.exit("FAIL: causes %r" % causes)
    name = os.path.join(a.dir, "waits")
    run([pt, "analyze", "--waits", "--no-profile", "-o", name, trace])
    with open(name + ".pcf") as f:
        if "10      gpu_sync_wait\n" not in f.read():
            sys.exit("FAIL: no gpu_sync_wait label in %s.pcf" % name)
    spans, since = 0, None
    with open(name + ".prv") as f:
        for line in f:
            p = line.strip().split(":")
            if p[0] != "2" or p[3:5] != ["1", "1"]:
                continue
            ev = dict(zip(p[6::2], p[7::2]))
            if "69000000" in ev:
                if since is not None:
                    spans += int(p[5]) - since
                since = int(p[5]) if ev["69000000"] == "10" else None
    if spans != want:
        sys.exit("FAIL: 69000000=10 on the main thread's row for %d ns, want %d" % (spans, want))
    print("OpenCL sync wait: OK (%d clFinish, %.1f ms waited)" % (len(finishes), want / 1e6))


if __name__ == "__main__":
    main()
