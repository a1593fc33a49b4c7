#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end checks of the code a compiler outlines from a user's function:
OpenMP region, task and target bodies, lambdas and blocks. Each program is
built with instrument.so, run with libtrace.so preloaded, and its trace is
checked: the exact names ("loop [omp parallel for at omp_main.c:45]"), how
many times each function ran on each thread, that each body's own code ran
inside its frame, and that `paratrace report` counts the same calls.

  omp.py --cc clang --cxx clang++ --plugin instrument.so --runtime libtrace.so
         --paratrace paratrace --work DIR --flags="-O2 -g"
         [--mode fplugin|fpass-plugin|lto|start] CASE

CASE: omp (progs/omp_main.c on 3 threads), cxx (progs/omp_cxx.cpp), blocks
(progs/blocks_main.c, clang -fblocks), ir (no run: the IR and verbose=1 of
omp_main.c, with filters). Lines in expected names come from the "@marker"
comments of the sources. Exit 77 (skip) when clang cannot build an OpenMP
program (libomp-dev, scripts/deps.sh).
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

from filters import PROGS, check, failures, finish

THREADS = 3
A = None

def run(cmd, env=None, ok=True):
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if ok and r.returncode != 0:
        print(r.stdout + r.stderr)
        print("FAIL: command failed with status %d" % r.returncode)
        sys.exit(1)
    return r


def markers(src):
    """{'loop': 45, ...}: the line of each '// @name' comment."""
    out = {}
    with open(os.path.join(PROGS, src)) as f:
        for n, line in enumerate(f, 1):
            for m in re.finditer(r"@(\w+)", line.split("//", 1)[1] if "//" in line else ""):
                out[m.group(1)] = n
    return out


def compile_flags():
    flags = shlex.split(A.flags)
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    if A.mode == "fpass-plugin":
        plugin = ["-fpass-plugin=" + A.plugin]
    else:
        plugin = ["-fplugin=" + A.plugin]
    if A.mode == "start":
        plugin.append("-fplugin-arg-instrument-stage=start")
    if A.mode == "lto":
        plugin.append("-flto")
    return flags, plugin, env


def build(src, extra=()):
    flags, plugin, env = compile_flags()
    cc = A.cxx if src.endswith(".cpp") else A.cc
    obj = os.path.join(A.work, src + ".o")
    exe = os.path.join(A.work, src.split(".")[0])
    run([cc, "-c", os.path.join(PROGS, src), "-o", obj] + flags + plugin + list(extra), env)
    run([cc, obj, "-o", exe] + flags + (["-flto"] if A.mode == "lto" else []) + list(extra), env)
    return exe


def trace(exe, args):
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS=str(THREADS), OMP_DYNAMIC="false", OMP_MAX_ACTIVE_LEVELS="1")
    plain = run([exe] + args, env)
    tdir = os.path.join(A.work, "trace")
    shutil.rmtree(tdir, ignore_errors=True)
    env.update(LD_PRELOAD=A.runtime, PARATRACE_DIR=tdir)
    traced = run([exe] + args, env)
    print(traced.stdout + traced.stderr)
    check(traced.stdout == plain.stdout, "the traced run prints what the untraced run prints")
    dump = run([A.paratrace, "dump", tdir]).stdout
    report = run([A.paratrace, "report", "--csv", "--top", "0", tdir]).stdout
    return dump, report


EVENT = re.compile(r"^\d+ \d+ (\d+) (FUNC_ENTER|FUNC_EXIT) id=(\d+) \S+ name=(.*)$")


def per_thread(dump):
    """{tid: {name: calls}} and {name: set of parent names} (None: no
    instrumented caller), replaying each thread's frames."""
    counts, parents, stacks = {}, {}, {}
    nested = True
    for line in dump.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        tid, kind, fid, name = m.groups()
        stack = stacks.setdefault(tid, [])
        if kind == "FUNC_ENTER":
            c = counts.setdefault(tid, {})
            c[name] = c.get(name, 0) + 1
            parents.setdefault(name, set()).add(stack[-1][1] if stack else None)
            stack.append((fid, name))
        elif stack and stack[-1][0] == fid:
            stack.pop()
        else:
            nested = False
    check(nested and not any(stacks.values()), "every thread's frames are properly nested and closed")
    return counts, parents


def verify(dump, report, expect, team=THREADS):
    """expect: [(name or regex, where, n, total, parents)]. where: 'each'
    (n calls on each of the `team` threads), 'main' (n on the main thread,
    none elsewhere), 'one' (n on one thread of its own, not in the team),
    or None (any thread). parents: the names the calls may be nested in
    directly (None: no instrumented caller), or None not to check."""
    counts, parents = per_thread(dump)
    main = [t for t in counts if "main" in counts[t]]
    check(len(main) == 1, "one thread ran main")
    reported = {}
    for row in csv.reader(io.StringIO(report)):
        if len(row) > 4 and row[0] == "function":
            reported[row[1]] = reported.get(row[1], 0) + int(row[4])
    check(all(n.strip() for n in reported), "no function has an empty name")
    names = set(reported)
    resolved = []
    for pattern, where, n, total, allowed in expect:
        if isinstance(pattern, re.Pattern):
            matching = sorted(x for x in names if pattern.fullmatch(x))
            check(len(matching) == 1, "one function named like %s: %s" % (pattern.pattern, matching))
            if len(matching) != 1:
                continue
            pattern = matching[0]
        names.discard(pattern)
        resolved.append((pattern, where, n, total, allowed))
    check(not names, "no other function is instrumented: %s" % sorted(names))
    own = {e[0] for e in resolved if e[1] == "one"}
    loners = [t for t in counts if own and set(counts[t]) <= own]
    members = [t for t in counts if t not in loners]
    check(len(members) == team, "%d threads of the team ran instrumented code (expected %d)" %
          (len(members), team))
    for name, where, n, total, allowed in resolved:
        check(reported.get(name) == total, "report: %s called %s times (expected %d)" %
              (name, reported.get(name), total))
        got = {t: counts[t].get(name, 0) for t in counts}
        if where == "each":
            ok = all(got[t] == n for t in members) and all(got[t] == 0 for t in loners)
        elif where == "main":
            ok = main and got[main[0]] == n and sum(got.values()) == n
        elif where == "one":
            ok = sum(got[t] for t in loners) == n and sum(got.values()) == n
        else:
            ok = sum(got.values()) == total
        check(ok, "%s: per thread %s (expected %s %d)" % (name, sorted(got.values()), where, n))
        if allowed is not None:
            seen = parents.get(name, set())
            check(seen and seen <= set(allowed), "%s runs inside %s (seen in %s)" %
                  (name, sorted(map(str, allowed)), sorted(map(str, seen))))


# The outlined bodies of omp_main.c, in source order: (function, construct,
# marker of its line).
BODIES = [
    ("regions", "parallel", "regions"), ("loop", "parallel for", "loop"),
    ("tasks", "parallel", "tasks"), ("tasks", "task", "outer"), ("tasks", "task", "inner"),
    ("taskloops", "parallel", "taskloop_team"), ("taskloops", "taskloop", "taskloop"),
    ("sections", "parallel sections", "sections"), ("serial", "parallel", "serial"),
    ("nested", "parallel", "outerpar"), ("nested", "parallel", "innerpar"),
    ("offload", "target", "target"), ("main", "task", "undeferred"),
]


def body_names(located):
    """{marker: expected name}. Without a location (-fpass-plugin=, no -g)
    the construct is what the runtime call says, numbered in its function
    in source order; a target region's line is in its function's name."""
    L = markers("omp_main.c")
    out = {}
    for i, (fn, kind, marker) in enumerate(BODIES):
        role = kind.split()[0]
        if located or role == "target":
            out[marker] = "%s [omp %s at omp_main.c:%d]" % (fn, kind, L[marker])
        else:
            k = 1 + sum(1 for f, c, _ in BODIES[:i] if f == fn and c.split()[0] == role)
            out[marker] = "%s [omp %s #%d]" % (fn, role, k)
    return out


def omp_case():
    nreg, iters, ntasks, ninner, nlooptasks = 3, 12, 4, 3, 4
    exe = build("omp_main.c", ["-fopenmp"])
    dump, report = trace(exe, [str(x) for x in (nreg, iters, ntasks, ninner, nlooptasks)])
    T = THREADS
    B = body_names(A.mode != "fpass-plugin" or "-g" in A.flags)
    # A team's body runs on the thread that met the region, in the frame
    # of the enclosing function, and alone on the other threads.
    expect = [
        ("main", "main", 1, 1, [None]),
        ("regions", "main", 1, 1, ["main"]),
        (B["regions"], "each", nreg, T * nreg, ["regions", None]),
        ("par_leaf", "each", nreg, T * nreg, [B["regions"]]),
        ("loop", "main", 1, 1, ["main"]),
        (B["loop"], "each", 1, T, ["loop", None]),
        ("for_leaf", "each", iters // T, iters, [B["loop"]]),
        ("tasks", "main", 1, 1, ["main"]),
        (B["tasks"], "each", 1, T, ["tasks", None]),
        # A task runs at a scheduling point: in a thread's team body (in
        # its barrier), or in the outer task's taskwait.
        (B["outer"], None, 0, ntasks, [B["tasks"], B["outer"]]),
        (B["inner"], None, 0, ntasks * ninner, [B["tasks"], B["outer"]]),
        ("task_leaf", None, 0, ntasks, [B["outer"]]),
        ("inner_leaf", None, 0, ntasks * ninner, [B["inner"]]),
        ("taskloops", "main", 1, 1, ["main"]),
        (B["taskloop_team"], "each", 1, T, ["taskloops", None]),
        (B["taskloop"], None, 0, nlooptasks, [B["taskloop_team"]]),
        ("taskloop_leaf", None, 0, iters, [B["taskloop"]]),
        ("sections", "main", 1, 1, ["main"]),
        (B["sections"], "each", 1, T, ["sections", None]),
        ("section_a", None, 0, 1, [B["sections"]]),
        ("section_b", None, 0, 1, [B["sections"]]),
        ("serial", "main", 1, 1, ["main"]),
        (B["serial"], "main", 1, 1, ["serial"]),
        ("serial_leaf", "main", 1, 1, [B["serial"]]),
        ("nested", "main", 1, 1, ["main"]),
        (B["outerpar"], "each", 1, T, ["nested", None]),
        (B["innerpar"], "each", 1, T, [B["outerpar"]]),
        ("nested_leaf", "each", 1, T, [B["innerpar"]]),
        ("offload", "main", 1, 1, ["main"]),
        (B["target"], "main", 1, 1, ["offload"]),
        ("target_leaf", "main", 1, 1, [B["target"]]),
        (B["undeferred"], "main", 1, 1, ["main"]),
        ("undeferred_leaf", "main", 1, 1, [B["undeferred"]]),
    ]
    verify(dump, report, expect)


def cxx_case():
    L = markers("omp_cxx.cpp")
    n = 6
    exe = build("omp_cxx.cpp", ["-fopenmp", "-pthread"])
    dump, report = trace(exe, [str(n)])
    T = THREADS

    def lam(marker, params, outer=None):
        prefix = "main::" if outer is None else outer + "::"
        return "%s<lambda at omp_cxx.cpp:%d>%s" % (prefix, L[marker], params)

    each, thread, outer = lam("each", "(int)"), lam("thread", "()"), lam("outer", "(int)")
    inner, par = lam("inner", "(int)", outer), lam("par", "(int)")
    par_region = "%s [omp parallel at omp_cxx.cpp:%d]" % (par, L["parregion"])
    relax = "Grid::relax() [omp parallel for at omp_cxx.cpp:%d]" % L["relax"]
    scale_i = "void scale<int>(int) [omp parallel at omp_cxx.cpp:%d]" % L["scale"]
    scale_d = "void scale<double>(double) [omp parallel at omp_cxx.cpp:%d]" % L["scale"]
    if "-g" in A.flags:
        twins = [lam("twin1", "(long)"), lam("twin2", "(long)")]
    else:
        # Same parameters and closure size, no debug info: the two cannot
        # be told apart by line, and keep clang's names (one each).
        twins = [re.compile(r"main::\$_%s::operator\(\)\(long\) const" % k)
                 for k in (r"\d*[13579]", r"\d*[02468]")]
    expect = [
        ("main", "main", 1, 1, [None]),
        (each, "main", n, n, ["main"]),
        ("each_leaf(int)", "main", n, n, [each]),
        (thread, "one", 1, 1, [None]),
        ("thread_leaf(int)", "one", 1, 1, [thread]),
        (lam("gen", "<int>(int)"), "main", 1, 1, ["main"]),
        (lam("gen", "<double>(double)"), "main", 1, 1, ["main"]),
        ("gen_leaf(int)", "main", 2, 2, [lam("gen", "<int>(int)"), lam("gen", "<double>(double)")]),
        (outer, "main", 1, 1, ["main"]),
        (inner, "main", 2, 2, [outer]),
        ("inner_leaf(int)", "main", 2, 2, [inner]),
        (par, "main", 2, 2, ["main"]),
        (par_region, "each", 2, 2 * T, [par, None]),
        ("omp_leaf(int)", "each", 2, 2 * T, [par_region]),
        ("Grid::relax()", "main", 1, 1, ["main"]),
        (relax, "each", 1, T, ["Grid::relax()", None]),
        ("method_leaf(int)", "each", n // T, n, [relax]),
        ("void scale<int>(int)", "main", 1, 1, ["main"]),
        ("void scale<double>(double)", "main", 1, 1, ["main"]),
        (scale_i, "each", 1, T, ["void scale<int>(int)", None]),
        (scale_d, "each", 1, T, ["void scale<double>(double)", None]),
        ("tmpl_leaf(int)", "each", 2, 2 * T, [scale_i, scale_d]),
        (twins[0], "main", 1, 1, ["main"]),
        (twins[1], "main", 1, 1, ["main"]),
        ("twin_leaf(int)", "main", 2, 2, None),
    ]
    if not isinstance(twins[0], re.Pattern):
        expect[-1] = ("twin_leaf(int)", "main", 2, 2, twins)
    verify(dump, report, expect)


def blocks_case():
    L = markers("blocks_main.c")
    k = 4
    exe = build("blocks_main.c", ["-fblocks"])
    dump, report = trace(exe, [str(k)])
    scaled = "main [block at blocks_main.c:%d]" % L["scaled"]
    plain = "main [block at blocks_main.c:%d]" % L["plain"]
    glob = "twice [block at blocks_main.c:%d]" % L["global"]
    expect = [
        ("main", "main", 1, 1, [None]),
        ("apply", "main", k + 2, k + 2, ["main"]),
        (scaled, "main", k, k, ["apply"]),
        (plain, "main", 1, 1, ["apply"]),
        (glob, "main", 1, 1, ["apply"]),
        ("block_leaf", "main", k + 2, k + 2, [scaled, plain, glob]),
    ]
    verify(dump, report, expect, team=1)


def compile_ir(flags, args=(), pass_plugin=False, src="omp_main.c"):
    """Compiles src to IR. Returns ({function: (role, entry hooks)},
    names in the function table, {name: verbose=1 line}, stderr)."""
    out = os.path.join(A.work, "out.ll")
    cmd = [A.cc, "-S", "-emit-llvm", "-fopenmp", os.path.join(PROGS, src), "-o", out] + list(flags)
    env = dict(os.environ)
    env.pop("PARATRACE_PLUGIN_ARGS", None)
    if pass_plugin:
        cmd.append("-fpass-plugin=" + A.plugin)
        env["PARATRACE_PLUGIN_ARGS"] = ";".join(["verbose=1"] + list(args))
    else:
        cmd += ["-fplugin=" + A.plugin, "-fplugin-arg-instrument-verbose=1"]
        cmd += ["-fplugin-arg-instrument-" + a for a in args]
    r = run(cmd, env)
    with open(out) as f:
        ir = f.read()
    groups = dict(re.findall(r"^attributes #(\d+) = \{ (.*) \}$", ir, re.M))
    funcs = {}
    for m in re.finditer(r"^define [^\n]*?@(\"[^\"]+\"|[\w.$]+)\((.*?)\n(.*?)^\}", ir, re.M | re.S):
        attrs = re.findall(r"#(\d+)", m.group(2).split("{")[0])
        role = re.search(r'"paratrace-role"="(\w+)"', groups.get(attrs[-1], "")) if attrs else None
        funcs[m.group(1).strip('"')] = (role.group(1) if role else None,
                                        m.group(3).count("@__paratrace_func_enter2("))
    strings = re.findall(r'^@__paratrace_str[.\d]* = .*c"(.*)\\00"', ir, re.M)
    table = {x for x in strings if not x.startswith("/")}
    verbose = {}
    for m in re.finditer(r"^paratrace: (instrument|skip) (.*?) \((/[^ ]*|):\d+, size.*$", r.stderr, re.M):
        verbose.setdefault(m.group(2), []).append(m.group(0))
    check(not re.search(r"^paratrace: (instrument|skip) \(", r.stderr, re.M),
          "%s: verbose=1 prints no empty name" % " ".join(flags))
    return funcs, table, verbose, r.stderr


def ir_case():
    B = body_names(True)
    bodies = set(B.values())
    for flags, args, pp in [(["-O0"], [], False), (["-O3"], [], False), (["-O0", "-g"], [], False),
                            (["-O2", "-g"], [], False), (["-O3", "-g"], ["stage=start"], False),
                            (["-O2", "-g"], [], True)]:
        what = " ".join(flags + args + (["-fpass-plugin="] if pp else []))
        funcs, table, verbose, _ = compile_ir(flags, args, pp)
        hooked = {f: n for f, (role, n) in funcs.items() if role == "body"}
        check(len(hooked) == len(bodies) and all(n == 1 for n in hooked.values()),
              "%s: %d outlined bodies, each with one entry hook: %s" % (what, len(bodies), hooked))
        parts = {f: n for f, (role, n) in funcs.items() if role in ("part", "helper")}
        check(not any(parts.values()), "%s: their inner parts and helpers have none: %s" % (what, parts))
        if "-g" in flags:
            check(any(r == "part" for r, _ in funcs.values()) == ("-O0" in flags),
                  "%s: inner '_debug__' parts are left (not inlined) at -O0 only" % what)
        instrumented = {n for n, lines in verbose.items() if any(" instrument " in l for l in lines)}
        check(bodies <= instrumented, "%s: verbose=1 names every body: missing %s" %
              (what, sorted(bodies - instrumented)))
        check(instrumented == table, "%s: the table holds the names verbose=1 reports: %s" %
              (what, sorted(instrumented ^ table)))

    # Without a location (-fpass-plugin=, no -g) bodies are numbered in
    # their function.
    _, table, _, _ = compile_ir(["-O2"], [], True)
    numbered = set(body_names(False).values())
    check(numbered <= table, "-fpass-plugin= without -g: bodies named '<function> [omp <kind> #N]': "
          "missing %s" % sorted(numbered - table))

    # Filters apply to the bodies' own names.
    _, table, verbose, _ = compile_ir(["-O0"], ["exclude=\\[omp task at"])
    tasks = {b for b in bodies if "[omp task at" in b}
    check(not (table & tasks) and (bodies - tasks) <= table and
          all("matches exclude=" in verbose[t][0] for t in tasks),
          "exclude= matches body names: task bodies skipped, the rest kept")
    _, table, _, _ = compile_ir(["-O0"], ["include=^regions"])
    check(table == {"regions", B["regions"]},
          "include=^regions: the function and its region -> %s" % sorted(table))
    ff = os.path.join(A.work, "filter.txt")
    with open(ff, "w") as f:
        f.write("SCOREP_REGION_NAMES_BEGIN\n EXCLUDE loop*\n INCLUDE MANGLED loop?\\[omp*\n"
                "SCOREP_REGION_NAMES_END\n")
    _, table, _, _ = compile_ir(["-O0"], ["filter-file=" + ff])
    check("loop" not in table and B["loop"] in table,
          "filter file: region rules match body names (MANGLED: enclosing linkage name + bracket)")
    with open(ff, "w") as f:
        f.write("SCOREP_FILE_NAMES_BEGIN\n EXCLUDE */omp_main.c\nSCOREP_FILE_NAMES_END\n")
    _, table, _, _ = compile_ir(["-O0"], ["filter-file=" + ff])
    check(not table, "filter file: a file rule excludes the bodies written in that file")
    _, table, _, _ = compile_ir(["-O0"], ["min-size=100000"])
    check(bodies <= table and "par_leaf" not in table, "min-size= does not drop bodies")
    funcs, table, verbose, _ = compile_ir(["-O0", "-g"], ["compiler-generated=1"])
    red = "loop [compiler-generated .omp.reduction.reduction_func at omp_main.c:%d]" % \
        markers("omp_main.c")["loop"]
    check(red in table, "compiler-generated=1: OpenMP helpers instrumented, named %s" % red)
    check(not any(n for r, n in funcs.values() if r == "part"),
          "compiler-generated=1: inner parts of bodies are still not instrumented")


def main():
    global A
    p = argparse.ArgumentParser()
    for opt in ("--cc", "--cxx", "--plugin", "--runtime", "--paratrace", "--work"):
        p.add_argument(opt, required=True)
    p.add_argument("--flags", default="-O0")
    p.add_argument("--mode", default="fplugin", choices=["fplugin", "fpass-plugin", "lto", "start"])
    p.add_argument("case", choices=["omp", "cxx", "blocks", "ir"])
    A = p.parse_args()
    shutil.rmtree(A.work, ignore_errors=True)
    os.makedirs(A.work)
    probe = os.path.join(A.work, "probe.c")
    with open(probe, "w") as f:
        f.write("#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n")
    probe_cmd = [A.cc, "-fopenmp", probe, "-o", probe + ".out"] + shlex.split(A.flags)
    if A.case != "blocks" and run(probe_cmd, ok=False).returncode:
        print("SKIP: clang -fopenmp cannot build a program (install libomp-dev: scripts/deps.sh)")
        sys.exit(77)
    {"omp": omp_case, "cxx": cxx_case, "blocks": blocks_case, "ir": ir_case}[A.case]()
    finish()


if __name__ == "__main__":
    main()
