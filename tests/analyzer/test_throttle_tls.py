#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end: throttled calls counted by the module itself, through its
thread-local counts pointer (hook ABI 3, docs/ABI.md), which the runtime
sets and clears. progs/throttle_tls.c built with instrument.so (an
executable: local-exec TLS), linked with progs/throttle_tls_off.c (version
3 built with counts-tls=off: no pointer) and the hand-written version-1
and version-2 modules progs/throttle_abi_v1.c and progs/throttle_abi_v2.c;
progs/throttle_tls_lib.c as a shared object built with
counts-tls=initial-exec. Run under libtrace.so with a threshold every
function meets after 10,000 calls. Checked, each with the same output as
untraced and a clean exit:

  - threads: every thread's calls counted exactly, and a TLS destructor
    that calls a function throttled on its thread after the runtime closed
    the thread's log (and unmapped its counts) runs;
  - dlopen, dlclose, dlopen again of a throttled shared object: exact
    counts across the three loads, no crash;
  - versions 1, 2, 3 without and 3 with the pointer in one process: exact
    counts, all throttled, and the Paraver trace nests.
(SIGKILL, fork and exec of a version-3 program: test_throttle.py.)

Usage: test_throttle_tls.py --cc CLANG --plugin instrument.so
                            --runtime libtrace.so --paratrace PARATRACE --work DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import prv_check  # noqa: E402
from testlib import (SURE, arguments, counts as program_counts, expect,  # noqa: E402
                     finish, report_rows, run_both, short)


def run(a, args, name):
    """Runs untraced then traced; returns (trace dir, {name: calls} the
    program printed, {name: report row})."""
    tdir = os.path.join(a.work, name)
    plain, _ = run_both(name, [a.exe] + args, a.runtime, tdir, SURE)
    return tdir, program_counts(plain), report_rows(a.paratrace, tdir, short)


def exact(name, counts, rows, fname):
    row = rows.get(fname)
    expect(row is not None and int(row["calls"]) == counts.get(fname, -1),
           "%s: %s: %s calls in the report, the program made %s" %
           (name, fname, row and row["calls"], counts.get(fname)))
    expect(row is not None and int(row["throttled_calls"]) > 0,
           "%s: %s was not throttled: %r" % (name, fname, row))


def main():
    a = arguments("cc", "plugin", "runtime", "paratrace", "work")
    progs = os.path.join(HERE, "progs")
    inc = os.path.join(HERE, "..", "..", "include")
    objs = []
    for src, extra in (("throttle_abi_v1.c", []), ("throttle_abi_v2.c", []),
                       ("throttle_tls_off.c", ["-fplugin=" + a.plugin,
                                               "-fplugin-arg-instrument-counts-tls=off"])):
        o = os.path.join(a.work, src + ".o")
        subprocess.run([a.cc, "-O2", "-I", inc, "-c", os.path.join(progs, src), "-o", o] + extra,
                       check=True)
        objs.append(o)
    a.exe = os.path.join(a.work, "throttle_tls")
    subprocess.run([a.cc, "-O2", "-g", "-fplugin=" + a.plugin, os.path.join(progs, "throttle_tls.c")]
                   + objs + ["-o", a.exe, "-pthread", "-ldl"], check=True)
    lib = os.path.join(a.work, "libthrottle_tls.so")
    subprocess.run([a.cc, "-O2", "-fPIC", "-shared", "-fplugin=" + a.plugin,
                    "-fplugin-arg-instrument-counts-tls=initial-exec",
                    os.path.join(progs, "throttle_tls_lib.c"), "-o", lib], check=True)
    # the option gave the shared object its TLS
    ph = subprocess.run(["readelf", "-lW", lib], stdout=subprocess.PIPE, text=True).stdout
    expect(" TLS " in ph, "libthrottle_tls.so has no TLS segment:\n" + ph)

    name = "threads"
    _, counts, rows = run(a, ["threads"], name)
    expect(counts.get("tiny") == 1050000, "threads: program output %r" % counts)
    exact(name, counts, rows, "tiny")
    late = int(rows.get("late", {}).get("calls", 0))
    # each thread's 1,000 calls from its destructor: counted or not,
    # depending on whether the runtime's destructor ran first
    expect(80000 <= late <= 84000, "threads: late: %d calls in the report" % late)

    name = "dlopen"
    _, counts, rows = run(a, ["dlopen", lib], name)
    expect(counts.get("lib_tiny") == 300000, "dlopen: program output %r" % counts)
    exact(name, counts, rows, "lib_tiny")

    name = "mixed"
    tdir, counts, rows = run(a, ["mixed"], name)
    expect(len(counts) == 5, "mixed: program output %r" % counts)
    for f in ("v1_tiny", "v2_leaf", "off_tiny", "tiny"):
        exact(name, counts, rows, f)
    expect(int(rows.get("v1_outer", {}).get("calls", 0)) == 1, "mixed: v1_outer %r" % rows.get("v1_outer"))
    out = os.path.join(a.work, "mixed_prv")
    for m in prv_check.analyze_and_check(a.paratrace, tdir, out)[0]:
        expect(False, m)

    return finish("test_throttle_tls")


if __name__ == "__main__":
    sys.exit(main())
