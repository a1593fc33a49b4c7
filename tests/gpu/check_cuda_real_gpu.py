#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A real CUDA runtime program (cuda_real.cu, built by nvcc) traced through
CUPTI on a real GPU; skipped (exit 77) without one. Runs it untraced and
under libtrace.so and checks: the same output and no paratrace warning; per
kernel, the executions on the device equal what the program launched (its
chevron launches plus the kernels of its graph replays), per stream row
too; copies per direction and memsets with their bytes; every execution
linked to the launch that caused it, never starting before that launch;
the profile's GPU section; a structurally valid .prv."""
import argparse
import collections
import os
import subprocess
import sys

from gpu_testlib import check, finish, fresh

ap = argparse.ArgumentParser()
ap.add_argument("--prog", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--paratrace", required=True)
ap.add_argument("--dir", required=True)
a = ap.parse_args()
fresh(a.dir)
plain = subprocess.run([a.prog], capture_output=True, text=True)
if plain.returncode == 77:
    print("SKIP: " + plain.stderr.strip())
    sys.exit(77)
if plain.returncode != 0:
    print("FAIL: untraced run: %s" % plain.stderr)
    sys.exit(1)
trace = os.path.join(a.dir, "trace")
env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace)
traced = subprocess.run([a.prog], env=env, capture_output=True, text=True)
check(traced.returncode == 0, "traced run failed (%d): %s" % (traced.returncode, traced.stderr))
check(traced.stdout == plain.stdout, "output differs:\n%s\nvs\n%s" % (traced.stdout, plain.stdout))
check(not [l for l in traced.stderr.splitlines() if l.startswith("paratrace")],
      "warnings: %s" % traced.stderr)

said = {}
for l in plain.stdout.splitlines():
    *k, v = l.split()
    said[" ".join(k)] = int(v)
want_kernels = {"scale(float*, float, int)": said["launch scale"] + said["graph_kernels"] // 2,
                "add(float*, float const*, int)": said["launch add"] + said["graph_kernels"] // 2}
n_kernels = sum(want_kernels.values())
want_launches = said["launch scale"] + said["launch add"] + said["graph_launches"]
nbytes = said["bytes"]
want_copies = {2: said["memcpy HtoD"], 3: said["memcpy DtoH"], 4: said["memcpy DtoD"], 7: said["memset"]}

d = subprocess.run([a.paratrace, "dump", trace], capture_output=True, text=True)
kinds = collections.Counter(l.split()[3] for l in d.stdout.splitlines() if len(l.split()) > 3)
check(kinds["GPU_KERNEL"] == n_kernels, "GPU_KERNEL records %d, expected %d" % (kinds["GPU_KERNEL"], n_kernels))
check(kinds["GPU_LAUNCH"] == want_launches,
      "GPU_LAUNCH records %d, expected %d" % (kinds["GPU_LAUNCH"], want_launches))
check(kinds["GPU_MEMCPY"] == sum(want_copies.values()) - said["memset"] and kinds["GPU_MEMSET"] == said["memset"],
      "copy records %d, memset records %d" % (kinds["GPU_MEMCPY"], kinds["GPU_MEMSET"]))
check(kinds["LOST"] == 0, "LOST records: %d" % kinds["LOST"])

out = os.path.join(a.dir, "cuda")
an = subprocess.run([a.paratrace, "analyze", trace, "-o", out], capture_output=True, text=True)
if not check(an.returncode == 0, "analyze failed: %s" % an.stderr):
    finish()
checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "prv_check.py")
v = subprocess.run([sys.executable, checker, out + ".prv"], capture_output=True, text=True)
check(v.returncode == 0, "prv_check.py: %s%s" % (v.stdout, v.stderr))

rows = open(out + ".row").read().splitlines()
i = next(k for k, l in enumerate(rows) if l.startswith("LEVEL THREAD SIZE"))
threads = rows[i + 1:i + 1 + int(rows[i].split()[-1])]
streams = {k: name for k, name in enumerate(threads, 1) if name.startswith("GPU-D")}
check(len(streams) >= 3, "stream rows: %s" % threads)

pcf_names, section, types = {}, None, set()
for l in open(out + ".pcf"):
    p = l.split()
    if l.startswith("EVENT_TYPE"):
        section, types = "types", set()
    elif l.startswith("VALUES"):
        section = "values"
    elif section == "types" and len(p) >= 2:
        types.add(p[1])
    elif section == "values" and len(p) >= 2 and "63000006" in types:
        pcf_names[int(p[0])] = " ".join(p[1:])

kernels = collections.defaultdict(collections.Counter)  # row -> name -> executions
copies = collections.Counter()  # direction -> count
copy_bytes = collections.Counter()
links, early = 0, []
for line in open(out + ".prv"):
    p = line.rstrip("\n").split(":")
    if p[0] == "2" and int(p[4]) in streams:
        ev = dict(zip(p[6::2], p[7::2]))
        if ev.get("63000006", "0") != "0":
            kernels[int(p[4])][pcf_names.get(int(ev["63000006"]), ev["63000006"])] += 1
        if ev.get("64900000", "0") != "0":
            copies[int(ev["64900000"])] += 1
            copy_bytes[int(ev["64900000"])] += int(ev.get("63000001", 0))
    elif p[0] == "3" and p[-1] == "3":
        links += 1
        if int(p[11]) < int(p[5]):
            early.append((p[5], p[11]))
total = collections.Counter()
for c in kernels.values():
    total.update(c)
check(dict(total) == want_kernels, "kernel executions %s, expected %s" % (dict(total), want_kernels))
per_row = sorted(tuple(sorted(c.values())) for c in kernels.values())
r, g = said["rounds"], said["graph_launches"]
want_rows = sorted([(r + g, r + g), (r, r), (1,)])  # stream 0 + graph, stream 1, default
check(per_row == want_rows, "kernels per stream row %s, expected %s" % (per_row, want_rows))
check(dict(copies) == want_copies, "copies per direction %s, expected %s" % (dict(copies), want_copies))
check(all(copy_bytes[k] == n * nbytes for k, n in want_copies.items()),
      "bytes per direction %s (each %d)" % (dict(copy_bytes), nbytes))
check(links == n_kernels, "launch links %d, expected %d" % (links, n_kernels))
check(not early, "kernels starting before their launch: %s" % early[:5])
check("GPU: %d launches" % want_launches in an.stdout, "profile GPU section:\n%s" % an.stdout[-2500:])

finish(said=an.stdout[an.stdout.find("GPU:"):][:2000])
