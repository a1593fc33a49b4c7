#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA kernel profiling on synthetic launches (no GPU): runs cuda_kprof_synth
with a stand-in libcuda under PARATRACE_GPU_KERNELS=blocks, =entries and
unset, and checks that the runtime points the kernel's slot at a buffer for
each launch (with the blocks bit only for blocks) and resets it after, and
that what the "device" wrote comes out exactly: GPU_PROF_DEF and GPU_PROF in
the dump, the report's kernel section (work-groups, work-items, block
counts, instructions, work-group time min / mean / max and imbalance; in the
text, the CSV and the JSON), and
per launch on the stream's Paraver row (instructions, hot block, work-group
imbalance and mean time)."""
import argparse
import collections
import json
import os
import subprocess
import sys

from gpu_testlib import check, finish, fresh, gpu_tables

ap = argparse.ArgumentParser()
ap.add_argument("--paratrace", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--fake-cuda", required=True)
ap.add_argument("--dir", required=True)
a = ap.parse_args()
fresh(a.dir)
def run(mode):
    trace = os.path.join(a.dir, "trace-" + mode)
    env = dict(os.environ, PARATRACE_DIR=trace)
    env.pop("PARATRACE_GPU_KERNELS", None)
    if mode != "off":
        env["PARATRACE_GPU_KERNELS"] = mode
    r = subprocess.run([a.prog, a.fake_cuda], env=env, capture_output=True, text=True)
    check(r.returncode == 0, "%s: program failed: %s" % (mode, r.stderr))
    said = collections.defaultdict(list)
    for line in r.stdout.splitlines():
        k, v = line.split()
        said[k].append(int(v))
    dump = subprocess.run([a.paratrace, "dump", trace], capture_output=True, text=True).stdout
    recs = collections.defaultdict(list)
    for line in dump.splitlines():
        p = line.split(" ", 4)
        if len(p) > 4 and p[3].startswith("GPU_PROF"):
            recs[p[3]].append(dict(t.split("=", 1) for t in p[4].split() if "=" in t))
    return said, recs, trace


G, T = 8, 128
counts = [T * G, T * G // 2, 3 * T * G]
instr = [8, 5, 3]
per_launch = sum(c * i for c, i in zip(counts, instr))

said, recs, trace = run("blocks")
check(said["slot_set"] == [1] * 4 and said["slot_blocks"] == [1] * 4,
      "blocks: slot set %s, blocks bit %s" % (said["slot_set"], said["slot_blocks"]))
check(said["slot_after"] == [0] * 5, "blocks: slot after the launches %s" % said["slot_after"])
# launches 2, 3 and 4 on the other stream than the one before, still running
check(said["stream_waits"] == [3], "blocks: streams made to wait %s, expected 3" % said["stream_waits"])
defs = recs["GPU_PROF_DEF"]
check(len(defs) == 1 and defs[0].get("name") == "saxpy" and defs[0].get("flags") == "blocks|clock" and
      defs[0].get("blocks") == "3", "blocks: GPU_PROF_DEF %s" % defs)
profs = recs["GPU_PROF"]
check(len(profs) == 4, "blocks: %d GPU_PROF records" % len(profs))
for i, p in enumerate(sorted(profs, key=lambda p: int(p["corr"]))):
    base = 5000000 + i * 100000
    want = {"corr": 200 + i, "groups": G, "started": G, "items": G * T, "uncounted": 0, "blocks": 3,
            "dur_min_ns": 1000 + i, "dur_max_ns": 8000 + i, "dur_sum_ns": 36000 + 8 * i,
            "start_ns": base, "end_ns": base + 70 + 8000 + i, "c0": counts[0], "c1": counts[1], "c2": counts[2]}
    got = {k: int(p.get(k, -1)) for k in want}
    check(got == want, "blocks: launch %d profile %s, expected %s" % (i, got, want))

rows, _ = gpu_tables(a.paratrace, trace)
k = rows["gpu_kernel"]
mean = sum(36000 + 8 * i for i in range(4)) // (4 * G)
want = {"kernel": "saxpy", "file": "/src/saxpy.cu", "line": "10", "launches": "4", "profiled": "4",
        "work_groups": str(4 * G), "work_items": str(4 * G * T), "instructions": str(4 * per_launch),
        "wg_time_min_ns": "1000", "wg_time_mean_ns": str(mean), "wg_time_max_ns": "8003"}
check(len(k) == 1 and all(k[0].get(x) == v for x, v in want.items()), "report: kernels %s, expected %s" % (k, want))
blocks = [(int(b["block"]), int(b["line"]), int(b["executions"])) for b in rows["gpu_block"]]
want_blocks = [(0, 12, 4 * counts[0]), (1, 13, 4 * counts[1]), (2, 15, 4 * counts[2])]
check(sorted(blocks) == want_blocks, "report: blocks %s" % blocks)
r = subprocess.run([a.paratrace, "report", "--json", trace], capture_output=True, text=True)
try:
    k = json.loads(r.stdout).get("gpu_kernels", [])
except ValueError as e:
    k = []
    check(False, "report --json: not JSON (%s): %s" % (e, r.stderr))
check(len(k) == 1 and all(str(k[0].get(x)) == v for x, v in want.items()),
      "report --json: kernels %s, expected %s" % (k, want))
blocks = [(b["block"], b["line"], b["executions"]) for b in (k[0]["blocks"] if k else [])]
check(blocks == want_blocks, "report --json: blocks %s" % blocks)
text = subprocess.run([a.paratrace, "report", trace], capture_output=True, text=True).stdout
check("work-group time: min 1.00 us, mean 4.50 us, max 8.00 us; imbalance (max/mean) 1.78" in text,
      "report text: %s" % text[text.find("GPU kernels, inside"):][:600])

out = os.path.join(a.dir, "prv")
an = subprocess.run([a.paratrace, "analyze", trace, "-o", out, "--quiet"], capture_output=True, text=True)
check(an.returncode == 0, "analyze: %s" % an.stderr)
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "prv_check.py")
v = subprocess.run([sys.executable, checker, out + ".prv"], capture_output=True, text=True)
check(v.returncode == 0, "prv_check.py: %s%s" % (v.stdout, v.stderr))
ev = collections.defaultdict(list)
for line in open(out + ".prv"):
    p = line.strip().split(":")
    if p[0] == "2":
        for t, val in zip(p[6::2], p[7::2]):
            if t.startswith("632000"):
                ev[int(t)].append(int(val))
want_ev = {63200004: [G] * 4, 63200001: [per_launch] * 4, 63200002: [100 * counts[2] * instr[2] // per_launch] * 4,
           63200003: [15] * 4, 63200005: [100 * (8000 + i) * G // (36000 + 8 * i) for i in range(4)],
           63200006: [(36000 + 8 * i) // G for i in range(4)]}
check(dict(ev) == want_ev, "prv events %s, expected %s" % (dict(ev), want_ev))
pcf = open(out + ".pcf").read()
check("63200005" in pcf and "63200006" in pcf, "pcf: work-group time labels missing")

# the timeline export: counters under the stream's track, joined in this
# order too (profiles first)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
import perfetto_read
pf = os.path.join(a.dir, "t.pftrace")
e = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace], capture_output=True, text=True)
if check(e.returncode == 0, "export: %s" % e.stderr):
    packets = perfetto_read.read(pf)
    problems = perfetto_read.check(packets)[0]
    check(not problems, "perfetto: %s" % problems[:5])
    c = {t["name"].split(": ", 1)[-1]: [v for _, v in pts] for t, pts in perfetto_read.counters(packets).values()}
    check(sum(c.get("instructions executed", [])) == 4 * per_launch and
          sorted(v for v in c.get("work-group imbalance %", []) if v) == sorted(want_ev[63200005]),
          "perfetto counters %s" % c)

said, recs, trace = run("entries")
check(said["slot_set"] == [1] * 4 and said["slot_blocks"] == [0] * 4 and said["slot_after"] == [0] * 5
      and said["stream_waits"] == [3], "entries: slot %s" % dict(said))
check(len(recs["GPU_PROF"]) == 4 and all(p["blocks"] == "0" and p["groups"] == str(G) for p in recs["GPU_PROF"]),
      "entries: profiles %s" % recs["GPU_PROF"])

said, recs, trace = run("off")
check(said["slot_set"] == [0] * 4 and said["stream_waits"] == [0] and not recs,
      "off: slot %s, records %s" % (dict(said), dict(recs)))

finish()
