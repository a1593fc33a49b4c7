#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA kernel profiling on a real GPU (skipped, exit 77, without one):
clang compiles cuda_kernels.cu to PTX with instrument.so; cuda_kernels_host
loads it through the driver API and launches branchy twice and axpy once,
untraced and under libtrace.so with PARATRACE_GPU_KERNELS=blocks. Checks:
the same results; in `paratrace report --csv`, the launches, work-groups,
work-items and the first block at each marker line of the source executed
exactly as the sizes and data say (odd threads, a loop of id % 8
iterations calling a helper that branches on the data; the threads of axpy
inside its bound), work-group times measured (%globaltimer); per-launch
events on the stream's Paraver row. --ptx uses PTX compiled beforehand
(the same clang command, run where clang is) instead of compiling."""
import argparse
import collections
import os
import re
import subprocess
import sys

from gpu_testlib import check, finish, fresh, gpu_tables

ap = argparse.ArgumentParser()
ap.add_argument("--clang")
ap.add_argument("--plugin")
ap.add_argument("--ptx", help="kernels.ptx compiled beforehand: skip the compile")
ap.add_argument("--src", required=True)
ap.add_argument("--host", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--paratrace", required=True)
ap.add_argument("--dir", required=True)
ap.add_argument("--arch", default="sm_80", help="PTX target (the driver JIT-compiles it for the GPU)")
a = ap.parse_args()
fresh(a.dir)
ptx = a.ptx or os.path.join(a.dir, "kernels.ptx")
if not a.ptx:
    if not a.clang or not a.plugin:
        sys.exit("check_cuda_kernels_gpu.py: --clang and --plugin, or --ptx")
    cc = subprocess.run([a.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                         "--cuda-gpu-arch=" + a.arch, "-Wno-unknown-cuda-version", "-S", "-O2",
                         "-gline-tables-only", "-fplugin=" + a.plugin, a.src, "-o", ptx],
                        capture_output=True, text=True)
    if cc.returncode != 0:
        print("FAIL: compile: " + cc.stderr[-3000:])
        sys.exit(1)

plain = subprocess.run([a.host, ptx], capture_output=True, text=True)
if plain.returncode == 77:
    print("SKIP: " + plain.stderr.strip())
    sys.exit(77)
check(plain.returncode == 0, "untraced run failed: %s" % plain.stderr)
trace = os.path.join(a.dir, "trace")
env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace, PARATRACE_GPU_KERNELS="blocks")
traced = subprocess.run([a.host, ptx], env=env, capture_output=True, text=True)
check(traced.returncode == 0, "traced run failed: %s" % traced.stderr)
check(traced.stdout == plain.stdout, "results differ: %s vs %s" % (traced.stdout, plain.stdout))
check(not [l for l in traced.stderr.splitlines() if l.startswith("paratrace")], "warnings: %s" % traced.stderr)
said = {l.split()[0]: int(l.split()[1]) for l in plain.stdout.splitlines() if not l.startswith("sum_")}
line = {m.group(1): i for i, l in enumerate(open(a.src), 1) for m in [re.search(r"// ([A-Z]+)", l)] if m}

n, na, reps = said.get("N", 0), said.get("NA", 0), said.get("reps", 0)
data = [i % 7 for i in range(n)]
body = sum(i % 8 for i in range(n))
big = sum(1 for i in range(n) for k in range(i % 8) if data[k] > 3)
want = {
    "branchy": dict(launches=reps, groups=reps * n // 256, items=reps * n,
                    lines={"ENTRY": n, "ODD": n // 2, "BODY": body, "BIG": big, "SMALL": body - big}, per=reps),
    "axpy": dict(launches=1, groups=(na + 127) // 128, items=(na + 127) // 128 * 128, lines={"AXPY": na}, per=1),
}
rows, report = gpu_tables(a.paratrace, trace)
kernels = {k["kernel"]: k for k in rows["gpu_kernel"]}
for name, w in want.items():
    k = kernels.get(name)
    if not check(k, "report: no kernel %s (%s)" % (name, sorted(kernels))):
        continue
    check(int(k["launches"]) == w["launches"] and int(k["profiled"]) == w["launches"] and
          int(k["work_groups"]) == w["groups"] and int(k["work_items"]) == w["items"],
          "%s: %s, expected %s" % (name, k, w))
    check(0 < int(k["wg_time_min_ns"]) <= int(k["wg_time_mean_ns"]) <= int(k["wg_time_max_ns"]),
          "%s: work-group times %s" % (name, k))
    blocks = sorted((b for b in rows["gpu_block"] if b["kernel"] == name), key=lambda b: int(b["block"]))
    for m, c in w["lines"].items():
        at = [b for b in blocks if int(b["line"]) == line[m]]
        check(at and int(at[0]["executions"]) == c * w["per"],
              "%s line %d (%s): %s, expected %d" % (name, line[m], m, at and at[0]["executions"], c * w["per"]))

out = os.path.join(a.dir, "gpu")
an = subprocess.run([a.paratrace, "analyze", trace, "-o", out, "--quiet"], capture_output=True, text=True)
if check(an.returncode == 0, "analyze: %s" % an.stderr):
    ev = collections.Counter()
    for l in open(out + ".prv"):
        p = l.strip().split(":")
        if p[0] == "2":
            ev.update(t for t in p[6::2] if t.startswith("632000"))
    check(all(ev[t] == 3 for t in ("63200001", "63200004", "63200005", "63200006")), "prv events %s" % ev)

# One kernel on two streams at once (its slot is one per kernel): every
# launch's profile holds exactly its own work-groups.
plain = subprocess.run([a.host, ptx, "concurrent"], capture_output=True, text=True)
trace2 = os.path.join(a.dir, "trace-concurrent")
traced = subprocess.run([a.host, ptx, "concurrent"], capture_output=True, text=True,
                        env=dict(env, PARATRACE_DIR=trace2))
check(plain.returncode == 0 and traced.returncode == 0 and traced.stdout == plain.stdout,
      "concurrent: results %s / %s %s" % (plain.stdout, traced.stdout, traced.stderr[-500:]))
d = subprocess.run([a.paratrace, "dump", trace2], capture_output=True, text=True)
grid, groups = {}, {}
for l in d.stdout.splitlines():
    p = l.split()
    f = dict(t.split("=", 1) for t in p[4:] if "=" in t)
    if len(p) > 3 and p[3] == "GPU_LAUNCH" and "grid" in f:
        grid[f["corr"]] = int(f["grid"].split(",")[0])
    elif len(p) > 3 and p[3] == "GPU_PROF":
        groups[f["corr"]] = int(f["groups"])
check(len(groups) == 6 and all(grid.get(c) == g for c, g in groups.items()),
      "concurrent: work-groups per launch %s, grids %s" % (groups, grid))

finish(said="figures: " + report)
