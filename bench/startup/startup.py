#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wall time of an empty C program (main returns 0), untraced and preloaded
with each libtrace.so given, runs interleaved so that every configuration
sees the same machine load. Prints the medians of wall time and of CPU time
(user + system, of the program) and the wall time added to the untraced
median, in milliseconds; on a loaded machine compare the CPU columns. For each library: loaded with tracing off
(PARATRACE_ENABLE=0: the loader's work alone) and tracing (a trace directory,
a process log and the main thread's log written and closed).

With --instructions, also counts the instructions each configuration runs
(valgrind's callgrind, one run each: user space only, the same on a loaded
machine as on a quiet one, where the timings are not)."""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def instructions(prog, env):
    """Instructions the program runs under env (the exec'd program's own:
    env(1) only passes LD_PRELOAD on, so that valgrind does not load it)."""
    cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes",
           "--callgrind-out-file=/dev/null", "env"]
    cmd += ["%s=%s" % kv for kv in env.items() if kv[0] == "LD_PRELOAD" or kv[0].startswith("PARATRACE_")]
    clean = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
    r = subprocess.run(cmd + [prog], env=clean, capture_output=True, text=True, check=True)
    m = re.findall(r"Collected : (\d+)", r.stderr)
    if not m:
        sys.exit("startup.py: no count from valgrind: %s" % r.stderr[-500:])
    return int(m[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib", action="append", required=True, help="libtrace.so (repeatable)")
    ap.add_argument("--reps", type=int, default=51)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions with valgrind --tool=callgrind")
    a = ap.parse_args()
    if a.instructions and not shutil.which("valgrind"):
        sys.exit("startup.py: --instructions needs valgrind (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="pt-startup-")
    try:
        src = os.path.join(work, "empty.c")
        prog = os.path.join(work, "empty")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        subprocess.run([a.cc, "-O2", src, "-o", prog], check=True)
        trace = os.path.join(work, "trace")
        base = {k: v for k, v in os.environ.items() if not k.startswith("PARATRACE_")}
        configs = [("untraced", {})]
        for lib in a.lib:
            lib = os.path.abspath(lib)
            configs.append(("%s, tracing off" % lib, {"LD_PRELOAD": lib, "PARATRACE_ENABLE": "0"}))
            configs.append(("%s, tracing" % lib, {"LD_PRELOAD": lib, "PARATRACE_DIR": trace}))
        times = {name: [] for name, _ in configs}
        cpus = {name: [] for name, _ in configs}
        for _ in range(a.reps):
            for name, extra in configs:
                env = dict(base, **extra)
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run([prog], env=env, check=True)
                times[name].append((time.perf_counter() - t) * 1e3)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[name].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
                shutil.rmtree(trace, ignore_errors=True)
        plain = statistics.median(times["untraced"])
        load = os.getloadavg()[0]
        print("start-up of an empty program, median of %d runs (ms); load average %.1f on %d CPUs"
              % (a.reps, load, os.cpu_count()))
        print("%-64s %8s %8s %8s" % ("configuration", "wall", "added", "cpu"))
        for name, _ in configs:
            m = statistics.median(times[name])
            print("%-64s %8.2f %8.2f %8.2f" % (name, m, m - plain, statistics.median(cpus[name])))
        if a.instructions:
            print("\ninstructions (valgrind --tool=callgrind, user space, one run each)")
            print("%-64s %12s %10s" % ("configuration", "instructions", "added"))
            counts = {name: instructions(prog, dict(base, **extra)) for name, extra in configs}
            shutil.rmtree(trace, ignore_errors=True)
            for name, _ in configs:
                print("%-64s %12d %10d" % (name, counts[name], counts[name] - counts["untraced"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
