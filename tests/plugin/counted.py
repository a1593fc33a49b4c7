#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks how the code instrument.so emits counts a call throttled on its
thread (hook ABI 3, docs/ABI.md): with one instruction that a signal handler
on the same thread, counting a call too, cannot come between. On x86-64 the
inline `incq` to memory, as before; on any other target a relaxed atomic
add (`atomicrmw add ... monotonic`), where a load, add and store would lose
the handler's counts. clang compiles for AArch64 with no sysroot, so the
program (progs/counted.c) includes nothing.

  counted.py --cc clang --plugin instrument.so --work DIR
"""
import os
import re
import subprocess

from filters import PROGS, check, finish, parse_args

A = None

ENTER = re.compile(r"call i32 @__paratrace_func_enter2\(")
RMW = re.compile(r"atomicrmw add (?:i64\*|ptr) %[\w.]+, i64 1 monotonic")
INCQ = re.compile(r'call void asm "incq \$0"')


def compile_to(target, opt, out, extra=()):
    """clang with the plugin and the counts pointer on; the output's text."""
    cmd = [A.cc, "--target=" + target, opt, "-S", os.path.join(PROGS, "counted.c"), "-o", out,
           "-fplugin=" + A.plugin, "-fplugin-arg-instrument-counts-tls=initial-exec"] + list(extra)
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    check(r.returncode == 0, " ".join([target, opt] + list(extra)) + " compiles")
    if r.returncode != 0:
        print(" ".join(cmd))
        print(r.stderr)
        return ""
    with open(out) as f:
        return f.read()


def target_case(target, opt):
    """The IR: one count per traced function, of the target's kind. The
    assembly: that count as the instruction(s) it must be."""
    x86 = target.startswith("x86_64")
    tag = "%s %s" % (target, opt)
    ir = compile_to(target, opt, os.path.join(A.work, "counted.ll"), ["-emit-llvm"])
    sites = len(ENTER.findall(ir))
    rmw, incq = len(RMW.findall(ir)), len(INCQ.findall(ir))
    check(sites == 2, "%s: both functions traced, with the counts pointer (%d)" % (tag, sites))
    if x86:
        check(incq == sites and rmw == 0,
              "%s: every count is the inline incq (%d incq, %d atomicrmw)" % (tag, incq, rmw))
    else:
        check(rmw == sites and incq == 0,
              "%s: every count is an atomicrmw add monotonic (%d of %d)" % (tag, rmw, sites))
    asm = compile_to(target, opt, os.path.join(A.work, "counted.s"))
    if x86:
        n = len(re.findall(r"^\s*incq\s", asm, re.M))
        locked = len(re.findall(r"^\s*lock", asm, re.M))
        check(n >= sites and locked == 0,
              "%s: the assembly counts with incq, no lock prefix (%d incq, %d lock)" %
              (tag, n, locked))
        return
    # Without LSE (ARMv8.0): an exclusive load/store loop, or the call of
    # the outline helper that picks LSE at run time (-moutline-atomics).
    loops = len(re.findall(r"^\s*st(?:l)?xr\s", asm, re.M))
    helpers = len(re.findall(r"\b__aarch64_ldadd8_relax\b", asm))
    check(loops + helpers >= sites,
          "%s: the assembly counts with exclusive loops or the LSE helper (%d loops, %d calls)"
          % (tag, loops, helpers))
    lse = compile_to(target, opt, os.path.join(A.work, "counted_lse.s"), ["-march=armv8.1-a"])
    n = len(re.findall(r"^\s*(?:st|ld)add\s", lse, re.M))
    check(n >= sites, "%s -march=armv8.1-a: one LSE add per count (%d)" % (tag, n))


def main():
    global A
    A = parse_args("--cc", "--plugin")
    for target in ("aarch64-linux-gnu", "x86_64-linux-gnu"):
        for opt in ("-O0", "-O2"):
            target_case(target, opt)
    finish()


if __name__ == "__main__":
    main()
