#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One OpenMP case, end to end: a program of progs/ built with one compiler
(clang -fopenmp: LLVM's libomp, OMPT; gcc -fopenmp: GNU libgomp, the GOMP_*
entry points), run untraced and traced, its trace checked against what the
program is written to do. Constructs are found by the "// @name" markers of
the source: a label's line belongs to the last marker at or before it
(compilers name a construct by its pragma's line or by a line of its body).

  check_case.py CASE --cc CC --runtime libtrace.so --paratrace paratrace --work DIR

Cases (each program's header says what it checks):
  task_paths      progs/omp_task_paths.c: every GOMP_task flag path, detach
                  included, runs as untraced; every task created and run
  task_deps       progs/omp_task_deps.c: dependences counted per task (profile
                  and 62000010), the taskloop named by its line
  task_runs       progs/omp_task_runs.c: a task switched away from and back
                  (included child, taskyield) is run once
  exit_region     progs/omp_exit_in_region.c: the region exit() leaves is counted
  task_reduction  progs/omp_task_reduction.c: gcc's GOMP_parallel_reductions
                  region is a region
  own_tool        progs/omp_own_tool.c (clang): the program's own OMPT tool, a
                  tool named by OMP_TOOL_LIBRARIES, OMP_TOOL=disabled
  dlerror         progs/omp_dlerror.c: libtrace.so's own symbol lookups leave
                  the program's dlerror() as it was
  task_paths_libomp  progs/omp_task_paths.c (gcc) run by libomp without OMPT:
                  the GOMP_* wrappers record every task
  loc_damaged     a trace of progs/omp_task_deps.c whose first location record
                  is damaged: a warning with file and offset, the rest kept,
                  under a 2 GB address-space limit

Exit 77 (skip) when the compiler cannot build an OpenMP program.
"""
import argparse
import json
import os
import re
import resource
import shutil
import struct
import sys

from check_omp import check, finish, run

HERE = os.path.dirname(os.path.abspath(__file__))


class Case:
    def __init__(self, a, prog):
        self.a = a
        self.src = os.path.join(HERE, "progs", prog)
        self.clang = "clang" in os.path.basename(a.cc)
        self.marks = []
        with open(self.src) as f:
            for n, line in enumerate(f, 1):
                m = re.search(r"//\s*@(\w+)", line)
                if m:
                    self.marks.append((n, m.group(1)))

    def build(self, name, extra=()):
        exe = os.path.join(self.a.work, name)
        r = run([self.a.cc, "-O2", "-g", "-fopenmp"] + list(extra) + [self.src, "-o", exe],
                ok=False)
        if r.returncode != 0:
            print(r.stderr)
            print("SKIP: %s cannot build %s" % (self.a.cc, os.path.basename(self.src)))
            sys.exit(77)
        return exe

    def env(self, trace, extra=None):
        """extra may name an LD_PRELOAD (libomp), which the runtime precedes."""
        e = dict(os.environ)
        for k in ("OMP_TOOL", "OMP_TOOL_LIBRARIES", "OMP_NUM_THREADS", "LD_PRELOAD"):
            e.pop(k, None)
        e.update(extra or {})
        if trace:
            e["PARATRACE_DIR"] = trace
            e["LD_PRELOAD"] = " ".join([self.a.runtime] + ([e["LD_PRELOAD"]]
                                                           if "LD_PRELOAD" in e else []))
        return e

    def traced(self, exe, name, extra=None, status=0):
        """Runs exe untraced then traced: the same output and status."""
        plain = run([exe], env=self.env(None, extra), ok=False)
        trace = os.path.join(self.a.work, name)
        r = run([exe], env=self.env(trace, extra), ok=False)
        check(plain.returncode == status and r.returncode == status,
              "%s: exit status %d untraced and traced (%d, %d)" %
              (name, status, plain.returncode, r.returncode))
        check(plain.stdout == r.stdout, "%s: the same output traced (%r) as untraced (%r)" %
              (name, r.stdout.strip(), plain.stdout.strip()))
        return trace, r

    def report(self, trace):
        out = run([self.a.paratrace, "report", "--json", trace]).stdout
        return json.loads(out).get("openmp", {})

    def mark(self, label):
        """The marker of a label's line (None if it names no line of the source)."""
        m = re.search(r"@ %s:(\d+)" % re.escape(os.path.basename(self.src)), label or "")
        if not m:
            return None
        line, name = int(m.group(1)), None
        for n, k in self.marks:
            if n <= line:
                name = k
        return name

    def rows(self, report, table, key):
        """{marker: row} of a report table; rows named by no marker under None."""
        out = {}
        for r in report.get(table, []):
            out.setdefault(self.mark(r[key]), []).append(r)
        return out


def setup(a, prog, status=0):
    """The case of progs/PROG: built, run untraced and traced, reported."""
    c = Case(a, prog)
    exe = c.build(os.path.splitext(prog)[0])
    trace, _ = c.traced(exe, "trace", status=status)
    return c, trace, c.report(trace)


def case_task_paths_libomp(a):
    """gcc's code run by libomp without OMPT (OMP_TOOL=disabled): the GOMP_*
    wrappers record it as under libgomp; libomp runs an if(0) task on the
    program's data and calls no copy function for a task without one."""
    c = Case(a, "omp_task_paths.c")
    if c.clang or not a.libomp:
        print("SKIP: the case is about gcc's code run by libomp (--libomp)")
        sys.exit(77)
    exe = c.build("paths", ["-DNO_DETACH"])
    env = {"LD_PRELOAD": a.libomp, "OMP_TOOL": "disabled"}
    trace, r = c.traced(exe, "trace", env)
    check(r.stderr.count(WARNING) == 1, "said once on stderr")
    rep = c.report(trace)
    check_task_paths(c, rep, [])
    check(len(rep.get("regions", [])) == 1, "the region, from GOMP_parallel")


def read_prv_values(prv, typ):
    vals = []
    with open(prv) as f:
        next(f)
        for line in f:
            p = line.rstrip("\n").split(":")
            if p[0] == "2":
                vals += [int(p[i + 1]) for i in range(6, len(p) - 1, 2) if int(p[i]) == typ]
    return vals


def one(rows, name, what):
    r = rows.get(name, [])
    check(len(r) == 1, "%s: one row for @%s (%d)" % (what, name, len(r)))
    return r[0] if r else {}


def case_task_paths(a):
    c, trace, rep = setup(a, "omp_task_paths.c")
    check_task_paths(c, rep, ["detach", "fulfill", "self"])


def check_task_paths(c, rep, detach):
    tasks = c.rows(rep, "tasks", "task")
    names = detach + ["undeferred", "final", "included", "depend", "priority", "array",
                      "untied"] + ([] if c.clang else ["vla"])
    for n in names:
        t = one(tasks, n, "tasks")
        check(t.get("created") == 8 and t.get("run") == 8,
              "@%s: created 8, run 8 (%s, %s)" % (n, t.get("created"), t.get("run")))
    if c.clang:  # libomp reports the taskloop's tasks, named by its line
        t = one(tasks, "taskloop", "tasks")
        check(t.get("created") == 4 and t.get("run") == 4, "@taskloop: 4 tasks created and run")
    check(None not in tasks and not any("@ 0x" in n for n in row_names(rep)),
          "every task row names a line of the program")
    check(len(one(c.rows(rep, "work", "construct"), "taskloop", "work")) > 0,
          "the taskloop construct at its line")


def case_task_deps(a):
    c, trace, rep = setup(a, "omp_task_deps.c")
    tasks = c.rows(rep, "tasks", "task")
    for n, deps in (("one", 50), ("two", 100), ("three", 100)):
        t = one(tasks, n, "tasks")
        check(t.get("created") == 50 and t.get("dependences") == deps,
              "@%s: 50 tasks, %d dependences (%s)" % (n, deps, t.get("dependences")))
    work = c.rows(rep, "work", "construct")
    check("taskloop" in work and all(r["construct"].startswith("taskloop @")
                                     for r in work["taskloop"]),
          "the taskloop named by its line: %s" % [r["construct"] for r in
                                                   rep.get("work", [])])
    check(not any("@ 0x" in n for n in row_names(rep)), "no row named by an address")
    out = os.path.join(a.work, "deps")
    run([a.paratrace, "analyze", trace, "-o", out])
    vals = [v for v in read_prv_values(out + ".prv", 62000010) if v]
    check(sorted(vals) == [1] * 50 + [2] * 100,
          "62000010: 50 tasks with 1 dependence, 100 with 2 (%d values: %s)" %
          (len(vals), sorted(set(vals))))


def case_task_runs(a):
    c, _, rep = setup(a, "omp_task_runs.c")
    tasks = c.rows(rep, "tasks", "task")
    for n in ("parent", "child", "untied"):
        t = one(tasks, n, "tasks")
        check(t.get("created") == 20 and t.get("run") == 20,
              "@%s: created 20, run 20 (%s, %s)" % (n, t.get("created"), t.get("run")))
        check(t.get("time_max_ns", 0) <= t.get("time_ns", 0),
              "@%s: the longest task no longer than all of them" % n)


def case_exit_region(a):
    c, trace, rep = setup(a, "omp_exit_in_region.c", status=7)
    regions = c.rows(rep, "regions", "region")
    r = one(regions, "region", "regions")
    check(r.get("executions") == 1 and r.get("open_executions") == 1,
          "the region the program exited from: 1 execution, open at the end (%s, %s)" %
          (r.get("executions"), r.get("open_executions")))
    # (its team: 1 or 2 threads, as the other thread exits before the
    # master's own part began or after)
    text = run([a.paratrace, "report", trace]).stdout
    check("OpenMP parallel regions (1)" in text and "still running at the end" in text,
          "report: 1 region, said to be open at the end")


def case_task_reduction(a):
    c, trace, rep = setup(a, "omp_task_reduction.c")
    regions = c.rows(rep, "regions", "region")
    check(len(rep.get("regions", [])) == 2, "two regions (%d)" % len(rep.get("regions", [])))
    r = one(regions, "reduction", "regions")
    check(r.get("executions") == 1 and r.get("team_mean") == 2.0 and r.get("tasks") == 10,
          "@reduction: 1 execution of 2 threads, its 10 tasks (%s, %s, %s)" %
          (r.get("executions"), r.get("team_mean"), r.get("tasks")))
    p = one(regions, "plain", "regions")
    check(p.get("executions") == 1, "@plain: 1 execution")
    t = one(c.rows(rep, "tasks", "task"), "task", "tasks")
    check(t.get("created") == 10 and t.get("run") == 10, "@task: 10 created and run")


def case_dlerror(a):
    c = Case(a, "omp_dlerror.c")
    exe = c.build("dlerror", ["-ldl"])
    _, r = c.traced(exe, "trace")
    check(r.stdout.count("no error") == 3, "no dl error seen by the program: %r" % r.stdout)


WARNING = "OpenMP is recorded only from the entry points"


def case_own_tool(a):
    c = Case(a, "omp_own_tool.c")
    if not c.clang:
        print("SKIP: the case is about libomp (clang -fopenmp)")
        sys.exit(77)
    own = c.build("own")
    noown = c.build("noown", ["-DNO_OWN_TOOL"])
    lib = c.build("libtool.so", ["-DTOOL_LIBRARY", "-shared", "-fPIC"])
    setups = [("own", own, {}, "own tool initialised=1"),
              ("libraries", noown, {"OMP_TOOL_LIBRARIES": lib}, "tool library initialised"),
              ("disabled", noown, {"OMP_TOOL": "disabled"}, None)]
    for name, exe, extra, says in setups:
        trace, r = c.traced(exe, "trace_" + name, extra)
        if says:
            check(says in r.stdout, "%s: the program's tool still starts (%r)" % (name, says))
        n = r.stderr.count(WARNING)
        check(n == 1, "%s: said once on stderr (%d times): %s" % (name, n, r.stderr.strip()))
        rep = c.report(trace)
        work = c.rows(rep, "work", "construct")
        loop = one(work, "loop", name + " work")
        check(loop.get("iterations") == 100 and loop.get("chunks") == 20 and
              loop.get("schedule") == "dynamic" and loop.get("chunk_size") == 5,
              "%s: the dynamic loop from its entry points: 100 iterations in 20 chunks of 5"
              % name)
        check(len(work.get("taskloop", [])) == 1, "%s: the taskloop construct" % name)
    # with OMPT: the region itself, and nothing said
    trace, r = c.traced(noown, "trace_ompt")
    check(WARNING not in r.stderr, "with OMPT: nothing said")
    check(len(c.report(trace).get("regions", [])) == 1, "with OMPT: the region recorded")


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def damage_first_loc(trace):
    """Sets the loc of the first OMP_LOC_DEF (kind 0x60, 32 bytes) of a
    process log to 0xffffffff: (path, offset), or (None, None)."""
    for d, _, fs in os.walk(trace):
        if "process.ptl" not in fs:
            continue
        p = os.path.join(d, "process.ptl")
        b = bytearray(open(p, "rb").read())
        for off in range(256, len(b) - 32, 8):
            if (b[off] == 0x60 and struct.unpack_from("<H", b, off + 2)[0] == 4 and
                    struct.unpack_from("<I", b, off + 8)[0]):
                struct.pack_into("<I", b, off + 8, 0xFFFFFFFF)
                open(p, "wb").write(b)
                return p, off
    return None, None


def row_names(openmp):
    return [r.get("task", r.get("construct", r.get("region")))
            for t in ("tasks", "work", "regions") for r in openmp.get(t, [])]


def case_loc_damaged(a):
    c, trace, _ = setup(a, "omp_task_deps.c")
    good = run([a.paratrace, "report", "--json", trace], preexec=limit_memory)
    path, off = damage_first_loc(trace)
    if not check(path is not None, "a location record to damage"):
        return
    want = "%s: offset %d: OpenMP location id 4294967295 out of range" % (path, off)
    report = None
    for what, cmd in (("report", ["report", "--json", trace]),
                      ("analyze", ["analyze", trace, "-o", os.path.join(a.work, "dmg")]),
                      ("export", ["export", "--format", "chrome", trace, "-o",
                                  os.path.join(a.work, "dmg.json")])):
        r = run([a.paratrace] + cmd, ok=False, preexec=limit_memory)
        check(r.returncode == 0, "%s under a 2 GB limit: exit 0 (%d)" % (what, r.returncode))
        n = r.stderr.count(want)
        check(n == 1, "%s: warned once, with the file and offset (%d): %s" %
              (what, n, r.stderr.strip()[:400]))
        if what == "report":
            report = r
    before = json.loads(good.stdout)["openmp"]
    after = json.loads(report.stdout).get("openmp", {}) if report.returncode == 0 else {}
    lost = [n for n in row_names(before) if n not in row_names(after)]
    check(len(lost) <= 1, "at most the damaged location's row is gone (%s)" % lost)
    check(len(after.get("tasks", [])) >= 2 and
          len(after.get("threads", [])) == len(before["threads"]),
          "the other tables kept (%d task rows, %d threads)" %
          (len(after.get("tasks", [])), len(after.get("threads", []))))


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--cc", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--libomp", help="libomp.so, for gcc's code run by libomp")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    CASES[a.case](a)
    finish()


if __name__ == "__main__":
    main()
