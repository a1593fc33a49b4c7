#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUPTI is loaded only once the program loads libcuda, and when CUPTI cannot
subscribe (here: a fake libcuda without a driver) the runtime says so once
and goes on tracing the host."""
import argparse
import os
import subprocess

from gpu_testlib import check, finish, fresh

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--paratrace", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--fake-cuda", required=True)
ap.add_argument("--cupti", required=True)
ap.add_argument("--dir", required=True)
a = ap.parse_args()

fresh(a.dir)
trace = os.path.join(a.dir, "trace")
env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace, PARATRACE_CUPTI=a.cupti)
r = subprocess.run([a.prog, a.fake_cuda], env=env, capture_output=True, text=True, timeout=60)
check(r.returncode == 0, "program exit status %d: %s" % (r.returncode, r.stderr))
check(r.stdout.split() == ["before", "0", "after", "1"],
      "libcupti mapped before/after loading libcuda: %r" % r.stdout)
warn = [l for l in r.stderr.splitlines() if l.startswith("paratrace")]
check(len(warn) == 1 and "CUPTI" in warn[0], "expected one CUPTI warning, got %r" % warn)
d = subprocess.run([a.paratrace, "dump", "--kind", "THREAD_START,THREAD_CREATE,THREAD_END", trace],
                   capture_output=True, text=True)
starts = d.stdout.count(" THREAD_START ")
check(starts == 2 and " THREAD_CREATE " in d.stdout,
      "host tracing after the failed attach: %d THREAD_START\n%s" % (starts, d.stdout))
finish(ok="ok: CUPTI loaded with libcuda, one warning, host traced")
