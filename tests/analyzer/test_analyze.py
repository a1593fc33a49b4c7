#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of `paratrace analyze` on synthetic logs (ptgen).

Usage: test_analyze.py PARATRACE PTGEN WORKDIR CASE
CASE: known | gz | jobs | corrupt | badinput | report | chrome | perfetto | tool | interval | many
      | replace
(tool: the example tool's path in $PT_EXAMPLE_TOOL)

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
import perfetto_read  # noqa: E402
from testlib import FAILS, expect, fail, run, valid as checked  # noqa: E402

PARATRACE, PTGEN, WORK, CASE = sys.argv[1:5]
T, N, S, W, H = 3, 20, 1000000, 20000, 5000


def gen(name, *extra):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    run([PTGEN, "--out", d, "--scenario", "known", "--threads", str(T), "--calls", str(N),
         "--sleep-ns", str(S), "--wait-ns", str(W), "--hold-ns", str(H)] + list(extra))
    return d


def case_known():
    d = gen("known", "--fork")
    out = os.path.join(WORK, "known")
    run([PARATRACE, "analyze", "-q", "-j2", "-o", out, d])
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
    # states: each worker waits N*W ns for the mutex, less 1 ns per wait: its
    # request shares a time with sleep_fixed's exit, and in the .prv a tie
    # moves the later event and the state that begins there by 1 ns
    # (docs/ANALYZER.md); the main thread waits in joins
    for th in range(2, T + 2):
        st = s["states"].get("1.1.%d" % th, {})
        expect(st.get("5") == N * (W - 1),
               "worker 1.1.%d sync time %s, expected %d" % (th, st.get("5"), N * (W - 1)))
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
    with open(t3, "rb") as f:
        data = f.read()
    # the first LOCK_REQUEST (kind 17, mutex, 16 bytes, on ptgen's mutex
    # 0x601000) past the middle: a record start, whatever the records
    # before it; its first byte becomes one no record starts with
    # (0xa0: the compact flag with a kind that has no compact form)
    req = b"\x11\x01\x02\x00"
    bad = len(data) // 2 // 8 * 8
    while not (data[bad:bad + 4] == req and data[bad + 8:bad + 16] == (0x601000).to_bytes(8, "little")):
        bad += 8
        expect(bad < len(data), "no LOCK_REQUEST in the second half of %s" % t3)
    with open(t3, "r+b") as f:
        f.seek(bad)
        f.write(b"\xa0\xee\x00\x00\x00\x00\x00\x00")
    out = os.path.join(WORK, "corrupt")
    p = run([PARATRACE, "analyze", "-q", "-o", out, d], rc=1)
    expect("t7002.ptl" in p.stderr and "offset" in p.stderr, "truncation warning names file and offset: %r" % p.stderr)
    expect("t7003.ptl: offset %d" % bad in p.stderr, "corruption warning names file and offset %d: %r" % (bad, p.stderr))
    s = checked(out + ".prv")
    # every thread is there, and the good part of the damaged logs converted
    expect(s["threads"] == T + 1, "threads %d" % s["threads"])
    ok = s["states"].get("1.1.2", {}).get("5")
    expect(ok == N * (W - 1), "undamaged worker sync time %s" % ok)  # (ties: see case_known)
    for th in ("1.1.3", "1.1.4"):
        part = s["states"].get(th, {}).get("5", 0)
        expect(0 < part < N * (W - 1), "damaged worker %s kept part of its waits (%s)" % (th, part))


def case_badinput():
    empty = os.path.join(WORK, "empty")
    shutil.rmtree(empty, ignore_errors=True)
    os.makedirs(empty)
    p = run([PARATRACE, "analyze", "-q", empty], rc=None)
    expect(p.returncode != 0 and "paratrace" in p.stderr and empty in p.stderr,
           "empty dir: rc %d, %r" % (p.returncode, p.stderr))
    p = run([PARATRACE, "export", "--format", "svg", empty], rc=2)
    expect("unknown format 'svg' (chrome, perfetto or otf2)" in p.stderr,
           "export --format svg: %r" % p.stderr)
    p = run([PARATRACE, "export", empty], rc=2)
    expect("--format chrome, --format perfetto or --format otf2 is required" in p.stderr,
           "export without --format: %r" % p.stderr)
    # the help, the refusals and the default names come from one table
    h = run([PARATRACE, "export", "--help"]).stdout
    expect("--format chrome|perfetto|otf2 " in h and "perfetto: Perfetto's protobuf" in h
           and "(default: TRACE_DIR.json, TRACE_DIR.pftrace or TRACE_DIR-otf2)" in h,
           "export --help: %r" % h)
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


def case_report():
    """Profile numbers from the known timings, in JSON, CSV and text."""
    d = gen("report")
    p = run([PARATRACE, "report", "--json", d])
    r = json.loads(p.stdout)
    f = {x["name"]: x for x in r["functions"]}
    sl = f.get("sleep_fixed", {})
    expect(sl.get("calls") == T * N, "sleep_fixed calls %s" % sl.get("calls"))
    expect(sl.get("incl_ns") == T * N * S and sl.get("incl_mean_ns") == S and sl.get("incl_max_ns") == S,
           "sleep_fixed inclusive %s" % sl)
    expect(sl.get("excl_ns") == T * N * S, "sleep_fixed exclusive %s" % sl.get("excl_ns"))
    wk = f.get("work", {})
    expect(wk.get("calls") == T * N, "work calls %s" % wk.get("calls"))
    expect(wk.get("incl_mean_ns") == S + W + H + 100, "work inclusive mean %s" % wk.get("incl_mean_ns"))
    expect(wk.get("excl_mean_ns") == W + H + 100, "work exclusive mean %s" % wk.get("excl_mean_ns"))
    wm = f.get("worker_main(void*)", {})
    expect(wm.get("calls") == T, "worker_main (demangled) calls %s" % wm.get("calls"))
    expect(wm.get("excl_ns") == T * N * 100, "worker_main exclusive %s" % wm.get("excl_ns"))
    locks = r["locks"]
    expect(len(locks) == 1, "locks %s" % locks)
    if locks:
        lk = locks[0]
        expect(lk["kind"] == "mutex" and lk["address"] == "0x601000", "lock %s" % lk)
        expect(lk["acquisitions"] == T * N and lk["contended"] == T * N, "acquisitions %s" % lk)
        expect(lk["wait_ns"] == T * N * W and lk["wait_max_ns"] == W, "lock wait %s" % lk)
        expect(lk["top_waiter"] == "work", "lock waited in %s" % lk["top_waiter"])
    th = r["threads"]
    expect(len(th) == T + 1, "threads %d" % len(th))
    life = N * (S + W + H + 200)
    for t in th[1:]:
        expect(t["lifetime_ns"] == life, "worker lifetime %s, expected %d" % (t["lifetime_ns"], life))
        expect(t["wait_lock_ns"] == N * W, "worker lock wait %s" % t["wait_lock_ns"])
        expect(t["running_ns"] == life - N * W, "worker running %s" % t["running_ns"])
    expect(th[0]["wait_join_ns"] > 0, "main waits in joins")
    # CSV: the same numbers
    p = run([PARATRACE, "report", "--csv", d])
    rows = [l.split(",") for l in p.stdout.splitlines() if l.startswith("function,")]
    sl = [r for r in rows if r[1] == '"sleep_fixed"']
    expect(len(sl) == 1 and int(sl[0][4]) == T * N and int(sl[0][5]) == T * N * S, "csv sleep_fixed %s" % sl)
    # text: fits 100 columns
    p = run([PARATRACE, "report", d])
    wide = [l for l in p.stdout.splitlines() if len(l) > 100]
    expect(not wide, "text lines wider than 100 columns: %r" % wide[:2])
    expect("sleep_fixed" in p.stdout and "Locks by wait time" in p.stdout, "text report sections")


def case_chrome():
    d = gen("chrome", "--fork")
    out = os.path.join(WORK, "chrome.json")
    run([PARATRACE, "export", "--format", "chrome", "-q", "-o", out, d])
    p = subprocess.run([sys.executable, "-m", "json.tool", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    expect(p.returncode == 0, "json.tool rejects the export: %s" % p.stderr[-300:])
    ev = json.load(open(out))["traceEvents"]
    names = {(e.get("args") or {}).get("name") for e in ev if e.get("name") == "thread_name"}
    expect(len(names) == T + 2, "thread names %s" % names)
    # nesting per thread: every B closed by an E, never below zero
    depth = {}
    slices = {}
    for e in ev:
        key = (e.get("pid"), e.get("tid"))
        if e["ph"] == "B":
            depth[key] = depth.get(key, 0) + 1
            slices[e["name"]] = slices.get(e["name"], 0) + 1
        elif e["ph"] == "E":
            depth[key] = depth.get(key, 0) - 1
            expect(depth[key] >= 0, "E without B on %s" % (key,))
    expect(all(v == 0 for v in depth.values()), "unclosed slices %s" % depth)
    expect(slices.get("sleep_fixed") == T * N and slices.get("work") == T * N, "slices %s" % slices)
    waits = [e for e in ev if e["ph"] == "X" and e.get("cat") == "wait" and e["name"] == "wait mutex"]
    expect(len(waits) == T * N and all(abs(float(w["dur"]) - W / 1000) < 1e-6 for w in waits),
           "lock wait slices: %d" % len(waits))
    starts = {e["id"] for e in ev if e["ph"] == "s"}
    ends = {e["id"] for e in ev if e["ph"] == "f"}
    expect(len(starts) == T + 1 and starts == ends, "flows: starts %s ends %s" % (starts, ends))


def case_perfetto():
    """The protobuf export holds what the JSON one holds (case_chrome's
    checks), follows Perfetto's sequence and interning rules, and is smaller."""
    d = gen("perfetto", "--fork")
    out = os.path.join(WORK, "perfetto.pftrace")
    js = os.path.join(WORK, "perfetto.json")
    run([PARATRACE, "export", "--format", "perfetto", "-q", "-o", out, d])
    run([PARATRACE, "export", "--format", "chrome", "-q", "-o", js, d])
    try:
        packets = perfetto_read.read(out)
    except ValueError as e:
        fail("not a valid protobuf stream: %s" % e)
        return
    problems, tracks, slices = perfetto_read.check(packets)
    for m in problems:
        fail("perfetto: " + m)
    threads = {t["thread"]["tid"]: t for t in tracks.values() if t["thread"]}
    procs = [t for t in tracks.values() if t["process"]]
    expect(len(threads) == T + 2 and len(procs) == 2, "tracks: %d threads, %d processes" % (len(threads), len(procs)))
    expect(all(t["parent"] in tracks and tracks[t["parent"]]["process"]["pid"] == t["thread"]["pid"]
               for t in threads.values()), "thread tracks under their process")
    count = {}
    for sl in slices.values():
        for name, *_ in sl:
            count[name] = count.get(name, 0) + 1
    expect(count.get("sleep_fixed") == T * N and count.get("work") == T * N, "slices %s" % count)
    waits = [(b, e, ev) for sl in slices.values() for n, b, e, ev in sl if n == "wait mutex"]
    expect(len(waits) == T * N and all(e - b == W and ev["categories"] == ["wait"]
                                       and ev["annotations"].get("object", "").startswith("0x")
                                       for b, e, ev in waits), "lock wait slices: %d" % len(waits))
    sources = [f for sl in slices.values() for *_, ev in sl for f in ev["flows"]]
    ends = [f for sl in slices.values() for *_, ev in sl for f in ev["terminating"]]
    expect(len(sources) == T + 1 and sorted(sources) == sorted(ends), "flows: %s -> %s" % (sources, ends))
    # the same flows as the JSON export
    ev = json.load(open(js))["traceEvents"]
    expect(sorted(e["id"] for e in ev if e["ph"] == "s") == sorted(sources), "flows differ from the JSON's")
    expect(os.path.getsize(out) * 2 < os.path.getsize(js),
           "protobuf %d bytes, JSON %d" % (os.path.getsize(out), os.path.getsize(js)))


def case_tool():
    """The example tool runs in the same pass as the Paraver writer."""
    tool = os.environ.get("PT_EXAMPLE_TOOL")
    d = gen("tool")
    out = os.path.join(WORK, "tool")
    p = run([PARATRACE, "analyze", "-o", out, "--tool", tool + ":top=2", d])
    calls = T * (1 + 2 * N) + 1
    line = [l for l in p.stdout.splitlines() if l.startswith("example tool:")]
    expect(len(line) == 1, "example tool output missing: %r" % p.stdout[-500:])
    if line:
        expect(("%d function calls, %d lock acquisitions in %d shards" % (calls, T * N, T + 1)) in line[0],
               "example tool counts: %r" % line[0])
    expect(("%10d  sleep_fixed" % (T * N)) in p.stdout, "example tool top list: %r" % p.stdout[-400:])
    checked(out + ".prv")
    p = run([PARATRACE, "analyze", "--tool", "/nonexistent/tool.so", d], rc=2)
    expect("nonexistent" in p.stderr, "bad --tool error: %r" % p.stderr)


def case_interval():
    d = gen("interval")
    # intervals of 10 ms over a ~N*(S+W+H+200) ns run
    p = run([PARATRACE, "report", "--interval-us", "10000", "--csv", d])
    rows = [l.split(",") for l in p.stdout.splitlines()
            if l and l[0].isdigit()]
    expect(len(rows) >= 2, "interval rows %r" % rows)
    acq = sum(int(r[6]) for r in rows)
    wait = sum(int(r[7]) for r in rows)
    calls = sum(int(r[5]) for r in rows)
    expect(acq == T * N, "acquisitions over all intervals %d" % acq)
    expect(wait >= T * N * W, "waits over all intervals %d" % wait)
    expect(calls == T * (1 + 2 * N) + 1, "calls over all intervals %d" % calls)
    for r in rows:
        expect(int(r[2]) - int(r[1]) == 10000000, "interval length %r" % r)
    # --json: one JSON document, the intervals one of its members
    p = run([PARATRACE, "report", "--interval-us", "10000", "--json", d])
    try:
        js = json.loads(p.stdout)
    except ValueError as e:
        expect(False, "report --json --interval-us is no JSON (%s): %r" % (e, p.stdout[:200]))
        return
    ivs = js.get("intervals", [])
    expect([[str(x[k]) for k in ("interval", "start_ns", "end_ns", "threads", "events", "calls",
                                 "lock_acquisitions", "wait_ns")] for x in ivs] == rows,
           "--json intervals %r, the CSV's %r" % (ivs, rows))


def case_many():
    """600 threads (1,201 temporary streams) under a 1,024 descriptor limit."""
    import resource
    d = os.path.join(WORK, "many")
    shutil.rmtree(d, ignore_errors=True)
    run([PTGEN, "--out", d, "--scenario", "bench", "--threads", "600", "--events", "300000"])
    out = os.path.join(WORK, "many")

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    p = subprocess.run([PARATRACE, "analyze", "-q", "-j2", "-o", out, d], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    expect(p.returncode == 0, "analyze with 600 threads under 1024 fds: %s" % p.stderr[-500:])
    s = checked(out + ".prv")
    expect(s["threads"] == 600, "threads %d" % s["threads"])


def case_threads():
    """Many short threads, one after the other (a server starting a thread
    per request): the analyzer keeps no buffer per finished thread, only
    a few hundred bytes of facts about it (its row, its header, where its
    lines wait for the merge), so its peak memory grows by far less than
    2 KB per thread. (The merge used to hold a 32 KB buffer per stream of
    a time range and a 2 KB index per stream: 1.16 GB for 100,000.)"""
    def peak_kb(n):
        d = os.path.join(WORK, "threads%d" % n)
        shutil.rmtree(d, ignore_errors=True)
        run([PTGEN, "--out", d, "--scenario", "threads", "--threads", str(n), "--calls", "2"])
        out = os.path.join(WORK, "threads%d" % n)
        p = subprocess.Popen([PARATRACE, "analyze", "-q", "-j2", "-o", out, d],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        err = p.stderr.read().decode()
        p.stderr.close()
        expect(os.waitstatus_to_exitcode(status) == 0, "analyze %d threads: %s" % (n, err[-500:]))
        s = checked(out + ".prv")
        expect(s["threads"] == n + 1, "threads %d, expected %d" % (s["threads"], n + 1))
        # handle_request (id 2) twice per thread, each a burst of its own
        expect(s["events"].get("60000019:2") == 2 * n,
               "handle_request entries %s" % s["events"].get("60000019:2"))
        tags = [c["tag"] for c in s["comms"]]
        expect(tags.count(1) == n, "thread creation links %d" % tags.count(1))
        return ru.ru_maxrss
    small, big = peak_kb(2000), peak_kb(20000)
    per_thread = (big - small) * 1024.0 / 18000
    print("peak memory: %d KB for 2,000 threads, %d KB for 20,000: %.0f bytes per thread"
          % (small, big, per_thread))
    expect(per_thread < 2048, "%.0f bytes of peak memory per thread" % per_thread)


def case_replace():
    """A run that fails leaves the previous trace as it was (the new files
    are written beside it and renamed into place only at the end)."""
    import resource
    import signal
    out = os.path.join(WORK, "out")
    small = gen("small")
    run([PARATRACE, "analyze", "-q", "-o", out, small])
    before = {ext: open(out + ext, "rb").read() for ext in (".prv", ".pcf", ".row")}
    big = os.path.join(WORK, "big")
    shutil.rmtree(big, ignore_errors=True)
    run([PTGEN, "--out", big, "--scenario", "bench", "--threads", "2", "--events", "200000"])

    def limit():  # the .prv (~8 MB) cannot be written; the temporary files (~1 MB) can
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))
    p = subprocess.run([PARATRACE, "analyze", "-q", "-o", out, big], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    expect(p.returncode != 0 and "too large" in p.stderr.lower(),
           "analyze past the file size limit: rc %d, %r" % (p.returncode, p.stderr[-500:]))
    for ext, data in before.items():
        expect(open(out + ext, "rb").read() == data, "%s changed by a failed run" % ext)
    left = [f for f in os.listdir(WORK) if f.startswith("out.prv.tmp-")]
    expect(not left, "temporary files left behind: %s" % left)
    run([PARATRACE, "analyze", "-q", "-o", out, big])
    expect(open(out + ".prv", "rb").read() != before[".prv"], "a good run did not replace the .prv")
    checked(out + ".prv")


CASES = {"known": case_known, "gz": case_gz, "jobs": case_jobs, "corrupt": case_corrupt,
         "badinput": case_badinput, "report": case_report, "chrome": case_chrome,
         "perfetto": case_perfetto,
         "tool": case_tool, "interval": case_interval, "many": case_many,
         "threads": case_threads, "replace": case_replace}



def main(cases):
    os.makedirs(WORK, exist_ok=True)
    cases[CASE]()
    if FAILS:
        sys.exit(1)
    print("ok: %s" % CASE)


if __name__ == "__main__":
    main(CASES)
