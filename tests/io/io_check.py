#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""File I/O and dynamic memory calls of io_prog.c, traced with the memory
family on: the program's output and files are the same as untraced (its
write to a bad descriptor fails with the same errno), and every output has
exactly its calls: `dump` (sizes asked and bytes moved, file names), the
.prv/.pcf of `analyze` (Extrae's types 40000004, 40000011, 40000059,
40000040/41/43), `report` as text, CSV and JSON, and the Perfetto export.
Then: PARATRACE_IO=off records none; a fork child names its own files; a
program killed in the middle of its writes keeps every write it completed;
a program with its own malloc runs as untraced."""
import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
import perfetto_read  # noqa: E402

N_RW, N_P, N_F, N_MEM, BLOCK = 1000, 10, 100, 10000, 4096
errors = []


def expect(cond, msg):
    if not cond:
        errors.append(msg)


def run(args, env=None, ok=(0,)):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode not in ok:
        sys.exit("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    return p


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def dump_records(paratrace, trace, kind):
    out = run([paratrace, "dump", trace]).stdout.splitlines()
    return [(l, fields(l)) for l in out if (" %s " % kind) in l + " "]


def calls_with_ends(paratrace, trace):
    """Every IO_CALL with its IO_END (same thread, next one), and the files."""
    out = run([paratrace, "dump", trace]).stdout.splitlines()
    files, open_, calls = {}, {}, []
    for l in out:
        parts = l.split()
        if len(parts) < 4:
            continue
        pid, tid, kind = parts[1], parts[2], parts[3]
        f = fields(l)
        if kind == "IO_FILE":
            files[(pid, f["file"])] = f.get("name", "")
        elif kind == "IO_CALL":
            open_[tid] = f
        elif kind == "IO_END" and tid in open_:
            c = open_.pop(tid)
            c["end"] = f
            c["pid"] = pid
            calls.append(c)
    for c in calls:
        fid = c["end"]["file"] if c["end"]["file"] != "0" else c["file"]
        c["name"] = files.get((c["pid"], fid), "")
    return calls


def check_calls(a, trace, work):
    calls = calls_with_ends(a.paratrace, trace)

    def on(call, suffix):
        return [c for c in calls if c["call"] == call and c["name"].endswith(suffix)]

    for call, suffix, n, size in (("write", "/data.bin", N_RW, BLOCK), ("read", "/data.bin", N_RW, BLOCK),
                                  ("pwrite", "/positioned.bin", N_P, 512),
                                  ("pread", "/positioned.bin", N_P, 512)):
        got = on(call, suffix)
        expect(len(got) == n, "dump: %d %s calls on %s, expected %d" % (len(got), call, suffix, n))
        expect(sum(int(c["size"]) for c in got) == n * size and
               sum(int(c["end"]["result"]) for c in got) == n * size,
               "dump: %s sizes %d, bytes %d, expected %d" %
               (call, sum(int(c["size"]) for c in got), sum(int(c["end"]["result"]) for c in got), n * size))
    fw = on("fwrite", "/stream.txt")
    expect(len(fw) == N_F and sum(int(c["end"]["result"]) for c in fw) == N_F * 9,
           "dump: %d fwrite calls on stream.txt moving %d bytes, expected %d and %d" %
           (len(fw), sum(int(c["end"]["result"]) for c in fw), N_F, N_F * 9))
    opens = [c for c in calls if c["call"] in ("open", "fopen")]
    names = sorted(os.path.basename(c["name"]) for c in opens)
    expect(names == ["data.bin", "data.bin", "positioned.bin", "stream.txt"],
           "dump: opens named %s" % names)
    bad = [c for c in calls if c["call"] == "write" and c["fd"] == "987"]
    expect(len(bad) == 1 and bad[0]["end"]["result"] == "-1" and bad[0]["end"]["errno"] == "9",
           "dump: the write to descriptor 987: %s" % bad)

    # memory: the 10,000 blocks of grow(), each freed
    allocs = dump_records(a.paratrace, trace, "MEM_ALLOC")
    frees = dump_records(a.paratrace, trace, "MEM_FREE")
    grown = [f for l, f in allocs if "grow" in l]
    expect(len(grown) == N_MEM, "dump: %d MEM_ALLOC from grow, expected %d" % (len(grown), N_MEM))
    expect(sum(int(f["size"]) for f in grown) == sum(16 + i % 64 for i in range(N_MEM)),
           "dump: grow's sizes sum to %d" % sum(int(f["size"]) for f in grown))
    freed = {f["ptr"] for _, f in frees}
    expect(all(f["ptr"] in freed for f in grown), "dump: a block of grow() was never freed")

    # .prv and .pcf: Extrae's types
    base = os.path.join(work, "io")
    run([a.paratrace, "analyze", "-q", "-o", base, trace])
    pcf = open(base + ".pcf").read()
    m = re.search(r"EVENT_TYPE\n0\s+40000059\s+I/O file name\nVALUES\n((?:\d+\s+.*\n)+)", pcf)
    labels = dict(re.findall(r"(\d+)\s+(.*)", m.group(1))) if m else {}
    data_v = [v for v, n in labels.items() if n.endswith("/data.bin")]
    expect(len(data_v) == 1, ".pcf: data.bin among the file names %s" % labels)
    writes = reads = wbytes = mallocs = 0
    in_data = None
    for line in open(base + ".prv"):
        f = line.rstrip("\n").split(":")
        if f[0] != "2":
            continue
        ev = dict(zip(f[6::2], f[7::2]))
        if ev.get("40000004") == "2" and data_v and ev.get("40000059") == data_v[0]:
            writes += 1
            wbytes += int(ev.get("40000011", 0))
        if ev.get("40000004") == "1" and data_v and ev.get("40000059") == data_v[0]:
            reads += 1
        if ev.get("40000040") == "1":
            mallocs += 1
    expect(writes == N_RW and wbytes == N_RW * BLOCK and reads == N_RW,
           ".prv: %d writes (%d bytes) and %d reads on data.bin" % (writes, wbytes, reads))
    expect(mallocs >= N_MEM, ".prv: %d mallocs" % mallocs)
    expect(re.search(r"\n12\s+I/O\n", pcf), ".pcf: no I/O state")

    # report: text names the file; CSV and JSON have its bytes
    text = run([a.paratrace, "report", trace]).stdout
    expect(re.search(r"\nFile I/O \(", text) and "data.bin" in text, "report: no I/O table\n" + text[-3000:])
    expect("\nDynamic memory\n" in text and re.search(r"\n +keep[.\w]* +97\.7 KiB +100 blocks\n", text),
           "report: no memory table naming keep at the peak\n" + text[-3000:])
    csv = run([a.paratrace, "report", "--csv", trace]).stdout
    row = [l for l in csv.splitlines() if l.startswith("io_file,") and "/data.bin" in l]
    expect(len(row) == 1 and row[0].split(",")[2:4] == [str(2 * N_RW + 4), str(N_RW)],
           "report --csv: data.bin row %s" % row)
    if row:
        cells = row[0].split(",")
        expect(cells[6:8] == [str(N_RW * BLOCK), str(N_RW * BLOCK)], "report --csv: data.bin bytes %s" % cells)
    site = [l for l in csv.splitlines() if l.startswith("memory_site,") and ",peak,\"keep" in l]
    expect(len(site) == 1 and site[0].split(",")[4:6] == ["100000", "100"],
           "report --csv: keep's blocks at the peak %s" % site)
    js = json.loads(run([a.paratrace, "report", "--json", trace]).stdout)
    files = {os.path.basename(f["file"]): f for f in js.get("io_files", [])}
    d = files.get("data.bin", {})
    expect(d.get("bytes_read") == N_RW * BLOCK and d.get("bytes_written") == N_RW * BLOCK,
           "report --json: data.bin %s" % d)
    procs = js.get("memory_processes", [])
    expect(len(procs) == 1 and procs[0]["allocations"] >= N_MEM and procs[0]["peak_bytes"] > 0,
           "report --json: memory %s" % procs)

    # report --html: its tables, filled by the page's script (where Chromium is)
    html = os.path.join(work, "io.html")
    run([a.paratrace, "report", "--html", "-o", html, trace])
    chromium = shutil.which("chromium")
    if chromium:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot"))
        import tempfile
        from browser import Browser
        with tempfile.TemporaryDirectory(prefix="pt-chromium-") as profile:
            b = Browser([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                         "--no-first-run", "--user-data-dir=" + profile])
            try:
                dom = b.dom("file://" + html)
            finally:
                b.close()
        for tid, want in (("io-files", "data.bin"), ("io-threads", "4.10 MB"),
                          ("mem-sites", "keep"), ("mem-processes", "allocated")):
            m = re.search(r'<table id="%s"[^>]*>(.*?)</table>' % tid, dom, re.S)
            expect(m and want in m.group(1), "report --html: table %s without %r" % (tid, want))
    else:
        print("no chromium: the HTML tables are not checked")

    # Perfetto: a slice per call
    pf = os.path.join(work, "io.pftrace")
    run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace])
    problems, tracks, slices = perfetto_read.check(perfetto_read.read(pf))
    for m in problems:
        expect(False, "perfetto: " + m)
    n_write = sum(1 for s in slices.values() for n, b, e, ev in s if n == "write")
    expect(n_write == N_RW + 1, "perfetto: %d write slices, expected %d" % (n_write, N_RW + 1))


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--lib", "--paratrace", "--prog", "--own-malloc", "--work"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    plain, traced = os.path.join(a.work, "plain"), os.path.join(a.work, "traced")
    for d in (plain, traced):
        os.makedirs(d)
    trace = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace, PARATRACE_MEMORY="1")
    env.pop("PARATRACE_IO", None)

    # the same output, files and errno as untraced
    p0 = run([a.prog, plain])
    p1 = run([a.prog, traced], env)
    expect(p0.stdout == p1.stdout and "errno 9" in p0.stdout,
           "output traced %r, untraced %r" % (p1.stdout, p0.stdout))
    for f in ("data.bin", "positioned.bin", "stream.txt"):
        expect(filecmp.cmp(os.path.join(plain, f), os.path.join(traced, f), shallow=False),
               "%s differs traced" % f)
    check_calls(a, trace, a.work)

    # PARATRACE_IO=off: no I/O record
    off = os.path.join(a.work, "off")
    run([a.prog, traced], dict(env, PARATRACE_DIR=off, PARATRACE_IO="off", PARATRACE_MEMORY="0"))
    expect(not dump_records(a.paratrace, off, "IO_CALL") and not dump_records(a.paratrace, off, "MEM_ALLOC"),
           "PARATRACE_IO=off still recorded I/O or memory calls")

    # fork: the child's writes, on its own file, named in its own process log
    ftrace = os.path.join(a.work, "fork")
    p = run([a.prog, traced, "fork"], dict(env, PARATRACE_DIR=ftrace))
    expect("fork child status 0" in p.stdout, "fork: %r" % p.stdout)
    calls = calls_with_ends(a.paratrace, ftrace)
    child = [c for c in calls if c["call"] == "write" and c["name"].endswith("data.bin.child")]
    parent = [c for c in calls if c["call"] == "write" and c["name"].endswith("/data.bin")]
    expect(len(child) == 10 and len(parent) == 10 and {c["pid"] for c in child} != {c["pid"] for c in parent},
           "fork: %d child writes, %d parent writes" % (len(child), len(parent)))

    # a crash in the middle of the writes: the same death, every write before it kept
    ctrace = os.path.join(a.work, "crash")
    c0 = run([a.prog, plain, "crash"], ok=(-11,))
    c1 = run([a.prog, traced, "crash"], dict(env, PARATRACE_DIR=ctrace), ok=(-11,))
    expect(c0.returncode == c1.returncode, "crash: exit %d traced, %d untraced" % (c1.returncode, c0.returncode))
    done = [c for c in calls_with_ends(a.paratrace, ctrace) if c["call"] == "write"]
    expect(len(done) == N_RW // 2, "crash: %d writes in the trace, expected %d" % (len(done), N_RW // 2))

    # a program with its own allocator: unchanged, and its I/O still traced
    otrace = os.path.join(a.work, "own")
    o0 = run([a.own_malloc, os.path.join(plain, "own.txt")])
    o1 = run([a.own_malloc, os.path.join(traced, "own.txt")], dict(env, PARATRACE_DIR=otrace))
    expect(o0.stdout == o1.stdout and "every call" in o0.stdout, "own malloc: %r vs %r" % (o1.stdout, o0.stdout))
    expect(filecmp.cmp(os.path.join(plain, "own.txt"), os.path.join(traced, "own.txt"), shallow=False),
           "own malloc: its file differs traced")
    expect(any(c["call"] == "fopen" for c in calls_with_ends(a.paratrace, otrace)),
           "own malloc: its fopen is not in the trace")

    for e in errors:
        print("FAIL: " + e)
    print("io and memory families: %s" % ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
