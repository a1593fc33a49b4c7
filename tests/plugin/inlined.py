#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The user's code inlined into library functions stays visible. Builds
progs/threads_cxx.cpp (std::thread workers running a lambda and a functor
that call the user's functions and methods) with instrument.so, runs it with
libtrace.so preloaded and checks through `paratrace dump` and
`paratrace report` that each worker thread shows the lambda or the functor
it runs, once. At -O2 the optimiser inlines both into the standard
library's thread entry, a function from a system header.

With library-inlined=0 the compile must warn once, on stderr, naming the
option that keeps that code, and still succeed; so must the compile of
progs/templates_cxx.cpp, whose comparator is inlined into std::sort's loops
(not named after the comparator: its calls are not the library's).

  inlined.py --cxx clang++ --plugin instrument.so --runtime libtrace.so
             --paratrace paratrace --work DIR --flags="-O2" [--pass-plugin]
"""
import argparse
import csv
import io
import os
import re
import shlex
import shutil
import subprocess
import sys

from filters import PROGS, check, finish

A = None
SRC = "threads_cxx.cpp"
ROUNDS = 50
EVENT = re.compile(r"^\d+ \d+ (\d+) (FUNC_ENTER|FUNC_EXIT) id=(\d+) \S+ name=(.*)$")


def run(cmd, env=None):
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        print("FAIL: command failed with status %d" % r.returncode)
        sys.exit(1)
    return r


def marker(name):
    with open(os.path.join(PROGS, SRC)) as f:
        for n, line in enumerate(f, 1):
            if "// @" + name in line:
                return n
    raise SystemExit("no @%s in %s" % (name, SRC))


def build(args=()):
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    if A.pass_plugin:
        plugin = ["-fpass-plugin=" + A.plugin]
        if args:
            env["PARATRACE_PLUGIN_ARGS"] = ";".join(args)
    else:
        plugin = ["-fplugin=" + A.plugin] + ["-fplugin-arg-instrument-" + a for a in args]
    exe = os.path.join(A.work, "threads_cxx")
    r = run([A.cxx, "-std=c++17", "-pthread", os.path.join(PROGS, SRC), "-o", exe] +
            shlex.split(A.flags) + plugin, env)
    return exe, r.stderr


def trace(exe):
    plain = run([exe, str(ROUNDS)])
    tdir = os.path.join(A.work, "trace")
    shutil.rmtree(tdir, ignore_errors=True)
    env = dict(os.environ, LD_PRELOAD=A.runtime, PARATRACE_DIR=tdir)
    traced = run([exe, str(ROUNDS)], env)
    check(traced.stdout == plain.stdout, "the traced run prints what the untraced run prints")
    dump = run([A.paratrace, "dump", tdir]).stdout
    report = run([A.paratrace, "report", "--csv", "--top", "0", tdir]).stdout
    return dump, report


def main():
    global A
    p = argparse.ArgumentParser()
    for o in ("--cxx", "--plugin", "--runtime", "--paratrace", "--work", "--flags"):
        p.add_argument(o, required=True)
    p.add_argument("--pass-plugin", action="store_true", help="load with -fpass-plugin= alone")
    A = p.parse_args()
    shutil.rmtree(A.work, ignore_errors=True)
    os.makedirs(A.work)

    exe, err = build()
    check("warning: paratrace" not in err, "no warning when the inlined code is traced: %r" % err)
    dump, report = trace(exe)
    per_thread = {}
    for line in dump.splitlines():
        m = EVENT.match(line)
        if m and m.group(2) == "FUNC_ENTER":
            calls = per_thread.setdefault(m.group(1), {})
            calls[m.group(4)] = calls.get(m.group(4), 0) + 1
    lam = "main::<lambda at %s:%d>()" % (SRC, marker("lambda"))
    if A.pass_plugin:
        # No frontend: the lambda keeps clang's own name.
        lam = re.compile(r"main::\$_\d+::operator\(\)\(\) const|main::\{lambda\(\)#1\}::operator\(\)\(\) const")
    functor = "Accumulate::operator()(int, double*) const"
    workers = [t for t, c in per_thread.items() if "main" not in c]
    print("per thread: %s" % per_thread)
    check(len(workers) == 4, "4 worker threads ran instrumented code (got %d)" % len(workers))

    def named(calls, want):
        if isinstance(want, re.Pattern):
            return sum(n for f, n in calls.items() if want.fullmatch(f))
        return calls.get(want, 0)

    lam_threads = [t for t in workers if named(per_thread[t], lam) == 1]
    fun_threads = [t for t in workers if named(per_thread[t], functor) == 1]
    check(len(lam_threads) == 2, "the lambda shows once on each of 2 worker threads")
    check(len(fun_threads) == 2, "the functor shows once on each of 2 worker threads")
    check(not set(lam_threads) & set(fun_threads), "lambda and functor run on different threads")
    reported = {}
    for row in csv.reader(io.StringIO(report)):
        if len(row) > 4 and row[0] == "function":
            reported[row[1]] = reported.get(row[1], 0) + int(row[4])
    check(reported.get(functor) == 2, "report: the functor called twice (%s)" % reported)
    check(named(reported, lam) == 2, "report: the lambda called twice (%s)" % reported)

    # Left out on request: said once, with the option that keeps it.
    exe, err = build(["library-inlined=0"])
    warnings = [l for l in err.splitlines() if "warning: paratrace" in l]
    print(err)
    check(len(warnings) == 1, "one warning for the file (got %d)" % len(warnings))
    check(warnings and SRC in warnings[0] and "library-inlined=1" in warnings[0],
          "the warning names the file and the option that keeps the code")

    # The comparator inlined into std::sort's loops: a call of the library
    # function is not a call of the comparator, so it is not named after it;
    # said once, with the option that shows the library functions instead.
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    plugin = ["-fpass-plugin=" + A.plugin] if A.pass_plugin else ["-fplugin=" + A.plugin]
    r = run([A.cxx, "-std=c++17", "-c", os.path.join(PROGS, "templates_cxx.cpp"), "-o",
             os.path.join(A.work, "templates.o")] + shlex.split(A.flags) + plugin, env)
    warnings = [l for l in r.stderr.splitlines() if "warning: paratrace" in l]
    print(r.stderr)
    check(len(warnings) == 1 and "Closer<" in warnings[0] and "system-headers=1" in warnings[0],
          "std::sort's comparator: one warning naming it and system-headers=1")
    finish()


if __name__ == "__main__":
    main()
