#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end checks of OpenMP tracing (docs/OPENMP.md): progs/omp_shapes.c
is built, run with libtrace.so preloaded on 3 threads, and its trace is
compared with the shapes the program is written to have and with what the
program measures of itself (its "key value" lines):

  - the .prv: on every thread row, one 60000018 (outlined region) event per
    region the thread ran, one 60000001 (parallel) per region a thread
    encountered; omp_set_num_threads (60000030, 62000009); the iterations of the dynamic loop per thread (62000005
    chunk events) as the program counted them; the master's
    Synchronization time at least the barrier wait it measured;
  - `paratrace report --json`: regions (executions, team size), the
    dynamic loop's iterations and chunks (the static loop's too with
    clang), nested regions, the task chain (created, run, dependences),
    critical sections, locks, nest locks and ordered (acquisitions),
    sections, master, an ordered loop, a taskwait and its tasks, the imbalanced loop's
    barrier wait within 10% of the program's own measure, and the thread
    summary counting that wait as barrier time;
  - `paratrace export --format chrome` and `--format perfetto`: a region
    slice per region on every team thread;
  - `paratrace report --csv`: the regions table, as in --json;
  - PARATRACE_OPENMP=0: the program runs the same and no OpenMP record is
    written.

  check_omp.py --compiler clang|gcc|gcc-libomp --cc CC [--plugin instrument.so]
               [--libomp libomp.so] --runtime libtrace.so --paratrace paratrace
               --work DIR

clang: -fopenmp with the plugin (libomp, OMPT); gcc: -fopenmp
-finstrument-functions (libgomp, the GOMP_* entry points); gcc-libomp: the
gcc build run with libomp preloaded (its GOMP_* entry points and OMPT: each
construct recorded once). Lines of constructs come from the "@marker"
comments of the source. Exit 77 (skip) when the compiler cannot build an
OpenMP program.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "omp_shapes.c")
THREADS = 3
# the program's constants (omp_shapes.c)
REGIONS, STATIC_ITERS, DYN_ITERS, DYN_CHUNK = 5, 1000, 999, 7
TASKS, CRITICAL, LOCKS = 12, 20, 15
NEST, ORDERED, TW_TASKS, SECTIONS = 4, 9, 4, 2
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, env=None, ok=True, preexec=None):
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       preexec_fn=preexec)
    if ok and r.returncode != 0:
        print(r.stdout + r.stderr)
        print("FAIL: command failed with status %d" % r.returncode)
        sys.exit(1)
    return r


def markers():
    out = {}
    with open(SRC) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"//\s*@(\w+)", line)
            if m:
                out[m.group(1)] = n
    return out


def build(a):
    exe = os.path.join(a.work, "omp_shapes")
    if a.compiler == "clang":
        cmd = [a.cc, "-O2", "-g", "-fopenmp", "-fplugin=" + a.plugin, SRC, "-o", exe]
    else:
        cmd = [a.cc, "-O2", "-g", "-fopenmp", "-finstrument-functions", SRC, "-o", exe]
    r = run(cmd, ok=False)
    if r.returncode != 0:
        print(r.stderr)
        print("SKIP: %s cannot build an OpenMP program" % a.cc)
        sys.exit(77)
    return exe


def program_env(a, trace, extra=None):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": str(THREADS), "PARATRACE_DIR": trace})
    # libtrace.so first: its GOMP_* wrappers before libomp's entry points
    env["LD_PRELOAD"] = " ".join([a.runtime] + ([a.libomp] if a.compiler == "gcc-libomp" else []))
    env.pop("OMP_MAX_ACTIVE_LEVELS", None)
    env.update(extra or {})
    return env


def self_report(out):
    """The program's own lines: {'dynamic_thread': [...], 'barrier_wait_ns': [...], ...}."""
    d = {"dynamic_thread": []}
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "dynamic_thread":
            d["dynamic_thread"].append(int(w[2]))
        elif w and w[0] == "barrier_wait_ns":
            d["barrier_wait_ns"] = [float(x) for x in w[1:]]
        elif w and w[0] == "critical":
            d["critical"], d["locked"] = int(w[1]), int(w[3])
        elif w and w[0] == "tasks_done":
            d["tasks_done"] = int(w[1])
        elif w and w[0] == "misc":
            d["misc"] = [int(x) for x in w[1:]]
    return d


def at_line(label, line):
    """A label of a construct written at `line` (compilers place the code
    of a construct on its pragma's line or the statement's that follows)."""
    m = re.search(r"@ omp_shapes\.c:(\d+)", label or "")
    return m is not None and int(m.group(1)) in (line, line + 1)


def find(rows, key, line, prefix):
    hits = [r for r in rows if r[key].startswith(prefix) and at_line(r[key], line)]
    return hits[0] if len(hits) == 1 else None


def read_pcf(path):
    """{value: label} of the 60000018 block, and the .pcf text."""
    text = open(path).read()
    labels = {}
    m = re.search(r"60000018[^\n]*\n(?:0 +\d+[^\n]*\n)*VALUES\n((?:\d+ +[^\n]*\n)+)", text)
    if m:
        for line in m.group(1).splitlines():
            v, _, l = line.partition(" ")
            labels[int(v)] = l.strip()
    return labels, text


def read_prv(path):
    """Per row (thread number): its event lines [(time, [(type, value)...])]
    and its states [(begin, end, state)]."""
    events, states = {}, {}
    with open(path) as f:
        next(f)
        for line in f:
            p = line.rstrip("\n").split(":")
            if p[0] == "2":
                row = int(p[4])
                pairs = [(int(p[i]), int(p[i + 1])) for i in range(6, len(p) - 1, 2)]
                events.setdefault(row, []).append((int(p[5]), pairs))
            elif p[0] == "1":
                states.setdefault(int(p[4]), []).append((int(p[5]), int(p[6]), int(p[7])))
    return events, states


def count_events(evs, typ, val=None):
    return sum(1 for _, pairs in evs for t, v in pairs if t == typ and (v == val if val is not None else v != 0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compiler", choices=("clang", "gcc", "gcc-libomp"), required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--plugin")
    ap.add_argument("--libomp")
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    mk = markers()
    exe = build(a)
    clang = a.compiler == "clang"

    # untraced, for the output the traced run must reproduce
    plain = run([exe], env=dict(os.environ, OMP_NUM_THREADS=str(THREADS)))
    trace = os.path.join(a.work, "trace")
    r = run([exe], env=program_env(a, trace))
    me = self_report(r.stdout)
    check(me.get("tasks_done") == TASKS and me.get("critical") == CRITICAL * THREADS and
          me.get("locked") == LOCKS * THREADS and
          me.get("misc") == [1, 1, 1, NEST * THREADS, ORDERED, TW_TASKS],
          "the traced program computes what it computes untraced")
    un = self_report(plain.stdout)
    check(all(un.get(k) == me.get(k) for k in ("tasks_done", "critical", "locked", "misc")),
          "the same results traced and not")

    rep = json.loads(run([a.paratrace, "report", "--json", trace]).stdout)
    omp = rep.get("openmp")
    if not check(omp is not None, "report --json has an openmp section"):
        finish()
    regions, work, waits, tasks = omp["regions"], omp["work"], omp["waits"], omp["tasks"]

    reg = find(regions, "region", mk["regions"], "parallel @")
    if check(reg is not None, "one region at the regions' line (%d)" % mk["regions"]):
        check(reg["executions"] == REGIONS, "regions: %d executions (%s)" % (REGIONS, reg["executions"]))
        check(abs(reg["team_mean"] - THREADS) < 1e-9, "regions: teams of %d (%s)" % (THREADS, reg["team_mean"]))
        # the waits at the region's end (the master's for its team at least)
        # are the region's barrier time
        join = find(waits, "where", mk["regions"], "parallel @")
        check(join is not None and join["arrivals"] >= REGIONS and reg["barrier_ns"] >= join["wait_ns"] > 0,
              "regions: their end's waits (%s) counted in the region's barrier time (%s)" % (
                  join and join["wait_ns"], reg["barrier_ns"]))
    outer = find(regions, "region", mk["outer"], "parallel @")
    inner = find(regions, "region", mk["inner"], "parallel @")
    if check(outer is not None and inner is not None, "nested regions found"):
        check(outer["executions"] == 1 and abs(outer["team_mean"] - 2) < 1e-9,
              "outer region: 1 execution of 2 threads (%s, %s)" % (outer["executions"], outer["team_mean"]))
        check(inner["executions"] == 2 and abs(inner["team_mean"] - 2) < 1e-9,
              "inner region: 2 executions of 2 threads (%s, %s)" % (inner["executions"], inner["team_mean"]))

    # gcc makes a region holding only a loop one combined construct
    # (GOMP_parallel_loop_*): the loop is the region's, at its line
    # (libomp serving gcc's code reports it as the region's, "parallel @")
    if clang:
        dyn = find(work, "construct", mk["dynamic"], "loop @")
    else:
        dyn = find(work, "construct", mk["dynamic_region"], "parallel")
    nchunks = math.ceil(DYN_ITERS / DYN_CHUNK)
    if check(dyn is not None, "the dynamic loop is in the work-sharing table"):
        check(dyn["iterations"] == DYN_ITERS, "dynamic loop: %d iterations (%s)" % (DYN_ITERS, dyn["iterations"]))
        check(dyn["chunks"] == nchunks, "dynamic loop: %d chunks (%s)" % (nchunks, dyn["chunks"]))
        if a.compiler != "gcc-libomp":
            check(dyn["threads"] == THREADS, "dynamic loop: entered by %d threads (%s)" % (THREADS, dyn["threads"]))
            check(dyn["schedule"] == "dynamic" and dyn["chunk_size"] == DYN_CHUNK,
                  "dynamic loop: schedule dynamic,%d (%s,%s)" % (DYN_CHUNK, dyn["schedule"], dyn["chunk_size"]))
            check(dyn["iterations_max"] == max(me["dynamic_thread"]),
                  "dynamic loop: most iterations of a thread as the program counted (%s)" % me["dynamic_thread"])
    st = find(work, "construct", mk["static"], "loop @")
    if clang:
        if check(st is not None, "the static loop is in the work-sharing table"):
            check(st["iterations"] == STATIC_ITERS and st["threads"] == THREADS and st["chunks"] == THREADS,
                  "static loop: %d iterations in one chunk per thread (%s, %s, %s)" % (
                      STATIC_ITERS, st["iterations"], st["threads"], st["chunks"]))
            check(st["schedule"] == "static" and st["chunk_size"] == 0,
                  "static loop: schedule static, no chunk size (%s,%s)" % (st["schedule"], st["chunk_size"]))
            lo, hi = STATIC_ITERS // THREADS, -(-STATIC_ITERS // THREADS)
            check(st["iterations_min"] == lo and st["iterations_max"] == hi,
                  "static loop: %d to %d iterations per thread" % (lo, hi))
    else:
        check(st is None, "gcc's static loop (computed inline) is not in the table")

    task = find(tasks, "task", mk["task"], "task @")
    if check(task is not None, "the task construct is in the tasks table"):
        check(task["created"] == TASKS and task["run"] == TASKS,
              "tasks: %d created and run (%s, %s)" % (TASKS, task["created"], task["run"]))
        check(task["dependences"] == TASKS, "tasks: one dependence each (%s)" % task["dependences"])

    kinds = {}
    for l in rep["locks"]:
        kinds[l["kind"]] = kinds.get(l["kind"], 0) + l["acquisitions"]
    check(kinds.get("critical") == CRITICAL * THREADS,
          "critical: %d acquisitions (%s)" % (CRITICAL * THREADS, kinds.get("critical")))
    check(kinds.get("omp lock") == LOCKS * THREADS,
          "omp_set_lock: %d acquisitions (%s)" % (LOCKS * THREADS, kinds.get("omp lock")))
    # a nest lock taken again by its owner is not acquired again (OMPT's view)
    check(kinds.get("nest lock") == NEST * THREADS,
          "omp_set_nest_lock: %d first acquisitions (%s)" % (NEST * THREADS, kinds.get("nest lock")))
    check(kinds.get("ordered") == ORDERED, "ordered: %d acquisitions (%s)" % (ORDERED, kinds.get("ordered")))

    # the misc region: gcc places some constructs on the region's line or the
    # statement's after the pragma, so they are found by kind within it
    def in_misc(label):
        m = re.search(r"@ omp_shapes\.c:(\d+)", label or "")
        return m is not None and mk["misc_region"] <= int(m.group(1)) <= mk["taskwait"] + 1

    def misc_rows(rows, key, prefix):
        return [r for r in rows if r[key].startswith(prefix) and in_misc(r[key])]

    # libomp serves gcc's sections through its loop dispatcher: a loop there
    if a.compiler == "gcc-libomp":
        sec = [r for r in misc_rows(work, "construct", "loop @") if r["iterations"] == SECTIONS]
    else:
        sec = misc_rows(work, "construct", "sections @")
    if check(len(sec) == 1, "the sections construct is in the work-sharing table"):
        check((sec[0]["threads"], sec[0]["chunks"], sec[0]["iterations"]) == (THREADS, SECTIONS, SECTIONS),
              "sections: %d threads, one chunk per section (%s, %s, %s)" % (
                  THREADS, sec[0]["threads"], sec[0]["chunks"], sec[0]["iterations"]))
    loops = [r for r in misc_rows(work, "construct", "loop @") if r["iterations"] == ORDERED]
    if check(len(loops) == 1, "the ordered loop is in the work-sharing table"):
        check(loops[0]["chunks"] == ORDERED, "ordered loop: %d chunks (%s)" % (ORDERED, loops[0]["chunks"]))
    masked = misc_rows(work, "construct", "masked @")
    if clang:
        check(len(masked) == 1 and masked[0]["threads"] == 1, "master: run by 1 thread (%s)" % masked)
    else:
        check(not masked, "gcc's master (a test of the thread number) is not in the table")
    tw = misc_rows(waits, "where", "taskwait @")
    check(len(tw) == 1 and tw[0]["arrivals"] == 1, "taskwait: 1 arrival (%s)" % tw)
    twt = misc_rows(tasks, "task", "task @")
    check(len(twt) == 1 and twt[0]["created"] == TW_TASKS and twt[0]["run"] == TW_TASKS,
          "taskwait's tasks: %d created and run (%s)" % (TW_TASKS, twt))

    measured = sum(me["barrier_wait_ns"])
    bar = find(waits, "where", mk["imbalance_barrier"], "barrier @")
    if check(bar is not None, "the imbalanced loop's barrier is in the waits table"):
        check(bar["arrivals"] == 2, "imbalance barrier: 2 arrivals (%s)" % bar["arrivals"])
        check(abs(bar["wait_ns"] - measured) <= 0.1 * measured,
              "imbalance barrier: wait %.2f ms within 10%% of the program's %.2f ms" % (
                  bar["wait_ns"] / 1e6, measured / 1e6))
    main_thread = [t for t in rep["threads"] if t["pid"] == t["tid"]][0]
    check(main_thread["wait_barrier_ns"] >= 0.9 * me["barrier_wait_ns"][0],
          "thread summary: the master's barrier time %.2f ms covers its measured wait %.2f ms" % (
              main_thread["wait_barrier_ns"] / 1e6, me["barrier_wait_ns"][0] / 1e6))

    # the Paraver trace
    out = os.path.join(a.work, "out")
    run([a.paratrace, "analyze", "--quiet", trace, "-o", out])
    labels, pcf = read_pcf(out + ".pcf")
    check("Parallel (OMP)" in pcf and "OpenMP barrier" in pcf, ".pcf labels the OpenMP types")
    events, states = read_prv(out + ".prv")
    rv = [v for v, l in labels.items() if l.startswith("parallel @") and at_line(l, mk["regions"])]
    if check(len(rv) == 1, ".pcf names the regions' location"):
        ran = sorted(count_events(evs, 60000018, rv[0]) for evs in events.values())
        ran = [n for n in ran if n]
        check(ran == [REGIONS] * THREADS,
              ".prv: %d threads with %d 60000018 events of the region each (%s)" % (THREADS, REGIONS, ran))
    encountered = sorted(n for n in (count_events(evs, 60000001) for evs in events.values()) if n)
    # 5 + static + dynamic + outer + inner + tasks + critical + misc +
    # imbalance on the main thread, the other inner region on the outer
    # team's worker
    check(encountered == [1, 13], ".prv: 60000001 events, 13 on the main thread, 1 on another (%s)" % encountered)
    # omp_set_num_threads(3): 60000030 and its value
    main_evs = events[min(events)]
    check(count_events(main_evs, 60000030, 1) == 1 and count_events(main_evs, 62000009, 3) == 1,
          ".prv: omp_set_num_threads(3) on the main thread")
    # the dynamic loop's iterations per thread: 62000005 inside its construct
    if clang:
        dv = [v for v, l in labels.items() if l.startswith("loop @") and at_line(l, mk["dynamic"])]
    else:
        dv = [v for v, l in labels.items()
              if l.startswith("parallel") and at_line(l, mk["dynamic_region"])]
    if check(len(dv) == 1, ".pcf names the dynamic loop"):
        per = []
        for evs in events.values():
            cur, n = 0, 0
            for _, pairs in evs:
                for t, v in pairs:
                    if t == 62000011:
                        cur = v
                    elif t == 62000005 and cur == dv[0]:
                        n += v
            if n:
                per.append(n)
        if a.compiler != "gcc-libomp":  # libomp enters gcc's loop on one thread only
            check(sorted(per) == sorted(me["dynamic_thread"]),
                  ".prv: the dynamic loop's iterations per thread as the program counted (%s, %s)" % (
                      sorted(per), sorted(me["dynamic_thread"])))
    # every chunk: the dynamic loop's, the sections', the ordered loop's, and
    # (clang) one per thread of the static loop
    chunks = [v for evs in events.values() for _, pairs in evs for t, v in pairs if t == 62000005 and v]
    want = (nchunks + SECTIONS + ORDERED + (THREADS if clang else 0),
            DYN_ITERS + SECTIONS + ORDERED + (STATIC_ITERS if clang else 0))
    check((len(chunks), sum(chunks)) == want,
          ".prv: %d chunk events of %d iterations in all (%d, %d)" % (want + (len(chunks), sum(chunks))))
    main_row = min(events)
    sync = sum(e - b for b, e, s in states.get(main_row, []) if s == 5)
    check(sync >= 0.9 * me["barrier_wait_ns"][0],
          ".prv: the master is in Synchronization %.2f ms, at least its barrier wait %.2f ms" % (
              sync / 1e6, me["barrier_wait_ns"][0] / 1e6))

    # the timeline: a slice per region on every team thread
    js = os.path.join(a.work, "trace.json")
    run([a.paratrace, "export", "--format", "chrome", "--quiet", trace, "-o", js])
    doc = json.load(open(js))
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    per_tid = {}
    for e in evs:
        if e.get("ph") == "B" and e.get("cat") == "openmp" and at_line(e.get("name"), mk["regions"]) \
                and e["name"].startswith("parallel @"):
            per_tid[e["tid"]] = per_tid.get(e["tid"], 0) + 1
    check(sorted(per_tid.values()) == [REGIONS] * THREADS,
          "timeline: %d region slices on each of %d threads (%s)" % (REGIONS, THREADS, per_tid))

    # Perfetto: the same slices, on the threads' tracks; also when calls
    # are left out (--min-duration: the slices go through its queue)
    sys.path.insert(0, os.path.join(HERE, "..", "analyzer"))
    import perfetto_read
    for extra in ([], ["--min-duration", "1ms"]):
        pf = os.path.join(a.work, "trace.pftrace")
        run([a.paratrace, "export", "--format", "perfetto", "--quiet"] + extra + [trace, "-o", pf])
        problems, _, slices = perfetto_read.check(perfetto_read.read(pf))
        check(not problems, "perfetto %s: a well-formed trace (%s)" % (extra, problems[:3]))
        per_track = {}
        for track, sl in slices.items():
            for name, b, e, ev in sl:
                if ev["categories"] == ["openmp"] and (name or "").startswith("parallel @") \
                        and at_line(name, mk["regions"]):
                    per_track[track] = per_track.get(track, 0) + 1
        check(sorted(per_track.values()) == [REGIONS] * THREADS,
              "perfetto %s: %d region slices on each of %d threads' tracks (%s)" % (
                  extra, REGIONS, THREADS, per_track))

    # report --csv: the regions table says what --json says
    csv_rows = list(csv.reader(io.StringIO(run([a.paratrace, "report", "--csv", trace]).stdout)))
    rows = [r for r in csv_rows if r and r[0] == "omp_region"]
    check(len(rows) == len(regions), "report --csv: %d omp_region rows (%d)" % (len(regions), len(rows)))
    hit = [r for r in rows if r[1].startswith("parallel @") and at_line(r[1], mk["regions"])]
    if check(len(hit) == 1, "report --csv: one row for the regions' line"):
        check(int(hit[0][2]) == REGIONS and abs(float(hit[0][4]) - THREADS) < 1e-9,
              "report --csv: %d executions of %d threads (%s, %s)" % (REGIONS, THREADS, hit[0][2], hit[0][4]))

    # the runtime that recorded it, once
    dump = run([a.paratrace, "dump", trace]).stdout
    runtimes = set(re.findall(r"OMP_PARALLEL_BEGIN runtime=(\w+)", dump))
    check(runtimes == {"gomp" if a.compiler == "gcc" else "ompt"},
          "regions recorded by %s only (%s)" % ("the GOMP_* wrappers" if a.compiler == "gcc" else "OMPT", runtimes))

    # PARATRACE_OPENMP=0
    off = os.path.join(a.work, "trace_off")
    r = run([exe], env=program_env(a, off, {"PARATRACE_OPENMP": "0"}))
    off_me = self_report(r.stdout)
    check(all(off_me.get(k) == me.get(k) for k in ("tasks_done", "critical", "locked", "misc")),
          "PARATRACE_OPENMP=0: the program's results are the same")
    dump = run([a.paratrace, "dump", off]).stdout
    check(not re.search(r" OMP_\w+ ", dump), "PARATRACE_OPENMP=0: no OpenMP record")
    check(" THREAD_START " in dump, "PARATRACE_OPENMP=0: the threads are still traced")
    finish()


def finish():
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)


if __name__ == "__main__":
    main()
