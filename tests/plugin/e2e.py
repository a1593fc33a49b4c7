#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end checks of instrument.so: build a test program with the plugin,
run it with the runtime preloaded, and compare the FUNC_ENTER/FUNC_EXIT/
FUNC_LANDED events of `paratrace dump` with the record the program kept of
its own calls (progs/selflog.h: SEQ, COUNT and EXPECT lines on its stdout).

  e2e.py --cc clang --cxx clang++ --plugin instrument.so \
         --runtime libtrace.so --dump paratrace \
         --work DIR --flags="-O2 -g" [--mode fplugin|fpass-plugin|lto] CASE

Exit status 0 = the trace matches the program's own record.
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

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs")
PROJECTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "projects")

# name -> (sources of the executable, expected exit status)
SIMPLE = {
    "c": (["c_main.c", "c_one.c", "c_two.c", "selflog.c"], 0),
    "cxx": (["cxx_main.cpp", "selflog.c"], 0),
    "setjmp": (["sj_main.c", "selflog.c"], 0),
    "exit": (["exit_main.c", "selflog.c"], 3),
    "cancel": (["cancel_main.c", "selflog.c"], 0),
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout)
        fail("command failed with status %d" % r.returncode)
    return r.stdout


class Builder:
    def __init__(self, args):
        self.a = args
        self.flags = shlex.split(args.flags)
        if args.mode == "fplugin":
            self.plugin = ["-fplugin=" + args.plugin]
        else:
            self.plugin = ["-fpass-plugin=" + args.plugin]
        if args.mode == "lto":
            self.plugin = ["-fplugin=" + args.plugin, "-flto"]
        self.link_extra = ["-flto"] if args.mode == "lto" else []

    def compiler(self, src):
        return self.a.cxx if src.endswith(".cpp") else self.a.cc

    def objects(self, sources, extra=()):
        env = dict(os.environ)
        if self.a.mode == "fpass-plugin":
            # No frontend, so no_instrument_function is invisible: the
            # self-log helpers are excluded through the environment instead.
            env["PARATRACE_PLUGIN_ARGS"] = "exclude=^(sl_|print_all|put_name|record|SlGuard)"
        objs = []
        for s in sources:
            o = os.path.join(self.a.work, os.path.basename(s) + ".o")
            run([self.compiler(s), "-c", os.path.join(PROGS, s), "-o", o, "-I", PROGS] + self.flags +
                self.plugin + list(extra), env=env)
            objs.append(o)
        return objs

    def link(self, objs, out, extra=(), cxx=False):
        run([self.a.cxx if cxx else self.a.cc] + objs + ["-o", out] + self.flags + self.link_extra +
            list(extra))


def build(args):
    b = Builder(args)
    exe = os.path.join(args.work, "prog")
    if args.case in SIMPLE:
        sources, status = SIMPLE[args.case]
        b.link(b.objects(sources), exe, cxx=any(s.endswith(".cpp") for s in sources))
        return exe, status
    if args.case == "dl":
        lib = os.path.join(args.work, "libdlshared.so")
        plug = os.path.join(args.work, "libdlplugin.so")
        b.link(b.objects(["dl_shared.c", "selflog.c"], ["-fPIC"]), lib, ["-shared"])
        b.link(b.objects(["dl_plugin.c"], ["-fPIC"]), plug,
               ["-shared", "-L" + args.work, "-ldlshared"])
        b.link(b.objects(["dl_main.c"], ['-DPLUGIN_PATH="%s"' % plug]), exe,
               ["-L" + args.work, "-ldlshared", "-ldl", "-Wl,-rpath," + args.work])
        return exe, 0
    if args.case in ("make", "cmake", "autoconf"):
        # A project of its own, built through the wrappers in --bindir.
        src = os.path.join(args.work, "src")
        shutil.copytree(os.path.join(PROJECTS, args.case), src)
        for f in ("selflog.c", "selflog.h"):
            shutil.copy(os.path.join(PROGS, f), src)
        if args.case == "autoconf":
            # The make project's sources, with configure.ac and Makefile.in.
            for f in os.listdir(os.path.join(PROJECTS, "make")):
                if f.endswith((".c", ".h")):
                    shutil.copy(os.path.join(PROJECTS, "make", f), src)
            if not shutil.which("autoconf"):
                print("SKIP: autoconf is not installed (scripts/deps.sh installs it)")
                sys.exit(77)
            run(["autoconf"], cwd=src)
            run(["./configure", "CC=" + os.path.join(args.bindir, "paratrace-cc"),
                 "CFLAGS=" + args.flags], cwd=src)
            # what its checks found, as the real compiler would have
            with open(os.path.join(src, "Makefile")) as f:
                made = f.read()
            for want in ("-DHAVE_STDLIB_H=1", "-DHAVE_STRING_H=1", "-DHAVE_STRTOL=1", "-DHAVE_LIBM=1"):
                if want not in made:
                    fail("configure through paratrace-cc did not find %s (config.log)" % want)
            run(["make", "-C", src])
            return os.path.join(src, "app"), 0
        if args.case == "make":
            run(["make", "-C", src, "CC=" + os.path.join(args.bindir, "paratrace-cc"),
                 "CFLAGS=" + args.flags])
            return os.path.join(src, "app"), 0
        bdir = os.path.join(args.work, "build")
        run(["cmake", "-S", src, "-B", bdir, "-DCMAKE_TOOLCHAIN_FILE=" + args.toolchain,
             "-DCMAKE_C_FLAGS=" + args.flags, "-DCMAKE_CXX_FLAGS=" + args.flags])
        run(["cmake", "--build", bdir])
        return os.path.join(bdir, "app"), 0
    fail("unknown case " + args.case)


def trace(args, exe, status):
    env = dict(os.environ)
    tdir = os.path.join(args.work, "trace")
    env["LD_PRELOAD"] = args.runtime
    env["PARATRACE_DIR"] = tdir
    r = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       cwd=args.work)
    print(r.stdout + r.stderr)
    if r.returncode != status:
        fail("program exited with %d, expected %d" % (r.returncode, status))
    # Without libtrace.so the instrumented program links, runs and behaves
    # the same (hooks not called: the weak symbols are undefined).
    plain = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=args.work)
    if plain.returncode != status or plain.stdout != r.stdout:
        fail("untraced run differs: status %d, output:\n%s" % (plain.returncode, plain.stdout))
    dump = run([args.dump, "dump", tdir])
    report = run([args.dump, "report", "--csv", tdir])
    return r.stdout, dump, report


def short_name(name):
    """Unqualified function name of a demangled name:
    'int twice<int>(int)' -> 'twice', 'main::<lambda at a.cpp:5>(int)'
    -> 'lambda', 'Acc::Acc()' -> 'Acc', 'helper' -> 'helper'."""
    s = name.strip()
    if "(" not in s:
        return s
    while True:  # trailing qualifiers of member functions
        t = re.sub(r"\s*(const|volatile|&&|&|noexcept)$", "", s)
        if t == s:
            break
        s = t
    if s.endswith(")"):  # drop the parameter list
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    # last component at bracket depth 0, after '::' or the return type's space
    depth, start = 0, 0
    for i, c in enumerate(s):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0 and (c == " " or (c == ":" and s[i:i + 2] == "::")):
            start = i + (2 if c == ":" else 1)
    s = s[start:].lstrip(":")
    if s.startswith("<lambda at "):
        return "lambda"
    if s.endswith(">") and not s.startswith("operator"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    return s


LINE = re.compile(r"^(\d+) (\d+) (\d+) (FUNC_ENTER|FUNC_EXIT|FUNC_LANDED) (.*)$")


def parse_dump(dump):
    """FUNC events per thread in file order, threads ordered by the time of
    their first FUNC event: [(kind, id, short, file)] lists."""
    threads, first = {}, {}
    for line in dump.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        rest = m.group(5)
        fields = dict(re.findall(r"(\w+)=(\S+)", rest.split(" name=")[0]))
        name = rest.split(" name=", 1)[1] if " name=" in rest else "?"
        at = fields.get("at", "?")
        file = os.path.basename(at.rsplit(":", 1)[0])
        key = (m.group(2), m.group(3))
        first.setdefault(key, int(m.group(1)))
        threads.setdefault(key, []).append((m.group(4), int(fields["id"]), short_name(name), file))
    return [threads[k] for k in sorted(threads, key=lambda k: first[k])]


def replay(events, key):
    """The normalised +/-/= sequence of one thread, as the analyzer sees it:
    a landing (=) pops the frames above its function's innermost frame,
    which stays open; an exit that does not match the innermost frame pops
    frames down to its own; frames still open at the end are closed there
    (exit(), cancellation). Returns (sequence, resyncs: landings and exits
    that closed frames above their own, frames open at the end)."""
    stack, got, resyncs = [], [], 0
    for ev in events:
        if ev[0] == "FUNC_ENTER":
            stack.append(ev)
            got.append("+" + key(ev))
            continue
        ids = [f[1] for f in stack]
        if ev[1] not in ids:
            fail("%s of %s with no open frame" % (ev[0], key(ev)))
        if stack[-1][1] != ev[1]:
            resyncs += 1
        while stack[-1][1] != ev[1]:
            got.append("-" + key(stack.pop()))
        if ev[0] == "FUNC_LANDED":
            got.append("=" + key(ev))
        else:
            got.append("-" + key(stack.pop()))
    still_open = len(stack)
    while stack:
        got.append("-" + key(stack.pop()))
    return got, resyncs, still_open


def check(stdout, dump, report):
    seqs, expects, counts = {}, {}, {}
    for line in stdout.splitlines():
        m = re.match(r"^(SEQ|EXPECT)(\d*)( .*|)$", line)
        if m:
            n = int(m.group(2) or 0)
            if m.group(1) == "SEQ":
                seqs[n] = m.group(3).split()
            else:
                expects[n] = dict(kv.split("=") for kv in m.group(3).split())
        elif line.startswith("COUNT "):
            _, n, c = line.split()
            counts[n] = int(c)
    if 0 not in seqs or sorted(seqs) != sorted(expects):
        fail("the program printed no SEQ/EXPECT lines")
    threads = parse_dump(dump)
    if len(threads) != len(seqs):
        fail("expected FUNC events from %d thread(s), got %d" % (len(seqs), len(threads)))
    with_file = {t[1:].split("@")[0] for seq in seqs.values() for t in seq if "@" in t}

    def key(ev):
        return ev[2] + ("@" + ev[3] if ev[2] in with_file else "")

    # One id, one function: ids are unique across modules.
    names = {}
    for events in threads:
        for ev in events:
            if names.setdefault(ev[1], (ev[2], ev[3])) != (ev[2], ev[3]):
                fail("id %d names both %s and %s" % (ev[1], names[ev[1]], (ev[2], ev[3])))
    total = 0
    for n, events in enumerate(threads):
        seq, expect = seqs[n], expects[n]
        got, resyncs, still_open = replay(events, key)
        if got != seq:
            for i, (g, e) in enumerate(zip(got, seq)):
                if g != e:
                    break
            else:
                i = min(len(got), len(seq))
            fail("thread %d: sequence differs at event %d:\n  trace:   %s\n  program: %s" %
                 (n, i, " ".join(got[max(0, i - 4):i + 6]), " ".join(seq[max(0, i - 4):i + 6])))
        if resyncs != int(expect["resyncs"]) or still_open != int(expect["open"]):
            fail("thread %d: trace needed %d resyncs and left %d frames open; program expects %s" %
                 (n, resyncs, still_open, expect))
        print("thread %d: %d events, %d resyncs, %d open at end" % (n, len(events), resyncs, still_open))
        total += len(events)
    entered = {}
    for events in threads:
        for ev in events:
            if ev[0] == "FUNC_ENTER":
                entered[key(ev)] = entered.get(key(ev), 0) + 1
    if entered != counts:
        fail("call counts differ: trace %s, program %s" % (entered, counts))
    # The analyzer's profile (which applies the same resync rules) must
    # count the same calls: a longjmp landing is none.
    profiled = {}
    for row in csv.reader(io.StringIO(report)):
        if len(row) > 4 and row[0] == "function":
            k = short_name(row[1])
            if k in with_file:
                k += "@" + os.path.basename(row[2])
            profiled[k] = profiled.get(k, 0) + int(row[4])
    if profiled != counts:
        fail("paratrace report counts %s, program %s" % (profiled, counts))
    print("OK: %d events, %d functions, %d thread(s)" % (total, len(counts), len(threads)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cc", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--runtime", required=True)
    p.add_argument("--dump", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--bindir", help="where paratrace-cc/c++ are (make, cmake cases)")
    p.add_argument("--toolchain", help="paratrace-toolchain.cmake (cmake case)")
    p.add_argument("--flags", default="-O0")
    p.add_argument("--mode", default="fplugin", choices=["fplugin", "fpass-plugin", "lto"])
    p.add_argument("case")
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    exe, status = build(args)
    stdout, dump, report = trace(args, exe, status)
    check(stdout, dump, report)


if __name__ == "__main__":
    main()
