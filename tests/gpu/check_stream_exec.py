#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stream_exec (see stream_exec.c) under tracing: the first image's GPU
stream log ends with its CLOSE, is trimmed to its data (no zeros after
it), and holds every kernel record written before and after the exec
that failed; dump has no note about it."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--paratrace", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--dir", required=True)
a = ap.parse_args()
n = 300
shutil.rmtree(a.dir, ignore_errors=True)
env = dict(os.environ, PARATRACE_DIR=a.dir)
r = subprocess.run([a.prog, str(n)], env=env, capture_output=True, text=True, timeout=60)
if r.returncode != 0:
    sys.exit("FAIL: stream_exec exited with %d: %s" % (r.returncode, r.stderr))
streams = [g for g in glob.glob(os.path.join(a.dir, "p*", "g*.ptl"))
           if not re.search(r"/p\d+\.\d+/", g)]
if len(streams) != 1:
    sys.exit("FAIL: expected one stream log in the first image, found %s" % streams)
g = streams[0]
with open(g, "rb") as f:
    data = f.read()
zeros = len(data) - len(data.rstrip(b"\0"))
r = subprocess.run([a.paratrace, "dump", "--kind", "GPU_KERNEL,CLOSE", g], capture_output=True,
                   text=True)
kernels = sum(1 for line in r.stdout.splitlines() if " GPU_KERNEL " in line)
closes = sum(1 for line in r.stdout.splitlines() if " CLOSE " in line)
print("%s: %d bytes, %d zeros at the end, %d kernels, %d CLOSE; dump: %r"
      % (g, len(data), zeros, kernels, closes, r.stderr))
if r.returncode != 0 or r.stderr.strip():
    sys.exit("FAIL: dump of %s: %s" % (g, r.stderr))
if zeros > 7:
    sys.exit("FAIL: %s ends with %d zeros (not trimmed at the exec)" % (g, zeros))
if kernels != 2 * n:
    sys.exit("FAIL: %d kernel records, expected %d" % (kernels, 2 * n))
lines = r.stdout.splitlines()
if not lines or " CLOSE " not in lines[-1]:
    sys.exit("FAIL: the log does not end with a CLOSE")
print("OK")
