#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs an MPI program under mpirun (Open MPI's, or MPICH's mpiexec with
--launcher mpich) with libtrace.so preloaded into every rank, analyzes the trace and checks the Paraver trace against what the
ranks say they did ("expect" lines on stdout, mpitest.h):

  expect sent RANK MSGS BYTES         point-to-point messages RANK sent
  expect coll RANK CALLS SENT RECVD   collective calls and their bytes
  expect half RANK COLOR              the MPI_Comm_split half RANK is in
  expect pair FROM TO MSGS BYTES      messages from world rank FROM to TO
  expect ev RANK TYPE VALUE COUNT     Paraver events of RANK with that value
  expect call RANK NAME CALLS BYTES   calls of RANK and their bytes (report)
  expect rma RANK NAME TARGET         a one-sided call of RANK and the world
                                      rank it targets (the process log)
  expect comm RANK MEMBERS            a communicator RANK made: its members'
                                      world ranks in rank order, comma
                                      separated (an intercommunicator's:
                                      LOCAL|REMOTE), as its MPI_COMM_DEF in
                                      RANK's log lists them

Every mode checks the trace with prv_check.py, one Paraver task per rank in
rank order, and every message (communication with an MPI tag, >= 10):
its count and bytes per sender equal what the sender counted, and no
receive ends before its send begins. Modes:

  p2p       the line above (env LD_PRELOAD=... in the mpirun command), and
            the Extrae states --states names appear;
            in every complete run, also: the report's MPI section and the
            Chrome export's flows count the same ranks and messages
  p2p-x     the same with `mpirun -x LD_PRELOAD` and no PARATRACE_DIR:
            the ranks agree on the directory they derive
  coll      also collectives: calls, bytes given and got, communicators
            (ranks of one split half share one, the halves differ)
  threads   also: every rank's MPI calls come from several threads
  plugin    also: the program's functions are on the ranks' timelines
  exact     also the pair, ev, call, rma, comm and io lines, exactly ("expect io
            RANK CALLS READ WRITTEN": the report's MPI I/O table, and
            their sums the file I/O table's MPI-IO row, in text, CSV and
            JSON, with no byte of that file in a POSIX row; with --html-io
            in the HTML report's table too)
  failed    counted, and calls that returned an error ("expect error RANK
            CALL CLASS"): each is in its rank's log (MPI_ERROR) and in the
            report's table of errors, and nothing it would have moved is in
            the trace: the collectives' size events are the successful
            ones' ("expect coll RANK CALLS GIVEN GOT")
  untraced  ranks none of whose MPI calls reach the tracer ("expect untraced
            RANK WHY"): rank 0 alone warns once at its end, every rank's
            process log says why (MPI_UNTRACED), and the analysis warns,
            naming every rank and the cause
  spawn     jobs started by MPI_Comm_spawn(_multiple) ("expect world W RANK
            SIZE"), launched with `-x LD_PRELOAD` and no PARATRACE_DIR:
            one directory and one run, analyzed without --run; tasks by
            rank in the run (world 0's ranks, then each spawned world's,
            labelled with their world), and the messages of every (world,
            rank) pair ("expect wpair ...") matched, across the
            intercommunicators too
  counted   the independent counter (mpicount.c, --counter) is preloaded in
            front of libtrace.so: the messages and bytes per (sender,
            receiver) in the .prv, the receives it saw, the report's
            totals and per-call counts, and every rank's calls in the
            logs equal what it counted; the collectives' calls and bytes
            what the program counted, when it printed them
  clock     ranks 1 and 2 run with clocks shifted by known amounts
            (PARATRACE_TEST_CLOCK_OFFSET_NS): the synchronisation must
            measure them within 5 us, and the analyzer remove them
  clock-slow  the same, and at MPI_Finalize rank 1 answers every ping
            of the synchronisation 2 ms late, rank 2 its first 24
            (PARATRACE_TEST_MPI_SYNC_DELAY_NS): rank 2's exchange must
            go on until its round trips are short again, and the
            analyzer must not take rank 1's slow point for a drift
  killed    rank 1 kills itself: the other ranks' traces convert, the
            send it never received is counted unmatched
  missing   rank 2's folder is deleted before the analysis: the rest
            converts, its messages are counted unmatched, it is named
  twojobs   two jobs in one directory: refused without --run, each
            converted alone with --run
  dist      `mpirun -np M paratrace analyze` for M = 2, 3, 4 writes the
            bytes one process writes; with --gz too (M = 2, 3)
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zlib
from collections import defaultdict

MPI_TAG_MIN = 10
SHIFTS = {1: 50_000_000_000, 2: -1_000_000_000}  # ns, clock mode
SYNC_TOLERANCE_NS = 5000
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
SYNC_DELAY_NS = 2_000_000  # clock-slow: rank 1 always, rank 2 for its first 24 answers
DELAYS = {1: str(SYNC_DELAY_NS), 2: "%d:24" % SYNC_DELAY_NS}

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def mpi_env():
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")
    for k in ("PARATRACE_DIR", "LD_PRELOAD", "PARATRACE_TEST_CLOCK_OFFSET_NS",
              "PARATRACE_TEST_MPI_SYNC_DELAY_NS", "MPICOUNT_OUT"):
        env.pop(k, None)
    env.setdefault("OMP_NUM_THREADS", "2")
    # hwloc's OpenCL component, run by MPI_Init in every process, loads the
    # OpenCL platforms (PoCL and its LLVM) to list devices none of these runs
    # uses: 0.1-0.15 s of CPU per process (mpiexec.mpich -np 4 paratrace
    # analyze: 1.3 -> 0.85 s)
    env.setdefault("HWLOC_COMPONENTS", "-opencl")
    return env


def gzip_members(path):
    """The number of gzip members concatenated in the file at path."""
    data, n = open(path, "rb").read(), 0
    while data:
        z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        z.decompress(data)
        data, n = z.unused_data, n + 1
    return n


def run(cmd, cwd, timeout=120, check=True, log=None):
    p = subprocess.run(cmd, cwd=cwd, env=mpi_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if log:
        with open(log, "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + p.stdout + "\n--- stderr\n" + p.stderr)
    if check and p.returncode != 0:
        sys.exit("check_mpi: %s exited %d\n%s%s" % (cmd[0], p.returncode, p.stdout[-3000:],
                                                    p.stderr[-3000:]))
    return p


def launcher(a):
    """The launcher's command: Open MPI's mpirun, or MPICH's Hydra mpiexec
    (--launcher mpich), which needs no flags to oversubscribe or run as root."""
    if a.launcher == "mpich":
        return [a.mpirun]
    return [a.mpirun, "--oversubscribe", "--bind-to", "none"]


def launch(a, np, trace, prog, env_per_rank=None, use_x=False, preload=None, env=()):
    """mpirun command for np ranks of prog, every rank preloaded (libtrace.so, or
    the list preload), with env (NAME=VALUE...) set in each."""
    cmd = launcher(a)
    if use_x:
        if a.launcher == "mpich":
            return cmd + ["-np", str(np), "-genv", "LD_PRELOAD", a.lib] + prog
        return cmd + ["-np", str(np), "-x", "LD_PRELOAD=" + a.lib] + prog
    contexts = []
    for r in range(np):
        extra = (env_per_rank or {}).get(r)
        if contexts and not extra and not contexts[-1][1]:
            contexts[-1][0] += 1
        else:
            contexts.append([1, extra])
    for i, (n, extra) in enumerate(contexts):
        if i:
            cmd.append(":")
        cmd += ["-np", str(n), "env", "LD_PRELOAD=" + (preload or a.lib),
                "PARATRACE_DIR=" + trace] + list(env)
        if extra:
            cmd += ["%s=%s" % kv for kv in extra.items()]
        cmd += prog
    return cmd


def expects(stdout):
    out = defaultdict(dict)
    for line in stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == "expect" and f[1] in ("sent", "coll", "half"):
            out[f[1]][int(f[2])] = [int(x) for x in f[3:]]
    return out


def analyze(a, trace, name, extra=(), check=True):
    return run([a.paratrace, "analyze", trace, "-o", name] + list(extra), os.path.dirname(name),
               check=check, log=name + ".log")


class Prv:
    """What the tests need of a .prv: tasks by rank, messages, events."""

    def __init__(self, a, base):
        self.base = base
        summary = base + ".summary.json"
        # prv_check.py imported, not run: one Python start less per trace
        sys.path.insert(0, os.path.dirname(os.path.abspath(a.prv_check)))
        import prv_check
        sys.path.pop(0)
        P, _ = prv_check.check(base + ".prv", summary)
        if P.items:
            fail("prv_check: " + "\n".join("prv_check: %s.prv: %s" % (base, m) for m in P.items[:20])[:2000])
        with open(summary) as f:
            self.summary = json.load(f)
        self.task_rank = {}
        for i, label in enumerate(self.summary["task_labels"]):
            m = re.search(r" rank (\d+) ", label)
            self.task_rank[i + 1] = int(m.group(1)) if m else None
        self.msgs = []  # (from rank, to rank, lsend, psend, lrecv, precv, size, tag)
        self._events = None
        with open(base + ".prv") as f:
            next(f)
            for line in f:
                if line.startswith("3:"):
                    v = [int(x) for x in line.split(":")[1:]]
                    if v[13] >= MPI_TAG_MIN:
                        self.msgs.append((self.task_rank[v[2]], self.task_rank[v[8]], v[4], v[5],
                                          v[10], v[11], v[12], v[13]))

    @property
    def events(self):
        """task -> [(time, thread, [(type, value)...])], read at the first
        use: most modes need only the messages, and the events are most of
        a large .prv's lines (1.2 s of CPU in mpi_analyze_dist)."""
        if self._events is None:
            self._events = defaultdict(list)
            with open(self.base + ".prv") as f:
                next(f)
                for line in f:
                    if line.startswith("2:"):
                        v = [int(x) for x in line.split(":")[1:]]
                        pairs = list(zip(v[5::2], v[6::2]))
                        self._events[v[2]].append((v[4], v[3], pairs))
        return self._events

    def ranks(self):
        return [self.task_rank[t] for t in sorted(self.task_rank)]


def check_tasks(prv, want):
    if prv.ranks() != want:
        fail("tasks by rank: %s, expected %s" % (prv.ranks(), want))


def check_messages(prv, sent, skip=()):
    """Messages per sender equal what it counted; none received before sent."""
    got = defaultdict(lambda: [0, 0])
    for m in prv.msgs:
        got[m[0]][0] += 1
        got[m[0]][1] += m[6]
        if m[5] < m[3] or m[5] < m[2]:
            fail("message %d->%d tag %d received at %d before sent at %d" % (m[0], m[1], m[7],
                                                                             m[5], m[3]))
        if m[0] == m[1]:
            fail("message %d->%d within one task" % (m[0], m[1]))
    for rank, (n, b) in sorted(sent.items()):
        if rank in skip:
            continue
        if got[rank] != [n, b]:
            fail("rank %d: %s messages/bytes in the trace, the program sent %s" %
                 (rank, got[rank], [n, b]))
    print("messages: %d in the trace, %d counted by the program" %
          (len(prv.msgs), sum(v[0] for r, v in sent.items() if r not in skip)))


def summary_counts(log_text):
    m = re.search(r"MPI: (\d+) messages matched(?:; unmatched: (\d+) sends never received, "
                  r"(\d+) receives never sent)?", log_text)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)


def coll_sums(prv, exp):
    """Collective calls and bytes given and got by each rank equal what it
    counted; returns each rank's sequence of communicators."""
    types = {50100001: 0, 50100002: 1, 50100004: 2}
    per_task = defaultdict(list)
    calls = defaultdict(int)
    for task, evs in prv.events.items():
        for t, th, pairs in sorted(evs):
            d = dict(pairs)
            if d.get(50000002):
                calls[task] += 1
            if 50100001 in d:
                per_task[task].append([d.get(k, 0) for k in types])
    comm_seq = {}
    for task, rank in prv.task_rank.items():
        c = per_task[task]
        got = [calls[task], sum(x[0] for x in c), sum(x[1] for x in c)]
        if got != exp["coll"][rank]:
            fail("rank %d: collectives (calls, bytes given, got) %s, the program: %s" %
                 (rank, got, exp["coll"][rank]))
        if len(c) != calls[task]:
            fail("rank %d: %d collective calls but %d size events" % (rank, calls[task], len(c)))
        comm_seq[rank] = [x[2] for x in c]
    return comm_seq


def check_coll(prv, exp):
    comm_seq = coll_sums(prv, exp)
    # calls 0-7 on the split half, 8-9 on world, 10 on the dup, 11 on world
    half = {r: exp["half"][r][0] for r in comm_seq}
    for r, seq in comm_seq.items():
        if len(seq) != 12:
            fail("rank %d: %d collectives" % (r, len(seq)))
            return
        if len(set(seq[0:8])) != 1 or seq[8] != seq[9] or seq[9] != seq[11]:
            fail("rank %d: communicators %s not constant where the program's are" % (r, seq))
        if len({seq[0], seq[8], seq[10]}) != 3:
            fail("rank %d: communicators %s: half, world and dup not told apart" % (r, seq))
    for r in comm_seq:
        for q in comm_seq:
            same = comm_seq[r][0] == comm_seq[q][0]
            if same != (half[r] == half[q]):
                fail("ranks %d and %d: half communicators %d and %d (halves %d, %d)" %
                     (r, q, comm_seq[r][0], comm_seq[q][0], half[r], half[q]))
            if comm_seq[r][8] != comm_seq[q][8] or comm_seq[r][10] != comm_seq[q][10]:
                fail("ranks %d and %d disagree on world/dup communicators" % (r, q))
    print("collectives: %s" % dict(sorted(exp["coll"].items())))


def expect_lines(stdout, kind):
    return [line.split()[2:] for line in stdout.splitlines()
            if line.startswith("expect %s " % kind)]


def dumped(a, trace, kind, rank_from="MPI_INIT"):
    """The records of one kind in the logs, each as (rank, its fields), the
    rank from its process's MPI_INIT (or MPI_JOB)."""
    p = run([a.paratrace, "dump", "--kind", kind + "," + rank_from, trace], a.work)
    pid_rank, recs = {}, []
    for line in p.stdout.splitlines():
        f = line.split()
        kv = dict(x.split("=", 1) for x in f if "=" in x)
        if f[3] == rank_from:
            pid_rank[f[1]] = int(kv["rank"])
        elif f[3] == kind:
            recs.append((f[1], kv))
    return [(pid_rank.get(pid), kv) for pid, kv in recs]


def check_exact(a, trace, name, prv, stdout, exp):
    """The pair, ev, call, rma and coll lines of the ranks, exactly."""
    if exp["coll"]:
        coll_sums(prv, exp)
        print("collectives: %s" % dict(sorted(exp["coll"].items())))
    rank_task = {r: t for t, r in prv.task_rank.items()}
    pairs = defaultdict(lambda: [0, 0])
    for m in prv.msgs:
        pairs[(m[0], m[1])][0] += 1
        pairs[(m[0], m[1])][1] += m[6]
    want = {(int(f[0]), int(f[1])): [int(f[2]), int(f[3])] for f in expect_lines(stdout, "pair")}
    if want and dict(pairs) != want:
        fail("messages by (from, to) world rank %s, the program sent %s" %
             (dict(sorted(pairs.items())), dict(sorted(want.items()))))
    elif want:
        print("messages by (from, to): %s" % dict(sorted(want.items())))
    counts = defaultdict(int)
    for task, evs in prv.events.items():
        for t, th, pairs_ in evs:
            for ty, v in pairs_:
                counts[(prv.task_rank[task], ty, v)] += 1
    evs = expect_lines(stdout, "ev")
    for f in evs:
        rank, ty, v, n = (int(x) for x in f)
        if counts[(rank, ty, v)] != n:
            fail("rank %d: %d events %d:%d, the program made %d calls" %
                 (rank, counts[(rank, ty, v)], ty, v, n))
    print("events: %d expectations checked" % len(evs))
    # every MPI call that appeared is labelled with its name in the .pcf
    with open(name + ".pcf") as fp:
        pcf = fp.read()
    labels = {}
    for block in pcf.split("EVENT_TYPE")[1:]:
        head, _, values = block.partition("VALUES")
        types = [int(x.split()[1]) for x in head.strip().split("\n\n")[0].splitlines()
                 if len(x.split()) > 1 and x.split()[1].isdigit()]
        for line in values.strip().split("\n\n")[0].splitlines():
            f = line.split(None, 1)
            if len(f) == 2 and f[0].isdigit():
                for ty in types:
                    labels[(ty, int(f[0]))] = f[1].strip()
    for f in evs:
        rank, ty, v, n = (int(x) for x in f)
        if 50000001 <= ty <= 50000005 and n and not labels.get((ty, v), "").startswith("MPI_"):
            fail(".pcf: no call name for %d:%d (%r)" % (ty, v, labels.get((ty, v))))
    calls = defaultdict(lambda: [0, 0])
    for f in expect_lines(stdout, "call"):
        calls[f[1]][0] += int(f[2])
        calls[f[1]][1] += int(f[3])
    if calls:
        with open(name + ".report") as fp:
            rep = fp.read()
        for call, (n, b) in calls.items():
            m = re.search(r"^%s +(\d+) .* (\d+)B$" % call, rep, re.M)
            got = [int(m.group(1)), int(m.group(2))] if m else None
            if got != [n, b]:
                fail("report: %s calls and bytes %s, the program: %s" % (call, got, [n, b]))
        print("report: calls and bytes of %s" % sorted(calls))
    ios = expect_lines(stdout, "io")
    if ios:
        with open(name + ".report") as fp:
            rep = fp.read()
        table = rep.split("MPI I/O by rank", 1)[1] if "MPI I/O by rank" in rep else ""
        for f in ios:
            m = re.search(r"^%s +(\d+) +(\d+)B +(\d+)B$" % f[0], table, re.M)
            got = [int(x) for x in m.groups()] if m else None
            if got != [int(x) for x in f[1:4]]:
                fail("report, MPI I/O of rank %s: (calls, read, written) %s, the program: %s" %
                     (f[0], got, f[1:4]))
        print("report: MPI I/O of %d ranks" % len(ios))
        check_io_table(a, trace, name, ios, expect_lines(stdout, "iofile"))
    rmas = expect_lines(stdout, "rma")
    if rmas:
        got = defaultdict(list)
        for rank, kv in dumped(a, trace, "MPI_RMA"):
            got[rank].append((kv["call"], int(kv["target"])))
        want = defaultdict(list)
        for f in rmas:
            want[int(f[0])].append((f[1], int(f[2])))
        for rank in sorted(want):
            if sorted(got[rank]) != sorted(want[rank]):
                fail("rank %d: one-sided calls and targets %s, the program: %s" %
                     (rank, sorted(got[rank]), sorted(want[rank])))
        print("one-sided targets (world ranks): %s" % dict(sorted(want.items())))
    check_comm_members(a, trace, expect_lines(stdout, "comm"))


def check_comm_members(a, trace, lines):
    """Every rank's COMM_DEFs (but MPI_COMM_WORLD's and MPI_COMM_SELF's,
    which list no members) name the members the program says its
    communicators have: a communicator described with the wrong world
    ranks sends every call over it (a collective's root, a message's
    peer) to the wrong process."""
    if not lines:
        return
    want = defaultdict(list)
    for f in lines:
        want[int(f[0])].append(f[1])
    got = defaultdict(list)
    for rank, kv in dumped(a, trace, "MPI_COMM_DEF"):
        if int(kv["comm"], 16) > 2:
            got[rank].append(kv["world"])
    for rank in sorted(set(want) | set(r for r in got if r is not None)):
        if sorted(got[rank]) != sorted(want[rank]):
            fail("rank %s: communicators with world ranks %s, the program made %s" %
                 (rank, sorted(got[rank]), sorted(want[rank])))
    print("communicators' members (world ranks): %s" % dict(sorted(want.items())))


def check_io_table(a, trace, name, ios, files):
    """The report's file I/O table (text, CSV, JSON): an MPI-IO row per
    file the ranks opened, with their calls and bytes summed (files: the
    "expect iofile RANK NAME CALLS READ WRITTEN" lines; none: one file,
    the io lines'); the POSIX calls the MPI library made for them counted
    in no row of that file."""
    want = {}
    for f in files:
        w = want.setdefault(os.path.basename(f[1]), [0, 0, 0])
        for i in range(3):
            w[i] += int(f[2 + i])
    js = json.loads(run([a.paratrace, "report", "--json", trace], a.work).stdout)
    rows = [f for f in js.get("io_files", []) if f.get("api") == "mpi-io"]
    got = {os.path.basename(f["file"]): [f["calls"], f["bytes_read"], f["bytes_written"]]
           for f in rows}
    if not files and len(rows) == 1:
        want = {os.path.basename(rows[0]["file"]): [sum(int(f[i]) for f in ios)
                                                     for i in (1, 2, 3)]}
    if got != want or len(rows) != len(want):
        fail("report --json: MPI-IO rows (calls, read, written) %s, the program: %s" %
             (got, want))
        return
    csv = run([a.paratrace, "report", "--csv", trace], a.work).stdout
    rep = run([a.paratrace, "report", "--top", "0", trace], a.work).stdout
    for row in rows:
        check_io_file(a, trace, (js, csv, rep), row["file"], want[os.path.basename(row["file"])])
    if a.html_io:
        check_io_html(a, trace, [row["file"] for row in rows])
    print("report: I/O table, MPI-IO rows %s" % want)


def check_io_file(a, trace, reports, path, want):
    """One MPI-IO file's row (want: calls, read, written) in the reports
    (JSON, CSV, text), none of its bytes in a POSIX row."""
    js, csv, rep = reports
    if not os.path.isabs(path) or not os.path.exists(path):
        fail("report --json: the MPI-IO file %r is not the absolute path of the file" % path)
    posix = [f for f in js["io_files"] if f["file"] == path and f.get("api") == "posix"]
    if any(f["bytes_read"] or f["bytes_written"] for f in posix):
        fail("report --json: the bytes of %s counted twice, in a POSIX row too: %s" %
             (path, posix))
    csv_rows = [l for l in csv.splitlines()
                if l.startswith('io_file,"%s",' % path) and l.endswith(",mpi-io")]
    cells = csv_rows[0].split(",") if len(csv_rows) == 1 else []
    if [int(x) for x in cells[-9:-8] + cells[-5:-3]] != want:
        fail("report --csv: MPI-IO rows %s, the program: %s" % (csv_rows, want))
    m = re.search(r"^.*%s \(MPI-IO\) +(\d+) +(\d+) B +(\d+) B " %
                  re.escape(os.path.basename(path)), rep, re.M)
    if not m or [int(x) for x in m.groups()] != want:
        fail("report: the text's MPI-IO row %r, the program: %s" % (m and m.group(0), want))


def check_io_html(a, trace, paths):
    """report --html: the file table's MPI-IO rows, as the page's script
    fills it (where Chromium is)."""
    chromium = shutil.which("chromium")
    if not chromium:
        print("no chromium: the HTML file table is not checked")
        return
    html = os.path.join(a.work, "io.html")
    run([a.paratrace, "report", "--html", "-o", html, trace], a.work)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot"))
    import tempfile
    from browser import Browser
    with tempfile.TemporaryDirectory(prefix="pt-chromium-") as profile:
        b = Browser([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                     "--user-data-dir=" + profile])
        try:
            dom = b.dom("file://" + html)
        finally:
            b.close()
    m = re.search(r'<table id="io-files"[^>]*>(.*?)</table>', dom, re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S) if m else []
    for path in paths:
        if not any(os.path.basename(path) in r and ">mpi-io<" in r for r in rows):
            fail("report --html: no MPI-IO row of %s in the file table" % path)


def check_threads(prv, nthreads):
    for task, evs in prv.events.items():
        ths = {th for t, th, pairs in evs for ty, v in pairs if ty == 50000001 and v}
        if len(ths) < nthreads:
            fail("rank %s: point-to-point calls on %d threads, expected %d" %
                 (prv.task_rank[task], len(ths), nthreads))


SYNC_KINDS = ("LOCK_REQUEST", "LOCK_ACQUIRED", "LOCK_FAILED", "LOCK_RELEASED", "COND_WAIT_BEGIN",
              "COND_WAIT_END", "COND_SIGNAL", "BARRIER_BEGIN", "BARRIER_END")


def check_inner_locks(a, trace, nthreads):
    """The MPI library's own synchronisation inside a recorded MPI call
    (Open MPI takes its mutexes in every call under MPI_THREAD_MULTIPLE)
    is not recorded on the calling thread; the program's own mutex,
    taken by each worker between its MPI calls, still is."""
    p = run([a.paratrace, "dump", "--kind", ",".join(("MPI_CALL", "MPI_CALL_END") + SYNC_KINDS),
             trace], a.work)
    inside, inner, outer = {}, 0, {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) < 4:
            continue
        th, kind = (f[1], f[2]), f[3]
        if kind == "MPI_CALL":
            inside[th] = True
        elif kind == "MPI_CALL_END":
            inside[th] = False
        elif inside.get(th):
            inner += 1
        elif kind == "LOCK_ACQUIRED" and th in inside:
            outer.setdefault(f[1], set()).add(th)
    if inner:
        fail("%d synchronisation records inside MPI calls (the MPI library's own)" % inner)
    for pid, ths in outer.items():
        if len(ths) < nthreads:
            fail("process %s: the program's mutex recorded on %d threads with MPI calls, "
                 "expected %d or more" % (pid, len(ths), nthreads))
    if len(outer) < 2:
        fail("the program's mutex recorded in %d processes, expected 2" % len(outer))
    print("no lock inside MPI calls; the program's mutex on %s threads" %
          sorted(len(t) for t in outer.values()))


def check_plugin(prv):
    with open(prv.base + ".pcf") as f:
        pcf = f.read()
    ftype = None
    for block in pcf.split("EVENT_TYPE")[1:]:
        if re.search(r"^\d+\s+exchange\b", block, re.M):
            ftype = int(block.split()[1])
            break
    if ftype is None:
        fail("the .pcf names no function exchange")
        return
    for task, evs in prv.events.items():
        types = {ty for t, th, pairs in evs for ty, v in pairs if v}
        if ftype not in types or 50000001 not in types:
            fail("rank %s: functions (%d) and MPI calls not both on its timeline" %
                 (prv.task_rank[task], ftype))


def check_report_export(a, trace, name, np, nmsgs):
    """The report's MPI section and the Chrome export agree with the .prv."""
    rep = run([a.paratrace, "report", trace], os.path.dirname(name), log=name + ".report").stdout
    m = re.search(r"^MPI: (\d+) ranks on 1 host; .* (\d+) messages matched", rep, re.M)
    if not m or (int(m.group(1)), int(m.group(2))) != (np, nmsgs):
        fail("report: MPI line %r, expected %d ranks and %d messages" %
             (m.group(0) if m else None, np, nmsgs))
    for section in ("MPI time by rank", "MPI calls by time", "Largest communication pairs"):
        if section not in rep and (nmsgs or "pairs" not in section):
            fail("report: no section %r" % section)
    out = name + ".json"
    run([a.paratrace, "export", "--format", "chrome", "-o", out, trace], os.path.dirname(name))
    with open(out) as f:
        evs = json.load(f)["traceEvents"]
    flows = defaultdict(int)
    for e in evs:
        if e.get("name") == "MPI message" and e.get("ph") in ("s", "f"):
            flows[e["ph"]] += 1
    if flows["s"] != nmsgs or flows["f"] != nmsgs:
        fail("export: %s MPI message flows, expected %d" % (dict(flows), nmsgs))
    names = sorted(e["args"]["name"] for e in evs
                   if e.get("ph") == "M" and e.get("name") == "process_name")
    ranks = sorted(int(re.search(r" rank (\d+) ", n).group(1)) for n in names if " rank " in n)
    if ranks != list(range(np)):
        fail("export: processes named by rank %s, expected 0..%d" % (ranks, np - 1))


def read_counts(d, np):
    """What the counter (mpicount.c) wrote: sends[(from, to)], recvs[(from,
    to)] = [msgs, bytes], calls[(rank, name)] = n."""
    sends, recvs = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    calls = defaultdict(int)
    for r in range(np):
        path = os.path.join(d, "rank-%d.txt" % r)
        if not os.path.exists(path):
            fail("the counter wrote nothing for rank %d" % r)
            continue
        for line in open(path):
            f = line.split()
            if f[0] == "send":
                sends[(r, int(f[1]))] = [int(f[2]), int(f[3])]
            elif f[0] == "recv":
                recvs[(int(f[1]), r)] = [int(f[2]), int(f[3])]
            elif f[0] == "call":
                calls[(r, f[1])] = int(f[2])
            elif f[0] == "pending_irecv" and int(f[1]):
                fail("rank %d: %s receives the counter never saw completed" % (r, f[1]))
    return sends, recvs, calls


def dump_calls(a, trace):
    """Every rank's MPI calls in the logs: (rank, name) -> n."""
    calls = defaultdict(int)
    for rank, kv in dumped(a, trace, "MPI_CALL"):
        calls[(rank, kv["call"])] += 1
    return calls


def check_counted(a, trace, name, prv, count_dir, np):
    """The trace against the independent counter."""
    sends, recvs, calls = read_counts(count_dir, np)
    pairs = defaultdict(lambda: [0, 0])
    for m in prv.msgs:
        pairs[(m[0], m[1])][0] += 1
        pairs[(m[0], m[1])][1] += m[6]
    if dict(pairs) != dict(sends):
        fail(".prv messages by (from, to) %s, the counter's sends %s" %
             (dict(sorted(pairs.items())), dict(sorted(sends.items()))))
    if dict(recvs) != dict(sends):
        fail("the counter's receives %s differ from its sends %s" %
             (dict(sorted(recvs.items())), dict(sorted(sends.items()))))
    msgs = sum(v[0] for v in sends.values())
    nbytes = sum(v[1] for v in sends.values())
    print("counted: %d messages, %d bytes; the .prv: %d messages, %d bytes" %
          (msgs, nbytes, len(prv.msgs), sum(m[6] for m in prv.msgs)))
    logged = dump_calls(a, trace)
    for (rank, call), n in sorted(calls.items()):
        if logged.get((rank, call), 0) != n:
            fail("rank %d: %d %s calls in the logs, the counter saw %d" %
                 (rank, logged.get((rank, call), 0), call, n))
    with open(name + ".report") as f:
        rep = f.read()
    m = re.search(r"^MPI: \d+ ranks .*; (\d+) messages matched", rep, re.M)
    if not m or int(m.group(1)) != msgs:
        fail("report: %s messages matched, the counter: %d" % (m and m.group(1), msgs))
    totals = defaultdict(int)
    for (rank, call), n in calls.items():
        totals[call] += n
    for call, n in sorted(totals.items()):
        m = re.search(r"^%s +(\d+) " % call, rep, re.M)
        if int(m.group(1) if m else 0) != n:
            fail("report: %s calls of %s, the counter: %d" % (m and m.group(1), call, n))
    print("calls: %s" % dict(sorted(totals.items())))


UNTRACED_CAUSE = {"bypassed": "calls the PMPI_* entry points itself",
                  "no_library": "no MPI library was loaded"}


def check_spawn(a, name, p):
    """Spawned worlds in their parents' run, their messages matched."""
    sizes = {}
    for f in expect_lines(p.stdout, "world"):
        sizes[int(f[0])] = int(f[2])
    first, total = {}, 0
    for w in sorted(sizes):
        first[w] = total
        total += sizes[w]
    if sorted(sizes) != list(range(len(sizes))) or len(sizes) < 3:
        fail("worlds %s: expected 0, 1, 2" % sizes)
    dirs = glob.glob(os.path.join(a.work, "paratrace-mpi-*"))
    if len(dirs) != 1:
        fail("%d trace directories: %s" % (len(dirs), dirs))
        return
    trace = dirs[0]
    folders = sorted(os.path.basename(d) for d in glob.glob(os.path.join(trace, "p*")))
    for w in sizes:
        tag = "-w%d-r" % w if w else "-r"
        n = sum(1 for d in folders if (tag in d) and (w or "-w" not in d))
        if n != sizes[w]:
            fail("world %d: %d process folders in %s, expected %d: %s" %
                 (w, n, trace, sizes[w], folders))
    an = analyze(a, trace, name, check=False)
    if an.returncode != 0:
        fail("analyze refused the run: %s" % an.stderr.strip()[:600])
        return
    prv = Prv(a, name)
    check_tasks(prv, list(range(total)))
    for i, label in enumerate(prv.summary["task_labels"]):
        w = max(k for k in first if first[k] <= i)
        if w and "(world %d rank %d)" % (w, i - first[w]) not in label:
            fail("task %d: label %r does not say world %d rank %d" % (i + 1, label, w,
                                                                     i - first[w]))
    want = defaultdict(lambda: [0, 0])
    for f in expect_lines(p.stdout, "wpair"):
        fw, fr, tw, tr, n, b = (int(x) for x in f)
        key = (first[fw] + fr, first[tw] + tr)
        want[key][0] += n
        want[key][1] += b
    got = defaultdict(lambda: [0, 0])
    for m in prv.msgs:
        got[(m[0], m[1])][0] += 1
        got[(m[0], m[1])][1] += m[6]
        if m[5] < m[3] or m[5] < m[2]:
            fail("message %d->%d received before sent" % (m[0], m[1]))
    if dict(got) != dict(want):
        fail("messages by (from, to) rank in the run %s, the programs sent %s" %
             (dict(sorted(got.items())), dict(sorted(want.items()))))
    counts = summary_counts(an.stdout)
    nmsgs = sum(v[0] for v in want.values())
    if counts != (nmsgs, 0, 0):
        fail("analyze: %s messages matched, unmatched; expected %d, 0, 0" % (counts, nmsgs))
    check_report_export(a, trace, name, total, len(prv.msgs))
    print("worlds %s: %d messages matched, %s" % (sizes, len(prv.msgs),
                                                  dict(sorted(want.items()))))


def check_untraced(a, trace, name, np, p):
    """No MPI call traced: said once at run time, recorded, and by analyze."""
    want = {int(f[0]): f[1] for f in expect_lines(p.stdout, "untraced")}
    if sorted(want) != list(range(np)):
        fail("ranks that ran: %s" % sorted(want))
    said = [l for l in p.stderr.splitlines() if "made no MPI call that was traced" in l]
    if len(said) != 1 or "rank 0 " not in said[0]:
        fail("the run said %d times that no MPI call was traced (once, by rank 0, expected): %s"
             % (len(said), said))
    got = {rank: kv["why"] for rank, kv in dumped(a, trace, "MPI_UNTRACED", "MPI_JOB")}
    if got != want:
        fail("MPI_UNTRACED records %s, expected %s" % (got, want))
    an = analyze(a, trace, name)
    ranks = ", ".join(str(r) for r in range(np))
    cause = UNTRACED_CAUSE[want.get(0, "bypassed")]
    if "%d of %d MPI ranks (%s)" % (np, np, ranks) not in an.stderr or cause not in an.stderr:
        fail("analyze did not name the untraced ranks and the cause (%r): %s" %
             (cause, an.stderr[:800]))
    print("untraced: %s; analyze: %s" % (want, [l for l in an.stderr.splitlines()
                                                 if "MPI ranks" in l]))


def check_failed(a, trace, name, prv, stdout, exp):
    """Failed calls: recorded with their error, nothing moved."""
    want = defaultdict(int)
    for f in expect_lines(stdout, "error"):
        want[(int(f[0]), f[1], int(f[2]))] += 1
    if not want:
        fail("the program reported no failed call")
    got = defaultdict(int)
    for rank, kv in dumped(a, trace, "MPI_ERROR"):
        got[(rank, kv["call"], int(kv["class"]))] += 1
    if dict(got) != dict(want):
        fail("MPI_ERROR records %s, the program's failed calls %s" %
             (sorted(got.items()), sorted(want.items())))
    with open(name + ".report") as f:
        rep = f.read()
    table = rep.split("MPI calls that returned an error", 1)
    per_call = defaultdict(int)
    for (rank, call, cls), n in want.items():
        per_call[call] += n
    rows = defaultdict(int)
    for line in (table[1].splitlines()[2:] if len(table) == 2 else []):
        f = line.split()
        if len(f) < 3 or not f[0].startswith("MPI_"):
            break
        rows[f[0]] += int(f[1])
    if dict(rows) != dict(per_call):
        fail("report: failed calls %s, the program's %s" % (dict(rows), dict(per_call)))
    # the collectives' bytes: the successful ones' only
    for task, rank in prv.task_rank.items():
        sizes = [dict(pairs) for t, th, pairs in sorted(prv.events[task])
                 if any(ty == 50100001 for ty, v in pairs)]
        got_c = [len(sizes), sum(d[50100001] for d in sizes), sum(d.get(50100002, 0) for d in sizes)]
        if rank in exp["coll"] and got_c != exp["coll"][rank]:
            fail("rank %d: collective size events (calls, given, got) %s, the program's "
                 "successful ones %s" % (rank, got_c, exp["coll"][rank]))
    print("failed calls: %s" % sorted(want.items()))


def dump_clock(a, trace, rank):
    proc = glob.glob(os.path.join(trace, "p*-r%d" % rank, "process.ptl"))
    if len(proc) != 1:
        fail("rank %d: %d process logs" % (rank, len(proc)))
        return []
    p = run([a.paratrace, "dump", proc[0]], os.path.dirname(trace))
    pts = []
    for line in p.stdout.splitlines():
        if " MPI_CLOCK " in line:
            kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
            pts.append((kv["at"], int(kv["local_ns"]), int(kv["ref_ns"]), int(kv["rtt_ns"]),
                        int(kv["rounds"])))
    return pts


def report_clocks(name):
    """The report's clock table: rank -> (init offset, rtt, final offset, rtt,
    map at init, map at final)."""
    with open(name + ".report") as f:
        text = f.read()
    if "MPI clocks onto rank 0's" not in text:
        fail("report: no MPI clocks section")
        return {}
    rows = {}
    for line in text.split("MPI clocks onto rank 0's", 1)[1].splitlines()[2:]:
        f = line.split()
        if len(f) != 7 or not f[0].isdigit():
            break
        rows[int(f[0])] = [int(x) for x in f[1:]]
    return rows


def check_retried(rounds, rtt):
    """Rank 2's first 24 answers at MPI_Finalize were 2 ms late: the
    synchronisation must have gone on past them, and found a fast round
    again. A fast round needs both ranks on a CPU at once: on a machine
    with more runnable processes than CPUs (other tests, builds) the
    runtime's time budget may pass without one, so that part is only
    enforced when the load average is under the number of CPUs."""
    if rounds <= 24:
        fail("rank 2 finalize: %d rounds: the synchronisation stopped with only slow "
             "answers" % rounds)
    if rtt < SYNC_DELAY_NS:
        return
    load = os.getloadavg()[0]
    if load < os.cpu_count():
        fail("rank 2 finalize: the synchronisation kept a round trip of %d ns after %d "
             "rounds (load average %.1f)" % (rtt, rounds, load))
    else:
        print("rank 2 finalize: no fast round in the budget at load average %.1f on %d CPUs "
              "(not enforced)" % (load, os.cpu_count()))


def check_clocks(a, trace, name, prv, analyze_out, nmsgs, slow):
    """Ranks 1 and 2 ran with clocks off by SHIFTS. A ping-pong's offset is
    right to half its round trip, no better: each measured point must be
    within 5 us, or half its round trip when the machine (ranks
    oversubscribed on busy cores) made every exchange slower. The map the
    analyzer uses must be as good as the better of a rank's two points,
    whatever the other measured (one host: the clocks do not drift)."""
    # A receive the corrected clocks put before its send is moved to the
    # send (so the .prv never shows one: check_messages) and counted with
    # the most one was moved. A message here takes well under a
    # microsecond, less than the synchronisation's error: some receives may
    # need moving, by no more than the two ranks' maps may be off together.
    m = re.search(r"(\d+) received before sent on the synchronised clocks \(by up to "
                  r"([0-9.]+)(ns|us|ms|s):", analyze_out)
    clamped = int(m.group(1)) if m else 0
    moved = float(m.group(2)) * UNITS[m.group(3)] if m else 0
    print("received before sent on the corrected clocks: %d of %d, by up to %d ns" %
          (clamped, nmsgs, moved))
    maps = report_clocks(name)
    max_bound = SYNC_TOLERANCE_NS
    for rank, shift in SHIFTS.items():
        pts = dump_clock(a, trace, rank)
        if [x[0] for x in pts] != ["init", "finalize"]:
            fail("rank %d: clock points %s, expected init and finalize" % (rank, pts))
            continue
        for at, local, ref, rtt, rounds in pts:
            err = ref - local + shift  # the hosts' clocks are one: the offset is -shift
            bound = max(SYNC_TOLERANCE_NS, rtt // 2 + 1)
            print("rank %d %s: shift %d ns, measured offset %d ns, error %d ns (rtt %d)" %
                  (rank, at, shift, ref - local, err, rtt))
            if slow and rank == 1 and at == "finalize":
                if rtt < SYNC_DELAY_NS:
                    fail("rank 1 finalize: round trip %d though every answer was %d ns late" %
                         (rtt, SYNC_DELAY_NS))
                continue
            if slow and rank == 2 and at == "finalize":
                check_retried(rounds, rtt)
            if abs(err) > bound:
                fail("rank %d %s: offset off by %d ns (> %d)" % (rank, at, err, bound))
        good = min(x[3] for x in pts)
        bound = max(SYNC_TOLERANCE_NS, good // 2 + 1)
        max_bound = max(max_bound, bound)
        row = maps.get(rank)
        if not row:
            fail("report: no clock row of rank %d" % rank)
            continue
        for at, use in (("init", row[4]), ("finalize", row[5])):
            print("rank %d: map at %s %d ns, error %d ns (bound %d)" % (rank, at, use,
                                                                        use + shift, bound))
            if abs(use + shift) > bound:
                fail("rank %d: the analyzer's map at %s is %d ns off (> %d)" %
                     (rank, at, use + shift, bound))
    if moved > 2 * max_bound:
        fail("%d of %d receives before their sends on the corrected clocks, by up to %d ns: "
             "more than the maps' error (%d ns each)" % (clamped, nmsgs, moved, max_bound))
    # uncorrected, rank 1's times would lie 50 s after the others'
    if prv.summary["end"] > abs(SHIFTS[1]) // 2:
        fail("the trace lasts %d ns: a rank's shift was not removed" % prv.summary["end"])


def main():
    ap = argparse.ArgumentParser()
    for o in ("--mpirun", "--lib", "--paratrace", "--prv-check", "--work", "--mode"):
        ap.add_argument(o, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--counter", help="mpicount.so: the independent counter (counted mode)")
    ap.add_argument("--launcher", choices=("openmpi", "mpich"), default="openmpi",
                    help="whose launcher --mpirun is (the program is built with that MPI)")
    ap.add_argument("--html-io", action="store_true",
                    help="exact: check the HTML report's file table too (headless Chromium)")
    ap.add_argument("--states", default="",
                    help="Extrae MPI states (comma-separated) the ranks' rows must show")
    ap.add_argument("prog", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    prog = a.prog[1:] if a.prog[:1] == ["--"] else a.prog
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    trace = os.path.join(a.work, "trace")
    name = os.path.join(a.work, "out")
    np = a.np
    mode = a.mode

    if mode == "twojobs":
        jobs = [["5", "64"], ["9", "32"]]
        exps = [expects(run(launch(a, np, trace, prog + j), a.work,
                            log=os.path.join(a.work, "job%d.log" % i)).stdout)
                for i, j in enumerate(jobs)]
        p = analyze(a, trace, name, check=False)
        if p.returncode == 0 or "unrelated runs" not in p.stderr:
            fail("two jobs in one directory were not refused: exit %d, %s" %
                 (p.returncode, p.stderr.strip()[:500]))
        runs = re.findall(r"run ([0-9a-f]+) ", p.stderr)
        if len(runs) != 2:
            fail("the refusal names %d runs, not 2: %s" % (len(runs), p.stderr[:500]))
        for i, run_id in enumerate(runs):
            analyze(a, trace, name + str(i), ["--run", run_id])
            prv = Prv(a, name + str(i))
            check_tasks(prv, list(range(np)))
            # which job is which: the one whose counts the trace has
            ok = [j for j, e in enumerate(exps)
                  if sum(1 for m in prv.msgs) == sum(v[0] for v in e["sent"].values())]
            if len(ok) != 1:
                fail("run %s: %d messages match neither job alone" % (run_id, len(prv.msgs)))
            else:
                check_messages(prv, exps[ok[0]]["sent"])
        return

    use_x = mode in ("p2p-x", "spawn")
    env_per_rank = None
    if mode in ("clock", "clock-slow"):
        env_per_rank = {r: {"PARATRACE_TEST_CLOCK_OFFSET_NS": str(s)} for r, s in SHIFTS.items()}
    if mode == "clock-slow":
        for r, d in DELAYS.items():
            env_per_rank[r]["PARATRACE_TEST_MPI_SYNC_DELAY_NS"] = d
    preload, env, count_dir = None, (), os.path.join(a.work, "count")
    if mode in ("counted", "failed"):
        os.makedirs(count_dir)
        preload, env = a.counter + ":" + a.lib, ["MPICOUNT_OUT=" + count_dir]
    cmd = launch(a, np, trace, prog, env_per_rank, use_x, preload, env)
    p = run(cmd, a.work, check=mode != "killed", log=os.path.join(a.work, "run.log"))
    exp = expects(p.stdout)
    if use_x:
        dirs = glob.glob(os.path.join(a.work, "paratrace-mpi-*"))
        if len(dirs) != 1:
            sys.exit("check_mpi: %d trace directories derived by the ranks: %s" % (len(dirs), dirs))
        trace = dirs[0]
    if mode == "killed" and p.returncode == 0:
        fail("mpirun exited 0 though rank 1 was killed")
    if "skip:" in p.stdout:
        print(p.stdout)
        return
    if mode == "untraced":
        check_untraced(a, trace, name, np, p)
        return
    if mode == "spawn":
        check_spawn(a, name, p)
        return

    ranks = list(range(np))
    if mode == "missing":
        victim = glob.glob(os.path.join(trace, "p*-r2"))
        if len(victim) != 1:
            sys.exit("check_mpi: no folder of rank 2 in %s" % trace)
        shutil.rmtree(victim[0])
        ranks.remove(2)
    an = analyze(a, trace, name)
    prv = Prv(a, name)
    check_tasks(prv, ranks)
    counts = summary_counts(an.stdout)
    if counts is None:
        fail("analyze printed no MPI summary line: %s" % an.stdout[:500])
        counts = (0, 0, 0)
    if counts[0] != len(prv.msgs):
        fail("analyze says %d messages matched, the .prv has %d" % (counts[0], len(prv.msgs)))

    if mode == "killed":
        # rank 1 reported before it died; rank 0 was killed by mpirun
        check_messages(prv, {1: exp["sent"][1]})
        if counts[1] < 1:
            fail("the send rank 1 never received is not counted unmatched: %s" % an.stdout[:400])
        return
    if mode == "missing":
        check_messages(prv, exp["sent"], skip=(1, 2))
        into = sum(1 for m in prv.msgs if m[1] == 2 or m[0] == 2)
        if into:
            fail("%d messages of the missing rank 2 matched" % into)
        want = (exp["sent"][1][0], exp["sent"][2][0])
        if counts[1:] != want:
            fail("unmatched sends/receives %s, expected %s (rank 1's sends, rank 2's)" %
                 (counts[1:], want))
        if "ranks missing from the trace: 2 (of %d)" % np not in an.stdout:
            fail("the missing rank 2 is not named: %s" % (an.stderr + an.stdout)[:600])
        return

    check_messages(prv, exp["sent"])
    if counts[1] or counts[2]:
        fail("unmatched messages in a complete run: %s" % (counts,))
    check_report_export(a, trace, name, np, len(prv.msgs))
    shown = {int(k) for st in prv.summary["states"].values() for k, v in st.items() if v}
    for want in (int(x) for x in a.states.split(",") if x):
        if want not in shown:
            fail("no row is ever in state %d (the MPI calls' states: %s)" % (want, sorted(shown)))
    if mode == "coll":
        check_coll(prv, exp)
    elif mode == "threads":
        check_threads(prv, int(prog[1]) if len(prog) > 1 else 3)
        check_inner_locks(a, trace, int(prog[1]) if len(prog) > 1 else 3)
    elif mode == "plugin":
        check_plugin(prv)
    elif mode == "exact":
        check_exact(a, trace, name, prv, p.stdout, exp)
    elif mode == "counted":
        check_counted(a, trace, name, prv, count_dir, np)
        if exp["coll"]:  # the program's collectives too, as it counted their bytes
            coll_sums(prv, exp)
            print("collectives: %s" % dict(sorted(exp["coll"].items())))
    elif mode == "failed":
        check_counted(a, trace, name, prv, count_dir, np)
        check_failed(a, trace, name, prv, p.stdout, exp)
    elif mode in ("clock", "clock-slow"):
        check_clocks(a, trace, name, prv, an.stdout, counts[0], mode == "clock-slow")
    elif mode == "dist":
        for m in (2, 3, 4):
            out = name + "-np%d" % m
            run(launcher(a) + ["-np", str(m), a.paratrace,
                 "analyze", trace, "-o", out], a.work, timeout=150, log=out + ".log")
            for ext in (".prv", ".pcf", ".row"):
                with open(name + ext, "rb") as f1, open(out + ext, "rb") as f2:
                    if f1.read() != f2.read():
                        fail("%d analyzer processes: %s differs from one process's" % (m, ext))
            print("%d analyzer processes: identical .prv/.pcf/.row" % m)
        # a .prv.gz: each process compresses its partitions, then copies
        # the members to their places (the same -j: the members follow
        # the partitions, which follow the workers)
        one = name + "-gz"
        run([a.paratrace, "analyze", "--gz", "--full", "-j2", trace, "-o", one], a.work,
            timeout=150, log=one + ".log")
        members = gzip_members(one + ".prv.gz")
        if members < 4:  # the header's, then a partition's each
            fail("--gz: %d gzip members: too few partitions to share out" % members)
        for m in (2, 3):
            out = name + "-gz-np%d" % m
            run(launcher(a) + ["-np", str(m), a.paratrace,
                 "analyze", "--gz", "-j2", trace, "-o", out], a.work, timeout=150, log=out + ".log")
            for ext in (".prv.gz", ".pcf", ".row"):
                with open(one + ext, "rb") as f1, open(out + ext, "rb") as f2:
                    if f1.read() != f2.read():
                        fail("%d analyzer processes, --gz: %s differs from one process's" % (m, ext))
            print("%d analyzer processes, --gz: identical .prv.gz/.pcf/.row" % m)


if __name__ == "__main__":
    main()
    if fails:
        sys.exit("check_mpi: %d problems" % len(fails))
    print("check_mpi: ok")
