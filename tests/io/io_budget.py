#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The .prv's size budget on file I/O and dynamic memory calls (io_prog.c,
mode budget: 3 reads that wait ~20 ms, then ~2,100 short I/O calls and
~20,000 malloc and free calls, traced with the memory family on).

The budget treats a family's calls as it treats function calls
(docs/ANALYZER.md, "The size budget"): with a budget the whole trace does
not fit, the shortest are left out and summarised on the row's next line,
in the family's own types (I/O: 40000090 calls, 40000091 their time,
40000092/40000093 bytes read/written; memory: 40000094 calls,
40000095/40000096 bytes allocated/freed, and the live-bytes counter
40000081 as it stands after them). Checked against the --full output of
the same trace, per row:

  - the .prv fits the budget and Paraver's parser accepts it (prv_check);
  - with a budget 3% above that .prv's size, the .prv is within 5% under
    it (the budget's estimate of the family calls' lines is that close);
  - calls kept + calls the summaries count = every call, exactly, and the
    same for the bytes read, written, allocated and freed;
  - every call left out was shorter than every call kept (one threshold),
    and the long reads are all kept;
  - the I/O and memory states of the calls left out are gone, those of the
    calls kept stay;
  - the summaries' types are named in the .pcf; analyze says what it left
    out; the report's tables are those of the full output; -j1 writes the
    same files as -j2.

And the export's selection (--min-duration 10ms) on the I/O slices: those
of the calls that lasted 10 ms or more are written, the same as in the
full export, and the others are summarised in "I/O calls left out"
instants (Perfetto and Chrome) whose calls, ns, bytes read and bytes
written add up to those of the calls left out, exactly.

Usage: io_budget.py --lib libtrace.so --paratrace P --prog io_prog --work DIR
"""
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
import prv_check  # noqa: E402

errors = []
LONG_NS = 10_000_000  # the reads that wait for the child (20 ms each)
IO_LEFT, IO_LEFT_NS, IO_LEFT_READ, IO_LEFT_WRITTEN = "40000090", "40000091", "40000092", "40000093"
MEM_LEFT, MEM_LEFT_ALLOC, MEM_LEFT_FREED, MEM_LIVE = "40000094", "40000095", "40000096", "40000081"
READS = {1, 3, 5, 7, 9}  # pt_io_op of read, pread, readv, preadv, fread
WRITES = {2, 4, 6, 8, 10}


def expect(cond, msg):
    if not cond:
        errors.append(msg)


def run(args, env=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode:
        sys.exit("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    return p


def io_ops(pcf):
    """The 40000004 values that read and that write, by their .pcf labels."""
    m = re.search(r"EVENT_TYPE\n0\s+40000004\s+I/O call\nVALUES\n((?:\d+\s+.*\n)+)", pcf)
    labels = dict(re.findall(r"(\d+)\s+(\S+)", m.group(1))) if m else {}
    reads = {v for v, n in labels.items() if n in ("read", "pread", "readv", "preadv", "fread")}
    writes = {v for v, n in labels.items() if n in ("write", "pwrite", "writev", "pwritev", "fwrite")}
    return reads, writes


def rows(base):
    """Per row: its I/O and memory calls {begin: (kind, op, end, bytes...)},
    its summaries' sums, its I/O and memory state lines."""
    pcf = open(base + ".pcf").read()
    reads, writes = io_ops(pcf)
    out = {}
    opened = {}
    for line in open(base + ".prv"):
        f = line.rstrip("\n").split(":")
        if f[0] not in ("1", "2"):
            continue
        row = (f[3], f[4])
        r = out.setdefault(row, {"io": {}, "mem": {}, "left": {}, "live": None, "states": {}})
        if f[0] == "1":
            st = f[7]
            if st in ("12", "30", "31"):
                r["states"].setdefault(st, []).append(int(f[5]))
            continue
        t = int(f[5])
        ev = list(zip(f[6::2], f[7::2]))
        d = dict(ev)
        if d.get("40000004", "0") != "0":
            opened[row] = (t, d["40000004"])
        elif "40000004" in d and row in opened:
            b, op = opened.pop(row)
            moved = int(d.get("40000080", 0))
            r["io"][b] = (op, t, moved if op in reads else 0, moved if op in writes else 0)
        if d.get("40000040", "0") != "0":
            r["mem"][t] = [d["40000040"], int(d.get("40000041", 0)) if "40000043" in d else 0,
                           int(d.get("40000042", 0)), int(d.get("40000043", 0)), None]
            r["mem_open"] = t
        elif "40000040" in d and r.get("mem_open") is not None:
            r["mem"][r.pop("mem_open")][4] = t
        for k, v in ev:
            if k in (IO_LEFT, IO_LEFT_NS, IO_LEFT_READ, IO_LEFT_WRITTEN, MEM_LEFT, MEM_LEFT_ALLOC,
                     MEM_LEFT_FREED):
                r["left"][k] = r["left"].get(k, 0) + int(v)
        if MEM_LIVE in d:
            r["live"] = int(d[MEM_LIVE])
    return out


def freed_bytes(mem):
    """Per memory call (by its begin), the bytes of the blocks it freed that
    the row allocated (as the .prv's live counter counts them)."""
    live, freed = {}, {}
    for b in sorted(mem):
        op, size, inp, outp, _ = mem[b]
        freed[b] = live.pop(inp, 0) if inp else 0
        if outp:
            live[outp] = size
    return freed


def io_slices(pf):
    """Per thread track: its I/O slices [(name, begin, end)] in order, and
    its "I/O calls left out" instants' sums."""
    problems, tracks, slices = perfetto_read.check(perfetto_read.read(pf))
    for m in problems:
        expect(False, "perfetto %s: %s" % (os.path.basename(pf), m))
    io, left = {}, {}
    for uuid, sl in slices.items():
        tid = (tracks[uuid].get("thread") or {}).get("tid")
        for n, b, e, ev in sl:
            if "io" in ev["categories"]:
                io.setdefault(tid, []).append((n, b, e))
            elif n == "I/O calls left out":
                x = left.setdefault(tid, {})
                for k, v in ev["annotations"].items():
                    x[k] = x.get(k, 0) + v
    return {t: sorted(v, key=lambda c: c[1]) for t, v in io.items()}, left


def check_export(a, trace, full_prv):
    """--min-duration on the I/O slices of the export (Perfetto, Chrome)."""
    full, thin, js = (os.path.join(a.work, n) for n in ("full.pftrace", "thin.pftrace", "thin.json"))
    run([a.paratrace, "export", "-q", "--format", "perfetto", "-o", full, trace])
    for fmt, out in (("perfetto", thin), ("chrome", js)):
        run([a.paratrace, "export", "-q", "--format", fmt, "--min-duration", "10ms", "-o", out, trace])
    F, _ = io_slices(full)
    T, L = io_slices(thin)
    # the bytes of each call, from the .prv's row of the thread (.row: the
    # rows in order, each labelled with its tid), its calls in the same order
    labels = open(full_prv + ".row").read().split("LEVEL THREAD SIZE")[1].splitlines()[1:]
    tids = [int(re.search(r"tid (\d+)", l).group(1)) for l in labels if "tid " in l]
    prv = rows(full_prv)
    order = sorted(prv, key=lambda r: (int(r[0]), int(r[1])))
    expect(len(order) == len(tids), ".row: %d threads, the .prv %d rows" % (len(tids), len(order)))
    by_tid = {tid: [prv[r]["io"][b] for b in sorted(prv[r]["io"])] for tid, r in zip(tids, order)}
    n_kept = n_left = 0
    sums = {"calls": 0, "ns": 0, "bytes read": 0, "bytes written": 0}
    for tid, calls in F.items():
        keep = [c for c in calls if c[2] - c[1] >= LONG_NS]
        gone = [c for c in calls if c[2] - c[1] < LONG_NS]
        expect(T.get(tid, []) == keep, "export, thread %s: I/O slices kept %s, full output's %d ms or longer %s"
               % (tid, T.get(tid, [])[:5], LONG_NS // 1000000, keep[:5]))
        moved = by_tid.get(tid, [])
        expect(len(moved) == len(calls), "thread %s: %d I/O calls in the export, %d in the .prv"
               % (tid, len(calls), len(moved)))
        want = {"calls": len(gone), "ns": sum(e - b for _, b, e in gone),
                "bytes read": sum(m[2] for c, m in zip(calls, moved) if c[2] - c[1] < LONG_NS),
                "bytes written": sum(m[3] for c, m in zip(calls, moved) if c[2] - c[1] < LONG_NS)}
        got = {k: L.get(tid, {}).get(k, 0) for k in want}
        expect(got == want, "export, thread %s: I/O calls left out %s, expected %s" % (tid, got, want))
        for k in sums:
            sums[k] += want[k]
        n_kept += len(keep)
        n_left += len(gone)
    expect(n_kept >= 3 and n_left > 2000, "export: %d I/O slices kept, %d left out" % (n_kept, n_left))
    expect(not set(T) - set(F), "export: I/O slices on threads %s, not in the full output" % (set(T) - set(F)))
    # Chrome: the same instants, the same sums
    ev = json.load(open(js))["traceEvents"]
    got = {k: sum(e["args"][k] for e in ev if e.get("name") == "I/O calls left out") for k in sums}
    expect(got == sums, "chrome: I/O calls left out %s, expected %s" % (got, sums))
    kept = sum(1 for e in ev if e.get("cat") == "io")
    expect(kept == n_kept, "chrome: %d I/O slices, expected %d" % (kept, n_kept))


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--lib", "--paratrace", "--prog", "--work"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    files = os.path.join(a.work, "files")
    os.makedirs(files)
    trace = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace, PARATRACE_MEMORY="1")
    env.pop("PARATRACE_IO", None)
    p = run([a.prog, files, "budget"], env)
    expect("long reads done, child status 0" in p.stdout, "io_prog: %r" % p.stdout)

    def analyze(name, *opts, j="2"):
        out = os.path.join(a.work, name)
        p = run([a.paratrace, "analyze", "-j", j, "-o", out] + list(opts) + [trace])
        return out, p.stdout

    full, said_full = analyze("full", "--full")
    size = os.path.getsize(full + ".prv")
    fam = sum(len(l) for l in open(full + ".prv") if re.search(r":4000000[4]:|:4000004[0-3]:", l))
    expect(fam > size // 2, "I/O and memory lines %d of %d bytes: not the shape wanted" % (fam, size))
    # room for a thirtieth: the memory calls (1 ns each) go, and most I/O calls
    budget = size // 30
    thin, said = analyze("thin", "--budget", str(budget))
    print(said, end="")
    got = os.path.getsize(thin + ".prv")
    expect(got <= budget, ".prv of %d bytes over the budget %d" % (got, budget))
    # The estimate of what leaving calls out saves matches what is written:
    # with a budget just above a size the thinning can reach (the one
    # above), the .prv comes out within a few % under it, not at the next
    # threshold's far smaller size.
    near = got + got * 3 // 100
    near_out, _ = analyze("near", "--budget", str(near))
    got_near = os.path.getsize(near_out + ".prv")
    expect(near * 95 // 100 <= got_near <= near,
           "budget %d just above %d: a .prv of %d (%.1f%% of the budget)" %
           (near, got, got_near, 100.0 * got_near / near))
    for prv in (full, thin):
        P, _ = prv_check.check(prv + ".prv")
        for m in P.items:
            expect(False, "prv_check %s: %s" % (os.path.basename(prv), m))
    expect(re.search(r"\.prv budget \S+ \S+: I/O calls and dynamic memory calls shorter than \S+ \S+ "
                     r"left out \(([0-9.]+ ?k?) of ([0-9.]+ ?k?), summarised as their own events\); "
                     r"--full for everything", said), "what analyze said: %r" % said)
    pcf = open(thin + ".pcf").read()
    for t in (IO_LEFT, IO_LEFT_NS, IO_LEFT_READ, IO_LEFT_WRITTEN, MEM_LEFT, MEM_LEFT_ALLOC, MEM_LEFT_FREED):
        expect(re.search(r"\n[01]\s+%s\s+\S" % t, pcf), ".pcf: type %s not named" % t)

    F, T = rows(full), rows(thin)
    expect(set(F) == set(T), "rows %s and %s" % (sorted(F), sorted(T)))
    left_max, kept_min, n_left, n_long = 0, None, 0, 0
    for row in F:
        f, t = F[row], T.get(row, {"io": {}, "mem": {}, "left": {}, "states": {}, "live": None})
        L = t["left"]
        # every call kept is a call of the full output, unchanged
        for b, c in t["io"].items():
            expect(f["io"].get(b) == c, "row %s: I/O call at %d %s, full %s" % (row, b, c, f["io"].get(b)))
        for b, c in t["mem"].items():
            expect(b in f["mem"] and f["mem"][b][:4] == c[:4], "row %s: memory call at %d" % (row, b))
        # counts and bytes: kept + summarised = all
        io_gone = set(f["io"]) - set(t["io"])
        mem_gone = set(f["mem"]) - set(t["mem"])
        n_left += len(io_gone) + len(mem_gone)
        expect(L.get(IO_LEFT, 0) == len(io_gone),
               "row %s: %d I/O calls summarised, %d left out" % (row, L.get(IO_LEFT, 0), len(io_gone)))
        expect(L.get(IO_LEFT_READ, 0) == sum(f["io"][b][2] for b in io_gone) and
               L.get(IO_LEFT_WRITTEN, 0) == sum(f["io"][b][3] for b in io_gone),
               "row %s: bytes read/written summarised %d/%d, left out %d/%d" %
               (row, L.get(IO_LEFT_READ, 0), L.get(IO_LEFT_WRITTEN, 0),
                sum(f["io"][b][2] for b in io_gone), sum(f["io"][b][3] for b in io_gone)))
        expect(L.get(IO_LEFT_NS, 0) == sum(f["io"][b][1] - b for b in io_gone),
               "row %s: I/O time summarised %d, left out %d" %
               (row, L.get(IO_LEFT_NS, 0), sum(f["io"][b][1] - b for b in io_gone)))
        freed = freed_bytes(f["mem"])
        expect(L.get(MEM_LEFT, 0) == len(mem_gone),
               "row %s: %d memory calls summarised, %d left out" % (row, L.get(MEM_LEFT, 0), len(mem_gone)))
        expect(L.get(MEM_LEFT_ALLOC, 0) == sum(f["mem"][b][1] for b in mem_gone) and
               L.get(MEM_LEFT_FREED, 0) == sum(freed[b] for b in mem_gone),
               "row %s: bytes allocated/freed summarised %d/%d, left out %d/%d" %
               (row, L.get(MEM_LEFT_ALLOC, 0), L.get(MEM_LEFT_FREED, 0),
                sum(f["mem"][b][1] for b in mem_gone), sum(freed[b] for b in mem_gone)))
        expect(t["live"] == f["live"], "row %s: live bytes at the end %s, full %s" % (row, t["live"], f["live"]))
        # one threshold: every call left out shorter than every one kept
        durs = {b: c[1] - b for b, c in f["io"].items()}
        durs.update({("m", b): c[4] - b for b, c in f["mem"].items()})
        gone = set(io_gone) | {("m", b) for b in mem_gone}
        for k, d in durs.items():
            if k in gone:
                left_max = max(left_max, d)
            else:
                kept_min = d if kept_min is None else min(kept_min, d)
        for b, d in durs.items():
            if not isinstance(b, tuple) and d >= LONG_NS:
                # the pipe's 1-byte reads, and whatever else the machine's
                # load made as long
                n_long += f["io"][b][2] == 1
                expect(b in t["io"], "row %s: the long call at %d (%d ns) left out" % (row, b, d))
        # states: those of the calls kept, and only those
        for st, calls in (("12", t["io"]), ("30", None), ("31", None)):
            begins = t["states"].get(st, [])
            if calls is not None:
                expect(sorted(begins) == sorted(calls),
                       "row %s: %d I/O states for %d I/O calls kept" % (row, len(begins), len(calls)))
        nmem = len(t["states"].get("30", [])) + len(t["states"].get("31", []))
        expect(nmem == len(t["mem"]), "row %s: %d memory states for %d calls kept" % (row, nmem, len(t["mem"])))
    expect(n_long == 3, "%d long 1-byte reads in the full output, expected 3" % n_long)
    expect(n_left > 20000, "only %d calls left out" % n_left)
    io_kept = sum(len(T[r]["io"]) for r in T)
    io_all = sum(len(F[r]["io"]) for r in F)
    expect(3 <= io_kept < io_all // 2, "%d of %d I/O calls kept: the budget is not the one wanted" %
           (io_kept, io_all))
    expect(kept_min is not None and left_max < kept_min,
           "a call left out (%d ns) not shorter than one kept (%s ns)" % (left_max, kept_min))
    # the report's tables (what analyze prints after the .prv's lines) come
    # from the trace, not the .prv: the same with the budget
    tables = [x[x.find("\nProfile:"):] for x in (said_full, said)]
    expect("\nFile I/O (" in tables[0] and "\nDynamic memory\n" in tables[0],
           "analyze printed no I/O and memory tables: %r" % said_full)
    expect(tables[0] == tables[1], "the report's tables differ with the budget:\n%s\n%s" % tuple(tables))
    one, _ = analyze("thin-j1", "--budget", str(budget), j="1")
    for ext in (".prv", ".pcf", ".row"):
        expect(filecmp.cmp(thin + ext, one + ext, False), "-j1 and -j2: %s differs" % ext)
    check_export(a, trace, full)
    for e in errors:
        print("FAIL: " + e)
    print("the budget on I/O and memory calls: %s" % ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
