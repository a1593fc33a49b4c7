#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command-line tool on a real 2-rank MPI trace (mpi_pingpong under
mpirun, libtrace.so preloaded). Usage:

  test_mpi_cli.py --mpirun M --lib libtrace.so --paratrace P --prog mpi_pingpong
                  --work DIR [--build B --cmake C --libdir D] CASE

CASE:
  commands  analyze, report (text, --json, --csv, --html), export (chrome,
            perfetto), plot and dump each exit 0 with nothing from a
            sanitizer on stderr (the ASan+UBSan tree runs this one: a rank
            with no message ended its shard with an empty list once, a
            memcpy from NULL); analyze names mpi.cfg to open the trace
  clock     one damaged word in an MPI_CLOCK record of a process log: the
            upper half of rank 0's clock reading in rank 0's first point
            (to 0x7fffffff: 292 years), or 2^32 ns added to the one in
            rank 1's last point (4.3 s: a drift no two clocks have). Each
            is refused as damaged data: exit 1, the file and the record's
            offset on stderr, and the rest analyzed as before (the same
            duration, every rank there)
  html      report --html in headless Chromium: the MPI section, one row
            per rank with the messages and bytes the ranks say they sent,
            the calls table, the totals line; mpi_report's JSON in the page
  plugin    `mpirun -np 2 paratrace analyze` with no paratrace-mpi.so beside
            the executable: exit 1, and the message names the target to
            build (paratrace_mpi)
  targets   the README's first command builds the targets instrument, trace
            and paratrace only: with paratrace-mpi.so removed, building the
            target paratrace builds it again, and `mpirun -np 2 paratrace
            analyze` works (needs --build, --cmake; run alone)
"""
import argparse
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plot"))
from check import FAILS, expect, fail  # noqa: E402
from check_mpi import mpi_env  # noqa: E402

MPI_CLOCK = 0x72
SANITIZER = re.compile(r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")


def run(args, rc=0, timeout=300):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=mpi_env(), timeout=timeout)
    if rc is not None and p.returncode != rc:
        fail("%s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (" ".join(args), p.returncode, rc, p.stdout[-2000:], p.stderr[-3000:]))
    expect(not SANITIZER.search(p.stderr), "%s: a sanitizer spoke:\n%s"
           % (" ".join(args), p.stderr[-3000:]))
    return p


def trace(a, name, exchanges=20):
    """A 2-rank trace of mpi_pingpong; (its directory, what the ranks said)."""
    d = os.path.join(a.work, name)
    shutil.rmtree(d, ignore_errors=True)
    p = run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", "2", "env",
             "LD_PRELOAD=" + a.lib, "PARATRACE_DIR=" + d, a.prog, str(exchanges), "64"])
    sent = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 5 and f[:2] == ["expect", "sent"]:
            sent[int(f[2])] = (int(f[3]), int(f[4]))
    expect(sorted(sent) == [0, 1], "the ranks did not say what they sent: %r" % p.stdout)
    return d, sent


def duration(prv):
    """The .prv header's duration (ns)."""
    with open(prv) as f:
        m = re.match(r"#Paraver \([^)]*\):(\d+)_ns", f.readline())
    return int(m.group(1)) if m else -1


def case_commands(a):
    d, _ = trace(a, "commands")
    out = os.path.join(a.work, "commands-out")
    p = run([a.paratrace, "analyze", d, "-o", out])
    expect(re.search(r"wxparaver \S+\.prv \S+/mpi\.cfg", p.stdout) is not None,
           "analyze of an MPI trace does not name mpi.cfg: %r" % p.stdout)
    p = run([a.paratrace, "report", d])
    expect("MPI time by rank" in p.stdout, "no MPI section in the report")
    for fmt in ("--json", "--csv"):
        run([a.paratrace, "report", fmt, d])
    run([a.paratrace, "report", "--html", "-q", "-o", out + ".html", d])
    run([a.paratrace, "export", "--format", "chrome", "-o", out + ".json", d])
    run([a.paratrace, "export", "--format", "perfetto", "-o", out + ".pftrace", d])
    run([a.paratrace, "plot", "-o", out + ".svg", d])
    run([a.paratrace, "dump", d])


def clock_records(path):
    """Offsets of the MPI_CLOCK records of a process log, in file order."""
    b = open(path, "rb").read()
    off, found = struct.unpack_from("<H", b, 12)[0], []
    while off + 8 <= len(b) and b[off]:
        size = struct.unpack_from("<H", b, off + 2)[0] * 8
        if size == 0:
            break
        if b[off] == MPI_CLOCK:
            found.append(off)
        off += size
    return found


def damage(path, which, change):
    """change(ref_hi) -> the new upper half of the rank 0 clock reading
    (ref_ns) of the which-th MPI_CLOCK record; the record's offset."""
    recs = clock_records(path)
    expect(len(recs) == 2, "%s: %d MPI_CLOCK records, expected 2" % (path, len(recs)))
    off = recs[which]
    b = bytearray(open(path, "rb").read())
    # head 8 bytes, then local_ns, ref_ns (its upper half at +20), rtt_ns, rounds
    hi = struct.unpack_from("<I", b, off + 20)[0]
    struct.pack_into("<I", b, off + 20, change(hi))
    with open(path, "wb") as f:
        f.write(b)
    return off


def case_clock(a):
    d, _ = trace(a, "clock")
    good = os.path.join(a.work, "clock-good")
    run([a.paratrace, "analyze", "--no-profile", d, "-o", good])
    want = duration(good + ".prv")
    expect(want > 0, "no duration in %s.prv" % good)
    for name, rank, which, change in (("rank0-init", 0, 0, lambda hi: 0x7fffffff),
                                      ("rank1-final", 1, 1, lambda hi: hi + 1)):
        bad = os.path.join(a.work, "clock-" + name)
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(d, bad)
        logs = glob.glob(os.path.join(bad, "*-r%d" % rank, "process.ptl"))
        expect(len(logs) == 1, "rank %d's process log: %r" % (rank, logs))
        if len(logs) != 1:
            continue
        off = damage(logs[0], which, change)
        out = bad + "-out"
        p = run([a.paratrace, "analyze", "--no-profile", bad, "-o", out], rc=1)
        said = "%s: offset %d: damaged MPI clock point" % (logs[0], off)
        expect(said in p.stderr, "%s: stderr does not say %r: %r" % (name, said, p.stderr))
        got = duration(out + ".prv")
        # rank 0's points both say offset 0; rank 1 keeps its first point
        # (the drift between two points is microseconds in a run this long)
        expect(abs(got - want) < 1000000, "%s: the .prv lasts %d ns, %d ns undamaged"
               % (name, got, want))
        with open(out + ".row") as f:
            expect(len(re.findall(r"rank [01] ", f.read())) == 2, "%s: both ranks in the .row" % name)
        p = run([a.paratrace, "report", bad], rc=1)
        expect("MPI time by rank" in p.stdout, "%s: no MPI section in the report" % name)


def case_html(a):
    import test_html  # tests/plot: headless Chromium
    if not (os.path.isfile(a.chromium) and os.access(a.chromium, os.X_OK)):
        fail("%s is not there: scripts/deps.sh installs Debian's chromium" % a.chromium)
        return
    d, sent = trace(a, "html", 30)
    page = os.path.join(a.work, "report.html")
    run([a.paratrace, "report", "--html", "-q", "-o", page, d])
    src = open(page, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="mpi">\n(.*?)</script>', src, re.S)
    expect(m is not None, "no MPI data in the page")
    data = json.loads(m.group(1)) if m else {"by_rank": [], "by_call": []}
    for r in data["by_rank"]:
        expect((r["msgs_sent"], r["bytes_sent"]) == sent.get(r["rank"]),
               "rank %d sent %d messages, %d bytes; it says %r"
               % (r["rank"], r["msgs_sent"], r["bytes_sent"], sent.get(r["rank"])))
        expect(0 < r["mpi_ns"] < r["thread_ns"], "rank %d: time in MPI %r" % (r["rank"], r))
    dom = test_html.load(a, "file://" + os.path.abspath(page))
    expect(dom.find("body", data_ready="1") is not None, "the page's script did not finish")
    nav = dom.find("a", href="#s-mpi")
    expect(nav is not None, "no link to the MPI section")
    ranks = dom.find("table", id="mpi-ranks")
    expect(ranks is not None, "no table of ranks")
    if ranks is not None:
        heads = [th.all_text() for th in ranks.find("thead").iter("th")]
        for h in ("in MPI", "calls", "messages sent", "bytes sent", "messages received",
                  "late sender"):
            expect(h in heads, "no column %r in %r" % (h, heads))
        col = {h: i for i, h in enumerate(heads)}
        rows = {}
        if "rank" in col and "messages sent" in col:
            rows = {int(r): int(n) for r, n in zip(test_html.column(ranks, col["rank"]),
                                                   test_html.column(ranks, col["messages sent"]))}
        expect(sorted(rows) == [0, 1], "rows of the ranks table: %r" % rows)
        for r, msgs in rows.items():
            expect(sent.get(r, (None,))[0] == msgs, "rank %d: %d messages sent in the page, "
                   "it says %r" % (r, msgs, sent.get(r)))
    calls = dom.find("table", id="mpi-calls")
    expect(calls is not None and "MPI_Send" in test_html.column(calls, 0),
           "MPI_Send not in the calls table")
    summary = dom.find("p", id="mpi-summary")
    expect(summary is not None and summary.all_text().startswith("2 ranks on 1 host;"),
           "MPI summary: %r" % (summary and summary.all_text()))


def case_plugin(a):
    d, _ = trace(a, "plugin", 5)
    bindir = os.path.join(a.work, "lonely", "bin")
    shutil.rmtree(os.path.dirname(bindir), ignore_errors=True)
    os.makedirs(bindir)
    exe = os.path.join(bindir, "paratrace")
    shutil.copy2(a.paratrace, exe)
    if os.path.exists(os.path.join(a.libdir, "paratrace-mpi.so")):
        print("paratrace-mpi.so is installed in %s: nothing missing to test" % a.libdir)
        return
    p = run([a.mpirun, "--oversubscribe", "-np", "2", exe, "analyze", d, "-o",
             os.path.join(a.work, "plugin-out")], rc=None)
    expect(p.returncode != 0, "analyze without its MPI plugin exited 0")
    expect("cannot load its MPI plugin" in p.stderr and "--target paratrace_mpi" in p.stderr,
           "the message does not name the target to build: %r" % p.stderr)


def case_targets(a):
    plugin = os.path.join(a.build, "lib", "paratrace-mpi.so")
    aside = plugin + ".aside"
    expect(os.path.exists(plugin), "no %s to start with" % plugin)
    os.replace(plugin, aside)
    try:
        run([a.cmake, "--build", a.build, "--target", "paratrace"])
        expect(os.path.exists(plugin), "building the target paratrace did not build %s" % plugin)
    finally:
        if not os.path.exists(plugin):
            os.replace(aside, plugin)
        elif os.path.exists(aside):
            os.unlink(aside)
    d, _ = trace(a, "targets", 5)
    out = os.path.join(a.work, "targets-out")
    run([a.mpirun, "--oversubscribe", "-np", "2", a.paratrace, "analyze", d, "-o", out])
    expect(os.path.exists(out + ".prv"), "mpirun -np 2 paratrace analyze wrote no .prv")


def main():
    ap = argparse.ArgumentParser()
    for k in ("mpirun", "lib", "paratrace", "prog", "work"):
        ap.add_argument("--" + k, required=True)
    for k in ("build", "cmake"):
        ap.add_argument("--" + k)
    ap.add_argument("--libdir", default="/usr/local/lib")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("case", choices=("commands", "clock", "html", "plugin", "targets"))
    a = ap.parse_args()
    a.work = os.path.join(a.work, a.case)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    globals()["case_" + a.case](a)
    if FAILS:
        print("%d failures" % len(FAILS), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
