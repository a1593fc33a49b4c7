#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end OpenCL test on PoCL: run ocl_two_queues under libtrace.so,
read the trace back with `paratrace dump` (and `paratrace analyze` when it
writes GPU rows) and check it against what the program says it did:

- every kernel launch is in the dump once, and its execution is in the GPU
  log of the queue it was enqueued on (two kernels, two queues);
- device intervals never overlap on an in-order queue, and each starts
  after its enqueue call began;
- each buffer command has its device record with the right direction/bytes;
- every host API call has its end;
- in the .prv, each queue row (named OpenCL-...-CQ<n> in the .row) has one
  Running state per kernel launched on that queue.

PoCL builds kernels by running /usr/bin/ld, which inherits LD_PRELOAD; a
fresh POCL_CACHE_DIR makes every run go through that path, so the children
are traced too and must not disturb the program or the trace.
"""
import argparse
import collections
import os
import signal
import subprocess
import sys

from gpu_testlib import fresh

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def parse_fields(rest):
    """key=value tokens; name= runs to the end of the line."""
    out = {}
    i = rest.find(" name=")
    if rest.startswith("name="):
        i = -1
        out["name"] = rest[5:]
        rest = ""
    elif i >= 0:
        out["name"] = rest[i + 6:]
        rest = rest[:i]
    for tok in rest.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


def load_dump(paratrace, trace):
    r = subprocess.run([paratrace, "dump", trace], capture_output=True, text=True)
    check(r.returncode == 0, "paratrace dump failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    recs = []
    stream = None  # GPU log being printed (files are dumped one after the other)
    for line in r.stdout.splitlines():
        parts = line.split(" ", 4)
        if len(parts) < 4:
            continue
        t, pid, tid, kind = int(parts[0]), int(parts[1]), int(parts[2]), parts[3]
        f = parse_fields(parts[4] if len(parts) > 4 else "")
        if kind == "GPU_STREAM_DEF":
            stream = (pid, int(f["stream"], 16))
        elif tid != 0 or kind not in ("GPU_KERNEL", "GPU_MEMCPY", "GPU_MEMSET", "TIME", "LOST", "CLOSE"):
            stream = None
        recs.append(dict(t=t, pid=pid, tid=tid, kind=kind, f=f, stream=stream))
    return recs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("-n", type=int, default=12)
    ap.add_argument("--no-prv", action="store_true", help="skip the Paraver checks")
    ap.add_argument("--threads", action="store_true", help="launch on the second queue from a second thread")
    ap.add_argument("--crash", action="store_true",
                    help="the program ends with SIGSEGV while OpenCL is in use: same checks, plus the signal")
    a = ap.parse_args()

    fresh(a.dir)
    trace = os.path.join(a.dir, "trace")
    env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace,
               POCL_CACHE_DIR=os.path.join(a.dir, "pocl-cache"))
    args = [a.prog, str(a.n)] + (["threads"] if a.threads else []) + (["crash"] if a.crash else [])
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    if a.crash:
        if r.returncode != -signal.SIGSEGV:
            print("expected the program to die of SIGSEGV under the preload, got %d:\n%s%s" %
                  (r.returncode, r.stdout, r.stderr))
            return 1
    elif r.returncode != 0:
        print("program failed under the preload (%d):\n%s%s" % (r.returncode, r.stdout, r.stderr))
        return 1
    warnings = [l for l in r.stderr.splitlines() if l.startswith("paratrace")]
    check(not warnings, "runtime warnings: %s" % warnings)
    said = {}
    for line in r.stdout.splitlines():
        k, v = line.split()
        said[k] = int(v)

    recs = load_dump(a.paratrace, trace)
    launch_pids = {x["pid"] for x in recs if x["kind"] == "GPU_LAUNCH"}
    check(len(launch_pids) == 1, "expected one process with launches, got %s" % launch_pids)
    pid = launch_pids.pop() if launch_pids else None
    recs = [x for x in recs if x["pid"] == pid]

    begins = {}
    ends = {}
    for x in recs:
        if x["kind"] == "GPU_API_BEGIN":
            c = int(x["f"]["corr"])
            check(c not in begins, "correlation %d begun twice" % c)
            begins[c] = x
        elif x["kind"] == "GPU_API_END":
            ends[int(x["f"]["corr"])] = x
    check(set(begins) == set(ends), "API calls without an end: %s" % (set(begins) ^ set(ends)))

    launches = [x for x in recs if x["kind"] == "GPU_LAUNCH"]
    by_name = collections.Counter(x["f"].get("name") for x in launches)
    check(by_name["add_one"] == said["launches_add_one"],
          "add_one launches: dump %d, program %d" % (by_name["add_one"], said["launches_add_one"]))
    check(by_name["twice"] == said["launches_twice"],
          "twice launches: dump %d, program %d" % (by_name["twice"], said["launches_twice"]))

    device = collections.defaultdict(list)  # corr -> device records
    streams = collections.defaultdict(list)
    stream_flags = {}
    for x in recs:
        if x["kind"] == "GPU_STREAM_DEF":
            stream_flags[x["stream"]] = x["f"].get("flags", "")
        if x["kind"] in ("GPU_KERNEL", "GPU_MEMCPY", "GPU_MEMSET"):
            check(x["stream"] is not None, "device record outside a GPU log: %s" % x)
            device[int(x["f"]["corr"])].append(x)
            streams[x["stream"]].append(x)
    check(len(stream_flags) == 2, "expected 2 queue logs, got %d" % len(stream_flags))

    queue_of = collections.defaultdict(set)
    for l in launches:
        c = int(l["f"]["corr"])
        ks = [d for d in device[c] if d["kind"] == "GPU_KERNEL"]
        if not check(len(ks) == 1, "launch corr=%d (%s): %d executions" % (c, l["f"].get("name"), len(ks))):
            continue
        k = ks[0]
        check(k["stream"] == (pid, int(l["f"]["stream"], 16)),
              "launch corr=%d on stream %s ran on %s" % (c, l["f"]["stream"], k["stream"]))
        check(k["f"].get("name") == l["f"].get("name"), "corr=%d: kernel name differs" % c)
        queue_of[l["f"].get("name")].add(k["stream"])
    check(len(queue_of["add_one"]) == 1 and len(queue_of["twice"]) == 1
          and queue_of["add_one"] != queue_of["twice"],
          "each kernel on its own queue: %s" % dict(queue_of))

    # device records: after their enqueue began, disjoint per in-order queue
    for c, ds in device.items():
        b = begins.get(c)
        if not check(b is not None, "device record corr=%d without a host call" % c):
            continue
        for d in ds:
            s, e = int(d["f"]["start"]), int(d["f"]["end"])
            check(s >= b["t"], "corr=%d starts %d ns before its enqueue" % (c, b["t"] - s))
            check(e >= s, "corr=%d ends before it starts" % c)
    for st, ds in streams.items():
        check("in_order" in stream_flags.get(st, ""), "queue %s not in order" % (st,))
        iv = sorted((int(d["f"]["start"]), int(d["f"]["end"]), d["f"]["corr"]) for d in ds)
        for (s0, e0, c0), (s1, e1, c1) in zip(iv, iv[1:]):
            check(s1 >= e0, "queue %s: corr=%s [%d,%d] overlaps corr=%s [%d,%d]" %
                  (st, c0, s0, e0, c1, s1, e1))

    # buffer commands: one device record each, direction and bytes
    want = {"clEnqueueWriteBuffer": ("GPU_MEMCPY", "htod", 4096, "writes"),
            "clEnqueueFillBuffer": ("GPU_MEMSET", "memset", 4096, "fills"),
            "clEnqueueCopyBuffer": ("GPU_MEMCPY", "dtod", 4096, "copies"),
            "clEnqueueReadBuffer": ("GPU_MEMCPY", "dtoh", 4096, "reads"),
            "clEnqueueMapBuffer": ("GPU_MEMCPY", "dtoh", 4096, "maps"),
            "clEnqueueUnmapMemObject": ("GPU_MEMCPY", "htod", 0, "unmaps")}
    for fn, (kind, direction, nbytes, key) in want.items():
        calls = [c for c, b in begins.items() if b["f"].get("name") == fn]
        check(len(calls) == said[key], "%s: %d calls traced, program made %d" % (fn, len(calls), said[key]))
        for c in calls:
            ds = device[c]
            if not check(len(ds) == 1, "%s corr=%d: %d device records" % (fn, c, len(ds))):
                continue
            d = ds[0]
            check(d["kind"] == kind and d["f"]["dir"] == direction and int(d["f"]["bytes"]) == nbytes,
                  "%s corr=%d: got %s dir=%s bytes=%s" % (fn, c, d["kind"], d["f"]["dir"], d["f"]["bytes"]))
    syncs = collections.Counter(b["f"].get("name") for b in begins.values() if "sync" in b["f"].get("flags", ""))
    check(syncs["clFinish"] == 5 and syncs["clWaitForEvents"] == said["with_event"] + 1,
          "sync calls: %s" % dict(syncs))

    if a.crash:
        # One per delivery: PoCL's LLVM installs its own SIGSEGV handler,
        # which restores the previous one and lets the fault happen again.
        sigs = [x for x in recs if x["kind"] == "SIGNAL"]
        check(sigs and all(x["f"].get("signo") == "11" for x in sigs), "SIGNAL records: %s" % sigs)
        exits = [x for x in recs if x["kind"] == "EXIT"]
        check(len(exits) == 1 and exits[0]["f"].get("how") == "signal", "EXIT records: %s" % exits)
    if not a.no_prv:
        check_prv(a, trace, pid, by_name)
        check_timeline(a, trace, by_name)
    if not a.crash:
        check_gpu_off(a, env)

    for m in failures:
        print("FAIL:", m)
    if not failures:
        print("ok: %d launches, %d device records on %d queues" %
              (len(launches), sum(len(v) for v in streams.values()), len(streams)))
    return 1 if failures else 0


def check_gpu_off(a, env):
    """PARATRACE_GPU=0: the program runs the same (it checks its own queue
    properties and results) and no GPU record is written."""
    trace = os.path.join(a.dir, "trace-gpu-off")
    env = dict(env, PARATRACE_DIR=trace, PARATRACE_GPU="0")
    r = subprocess.run([a.prog, "4"], env=env, capture_output=True, text=True, timeout=120)
    if not check(r.returncode == 0, "PARATRACE_GPU=0: program failed (%d): %s" % (r.returncode, r.stderr)):
        return
    recs = load_dump(a.paratrace, trace)
    gpu = [x["kind"] for x in recs if x["kind"].startswith("GPU_")]
    check(not gpu, "PARATRACE_GPU=0 still wrote %d GPU records" % len(gpu))
    check(any(x["kind"] == "THREAD_START" for x in recs), "PARATRACE_GPU=0: host not traced")


def check_timeline(a, trace, by_name):
    """export --format perfetto / chrome: each queue's track has one kernel
    slice per launch on it (named after the kernel), the copies as transfer
    slices, and a flow from every launch to its kernel."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
    import perfetto_read
    pf = os.path.join(a.dir, "ocl.pftrace")
    r = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, "export perfetto failed: %s" % r.stderr[-2000:]):
        return
    problems, tracks, slices = perfetto_read.check(perfetto_read.read(pf))
    check(not problems, "perfetto: %s" % problems[:5])
    queues = [u for u, t in tracks.items() if t["name"] and t["name"].startswith("GPU stream")]
    check(len(queues) == 2, "perfetto: %d GPU stream tracks" % len(queues))
    kernels = collections.Counter()
    ends = set()
    for u in queues:
        for name, b, e, ev in slices.get(u, []):
            if ev["categories"] == ["kernel"]:
                kernels[(u, name)] += 1
                ends.update(ev["terminating"])
                check(e >= b, "kernel slice ends before it begins")
    per_queue = sorted(kernels.values())
    check(per_queue == sorted([by_name["add_one"], by_name["twice"]]) and
          {n for _, n in kernels} == {"add_one", "twice"}, "perfetto kernel slices %s" % dict(kernels))
    launches = set()
    for sl in slices.values():
        for name, b, e, ev in sl:
            if name.startswith("launch "):
                launches.update(ev["flows"])
    check(len(launches) == by_name["add_one"] + by_name["twice"] and ends == launches,
          "perfetto launch flows: %d sources, %d ending at kernels" % (len(launches), len(ends & launches)))
    js = os.path.join(a.dir, "ocl.json")
    r = subprocess.run([a.paratrace, "export", "--format", "chrome", "-q", "-o", js, trace],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, "export chrome failed: %s" % r.stderr[-2000:]):
        return
    import json
    ev = json.load(open(js))["traceEvents"]
    ks = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
    check(len(ks) == by_name["add_one"] + by_name["twice"], "chrome kernel slices %d" % len(ks))
    s_ids = {e["id"] for e in ev if e.get("ph") == "s" and e.get("name") == "GPU launch"}
    f_ids = {e["id"] for e in ev if e.get("ph") == "f" and e.get("name") == "GPU launch"}
    check(s_ids == launches and f_ids == launches, "chrome launch flows differ from perfetto's")


def check_prv(a, trace, pid, by_name):
    """Queue rows in the Paraver trace: one Running state per launch."""
    out = os.path.join(a.dir, "ocl")
    r = subprocess.run([a.paratrace, "analyze", trace, "-o", out, "--quiet"], capture_output=True, text=True)
    if not check(r.returncode == 0, "paratrace analyze failed: %s" % r.stderr[-2000:]):
        return
    # the analyzer's structural checker (the rules of docs/ANALYZER.md: sorted, states
    # not overlapping, every type and value named in the .pcf, ...)
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "prv_check.py")
    if os.path.exists(checker):
        v = subprocess.run([sys.executable, checker, out + ".prv"], capture_output=True, text=True)
        check(v.returncode == 0, "prv_check.py: %s%s" % (v.stdout, v.stderr))
    rows = open(out + ".row").read().splitlines()
    names = []
    i = 0
    while i < len(rows):
        if rows[i].startswith("LEVEL THREAD SIZE"):
            n = int(rows[i].split()[-1])
            names = rows[i + 1:i + 1 + n]
            break
        i += 1
    queue_rows = [k for k, nm in enumerate(names, 1) if nm.startswith("OpenCL-") and "-CQ" in nm]
    check(len(queue_rows) == 2, "expected 2 OpenCL queue rows in the .row, got %s" % names)
    running = collections.Counter()
    links = collections.Counter()  # receiving row of launch -> execution links (tag 3)
    for line in open(out + ".prv"):
        p = line.split(":")
        if p[0] == "1" and p[7].strip() == "1":
            running[int(p[1])] += 1  # one CPU per row
        elif p[0] == "3" and p[-1].strip() == "3":
            links[int(p[7])] += 1
            # sent when the enqueue call began; the device may start before it returns
            check(int(p[11]) >= int(p[5]), "launch link received before it was sent: %s" % line.strip())
    total = sum(running[r] for r in queue_rows)
    check(total == by_name["add_one"] + by_name["twice"],
          "Running states on queue rows: %d, launches %d" % (total, by_name["add_one"] + by_name["twice"]))
    check(sorted(running[r] for r in queue_rows) == sorted([by_name["add_one"], by_name["twice"]]),
          "per queue Running states %s" % [running[r] for r in queue_rows])
    check(all(links[r] == running[r] for r in queue_rows) and sum(links.values()) == total,
          "launch links per queue row %s, Running states %s" % (dict(links), dict(running)))


if __name__ == "__main__":
    sys.exit(main())
