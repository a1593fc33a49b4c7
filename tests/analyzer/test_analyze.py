#!/usr/bin/env python3
"""End-to-end tests of `paratrace analyze` on synthetic logs (ptgen).

Usage: test_analyze.py PARATRACE PTGEN WORKDIR CASE
CASE: known | gz | jobs | corrupt | badinput

Expectations come from ptgen's `known` scenario (bench/analyzer/ptgen.c),
whose timings are fixed by construction: T workers, N iterations each of
sleep_fixed (S ns), a mutex wait of W ns held H ns.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prv_check  # noqa: E402

PARATRACE, PTGEN, WORK, CASE = sys.argv[1:5]
T, N, S, W, H = 3, 20, 1000000, 20000, 5000
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def expect(cond, msg):
    if not cond:
        fail(msg)


def run(args, rc=0):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if rc is not None and p.returncode != rc:
        fail("%s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (" ".join(args), p.returncode, rc, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def gen(name, *extra):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    run([PTGEN, "--out", d, "--scenario", "known", "--threads", str(T), "--calls", str(N),
         "--sleep-ns", str(S), "--wait-ns", str(W), "--hold-ns", str(H)] + list(extra))
    return d


def checked(prv):
    P, summary = prv_check.check(prv)
    for m in P.items:
        fail("prv_check %s: %s" % (prv, m))
    return summary


def case_known():
    d = gen("known", "--fork")
    out = os.path.join(WORK, "known")
    p = run([PARATRACE, "analyze", "-q", "-j2", "-o", out, d])
    s = checked(out + ".prv")
    expect(s["threads"] == T + 2, "threads: %d, expected %d" % (s["threads"], T + 2))
    ev = s["events"]
    # user functions: ids follow FUNC_DEF order (main=1, work=2, sleep_fixed=3, worker_main=4, child_task=5)
    expect(ev.get("60000019:3") == T * N, "sleep_fixed entries %s, expected %d" % (ev.get("60000019:3"), T * N))
    expect(ev.get("60000019:2") == T * N, "work entries %s" % ev.get("60000019:2"))
    expect(ev.get("60000019:5") == 1, "child_task entries %s" % ev.get("60000019:5"))
    enters = sum(v for k, v in ev.items() if k.startswith("60000019:") and k != "60000019:0")
    expect(ev.get("60000019:0") == enters, "exits %s != entries %d" % (ev.get("60000019:0"), enters))
    expect(ev.get("61000000:8") == T * N, "mutex lock events %s" % ev.get("61000000:8"))
    expect(ev.get("61000000:2") == T, "pthread_create events %s" % ev.get("61000000:2"))
    expect(sum(v for k, v in ev.items() if k.startswith("1000:")) == T * N, "user events")
    # states: each worker waits N*W ns for the mutex; the main thread waits in joins
    for th in range(2, T + 2):
        st = s["states"].get("1.1.%d" % th, {})
        expect(st.get("5") == N * W, "worker 1.1.%d sync time %s, expected %d" % (th, st.get("5"), N * W))
        expect(st.get("2") == 1000 * (th - 1) + 500, "worker 1.1.%d not-created time %s" % (th, st.get("2")))
    # thread creations (tag 1) from main to each worker, the fork (tag 2) to the child
    tags = sorted(c["tag"] for c in s["comms"])
    expect(tags == [1] * T + [2], "comm tags %s" % tags)
    for c in s["comms"]:
        expect(c["from"] == "1.1.1", "comm from %s" % c["from"])
        if c["tag"] == 2:
            expect(c["to"] == "1.2.1", "fork comm to %s" % c["to"])
    labels = s["thread_labels"]
    expect(labels[0].startswith("known pid 7000 tid 7000") and "main" in labels[0], "row label %r" % labels[0])
    expect(any("tid 7001" in lb for lb in labels), "row labels %r" % labels)
    expect(s["task_labels"] == ["known pid 7000", "known pid 7100"], "tasks %r" % s["task_labels"])
    pcf = open(out + ".pcf").read()
    expect("worker_main(void*) [known.c:30]" in pcf, "demangled name with file:line in .pcf")
    expect("1000    Phase" in pcf and "alpha" in pcf, "user event type and value names in .pcf")
    expect("mutex 0x601000 (pid 7000)" in pcf, "lock identity label in .pcf")


def case_gz():
    d = gen("gz")
    out = os.path.join(WORK, "gz")
    run([PARATRACE, "analyze", "-q", "--gz", "-o", out, d])
    s = checked(out + ".prv.gz")
    expect(s["events"].get("60000019:3") == T * N, "gz: sleep_fixed entries")
    with gzip.open(out + ".prv.gz", "rt") as f:
        expect(f.readline().startswith("#Paraver ("), "gz header")


def case_jobs():
    """-j1 and -j2 give byte-identical traces (ids and order do not depend on workers)."""
    d = os.path.join(WORK, "jobs")
    shutil.rmtree(d, ignore_errors=True)
    run([PTGEN, "--out", d, "--scenario", "bench", "--threads", "4", "--events", "400000"])
    outs = []
    for j in ("1", "2", "3"):
        o = os.path.join(WORK, "jobs-j" + j)
        run([PARATRACE, "analyze", "-q", "-j", j, "-o", o, d])
        outs.append(open(o + ".prv", "rb").read())
    s = checked(os.path.join(WORK, "jobs-j2.prv"))
    expect(outs[0] == outs[1] == outs[2], "-j1/-j2/-j3 traces differ")
    expect(s["records"] > 400000 // 2, "records %d" % s["records"])


def case_corrupt():
    d = gen("corrupt")
    # worker 7002's log: cut in the middle of a record; 7003's: garbage kind inside
    t2 = os.path.join(d, "p7000", "t7002.ptl")
    size = os.path.getsize(t2)
    with open(t2, "r+b") as f:
        f.truncate(size // 2 + 3)
    t3 = os.path.join(d, "p7000", "t7003.ptl")
    size3 = os.path.getsize(t3)
    bad = 256 + ((size3 - 256) // 2) // 8 * 8
    with open(t3, "r+b") as f:
        f.seek(bad)
        f.write(b"\xee\xee\x00\x00\x00\x00\x00\x00")
    out = os.path.join(WORK, "corrupt")
    p = run([PARATRACE, "analyze", "-q", "-o", out, d], rc=1)
    expect("t7002.ptl" in p.stderr and "offset" in p.stderr, "truncation warning names file and offset: %r" % p.stderr)
    expect("t7003.ptl: offset %d" % bad in p.stderr, "corruption warning names file and offset %d: %r" % (bad, p.stderr))
    s = checked(out + ".prv")
    # every thread is there, and the good part of the damaged logs converted
    expect(s["threads"] == T + 1, "threads %d" % s["threads"])
    ok = s["states"].get("1.1.2", {}).get("5")
    expect(ok == N * W, "undamaged worker sync time %s" % ok)
    for th in ("1.1.3", "1.1.4"):
        part = s["states"].get(th, {}).get("5", 0)
        expect(0 < part < N * W, "damaged worker %s kept part of its waits (%s)" % (th, part))


def case_badinput():
    empty = os.path.join(WORK, "empty")
    shutil.rmtree(empty, ignore_errors=True)
    os.makedirs(empty)
    p = run([PARATRACE, "analyze", "-q", empty], rc=None)
    expect(p.returncode != 0 and "paratrace" in p.stderr and empty in p.stderr,
           "empty dir: rc %d, %r" % (p.returncode, p.stderr))
    foreign = os.path.join(WORK, "foreign")
    shutil.rmtree(foreign, ignore_errors=True)
    os.makedirs(os.path.join(foreign, "p1"))
    with open(os.path.join(foreign, "p1", "t1.ptl"), "wb") as f:
        f.write(b"this is not a paratrace log at all" * 20)
    p = run([PARATRACE, "analyze", "-q", foreign], rc=None)
    expect(p.returncode != 0 and p.stderr.strip(), "foreign dir: rc %d, %r" % (p.returncode, p.stderr))
    newer = gen("newer", "--version-major", "9")
    p = run([PARATRACE, "analyze", "-q", newer], rc=None)
    expect(p.returncode != 0 and "version" in p.stderr, "newer version: rc %d, %r" % (p.returncode, p.stderr))
    p = run([PARATRACE, "analyze", "-j", "zero", newer], rc=2)


CASES = {"known": case_known, "gz": case_gz, "jobs": case_jobs, "corrupt": case_corrupt,
         "badinput": case_badinput}

if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    CASES[CASE]()
    if FAILS:
        sys.exit(1)
    print("ok: %s" % CASE)
