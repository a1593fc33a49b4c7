#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that every option of instrument.so changes what is instrumented as
docs/PLUGIN.md says, that bad options fail the compile with a message naming
them, and that loading the plugin twice does not instrument twice.

  filters.py --cc clang --cxx clang++ --plugin instrument.so --work DIR

What is instrumented is read from the IR itself (functions whose body calls
__paratrace_func_enter2), and checked against the plugin's verbose=1 report.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

PROGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs")
A = None
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def finish():
    """Exit status of a script made of check()s."""
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


def compile_ir(src, flags=(), args=(), env_args=None, plugin_flag="-fplugin", expect_ok=True):
    """Returns (set of IR functions with an entry hook, set reported by
    verbose=1, stderr, returncode)."""
    out = os.path.join(A.work, "out.ll")
    cc = A.cxx if src.endswith(".cpp") else A.cc
    cmd = [cc, "-S", "-emit-llvm", os.path.join(PROGS, src), "-o", out, "-isystem",
           os.path.join(PROGS, "sys")] + list(flags)
    if plugin_flag == "-fplugin":
        cmd += ["-fplugin=" + A.plugin, "-fplugin-arg-instrument-verbose=1"]
        cmd += ["-fplugin-arg-instrument-" + a for a in args]
    elif plugin_flag:
        cmd += [plugin_flag + A.plugin]
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    if env_args is not None:
        env["PARATRACE_PLUGIN_ARGS"] = env_args
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if (r.returncode == 0) != expect_ok:
        print(" ".join(cmd))
        print(r.stderr)
    if r.returncode != 0:
        return set(), set(), r.stderr, r.returncode
    with open(out) as f:
        ir = f.read()
    hooked, enters = set(), {}
    for m in re.finditer(r"^define [^@]*@(\"?[^\"(]+\"?)\(.*?^}", ir, re.M | re.S):
        n = m.group(0).count("@__paratrace_func_enter2(")
        if n:
            hooked.add(m.group(1).strip('"'))
            enters[m.group(1).strip('"')] = n
    reported = set(re.findall(r"^paratrace: instrument (.*) \(", r.stderr, re.M))
    compile_ir.enters = enters
    return hooked, reported, r.stderr, r.returncode


ALL_C = {"alpha", "beta", "looper", "bulky", "inlinable", "main"}


def c_cases():
    hooked, reported, err, _ = compile_ir("filters.c", ["-O0"])
    check(hooked == ALL_C, "default -O0: instrumented %s" % sorted(hooked))
    check(reported == hooked, "verbose=1 reports what the IR shows")
    check("skip quiet" in err and "no_instrument_function" in err, "no_instrument_function honoured")
    check("skip forced" in err and "always_inline" in err, "always_inline skipped")
    check("skip bare" in err and "naked" in err, "naked skipped")
    check("sys_helper" not in hooked and "system header" in err, "system-header function skipped")

    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["system-headers=1"])
    check("sys_helper" in hooked, "system-headers=1 instruments the system header's function")

    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["include=^(alpha|beta)$"])
    check(hooked == {"alpha", "beta"}, "include=^(alpha|beta)$ -> %s" % sorted(hooked))
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["include=^alpha", "include=^main"])
    check(hooked == {"alpha", "main"}, "two include= accumulate -> %s" % sorted(hooked))
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["exclude=^(alpha|main)$"])
    check(hooked == ALL_C - {"alpha", "main"}, "exclude= -> %s" % sorted(hooked))
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["include=a", "exclude=^main$"])
    check(hooked == {"alpha", "beta", "inlinable"}, "include= then exclude= -> %s" % sorted(hooked))

    ff = os.path.join(A.work, "filter.txt")
    with open(ff, "w") as f:
        f.write("# Score-P style\nSCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE beta\n"
                "          looper  # continued rule\n  EXCLUDE MANGLED loop*\nSCOREP_REGION_NAMES_END\n")
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["filter-file=" + ff])
    check(hooked == {"beta"}, "filter file: region rules, last match wins -> %s" % sorted(hooked))
    with open(ff, "w") as f:
        f.write("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */filters.c\nSCOREP_FILE_NAMES_END\n")
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["filter-file=" + ff])
    check(hooked == set(), "filter file: file rule excludes the whole file -> %s" % sorted(hooked))
    with open(ff, "w") as f:
        f.write("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE *\n INCLUDE */filters.c\nSCOREP_FILE_NAMES_END\n"
                "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE bulky\nSCOREP_REGION_NAMES_END\n")
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["filter-file=" + ff])
    check(hooked == ALL_C - {"bulky"}, "filter file: file and region rules -> %s" % sorted(hooked))

    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["min-size=30"])
    check(hooked == {"looper", "bulky", "main"},
          "min-size=30: small loop-free functions dropped, loops kept -> %s" % sorted(hooked))

    hooked, _, _, _ = compile_ir("filters.c", ["-O2"])
    check("inlinable" not in hooked and "main" in hooked, "-O2 default (stage=last): inlined function not instrumented")
    _, reported, _, _ = compile_ir("filters.c", ["-O2"], ["stage=start"])
    check("inlinable" in reported, "-O2 stage=start: inlinable function instrumented before inlining")
    check(compile_ir.enters.get("main", 0) >= 2,
          "stage=start: the inlined body keeps its hook inside main (%d entry hooks)" % compile_ir.enters.get("main", 0))

    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], plugin_flag="-fpass-plugin=",
                                 env_args="include=^beta$;exclude=nothing")
    check(hooked == {"beta"}, "-fpass-plugin= with PARATRACE_PLUGIN_ARGS -> %s" % sorted(hooked))
    hooked, _, _, _ = compile_ir("filters.c", ["-O0"], ["include=^alpha$"], env_args="include=^beta$")
    check(hooked == {"alpha", "beta"}, "PARATRACE_PLUGIN_ARGS adds to -fplugin-arg -> %s" % sorted(hooked))

    # Loaded twice: each function gets one entry hook.
    copy = os.path.join(A.work, "instrument-copy.so")
    shutil.copy(A.plugin, copy)
    hooked, _, _, _ = compile_ir("filters.c", ["-O2", "-fpass-plugin=" + A.plugin, "-fplugin=" + copy,
                                               "-fpass-plugin=" + copy])
    check(hooked == ALL_C - {"inlinable"} and all(n == 1 for n in compile_ir.enters.values()),
          "loaded three times: one entry hook per function %s" % compile_ir.enters)


def cxx_cases():
    hooked, _, err, _ = compile_ir("filters_cxx.cpp", ["-O0"])
    check(not any(h.startswith(("__cxx_global_var_init", "_GLOBAL__")) for h in hooked),
          "C++: static initialisers skipped by default")
    check("_ZN2ns4workEi" in hooked and "_ZN7CounterC2Ev" in hooked and "_ZNK7Counter3getEv" in hooked,
          "C++: user functions, constructor and method instrumented %s" % sorted(hooked))
    hooked, _, _, _ = compile_ir("filters_cxx.cpp", ["-O0"], ["compiler-generated=1"])
    check(any(h.startswith("__cxx_global_var_init") for h in hooked),
          "C++: compiler-generated=1 instruments the static initialiser")
    hooked, _, _, _ = compile_ir("filters_cxx.cpp", ["-O0"], ["include=^ns::"])
    check(hooked == {"_ZN2ns4workEi"}, "include= matches demangled names (^ns::) -> %s" % sorted(hooked))


def bad_options():
    cases = [
        (["bogus=1"], "unknown option 'bogus'"),
        (["include"], "expected KEY=VALUE"),
        (["include=("], "invalid regular expression"),
        (["stage=middle"], "expected start or last"),
        (["min-size=lots"], "expected a number"),
        (["verbose=x"], "expected 0 or 1"),
        (["filter-file=/nonexistent/filter"], "cannot open filter file"),
    ]
    bad = os.path.join(A.work, "bad-filter.txt")
    with open(bad, "w") as f:
        f.write("SCOREP_REGION_NAMES_BEGIN\n  foo\nSCOREP_REGION_NAMES_END\n")
    cases.append((["filter-file=" + bad], "bad-filter.txt:2: pattern 'foo' before INCLUDE or EXCLUDE"))
    bad2 = os.path.join(A.work, "bad-filter2.txt")
    with open(bad2, "w") as f:
        f.write("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE x\n")
    cases.append((["filter-file=" + bad2], "block not closed"))
    for args, msg in cases:
        _, _, err, rc = compile_ir("filters.c", ["-O0"], args, expect_ok=False)
        check(rc != 0 and msg in err and "valid options: include=REGEX" in err and "error:" in err,
              "bad option %s fails the compile: %s" % (args, msg))
    _, _, err, rc = compile_ir("filters.c", ["-O0"], plugin_flag="-fpass-plugin=", env_args="stage=never",
                               expect_ok=False)
    check(rc != 0 and "PARATRACE_PLUGIN_ARGS: stage=never" in err,
          "bad PARATRACE_PLUGIN_ARGS fails a -fpass-plugin= compile")
    ver = subprocess.run([A.cc, "--version"], stdout=subprocess.PIPE, text=True).stdout
    if re.search(r"clang version 14\.", ver):
        _, _, err, rc = compile_ir("filters.c", ["-O2", "-flegacy-pass-manager"], expect_ok=False)
        check(rc != 0 and "-flegacy-pass-manager is not supported" in err,
              "clang 14 -flegacy-pass-manager is reported, not silently uninstrumented")


def parse_args(*options):
    """The command line of a compile-only script: each option required,
    --work emptied (made if missing)."""
    p = argparse.ArgumentParser()
    for o in options + ("--work",):
        p.add_argument(o, required=True)
    args = p.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    return args


def main():
    global A
    A = parse_args("--cc", "--cxx", "--plugin")
    c_cases()
    cxx_cases()
    bad_options()
    finish()


if __name__ == "__main__":
    main()
