#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Paraver views paratrace ships (analyzer/cfgs/*.cfg): each one parses
as Paraver's loader reads it and filters on event types that a trace
with those records defines in its .pcf (cfg_check.py), against a trace
made here for it: ptgen's `known` scenario (functions, locks, pthread
calls, states; analyzed with --min-duration, so calls are left out),
a script with counters, a real program with samples, and, where this
build has them, the CUDA and OpenCL test programs, the synthetic CUDA
kernel-profile program (a fake libcuda), an OpenMP program
(gcc, libgomp), an MPI program with a call of every family (two
ranks under mpirun) and the file I/O and memory program of tests/io. The views are the
output of analyzer/cfgs/make_cfgs.py, and analyze names the main one
(installed: PREFIX/share/paratrace/cfgs/functions.cfg).

Usage: test_cfgs.py --paratrace P --ptgen G --cfgs DIR --build BUILD --work DIR
                    [--runtime libtrace.so --samples PROG] [--cuda PROG] [--opencl PROG]
                    [--cuda-kprof PROG --fake-cuda LIB] [--openmp PROG]
                    [--mpirun MPIRUN --mpi PROG] [--io PROG]
"""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys

import cfg_check

FAILS = []
# The trace each view is checked against; a view not listed fails the test.
VIEW_TRACE = {"functions": "known", "function_durations": "known", "thread_states": "known",
              "locks": "known", "pthread_calls": "known", "left_out": "known",
              "left_out_locks": "known-tiny", "wait_states": "known-waits",
              "counters_per_function": "counters", "samples": "samples", "gpu_cuda": "cuda",
              "gpu_opencl": "opencl", "openmp": "openmp", "mpi": "mpi",
              "gpu_kernel_profile": "cuda-kprof", "io": "io", "memory": "io"}
COUNTERS_SCRIPT = """\
process 7700 ctr
func 1 main ctr.c 10
func 2 step ctr.c 20
0    7700 start main
0    7700 counter-def 0 instructions 0 1
0    7700 counter-def 1 cycles 0 0
0    7700 enter 1
10   7700 counters 10 20
20   7700 enter 2
20   7700 counters 100 250
40   7700 exit 2
40   7700 counters 300 700
50   7700 exit 1
50   7700 counters 5 9
60   7700 end
60   p7700 exited 0
"""


def expect(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL: " + msg, file=sys.stderr)


def run(args, env=None, rc=0):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=300)
    expect(p.returncode == rc, "%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-1500:]))
    return p


def analyze(a, trace, name, *opts):
    out = os.path.join(a.work, name)
    p = run([a.paratrace, "analyze", "-j2", "--no-profile", "-o", out] + list(opts) + [trace])
    return out, p


def traces(a):
    """name -> .pcf of a trace that has the records of the views checked on it."""
    got = {}
    known = os.path.join(a.work, "known")
    run([a.ptgen, "--out", known, "--scenario", "known", "--threads", "3", "--calls", "20", "--fork"])
    out, p = analyze(a, known, "known-out", "--min-duration", "1500us")
    got["known"] = out + ".pcf"
    got["known-stdout"] = p.stdout
    # a budget the locks alone exceed: synchronization calls left out too
    got["known-tiny"] = analyze(a, known, "known-tiny", "--budget", "2kB")[0] + ".pcf"
    got["known-waits"] = analyze(a, known, "known-waits", "--waits")[0] + ".pcf"
    script = os.path.join(a.work, "counters.trace")
    with open(script, "w") as f:
        f.write(COUNTERS_SCRIPT)
    ctr = os.path.join(a.work, "counters")
    run([a.ptgen, "--out", ctr, "--scenario", "script", "--script", script])
    got["counters"] = analyze(a, ctr, "counters-out")[0] + ".pcf"
    if a.samples:
        tdir = os.path.join(a.work, "samples")
        run([a.samples], env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir,
                                  PARATRACE_SAMPLING="1ms"))
        got["samples"] = analyze(a, tdir, "samples-out")[0] + ".pcf"
    if a.cuda:
        tdir = os.path.join(a.work, "cuda")
        run([a.cuda], env=dict(os.environ, PARATRACE_DIR=tdir))
        got["cuda"] = analyze(a, tdir, "cuda-out")[0] + ".pcf"
    if a.opencl:
        tdir = os.path.join(a.work, "opencl")
        run([a.opencl, "4"], env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir))
        got["opencl"] = analyze(a, tdir, "opencl-out")[0] + ".pcf"
    if a.cuda_kprof:
        tdir = os.path.join(a.work, "cuda-kprof")
        run([a.cuda_kprof, a.fake_cuda], env=dict(os.environ, PARATRACE_DIR=tdir,
                                                  PARATRACE_GPU_KERNELS="blocks"))
        got["cuda-kprof"] = analyze(a, tdir, "cuda-kprof-out")[0] + ".pcf"
    if a.openmp:
        tdir = os.path.join(a.work, "openmp")
        run([a.openmp], env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir,
                                 OMP_NUM_THREADS="2"))
        got["openmp"] = analyze(a, tdir, "openmp-out")[0] + ".pcf"
    if a.io:
        tdir = os.path.join(a.work, "io")
        os.makedirs(os.path.join(a.work, "io-files"))
        run([a.io, os.path.join(a.work, "io-files")],
            env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=tdir, PARATRACE_MEMORY="1"))
        got["io"] = analyze(a, tdir, "io-out")[0] + ".pcf"
    if a.mpi:
        tdir = os.path.join(a.work, "mpi")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_mpi_yield_when_idle="1")
        for k in ("LD_PRELOAD", "PARATRACE_DIR"):
            env.pop(k, None)
        run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", "2", "env",
             "LD_PRELOAD=" + a.runtime, "PARATRACE_DIR=" + tdir, a.mpi,
             os.path.join(a.work, "mpi-io.dat")], env=env)
        got["mpi"] = analyze(a, tdir, "mpi-out")[0] + ".pcf"
    return got


def main():
    ap = argparse.ArgumentParser()
    for opt in ("paratrace", "ptgen", "cfgs", "build", "work"):
        ap.add_argument("--" + opt, required=True)
    for opt in ("runtime", "samples", "cuda", "opencl", "openmp", "mpirun", "mpi", "cuda-kprof",
                "fake-cuda", "io"):
        ap.add_argument("--" + opt)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)

    # the committed views are what make_cfgs.py writes
    gen = os.path.join(a.work, "generated")
    run([sys.executable, os.path.join(a.cfgs, "make_cfgs.py"), gen])
    views = sorted(f[:-4] for f in os.listdir(a.cfgs) if f.endswith(".cfg"))
    expect(views == sorted(f[:-4] for f in os.listdir(gen)), "views %s, make_cfgs.py writes %s"
           % (views, sorted(os.listdir(gen))))
    for v in views:
        expect(os.path.exists(os.path.join(gen, v + ".cfg")) and
               filecmp.cmp(os.path.join(a.cfgs, v + ".cfg"), os.path.join(gen, v + ".cfg"), False),
               "%s.cfg is not what make_cfgs.py writes (run it)" % v)

    pcfs = traces(a)
    for v in views:
        cfg = os.path.join(a.cfgs, v + ".cfg")
        kind = VIEW_TRACE.get(v)
        expect(kind is not None, "view %s: no trace to check it against (add it to VIEW_TRACE)" % v)
        pcf = pcfs.get(kind)
        if kind and not pcf:
            print("view %s: this build makes no %s trace: checked without one" % (v, kind))
        P, info = cfg_check.check(cfg, pcf)
        for m in P.items:
            expect(False, "%s: %s" % (v, m))
        expect(info["windows"] > 0, "%s: no window" % v)
        print("view %s: %d windows, %d histograms, event types %s%s" % (
            v, info["windows"], info["histograms"], info["types"], " (in %s)" % kind if pcf else ""))

    # analyze names the main view: the source's in a build, the installed one
    hint = "wxparaver %s.prv %s/functions.cfg" % (os.path.join(a.work, "known-out"),
                                                   os.path.realpath(a.cfgs))
    expect(hint in pcfs["known-stdout"], "no %r in %r" % (hint, pcfs["known-stdout"]))
    prefix = os.path.join(a.work, "prefix")
    run(["cmake", "--install", a.build, "--prefix", prefix])
    installed = os.path.join(prefix, "share", "paratrace", "cfgs")
    expect(sorted(f[:-4] for f in os.listdir(installed) if f.endswith(".cfg")) == views,
           "installed views: %s" % os.listdir(installed))
    p = run([os.path.join(prefix, "bin", "paratrace"), "analyze", "--no-profile", "-o",
             os.path.join(a.work, "inst-out"), os.path.join(a.work, "known")])
    expect("%s/functions.cfg" % os.path.realpath(installed) in p.stdout,
           "the installed paratrace names %r" % p.stdout)
    if FAILS:
        return 1
    print("ok: %d views" % len(views))
    return 0


if __name__ == "__main__":
    sys.exit(main())
