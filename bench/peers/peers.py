#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""paratrace side by side with the tracers users would pick instead.

Builds the workloads (workloads/*.c) once per instrumentation flavour, runs
every contender on every workload, repetition after repetition (contenders
rotate their order each repetition so machine noise hits them equally),
counts what each tracer really recorded with the tracer's own reader, and
prints a markdown table (also written to OUT/peers.md) plus CSV files:
OUT/peers.csv (one row per workload x contender) and OUT/runs.csv (every
timed run). docs/BENCH.md explains every column.

Per-call figures subtract, repetition by repetition, the contender's own
start-up (the same program with SIZE 0, i.e. an empty main) and the
baseline's work, then take the median over repetitions:
    over_r = (T[c,w,r] - T[c,empty,r]) - (T[base,w,r] - T[base,empty,r])
    ns/call = median_r(over_r) / calls(w)
T is wall time of the whole process tree, or its CPU time (user + system,
from wait4, plus the LTTng daemons' CPU read from /proc for LTTng).
"""

import argparse
import concurrent.futures
import csv
import os
import random
import re
import resource
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD_DIR = os.path.join(HERE, "workloads")
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# name, source, threads, SIZE at scale 1. Sized for about half a million
# traced calls each, so the slowest contender (XRay basic mode, several
# microseconds per call where it falls back to clock_gettime) keeps a whole
# default run within a few minutes on 2 cores; --scale for longer runs.
WORKLOADS = [
    ("leaf-1t", "leaf", 1, 500_000),
    ("leaf-2t", "leaf", 2, 250_000),
    ("fib-1t", "fib", 1, 24),  # 24 x fib(20): 21,891 calls each
    ("fib-2t", "fib", 2, 12),
    ("mutex-2t", "mutex", 2, 125_000),  # 2 calls per iteration
    ("pool-2t", "pool", 2, 3_000),  # 137 calls per task, plus queue calls
]
EMPTY = ("empty", "leaf", 1, 0)  # start-up: the leaf program with SIZE 0

CC_FLAGS = ["-O2", "-g", "-fno-pie", "-no-pie", "-pthread", "-Wall", "-Wextra"]

# Each build flavour: extra compile flags and extra sources.
BUILDS = {
    "base": ([], []),
    "empty": (["-finstrument-functions"], ["empty_hooks.c"]),
    "tsc": (["-finstrument-functions"], ["tsc_hooks.c"]),
    "count": (["-finstrument-functions"], ["count_hooks.c"]),
    "cyg": (["-finstrument-functions"], []),
    "pg": (["-pg"], []),
    "xray": (["-fxray-instrument", "-fxray-instruction-threshold=1"], ["xray_ctl.c"]),
    "plugin": (None, []),  # flags filled in once instrument.so is found
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_quiet(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def parse_expect(stdout):
    exp = {}
    for line in stdout.splitlines():
        m = re.match(r"^expect (\S+) (\d+)$", line)
        if m:
            exp[m.group(1)] = int(m.group(2))
    return exp


# ---------------------------------------------------------------------------
# Contenders. Each knows how to prepare a run (fresh trace location), the
# command/environment, how to finish (LTTng stops its session), and how to
# count what it recorded with its own reader.


class Contender:
    name = ""
    build = "base"
    traces = False  # produces a trace we can count and size

    def __init__(self, env):
        self.env = env  # the Env (tool paths)

    def available(self):
        return None  # or a reason string

    def prepare(self, tdir):
        shutil.rmtree(tdir, ignore_errors=True)
        os.makedirs(tdir)

    def command(self, binary, args, tdir):
        return [binary] + args, {}

    def finish(self, tdir):
        return 0.0  # extra CPU seconds spent outside the process tree

    def count(self, binary, tdir, expect):
        """Returns ({function name: entries in the trace} -- or {"*": n}
        when the reader cannot name functions -- and the trace's bytes)."""
        raise NotImplementedError


class Baseline(Contender):
    name = "baseline"
    build = "base"


class EmptyHooks(Contender):
    name = "empty-hooks"
    build = "empty"


class TscHooks(Contender):
    """Not a tracer: the cheapest hook that records (rdtsc + 16-byte TLS
    append, never written out). The reference for paratrace's goal."""
    name = "tsc-hook"
    build = "tsc"


class XrayOff(Contender):
    name = "xray-unpatched"
    build = "xray"

    def available(self):
        return self.env.need("xray")

    def command(self, binary, args, tdir):
        return [binary] + args, {"XRAY_OPTIONS": "patch_premain=false"}


class XrayPatched(XrayOff):
    name = "xray-patched"

    def command(self, binary, args, tdir):
        # Sleds patched, no logging mode installed: the trampoline's cost.
        return [binary] + args, {"XRAY_OPTIONS": "patch_premain=true"}


def xray_count(env, binary, tdir, expect):
    """Function entries per name. `llvm-xray convert` (XRay's reader) decodes
    the basic or FDR log into XRay's raw format: a 32-byte header, then
    32-byte records {u16 record_type, u8 cpu, u8 type, i32 func_id, u64 tsc,
    u32 tid, u32 pid, 8 bytes padding}, type 0 = entry, 3 = entry with
    argument. (`llvm-xray account` gives the same counts but takes minutes
    on deep recursion.) `llvm-xray extract` maps function ids to names."""
    ids = env.xray_ids.get(binary)
    if ids is None:  # the same binary for the basic and FDR modes: read once
        ids = env.xray_ids[binary] = {}
        r = run_quiet([env.llvm_xray, "extract", "--symbolize", binary])
        for m in re.finditer(r"id: (\d+),.*?kind: function-enter,.*?function-name: ([^,}]+)", r.stdout):
            ids[int(m.group(1))] = m.group(2).strip()
    logs = [os.path.join(tdir, f) for f in sorted(os.listdir(tdir))]
    names = {}
    raw = tdir + ".raw"
    for f in logs:
        r = run_quiet([env.llvm_xray, "convert", "-instr_map=" + binary, "-output-format=raw", "-o", raw, f])
        if r.returncode:
            raise RuntimeError("llvm-xray convert %s: %s" % (f, r.stdout.strip()[-300:]))
        with open(raw, "rb") as fh:
            data = fh.read()
        os.unlink(raw)
        counts = {}
        for rec in struct.iter_unpack("<HBBiQII8x", data[32:len(data) - (len(data) - 32) % 32]):
            if rec[0] == 0 and rec[2] in (0, 3):
                counts[rec[3]] = counts.get(rec[3], 0) + 1
        for fid, n in counts.items():
            name = ids.get(fid, "#%d" % fid)
            names[name] = names.get(name, 0) + n
    return names, sum(dir_bytes(f) for f in logs)


class XrayBasic(XrayOff):
    name = "xray-basic"
    traces = True

    def command(self, binary, args, tdir):
        return [binary] + args, {
            "XRAY_OPTIONS": "patch_premain=true xray_mode=xray-basic xray_logfile_base=%s/" % tdir,
            # The default (5 us) silently drops every shorter call.
            "XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0",
        }

    def count(self, binary, tdir, expect):
        return xray_count(self.env, binary, tdir, expect)


class XrayFdr(XrayOff):
    name = "xray-fdr"
    traces = True

    def command(self, binary, args, tdir):
        # Buffers sized to hold the whole run (16 bytes per call plus
        # metadata): by default FDR keeps ~1.6 MB and drops the rest.
        calls = self.env.expected_calls.get(binary, 1_000_000)
        bufmax = max(100, calls * 24 // 65536 + 64)
        return [binary] + args, {
            "BENCH_XRAY_FDR": "1",
            "XRAY_OPTIONS": "xray_logfile_base=%s/" % tdir,
            "XRAY_FDR_OPTIONS": "func_duration_threshold_us=0 buffer_size=65536 buffer_max=%d" % bufmax,
        }

    def count(self, binary, tdir, expect):
        return xray_count(self.env, binary, tdir, expect)


class Uftrace(Contender):
    name = "uftrace-pg"
    build = "pg"
    traces = True

    def available(self):
        return self.env.need("uftrace")

    def prepare(self, tdir):
        shutil.rmtree(tdir, ignore_errors=True)  # uftrace creates it
        os.makedirs(os.path.dirname(tdir), exist_ok=True)

    def command(self, binary, args, tdir):
        return [self.env.uftrace, "record", "-d", tdir, binary] + args, {}

    def count(self, binary, tdir, expect):
        r = run_quiet([self.env.uftrace, "report", "-d", tdir, "--no-pager"])
        names = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^\s*[\d.]+\s+\S+\s+[\d.]+\s+\S+\s+(\d+)\s+(\S+)\s*$", line)
            if m:
                names[m.group(2)] = names.get(m.group(2), 0) + int(m.group(1))
        return names, dir_bytes(tdir)


class UftraceCyg(Uftrace):
    name = "uftrace-cyg"
    build = "cyg"


class Lttng(Contender):
    name = "lttng-ust"
    build = "cyg"
    traces = True

    def available(self):
        return self.env.need("lttng")

    def prepare(self, tdir):
        shutil.rmtree(tdir, ignore_errors=True)
        self.session = "ptbench%d" % os.getpid()
        lt = self.env.lttng
        for cmd in (
            [lt, "create", self.session, "--output=" + tdir],
            [lt, "enable-event", "-u", "-s", self.session, "lttng_ust_cyg_profile_fast:*"],
            [lt, "start", self.session],
        ):
            r = run_quiet(cmd)
            if r.returncode:
                raise RuntimeError("lttng: %s: %s" % (" ".join(cmd), r.stdout.strip()))
        self.cpu0 = self.env.lttng_daemon_cpu()

    def command(self, binary, args, tdir):
        return [binary] + args, {"LD_PRELOAD": self.env.lttng_cyg_fast}

    def finish(self, tdir):
        # `lttng stop` waits until the consumer daemon has written the data.
        run_quiet([self.env.lttng, "stop", self.session])
        cpu = self.env.lttng_daemon_cpu() - self.cpu0
        run_quiet([self.env.lttng, "destroy", self.session])
        return cpu

    def count(self, binary, tdir, expect):
        r = run_quiet([self.env.babeltrace2, tdir, "-c", "sink.utils.counter"])
        # The counter sink prints running totals; the last block is final.
        events = re.findall(r"^\s*(\d+) Event messages", r.stdout, re.M)
        n = int(events[-1]) // 2 if events else 0
        # cyg-profile-fast records addresses only; every function of the
        # workload's file is instrumented and nothing else is, so the total
        # stands for all of them.
        return {"*": n}, dir_bytes(tdir)


class Paratrace(Contender):
    name = "paratrace"
    build = "plugin"
    traces = True

    def available(self):
        return self.env.need("paratrace-plugin")

    def prepare(self, tdir):
        # The runtime creates the trace directory itself (owner-only).
        shutil.rmtree(tdir, ignore_errors=True)
        os.makedirs(os.path.dirname(tdir), exist_ok=True)

    def command(self, binary, args, tdir):
        # every call recorded, as the peers record them (bench/throttle: throttled)
        return [binary] + args, {"LD_PRELOAD": self.env.libtrace, "PARATRACE_DIR": tdir,
                                 "PARATRACE_THROTTLE": "off"}

    def count(self, binary, tdir, expect):
        return self.env.paratrace_count(binary, tdir), dir_bytes(tdir)


class ParatracePrefault(Paratrace):
    """The plugin build with PARATRACE_PREFAULT=auto: a helper thread prepares
    each busy log's next window while the process has idle CPUs
    (docs/RUNTIME.md)."""
    name = "paratrace-prefault"

    def command(self, binary, args, tdir):
        cmd, env = super().command(binary, args, tdir)
        return cmd, dict(env, PARATRACE_PREFAULT="auto")


class ParatraceCyg(Paratrace):
    name = "paratrace-cyg"
    build = "cyg"

    def available(self):
        return self.env.need("paratrace")


CONTENDERS = [
    Baseline, EmptyHooks, TscHooks, Paratrace, ParatracePrefault, ParatraceCyg, Uftrace, UftraceCyg,
    XrayOff, XrayPatched, XrayBasic, XrayFdr, Lttng,
]


# ---------------------------------------------------------------------------


class Env:
    """Tool discovery, builds, and the readers that need more than one tool."""

    def __init__(self, opts):
        self.opts = opts
        self.out = opts.out
        self.cc = shutil.which("clang-14") or shutil.which("clang")
        self.uftrace = shutil.which("uftrace")
        self.llvm_xray = shutil.which("llvm-xray-14") or shutil.which("llvm-xray")
        self.lttng = shutil.which("lttng")
        self.babeltrace2 = shutil.which("babeltrace2")
        # Absolute: the workloads run with the output folder as their cwd.
        b = os.path.abspath(opts.paratrace_build)
        self.libtrace = self._first(b, ["lib/libtrace.so", "runtime/libtrace.so"])
        self.instrument = self._first(b, ["lib/instrument.so", "pass/instrument.so"])
        self.paratrace = self._first(b, ["bin/paratrace", "analyzer/cli/paratrace"])
        self.lttng_cyg_fast = None
        self.link_lines = {}  # (flags, objects but the first) -> (linker argv, its first object, its output)
        self.xray_ids = {}  # binary -> {XRay function id: name}
        self.lock = threading.Lock()
        self.missing = {}
        self.expected_calls = {}
        self._probe()

    @staticmethod
    def _first(base, rels):
        for r in rels:
            p = os.path.join(base, r)
            if os.path.exists(p):
                return p
        return None

    def _probe(self):
        m = self.missing
        if not self.cc:
            sys.exit("peers: clang-14 not found")
        if not self.uftrace:
            m["uftrace"] = "uftrace not installed"
        if not self.llvm_xray:
            m["xray"] = "llvm-xray not installed"
        else:
            probe = os.path.join(self.out, "probe-xray")
            src = os.path.join(self.out, "probe.c")
            with open(src, "w") as f:
                f.write("int main(void){return 0;}\n")
            r = run_quiet([self.cc, "-fxray-instrument", src, "-o", probe])
            if r.returncode:
                m["xray"] = "clang cannot link -fxray-instrument (compiler-rt XRay missing)"
        if not self.libtrace:
            m["paratrace"] = "libtrace.so not built in " + self.opts.paratrace_build
        elif not self.paratrace:
            m["paratrace"] = "paratrace CLI not built in " + self.opts.paratrace_build
        if "paratrace" in m:
            m["paratrace-plugin"] = m["paratrace"]
        elif not self.instrument:
            m["paratrace-plugin"] = "instrument.so not built in " + self.opts.paratrace_build
        self._probe_lttng()

    def _probe_lttng(self):
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"):
            p = os.path.join(d, "liblttng-ust-cyg-profile-fast.so")
            if os.path.exists(p):
                self.lttng_cyg_fast = p
                break
        if not (self.lttng and self.babeltrace2 and self.lttng_cyg_fast):
            self.missing["lttng"] = "lttng-tools, liblttng-ust-dev or babeltrace2 not installed"
            return
        if run_quiet([self.lttng, "list"]).returncode != 0:
            if not self.opts.start_sessiond:
                self.missing["lttng"] = "no lttng-sessiond running (not started in this mode)"
                return
            r = run_quiet(["lttng-sessiond", "--daemonize"])
            time.sleep(0.5)
            if r.returncode or run_quiet([self.lttng, "list"]).returncode:
                self.missing["lttng"] = "lttng-sessiond cannot run here: " + r.stdout.strip()[-200:]
                return
        # A real session, end to end, before trusting it with the benchmark.
        probe = Lttng(self)
        tdir = os.path.join(self.out, "probe-lttng")
        try:
            probe.prepare(tdir)
            probe.finish(tdir)
        except RuntimeError as e:
            self.missing["lttng"] = "lttng session cannot start: %s" % e

    def lttng_daemon_cpu(self):
        """CPU seconds used so far by the LTTng daemons (not our children),
        summed over their threads from schedstat (nanoseconds; /proc/stat's
        clock ticks are too coarse for one run)."""
        total = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if not f.read().startswith("lttng-"):
                        continue
                for tid in os.listdir("/proc/%s/task" % pid):
                    with open("/proc/%s/task/%s/schedstat" % (pid, tid)) as f:
                        total += int(f.read().split()[0])
            except OSError:
                continue
        return total / 1e9

    def need(self, what):
        return self.missing.get(what)

    def flags(self, flavour):
        flags, extra = BUILDS[flavour]
        return (["-fplugin=" + self.instrument] if flavour == "plugin" else flags), extra

    def build_all(self, flavours, srcs, pool):
        """Every workload of SRCS built in every flavour: {(src, flavour):
        binary}. Each file is compiled once per set of compile flags (the
        -finstrument-functions flavours share their objects, as they differ
        only by the hooks linked in), and each flavour's link line is asked
        of clang once (-###) and run by the linker itself for every
        workload: a start of clang is 0.1 s of CPU (the relocations of its
        libraries), more than linking one of these programs."""
        groups = {}  # compile flags -> files of workloads/
        for flav in flavours:
            flags, extra = self.flags(flav)
            groups.setdefault(tuple(flags), set()).update([s + ".c" for s in srcs] + extra)
        objs = dict(zip(groups, pool.map(lambda g: self.compile_all(list(g), sorted(groups[g])), groups)))
        bindir = os.path.join(self.out, "bin")
        os.makedirs(bindir, exist_ok=True)

        def link(flav):
            flags, extra = self.flags(flav)
            o = objs[tuple(flags)]
            return [self.link(flags, [o[src + ".c"]] + [o[f] for f in extra],
                              os.path.join(bindir, "%s-%s" % (src, flav))) for src in srcs]
        binaries = {}
        for flav, outs in zip(flavours, pool.map(link, flavours)):
            binaries.update({(src, flav): out for src, out in zip(srcs, outs)})
        return binaries

    def compile_all(self, flags, files):
        """FILES (of workloads/) compiled with FLAGS into a folder of their
        own, one clang each (given several files, clang's driver starts a
        compiler process for each: one start more): {file: object}."""
        objdir = os.path.join(self.out, "obj", "".join(flags).replace("/", "_").replace("=", "-") or "plain")
        os.makedirs(objdir, exist_ok=True)
        objs = {}
        for f in files:
            objs[f] = os.path.join(objdir, os.path.splitext(f)[0] + ".o")
            cmd = [self.cc] + CC_FLAGS + flags + ["-c", os.path.join(WORKLOAD_DIR, f), "-o", objs[f]]
            r = run_quiet(cmd)
            if r.returncode:
                raise RuntimeError("build failed: %s\n%s" % (" ".join(cmd), r.stdout))
        return objs

    def link(self, flags, objs, out):
        """OBJS linked into OUT as clang links them with FLAGS: the linker
        command clang prints for the first object (-###), with that object
        and the output replaced for the others."""
        key = tuple(flags + objs[1:])
        with self.lock:
            line = self.link_lines.get(key)
        if line is None:
            cmd = [self.cc, "-###"] + CC_FLAGS + flags + objs + ["-o", out]
            r = run_quiet(cmd)
            cmds = [l for l in r.stdout.splitlines() if l.startswith(" \"")]
            if r.returncode or len(cmds) != 1 or objs[0] not in shlex.split(cmds[0]):
                raise RuntimeError("build failed: %s: no one linker command\n%s" % (" ".join(cmd), r.stdout))
            line = (shlex.split(cmds[0]), objs[0], out)
            with self.lock:
                self.link_lines[key] = line
        argv, obj0, out0 = line
        cmd = [objs[0] if a == obj0 else out if a == out0 else a for a in argv]
        r = run_quiet(cmd)
        if r.returncode:
            raise RuntimeError("build failed: %s\n%s" % (" ".join(cmd), r.stdout))
        return out

    def paratrace_count(self, binary, tdir):
        """Function entries per name, from `paratrace dump` (its own reader).
        Lines: <time_ns> <pid> <tid> FUNC_ENTER[_PC] [key=value ...] name=<rest>"""
        r = run_quiet([self.paratrace, "dump", "--kind", "FUNC_ENTER,FUNC_ENTER_PC", tdir])
        names = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^\d+ \d+ \d+ FUNC_ENTER(?:_PC)? .*? name=(.*)$", line)
            if m:
                names[m.group(1)] = names.get(m.group(1), 0) + 1
        return names


# ---------------------------------------------------------------------------


def timed_run(cmd, env_extra, cwd):
    env = dict(os.environ)
    env.update(env_extra)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    # wait4 gives the whole tree's CPU (the child plus every descendant it
    # reaped: uftrace's writer processes included).
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def recorded_share(names, expect):
    """Share of the workload's calls present in the trace (0..1)."""
    total = sum(expect.values())
    if "*" in names:
        got = min(names["*"], total)
    else:
        got = sum(min(names.get(f, 0), n) for f, n in expect.items())
    return got / total if total else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(REPO, "build-bench", "peers"), help="work and result folder")
    ap.add_argument("--paratrace-build", default=os.path.join(REPO, "build-bench"),
                    help="CMake build folder holding lib/libtrace.so, lib/instrument.so, bin/paratrace")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per contender (median; >= 5 for figures)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every workload's size")
    ap.add_argument("--workloads", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--contenders", default="", help="comma-separated subset (default: all available)")
    ap.add_argument("--start-sessiond", action="store_true", help="start lttng-sessiond if none runs")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes, 1 repetition; fail on any contender error or wrong expectation")
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args()
    if opts.smoke:
        opts.reps = 1
        opts.scale = min(opts.scale, 0.002)
    opts.out = os.path.abspath(opts.out)
    os.makedirs(opts.out, exist_ok=True)
    random.seed(opts.seed)
    opts.load_start = loadavg()

    env = Env(opts)
    contenders = [c(env) for c in CONTENDERS]
    if opts.contenders:
        want = opts.contenders.split(",")
        contenders = [c for c in contenders if c.name in want or c.name == "baseline"]
    skipped = {}
    active = []
    for c in contenders:
        why = c.available()
        if why:
            skipped[c.name] = why
            log("peers: skipping %s: %s" % (c.name, why))
        else:
            active.append(c)

    workloads = [w for w in WORKLOADS if not opts.workloads or w[0] in opts.workloads.split(",")]
    workloads = [(n, s, t, max(1, int(size * opts.scale))) for n, s, t, size in workloads]
    all_w = workloads + [EMPTY]

    # Builds (one per source and flavour), checked against the counting hooks.
    errors = []
    # Compiling is most of a smoke run's time: use the cores we are allowed.
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(os.environ.get("PT_JOBS", "2"))) as pool:
        binaries = env.build_all(sorted({c.build for c in active} | {"count"}), sorted({w[1] for w in all_w}), pool)
    expects = {}
    for name, src, threads, size in all_w:
        r = run_quiet([binaries[(src, "count")], str(threads), str(size)])
        exp = parse_expect(r.stdout)
        m = re.search(r"counted enter (\d+) exit (\d+)", r.stdout)
        total = sum(exp.values())
        if r.returncode or not m or int(m.group(1)) != total or int(m.group(2)) != total:
            errors.append("%s: hooks counted %s, workload expects %d calls" % (name, m and m.groups(), total))
        expects[name] = exp
        for flav in BUILDS:
            if (src, flav) in binaries:
                env.expected_calls.setdefault(binaries[(src, flav)], 0)
                env.expected_calls[binaries[(src, flav)]] = max(env.expected_calls[binaries[(src, flav)]], total)

    # Timed runs, interleaved: each repetition runs every workload under every
    # contender, in an order rotated (and shuffled) per repetition.
    runs = []  # dicts
    counted = {}  # (workload, contender) -> (share, bytes)
    tbase = os.path.join(opts.out, "traces")
    t_start = time.time()
    for rep in range(opts.reps):
        order = active[:]
        random.shuffle(order)
        wl_order = all_w[:]
        random.shuffle(wl_order)
        for name, src, threads, size in wl_order:
            for c in order:
                binary = binaries[(src, c.build)]
                tdir = os.path.join(tbase, c.name, name)
                try:
                    c.prepare(tdir)
                    cmd, extra = c.command(binary, [str(threads), str(size)], tdir)
                    wall, cpu, rc, out, err = timed_run(cmd, extra, opts.out)
                    cpu += c.finish(tdir)
                except RuntimeError as e:
                    errors.append("%s/%s: %s" % (c.name, name, e))
                    continue
                exp = parse_expect(out)
                if rc != 0 or exp != expects[name]:
                    errors.append("%s/%s: exit %d, expect lines %s; stderr: %s" % (
                        c.name, name, rc, "match" if exp == expects[name] else "differ", err.strip()[-300:]))
                    continue
                runs.append(dict(rep=rep, workload=name, contender=c.name, wall_s=wall, cpu_s=cpu))
                if rep == 0 and c.traces and name != "empty":
                    names, nbytes = c.count(binary, tdir, expects[name])
                    counted[(name, c.name)] = (recorded_share(names, expects[name]), nbytes)
                    if opts.smoke and counted[(name, c.name)][0] == 0:
                        errors.append("%s/%s: reader found no calls" % (c.name, name))
        log("peers: repetition %d/%d done (%.0f s)" % (rep + 1, opts.reps, time.time() - t_start))

    analyzer = measure_analyzer(env, opts, tbase, workloads, active, errors)
    rows = summarize(runs, counted, workloads, active, expects, analyzer)
    write_outputs(opts, env, rows, runs, skipped, analyzer, workloads)
    if errors:
        log("peers: %d problem(s):\n  %s" % (len(errors), "\n  ".join(errors)))
        return 1
    return 0


def measure_analyzer(env, opts, tbase, workloads, active, errors):
    """`paratrace analyze` seconds per million records, on the plugin traces
    left by the last repetition (median of 3 runs each, 1 in --smoke)."""
    if not any(c.name == "paratrace" for c in active):
        return {}
    res = {}
    for name, *_ in workloads:
        tdir = os.path.join(tbase, "paratrace", name)
        # Every record the analyzer has to read, as its own reader counts them.
        r = run_quiet([env.paratrace, "dump", "--raw", tdir])
        nrec = sum(1 for line in r.stdout.splitlines() if re.match(r"^\d+ \d+ \d+ \S", line))
        times = []
        for _ in range(1 if opts.smoke else 3):
            outdir = os.path.join(opts.out, "analyze-" + name)
            shutil.rmtree(outdir, ignore_errors=True)
            os.makedirs(outdir)
            t0 = time.perf_counter()
            r = run_quiet([env.paratrace, "analyze", "-o", os.path.join(outdir, name), tdir])
            times.append(time.perf_counter() - t0)
            if r.returncode:
                errors.append("paratrace analyze %s: %s" % (tdir, r.stdout.strip()[-300:]))
                break
        else:
            res[name] = (nrec, statistics.median(times))
    return res


def summarize(runs, counted, workloads, active, expects, analyzer):
    by = {}
    for r in runs:
        by[(r["contender"], r["workload"], r["rep"])] = r
    rows = []
    for name, src, threads, size in workloads:
        calls = sum(expects[name].values())
        for c in active:
            over_w, over_c, wall_w, startup, startup_cpu = [], [], [], [], []
            for rep in {r["rep"] for r in runs}:
                k = [(c.name, name, rep), (c.name, "empty", rep), ("baseline", name, rep), ("baseline", "empty", rep)]
                if not all(x in by for x in k):
                    continue
                cw, ce, bw, be = (by[x] for x in k)
                over_w.append((cw["wall_s"] - ce["wall_s"]) - (bw["wall_s"] - be["wall_s"]))
                over_c.append((cw["cpu_s"] - ce["cpu_s"]) - (bw["cpu_s"] - be["cpu_s"]))
                wall_w.append(cw["wall_s"])
                startup.append(ce["wall_s"] - be["wall_s"])
                startup_cpu.append(ce["cpu_s"] - be["cpu_s"])
            if not over_w:
                continue
            share, nbytes = counted.get((name, c.name), (None, None))
            rows.append(dict(
                workload=name, contender=c.name, threads=threads, calls=calls, reps=len(over_w),
                wall_ms=statistics.median(wall_w) * 1e3,
                wall_ns_per_call=statistics.median(over_w) * 1e9 / calls,
                cpu_ns_per_call=statistics.median(over_c) * 1e9 / calls,
                bytes_per_call=(nbytes / calls) if nbytes is not None else None,
                recorded_pct=(share * 100) if share is not None else None,
                startup_ms=statistics.median(startup) * 1e3,
                startup_cpu_ms=statistics.median(startup_cpu) * 1e3,
                analyze_s_per_mevent=(analyzer[name][1] / analyzer[name][0] * 1e6)
                if c.name == "paratrace" and name in analyzer and analyzer[name][0] else None,
            ))
    return rows


PEERS = ("uftrace-pg", "uftrace-cyg", "xray-basic", "xray-fdr", "lttng-ust")


def summary_lines(rows, workloads):
    """paratrace against its goal (<= 1.2x the TSC hook): CPU per call relative to the
    minimal TSC hook, and how many times cheaper than the cheapest peer
    (by CPU per call, which counts writer threads and daemons too)."""
    out = ["### Summary (cpu ns per call)", "",
           "| workload | paratrace | / tsc-hook | cheapest peer | peer / paratrace | paratrace bytes/call | recorded |",
           "|---|---:|---:|---|---:|---:|---:|"]
    any_row = False
    for name, *_ in workloads:
        by = {r["contender"]: r for r in rows if r["workload"] == name}
        pt = by.get("paratrace")
        if not pt:
            continue
        any_row = True
        hook = by.get("tsc-hook")
        peers = [by[p] for p in PEERS if p in by]
        best = min(peers, key=lambda r: r["cpu_ns_per_call"]) if peers else None
        # A ratio of figures that noise pushed to <= 0 means nothing.
        ratio = lambda a, b: (a / b) if (a is not None and b is not None and a > 0 and b > 0) else None
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt(pt["cpu_ns_per_call"], ".1f"),
            fmt(ratio(pt["cpu_ns_per_call"], hook and hook["cpu_ns_per_call"]), ".2f"),
            "%s (%s)" % (best["contender"], fmt(best["cpu_ns_per_call"], ".1f")) if best else "—",
            fmt(ratio(best and best["cpu_ns_per_call"], pt["cpu_ns_per_call"]), ".1f"),
            fmt(pt["bytes_per_call"], ".1f"),
            fmt(pt["recorded_pct"], ".1f") + ("%" if pt["recorded_pct"] is not None else "")))
    return out + [""] if any_row else []


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def write_outputs(opts, env, rows, runs, skipped, analyzer, workloads):
    fields = ["workload", "contender", "threads", "calls", "reps", "wall_ms", "wall_ns_per_call",
              "cpu_ns_per_call", "bytes_per_call", "recorded_pct", "startup_ms", "startup_cpu_ms", "analyze_s_per_mevent"]
    with open(os.path.join(opts.out, "peers.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else (round(r[k], 3) if isinstance(r[k], float) else r[k]))
                        for k in fields})
    with open(os.path.join(opts.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["rep", "workload", "contender", "wall_s", "cpu_s"])
        w.writeheader()
        w.writerows(runs)

    lines = []
    uname = os.uname()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    lines.append("paratrace peers benchmark, %s UTC, %s, %d CPUs (%s), kernel %s; %d repetitions, scale %g; "
                 "load average at start %s, at end %s (other work on the machine inflates wall times)" % (
                     time.strftime("%Y-%m-%d %H:%M", time.gmtime()), uname.nodename, os.cpu_count(), cpu,
                     uname.release, opts.reps, opts.scale, opts.load_start, loadavg()))
    lines.append("")
    lines.append("Per traced call (enter+exit), medians of paired differences against the baseline, "
                 "each contender's start-up subtracted. wall = elapsed time added to the run / calls; "
                 "cpu = CPU time of the whole process tree (and LTTng daemons) / calls.")
    lines.append("")
    for name, src, threads, size in workloads:
        wrows = [r for r in rows if r["workload"] == name]
        if not wrows:
            continue
        lines.append("### %s (%s calls, %d thread%s)" % (name, format(wrows[0]["calls"], ","), threads,
                                                          "s" if threads > 1 else ""))
        lines.append("")
        lines.append("| contender | wall ns/call | cpu ns/call | bytes/call | recorded | start-up ms (cpu ms) | run ms |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in wrows:
            rec = fmt(r["recorded_pct"], ".1f") + ("%" if r["recorded_pct"] is not None else "")
            lines.append("| %s | %s | %s | %s | %s | %s (%s) | %s |" % (
                r["contender"], fmt(r["wall_ns_per_call"], ".1f"), fmt(r["cpu_ns_per_call"], ".1f"),
                fmt(r["bytes_per_call"], ".1f"), rec, fmt(r["startup_ms"], ".1f"),
                fmt(r["startup_cpu_ms"], ".1f"), fmt(r["wall_ms"], ".1f")))
        lines.append("")
    summary = summary_lines(rows, workloads)
    if summary:
        lines += summary
    if analyzer:
        lines.append("### paratrace analyze")
        lines.append("")
        lines.append("| trace | records | seconds | s per million records |")
        lines.append("|---|---:|---:|---:|")
        for name, (n, s) in analyzer.items():
            lines.append("| %s | %s | %.3f | %s |" % (name, format(n, ","), s, fmt(s / n * 1e6 if n else None, ".3f")))
        lines.append("")
    if skipped:
        lines.append("Not measured:")
        for k, v in skipped.items():
            lines.append("- %s: %s" % (k, v))
        lines.append("")
    text = "\n".join(lines)
    with open(os.path.join(opts.out, "peers.md"), "w") as f:
        f.write(text)
    print(text)
    log("peers: wrote %s/peers.md, peers.csv, runs.csv" % opts.out)


if __name__ == "__main__":
    sys.exit(main())
