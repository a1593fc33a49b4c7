#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wait states, their causes and the critical path (docs/ANALYZER.md, "Wait
states") on logs ptgen writes from the golden cases waits_mpi.trace,
waits_threads.trace, waits_gpu_cuda.trace and waits_gpu_ocl.trace: every figure below is derived by hand from the times in
those files (their comments say the scenario), so the test does not depend
on the machine's timing. Checks `report --csv` rows, `report --json` causes
and the critical path, and that -j1 and -j2 give the same rows; then
`analyze --waits`: a valid trace (prv_check.py) whose wait-state events
(69000000...) add up to the same times per pattern and thread, whose
critical-path events (69000010) span the path's length, the same for -j1
and -j2, and none without --waits.

With --mpirun M, the same `analyze --waits` under mpirun (two analyzer
processes) must write the same .prv, .pcf and .row as one process.

usage: test_waits.py --paratrace P --ptgen G --cases DIR --work DIR [--mpirun M]
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys

M = 1000000


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s: status %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    return r.stdout


def csv_rows(text, table):
    """The rows of one table (kernel names have commas: quoted)."""
    return [tuple(cells[1:]) for cells in csv.reader(text.splitlines())
            if cells and cells[0] == table]


def check(what, got, want):
    if got != want:
        sys.exit("FAIL: %s:\n  got  %r\n  want %r" % (what, got, want))


def mpi_case(pt, trace):
    out = run([pt, "report", "--csv", trace])
    waits = {r[:4]: (int(r[4]), int(r[5])) for r in csv_rows(out, "wait_state")}
    # rank 0's 10 receives: the first posted at 1 us, each next 1 us after the
    # previous ended (30 us after its send began); the sends begin at 40 ms,
    # 80 ms ... 400 ms
    late = (40 * M - 1000) + 9 * (40 * M - 31000)
    barrier_r0 = 400 * M + 31000 + 300 * M + 1000  # after 300 ms of compute
    barrier_r1 = 400 * M + 20000
    want = {
        ("late_sender", "0", "0", "main/MPI_Recv"): (10, late),
        ("wait_at_barrier", "1", "0", "main/MPI_Barrier"): (1, barrier_r0 - barrier_r1),
        ("late_broadcast", "0", "0", "main/MPI_Bcast"): (1, 2 * M),
        ("early_reduce", "0", "0", "main/MPI_Reduce"): (1, 3 * M),
        ("wait_at_nxn", "0", "0", "main/MPI_Allreduce"): (1, 1 * M),
        ("late_receiver", "0", "0", "main/MPI_Send"): (1, 4 * M),
    }
    check("MPI wait states", waits, want)
    path = {(r[0], r[1]): int(r[2]) for r in csv_rows(out, "critical_path")}
    # rank 1's ten computes of 40 ms less the 10 us sends, then on rank 0
    # 300 ms of compute, then rank 1 again after the barrier: 2 ms before
    # the broadcast, 3.5 ms before the reduce, 1 ms and 4 ms
    check("critical path: compute on rank 1", path.get(("compute", "1")),
          10 * (40 * M - 10000) + 2 * M + 3500000 + 1 * M + 4 * M)
    check("critical path: compute on rank 0", path.get(("compute", "0")), 300 * M)
    check("critical path: rank 0's receive after its send began",
          path.get(("MPI_Recv", "0")), 30000)
    end = barrier_r0 + 100000 + 3 * M + 4 * M + 2 * M + 4 * M + 10000 + 5000
    check("critical path: length", sum(path.values()), end)
    j = json.loads(run([pt, "report", "--json", trace]))
    causes = {(w["pattern"], w["rank"]): (w["cause"]["rank"], w["cause"]["function"])
              for w in j["wait_states"]}
    check("MPI causes", causes, {
        ("late_sender", 0): (1, "compute"), ("wait_at_barrier", 1): (0, "compute"),
        ("late_broadcast", 0): (1, "compute"), ("early_reduce", 0): (1, "compute"),
        ("wait_at_nxn", 0): (1, "compute"), ("late_receiver", 0): (1, "compute")})
    cp = j["critical_path"]
    check("JSON critical path length", cp["time_ns"], end)
    top = max(cp["functions"], key=lambda f: f["time_ns"])
    check("JSON critical path top", top["function"], "compute")
    cost = {(c["function"], c["rank"]): (c["instances"], c["delay_ns"]) for c in j["wait_causes"]}
    check("delay cost", cost, {
        ("compute", 1): (14, late + 2 * M + 3 * M + 1 * M + 4 * M),
        ("compute", 0): (1, barrier_r0 - barrier_r1)})
    return out


def threads_case(pt, trace):
    out = run([pt, "report", "--csv", trace])
    waits = {r[:4]: (int(r[4]), int(r[5])) for r in csv_rows(out, "wait_state")}
    check("thread wait states", waits, {
        ("lock_wait", "0", "0", "main/pthread_mutex_lock"): (1, 101001000 - 5000000),
        ("cond_wait", "0", "0", "main/pthread_cond_wait"): (1, 150002000 - 102000000),
        # thread 1 (49.001 ms), and 1 us for thread 2, which had ended
        ("join_wait", "0", "0", "main/pthread_join"): (2, 200001000 - 151000000 + 1000),
        ("wait_at_barrier", "0", "2", "worker/pthread_barrier_wait"): (1, 190000000 - 152000000),
    })
    path = {(r[0], r[1]): int(r[2]) for r in csv_rows(out, "critical_path")}
    check("thread critical path", path, {
        ("hold_lock", "0"): 101000500 - 1000000,
        ("compute", "0"): 190000000 - 101001000,
        ("worker", "0"): (1000000 - 1500) + 500 + (199900000 - 190000000),
        ("(no traced function)", "0"): 100000 + 1000,
        ("main", "0"): 1500 + 3000 + 1000,
    })
    j = json.loads(run([pt, "report", "--json", trace]))
    causes = {(w["pattern"], w["thread"]): w["cause"] and (w["cause"]["thread"],
                                                            w["cause"]["function"])
              for w in j["wait_states"]}
    check("thread causes", causes, {
        ("lock_wait", 0): (1, "hold_lock"),  # the holder and its function
        ("cond_wait", 0): (2, "signal_done"),  # the signalling thread
        ("join_wait", 0): (1, "compute"),
        ("wait_at_barrier", 2): (1, "compute"),
    })
    text = run([pt, "report", trace])
    if "lock_wait          0      0      1    96.0ms  main/pthread_mutex_lock     0.1 hold_lock" \
            not in text:
        sys.exit("FAIL: the text report does not name the holder:\n" + text)
    return out


def gpu_case(pt, trace, want_waits, want_path, want_causes, want_cost):
    out = run([pt, "report", "--csv", trace])
    waits = {r[:4]: (int(r[4]), int(r[5])) for r in csv_rows(out, "wait_state")}
    check("GPU wait states", waits, want_waits)
    path = {(r[0], r[1]): int(r[2]) for r in csv_rows(out, "critical_path")}
    check("GPU critical path", path, want_path)
    j = json.loads(run([pt, "report", "--json", trace]))
    causes = {w["call_path"]: (w["cause"]["rank"], w["cause"]["thread"], w["cause"]["gpu"],
                               w["cause"]["function"], w["cause"]["time_ns"])
              for w in j["wait_states"]}
    check("GPU causes", causes, want_causes)
    cost = {(c["function"], c["gpu"]): (c["instances"], c["delay_ns"]) for c in j["wait_causes"]}
    check("GPU delay cost", cost, want_cost)
    return out


def cuda_case(pt, trace):
    axpy, scale = "axpy(float*, float*, float)", "scale(float*)"
    out = gpu_case(pt, trace, {
        # until axpy ended; the last device sync found nothing running
        ("gpu_sync_wait", "0", "0", "main/cudaDeviceSynchronize"): (1, 41010000 - 2000000),
        # its own copy, not scale on the other stream
        ("gpu_sync_wait", "0", "0", "main/cudaMemcpy"): (1, 51995000 - 42000000),
        # no stream named: the work that ended before it returned
        ("gpu_sync_wait", "0", "0", "main/cudaStreamSynchronize"): (1, 61600000 - 53000000),
    }, {
        # the end of main back to scale's end, scale, its launch; axpy's
        # end to that launch, axpy, its launch (the driver call's
        # correlation), and main before it
        ("main", "0"): (62100000 - 61600000) + (41500000 - 41010000) + 1000000,
        ("(no traced function)", "0"): 100000 + 100000 + 10000,
        (scale, "0"): 20000000,
        (axpy, "0"): 40000000,
    }, {
        "main/cudaDeviceSynchronize": (0, None, "GPU-D0.S7", axpy, 39010000),
        "main/cudaMemcpy": (0, None, "GPU-D0.S7", "memcpy DtoH", 9995000),
        "main/cudaStreamSynchronize": (0, None, "GPU-D0.S13", scale, 8600000),
    }, {
        (axpy, "GPU-D0.S7"): (1, 39010000), ("memcpy DtoH", "GPU-D0.S7"): (1, 9995000),
        (scale, "GPU-D0.S13"): (1, 8600000)})
    text = run([pt, "report", trace])
    for line in ("gpu_sync_wait      0      0      1    39.0ms  main/cudaDeviceSynchronize  "
                 "0.GPU-D0.S7 axpy(float*,",
                 "axpy(float*, float*, float) on GPU-D0.S7    0    gpu      1    39.0ms"):
        if line not in text:
            sys.exit("FAIL: the text report does not say %r:\n%s" % (line, text))
    return out


def ocl_case(pt, trace):
    return gpu_case(pt, trace, {
        ("gpu_sync_wait", "0", "0", "main/clFinish"): (1, 31050000 - 2000000),
        ("gpu_sync_wait", "0", "0", "main/clEnqueueReadBuffer"): (1, 34010000 - 32000000),
        ("gpu_sync_wait", "0", "0", "main/clWaitForEvents"): (1, 51600000 - 35000000),
    }, {
        ("main", "0"): (52000000 - 51600000) + 1500000,
        ("(no traced function)", "0"): 100000 + 100000,
        ("blur", "0"): 50000000,
    }, {
        # the queue it names: vecadd, not blur on CQ2
        "main/clFinish": (0, None, "OpenCL-CPU0-CQ1", "vecadd", 29050000),
        "main/clEnqueueReadBuffer": (0, None, "OpenCL-CPU0-CQ1", "memcpy DtoH", 2010000),
        "main/clWaitForEvents": (0, None, "OpenCL-CPU0-CQ2", "blur", 16600000),
    }, {
        ("vecadd", "OpenCL-CPU0-CQ1"): (1, 29050000),
        ("memcpy DtoH", "OpenCL-CPU0-CQ1"): (1, 2010000),
        ("blur", "OpenCL-CPU0-CQ2"): (1, 16600000)})


# what analyze --waits says under the trace's name
SUMMARY = {
    "waits_mpi": ["Wait states: late_sender 399.7ms (rank 0), wait_at_barrier 300.0ms (rank 1),",
                  "Critical path: 713.1ms: compute 710.4ms (99.6%)"],
    "waits_threads": ["Wait states: lock_wait 96.0ms (rank 0), join_wait 49.0ms (rank 0)",
                      "Critical path: 200.0ms: hold_lock 100.0ms (50.0%)"],
    "waits_gpu_cuda": ["Wait states: gpu_sync_wait 57.6ms (rank 0)\n",
                       "Critical path: 62.2ms: axpy(float*, float*, float) 40.0ms (64.3%), "
                       "scale(float*) 20.0ms (32.2%), main 1.99ms (3.2%)"],
    "waits_gpu_ocl": ["Wait states: gpu_sync_wait 47.7ms (rank 0)\n",
                      "Critical path: 52.1ms: blur 50.0ms (96.0%), main 1.90ms (3.6%)"],
}
PATTERNS = ["late_sender", "late_receiver", "wait_at_barrier", "wait_at_nxn",
            "late_broadcast", "early_reduce", "lock_wait", "cond_wait", "join_wait",
            "gpu_sync_wait"]


def prv_spans(prv, etype):
    """{(task, thread, value): total ns} of the intervals of each value of
    etype on each row (from a non-zero value to the next value)."""
    spans, open_ = {}, {}
    with open(prv) as f:
        for line in f:
            p = line.strip().split(":")
            if p[0] != "2":
                continue
            row, t = (int(p[3]), int(p[4])), int(p[5])
            ev = dict(zip(map(int, p[6::2]), map(int, p[7::2])))
            if etype not in ev:
                continue
            if row in open_:
                v, since = open_.pop(row)
                spans[row + (v,)] = spans.get(row + (v,), 0) + t - since
            if ev[etype]:
                open_[row] = (ev[etype], t)
    if open_:
        sys.exit("FAIL: %s: %d values of %d never ended" % (prv, len(open_), etype))
    return spans


def analyze_waits(pt, trace, work, report_csv, summary):
    here = os.path.dirname(os.path.abspath(__file__))
    outs = []
    for j in ("1", "2"):
        name = os.path.join(work, os.path.basename(trace) + "-j" + j)
        stdout = run([pt, "analyze", "--waits", "--no-profile", "-j", j, "-o", name, trace])
        for line in summary:
            if line not in stdout:
                sys.exit("FAIL: analyze --waits does not say %r:\n%s" % (line, stdout))
        r = subprocess.run([sys.executable, os.path.join(here, "prv_check.py"), name + ".prv"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            sys.exit("FAIL: %s.prv:\n%s" % (name, r.stdout))
        with open(name + ".prv") as f:
            outs.append(f.read().split("\n", 1)[1])
    check(os.path.basename(trace) + ": analyze --waits -j1 and -j2 bodies", outs[0] == outs[1], True)
    prv = name + ".prv"
    got = {}
    for (task, thread, v), ns in prv_spans(prv, 69000000).items():
        key = (PATTERNS[v - 1], str(task - 1), str(thread - 1))
        got[key] = got.get(key, 0) + ns
    want = {}
    for r in csv_rows(report_csv, "wait_state"):
        want[r[:3]] = want.get(r[:3], 0) + int(r[5])
    check(os.path.basename(trace) + ": 69000000 time per pattern and thread", got, want)
    path = sum(csv_rows_sum(report_csv))
    check(os.path.basename(trace) + ": 69000010 spans the critical path",
          sum(prv_spans(prv, 69000010).values()), path)
    plain = os.path.join(work, os.path.basename(trace) + "-plain")
    run([pt, "analyze", "--no-profile", "-o", plain, trace])
    with open(plain + ".prv") as f:
        if ":6900" in f.read():
            sys.exit("FAIL: wait-state events without --waits")


def html_data(pt, trace, work):
    """report --html embeds the section's JSON (its own element, #waits)
    and the profile's: both the same as report --json's."""
    page = os.path.join(work, os.path.basename(trace) + ".html")
    run([pt, "report", "--html", "-q", "-o", page, trace])
    src = open(page, encoding="utf-8").read()
    want = json.loads(run([pt, "report", "--json", trace]))
    for id_ in ("waits", "profile"):
        m = re.search(r'<script type="application/json" id="%s">\n(.*?)</script>' % id_, src, re.S)
        if not m:
            sys.exit("FAIL: no #%s data in %s" % (id_, page))
        got = json.loads(m.group(1))
        for k in ("wait_states", "wait_causes", "critical_path"):
            check("%s: #%s %s" % (page, id_, k), got.get(k), want[k])
    if 'id="s-waits"' not in src:
        sys.exit("FAIL: no wait-state section in %s" % page)


def dist_same(pt, mpirun, trace, work):
    one = os.path.join(work, os.path.basename(trace) + "-one")
    dist = os.path.join(work, os.path.basename(trace) + "-dist")
    said = run([pt, "analyze", "--waits", "-o", one, trace])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    r = subprocess.run([mpirun, "--oversubscribe", "--bind-to", "none", "-np", "2", pt, "analyze",
                        "--waits", "-o", dist, trace], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode:
        sys.exit("FAIL: analyze under mpirun: status %d\n%s" % (r.returncode, r.stdout))
    for ext in (".prv", ".pcf", ".row"):
        with open(one + ext, "rb") as f, open(dist + ext, "rb") as g:
            if f.read() != g.read():
                sys.exit("FAIL: %s%s differs under mpirun" % (dist, ext))
    lines = [[x for x in s.splitlines() if x.startswith(("Wait states", "Critical path"))]
             for s in (said, r.stdout)]
    check(os.path.basename(trace) + ": the summary under mpirun", lines[1], lines[0])


def csv_rows_sum(text):
    return [int(r[2]) for r in csv_rows(text, "critical_path")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--ptgen", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpirun")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    for case, fn in (("waits_mpi", mpi_case), ("waits_threads", threads_case),
                     ("waits_gpu_cuda", cuda_case), ("waits_gpu_ocl", ocl_case)):
        trace = os.path.join(a.work, case)
        run([a.ptgen, "--out", trace, "--scenario", "script", "--script",
             os.path.join(a.cases, case + ".trace")])
        out = fn(a.paratrace, trace)
        one = run([a.paratrace, "report", "--csv", "-j", "1", trace])
        check(case + ": -j1 and -j2", csv_rows(one, "wait_state") + csv_rows(one, "critical_path"),
              csv_rows(out, "wait_state") + csv_rows(out, "critical_path"))
        if a.mpirun:
            dist_same(a.paratrace, a.mpirun, trace, a.work)
            continue
        analyze_waits(a.paratrace, trace, a.work, out, SUMMARY[case])
        html_data(a.paratrace, trace, a.work)
    print("wait states: OK")


if __name__ == "__main__":
    main()
