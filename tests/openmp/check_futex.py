#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end check of futex waits (docs/OPENMP.md, "Futexes"):
progs/futex_waits.cpp (C++20 std::atomic::wait, std::latch, std::barrier,
std::counting_semaphore; libstdc++ waits with syscall(SYS_futex)) is run
with libtrace.so preloaded. Each of its waits blocks once, by construction;
the program prints how many ("blocking_waits N"). The trace must hold
exactly N futex waits (COND_WAIT_BEGIN/END with the futex flag), each
waiting about as long as the program made it wait; the profile must list
them as futex waits and count the waiting time in the thread summary; the
Paraver trace must name them ("futex wait").

  check_futex.py --cxx g++ --runtime libtrace.so --paratrace paratrace --work DIR

Exit 77 (skip) when the compiler cannot build C++20 (<latch>, <barrier>).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from check_omp import check, finish, run

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "futex_waits.cpp")
DELAY_MS = 40  # futex_waits.cpp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    exe = os.path.join(a.work, "futex_waits")
    r = subprocess.run([a.cxx, "-std=c++20", "-O2", "-g", "-pthread", SRC, "-o", exe],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print(r.stderr)
        print("SKIP: %s cannot build the C++20 program" % a.cxx)
        sys.exit(77)
    plain = run([exe]).stdout
    trace = os.path.join(a.work, "trace")
    out = run([exe], env=dict(os.environ, PARATRACE_DIR=trace, LD_PRELOAD=a.runtime)).stdout
    check(out == plain, "the program prints the same traced and not (%r)" % out.strip())
    want = int(re.search(r"blocking_waits (\d+)", out).group(1))

    dump = run([a.paratrace, "dump", trace]).stdout
    begins = re.findall(r"^(\d+) \d+ (\d+) COND_WAIT_BEGIN .* futex$", dump, re.M)
    ends = re.findall(r"^(\d+) \d+ (\d+) COND_WAIT_END .*result=(-?\d+) futex$", dump, re.M)
    check(len(begins) == want, "%d futex waits recorded (%d)" % (want, len(begins)))
    check(len(ends) == want and all(res == "0" for _, _, res in ends),
          "each ended, woken (result 0): %s" % [res for _, _, res in ends])
    # each wait, paired with the next end on its thread, lasted about the delay
    short = 0
    open_at = {}
    for line in dump.splitlines():
        m = re.match(r"^(\d+) \d+ (\d+) COND_WAIT_(BEGIN|END) .* futex$", line)
        if not m:
            continue
        t, tid, what = int(m.group(1)), m.group(2), m.group(3)
        if what == "BEGIN":
            open_at[tid] = t
        elif tid in open_at and t - open_at.pop(tid) < 0.8 * DELAY_MS * 1e6:
            short += 1
    check(short == 0, "every wait lasted at least 80%% of the %d ms the program makes it wait "
          "(%d shorter)" % (DELAY_MS, short))
    check(len(re.findall(r"COND_SIGNAL .*futex woken=[1-9]", dump)) >= 1, "wakes recorded with how many they woke")

    rep = json.loads(run([a.paratrace, "report", "--json", trace]).stdout)
    fut = [l for l in rep["locks"] if l["kind"] == "futex"]
    check(sum(l["acquisitions"] for l in fut) == want,
          "profile: %d futex waits in the locks table (%s)" % (want, [l["acquisitions"] for l in fut]))
    waited = sum(t["wait_cond_ns"] for t in rep["threads"])
    check(waited >= 0.8 * want * DELAY_MS * 1e6,
          "profile: the threads' waiting counts the futex waits (%.1f ms)" % (waited / 1e6))

    base = os.path.join(a.work, "out")
    run([a.paratrace, "analyze", "--quiet", trace, "-o", base])
    pcf = open(base + ".pcf").read()
    prv = open(base + ".prv").read()
    check("26     futex wait" in pcf and "futex " in pcf, ".pcf names futex waits and objects")
    check(len(re.findall(r":61000000:26\b", prv)) == want, ".prv: %d futex waits (61000000 26)" % want)
    finish()


if __name__ == "__main__":
    main()
