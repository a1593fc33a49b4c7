#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA path on synthetic CUPTI data, through real logs and the analyzer:
runs cuda_synth (runtime linked in, fed callbacks and activity records),
then checks `paratrace dump` (a launch captured into a graph has no
launch record), the Paraver trace (rows GPU-D0.S7/.S13,
Running and Memory transfer states, kernel events, launch links, host
launch sizes, structural validity) and the profile's GPU section."""
import argparse
import collections
import os
import subprocess
import sys

from gpu_testlib import check, finish, fresh

ap = argparse.ArgumentParser()
ap.add_argument("--paratrace", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--dir", required=True)
a = ap.parse_args()
fresh(a.dir)
trace = os.path.join(a.dir, "trace")
r = subprocess.run([a.prog], env=dict(os.environ, PARATRACE_DIR=trace), capture_output=True, text=True)
check(r.returncode == 0, "program failed: %s" % r.stderr)

d = subprocess.run([a.paratrace, "dump", trace], capture_output=True, text=True)
kinds = collections.Counter(l.split()[3] for l in d.stdout.splitlines() if len(l.split()) > 3)
check(kinds["GPU_API_BEGIN"] == 7 and kinds["GPU_API_END"] == 7, "host calls: %s" % kinds)
check(kinds["GPU_LAUNCH"] == 3, "launch records: %d" % kinds["GPU_LAUNCH"])
check(kinds["GPU_KERNEL"] == 5 and kinds["GPU_MEMCPY"] == 1 and kinds["GPU_MEMSET"] == 1,
      "device records: %s" % kinds)
names = sorted(os.listdir(os.path.join(trace, os.listdir(trace)[0])))
check("gcuda0-7.ptl" in names and "gcuda0-13.ptl" in names, "GPU logs: %s" % names)

out = os.path.join(a.dir, "cuda")
an = subprocess.run([a.paratrace, "analyze", trace, "-o", out], capture_output=True, text=True)
check(an.returncode == 0, "analyze failed: %s" % an.stderr)
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "prv_check.py")
if os.path.exists(checker):
    v = subprocess.run([sys.executable, checker, out + ".prv"], capture_output=True, text=True)
    check(v.returncode == 0, "prv_check.py: %s%s" % (v.stdout, v.stderr))

rows = open(out + ".row").read().splitlines()
i = next(k for k, l in enumerate(rows) if l.startswith("LEVEL THREAD SIZE"))
threads = rows[i + 1:i + 1 + int(rows[i].split()[-1])]
row = {name: k for k, name in enumerate(threads, 1)}
check("GPU-D0.S7" in row and "GPU-D0.S13" in row, "stream rows: %s" % threads)
s7, s13 = row.get("GPU-D0.S7"), row.get("GPU-D0.S13")
host = 1

states = collections.Counter()
events = collections.defaultdict(list)
links = collections.Counter()
for line in open(out + ".prv"):
    p = line.rstrip("\n").split(":")
    if p[0] == "1":
        states[(int(p[1]), int(p[7]))] += 1
    elif p[0] == "2":
        for t, v in zip(p[6::2], p[7::2]):
            events[(int(p[1]), int(t))].append(int(v))
    elif p[0] == "3" and p[-1] == "3":
        links[(int(p[1]), int(p[7]))] += 1
check(states[(s7, 1)] == 1 and states[(s13, 1)] == 4, "Running states S7=%d S13=%d" % (states[(s7, 1)], states[(s13, 1)]))
check(states[(s7, 17)] == 1 and states[(s13, 17)] == 1, "Memory transfer states %d %d" % (states[(s7, 17)], states[(s13, 17)]))
check(states[(host, 5)] == 1, "host Synchronization states: %d" % states[(host, 5)])
check(states[(host, 32)] == 6, "host Configuring accelerator states: %d" % states[(host, 32)])
check(links[(host, s7)] == 1 and links[(host, s13)] == 4, "launch links %s" % dict(links))
check(sorted(v for v in events[(s7, 63000001)] if v) == [1 << 20], "S7 transfer size %s" % events[(s7, 63000001)])
check(len([v for v in events[(s13, 63000006)] if v]) == 4, "S13 kernel events %s" % events[(s13, 63000006)])
check(sorted(v for v in events[(host, 63000011)] if v) == [64, 256], "host blocks per grid %s" % events[(host, 63000011)])
check(sorted(v for v in events[(host, 63000012)] if v) == [128, 256], "host threads per block %s" % events[(host, 63000012)])
check(sorted(v for v in events[(host, 63000000)] if v) == [1, 1, 1, 4, 7, 13, 15], "host call values %s" % events[(host, 63000000)])
pcf = open(out + ".pcf").read()
check("axpy(float*, float*, float)" in pcf and "cudaGraphLaunch" in pcf, "kernel/function names in the .pcf")
check("GPU: 3 launches" in an.stdout and "axpy(float*, float*, float)" in an.stdout
      and "HtoD" in an.stdout, "profile GPU section:\n%s" % an.stdout[-1500:])

# The timeline export: kernels and copies on the two stream tracks, flows
# from the launches (the nested driver launch through its second id; the
# graph launch to its first kernel).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
import perfetto_read  # noqa: E402
pf = os.path.join(a.dir, "cuda.pftrace")
r = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace],
                   capture_output=True, text=True)
check(r.returncode == 0, "export perfetto: %s" % r.stderr[-1000:])
if r.returncode == 0:
    problems, tracks, slices = perfetto_read.check(perfetto_read.read(pf))
    check(not problems, "perfetto: %s" % problems[:5])
    by_track = {t["name"]: u for u, t in tracks.items() if t["name"]}
    dev = {n: collections.Counter((ev["categories"][0], s) for s, b, e, ev in slices.get(u, []))
           for n, u in by_track.items() if n.startswith("GPU stream")}
    check(dev.get("GPU stream 7") == collections.Counter({("kernel", "axpy(float*, float*, float)"): 1,
                                                          ("transfer", "copy HtoD 1048576 B"): 1}),
          "stream 7 slices %s" % dev.get("GPU stream 7"))
    check(dev.get("GPU stream 13") == collections.Counter({("kernel", "scale(float*)"): 1, ("kernel", "graph_node"): 3,
                                                           ("transfer", "memset 4096 B"): 1}),
          "stream 13 slices %s" % dev.get("GPU stream 13"))
    src = {f for sl in slices.values() for *_, ev in sl for f in ev["flows"]}
    end = {f for sl in slices.values() for *_, ev in sl for f in ev["terminating"]}
    check(len(end) == 3 and end <= src, "launch flows: %d sources, ends %d, matched %d" % (len(src), len(end), len(src & end)))

finish(ok="ok: CUDA synthetic trace: 2 stream rows, 5 kernels, 2 transfers, 5 launch links")
