#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The OTF2 export of one program's trace, read by the OTF2 library's own
reader (otf2-print) and its Python bindings, against what paratrace's
report and the program say it did.

  otf2_check.py --paratrace P --lib LIBTRACE --work DIR [--mpirun M --np N]
                [--ptgen G --script FILE (a trace ptgen writes, no program)]
                [--env K=V] [--expect-functions] [--expect-locks] [--expect-threads N]
                [--expect-omp] [--kernels-from-output] [--dist M] -- PROG ARGS...

Runs PROG preloaded with LIBTRACE (under mpirun with --np), exports the
trace with `paratrace export --format otf2` (twice: the second replaces
the first archive; a file at the output's name is refused and kept), then:
  - otf2-print reads the archive and says no warning and no error;
  - on every location every Leave closes the innermost Enter (same region)
    and no time goes back, and the definitions are shaped as expected
    (one location group per process, a CPU-thread location per thread);
  - every user function is entered as many times as `paratrace report
    --csv` counts its calls (--expect-functions: and there are some);
  - --expect-threads N: N ThreadCreate, ThreadBegin, ThreadEnd and
    ThreadWait (joins), on N + 1 thread locations;
  - --expect-locks: ThreadAcquireLock events, as many as the report's lock
    acquisitions (semaphores, barriers, conditions and futexes aside: no lock
    a thread holds), each released;
  - MPI: the sends (MpiSend + MpiIsend) are as many as the ranks' "expect
    sent RANK MSGS BYTES" lines sum to, with their bytes, and so are the
    receives (MpiRecv + MpiIrecv); blocking collectives begin and end once
    per call, non-blocking ones are requested and completed once per call;
  - --expect-completions: every MpiIsendComplete and
    NonBlockingCollectiveComplete is inside an MPI_Wait*/MPI_Test* region of
    the location whose MpiIsend / NonBlockingCollectiveRequest (the same
    request, earlier) it completes, and there is a MpiIsendComplete;
  - --expect-omp: ThreadFork/Join, ThreadTeamBegin/End paired, and an
    "!$omp parallel" region on the threads;
  - --expect-metrics: a Metric event per counter value of every COUNTERS
    record `paratrace dump` shows, each metric's count never going down on
    a location (when the run had no counters to read, this check says so
    and is left out);
  - --expect-measurement N: N MeasurementOnOff events (data the runtime
    lost: off before the gap, on at its LOST record);
  - --kernels-from-output: as many kernel regions on accelerator-stream
    locations as the program's "launches_* N" lines sum to;
  - --expect-io: every I/O call a region of file I/O (as many as the
    report's I/O calls), each IoOperationBegin completed on its location,
    and the bytes read and written by the completed operations the
    report's (the I/O rows of `report --csv`); a PROG argument @WORK@ is
    the work folder;
  - the export warns of locks sharing an id (the low 32 bits of their
    addresses) only with --expect-lock-clashes N, and then of N;
  - --dist M: `mpirun -np M paratrace export --format otf2` (M analyzer
    processes, each writing its share of the locations) writes the archive
    one process writes: otf2-print prints the same definitions and events;
    under mpirun the chrome and perfetto exports are written once, the
    bytes one process writes.
Must run with Debian's /usr/bin/python3 (python3-otf2)."""
import argparse
import collections
import csv
import io
import os
import shutil
import subprocess
import sys

import otf2


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, env=None, timeout=180):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=timeout)
    if p.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                      p.stderr[-2000:]))
    return p


def record(a, prog):
    trace = os.path.join(a.work, "trace")
    if a.script:
        run([a.ptgen, "--out", trace, "--scenario", "script", "--script", a.script])
        return trace, ""
    env = dict(os.environ)
    for k in ("PARATRACE_DIR", "LD_PRELOAD"):
        env.pop(k, None)
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    if a.np:
        # as tests/mpi runs it: as root, more ranks than cores, yielding
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")
        cmd = [a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", str(a.np), "env",
               "LD_PRELOAD=" + a.lib, "PARATRACE_DIR=" + trace] + prog
    else:
        env["LD_PRELOAD"] = a.lib
        env["PARATRACE_DIR"] = trace
        cmd = prog
    return trace, run(cmd, env=env).stdout


def report_csv(a, trace):
    """calls per function name; lock acquisitions (of what OTF2 calls a lock)."""
    out = run([a.paratrace, "report", "--csv", trace]).stdout
    calls = collections.Counter()
    locks = 0
    io_rows = collections.Counter()
    for block in out.split("\n\n"):
        rows = list(csv.reader(io.StringIO(block)))
        if not rows:
            continue
        head = rows[0]
        for r in rows[1:]:
            if not r:
                continue
            if r[0] == "function":
                calls[r[1]] += int(r[head.index("calls")])
            elif r[0] == "lock" and r[1] not in NOT_LOCKS:
                locks += int(r[head.index("acquisitions")])
            elif r[0] == "io_thread":
                for k in ("calls", "bytes_read", "bytes_written"):
                    io_rows[k] += int(r[head.index(k)])
    return calls, locks, io_rows


def otf2_print(archive, args=()):
    p = subprocess.run(["otf2-print"] + list(args) + [archive], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    bad = [l for l in (p.stderr + "\n" + p.stdout).splitlines()
           if l.startswith("otf2-print:") or "warning" in l.lower() and l.startswith("otf2")]
    if p.returncode != 0 or p.stderr.strip() or bad:
        fail("otf2-print %s: exit %d\n%s\n%s" % (archive, p.returncode, p.stderr[-3000:],
                                                "\n".join(bad[:20])))
    return p.stdout


def walk(archive):
    """Counts what the checks need, checking nesting and time per location."""
    c = collections.Counter()
    enters = collections.Counter()  # (paradigm, name) -> entries
    stacks = collections.defaultdict(list)
    last = {}
    held = collections.defaultdict(list)
    metric_last = {}
    kernels = 0
    io_ops = {}
    started = {}  # (location, request) -> the event that started it
    with otf2.reader.open(archive) as tr:
        defs = tr.definitions
        c["groups"] = len(defs.location_groups)
        c["threads"] = sum(1 for l in defs.locations
                           if l.type == otf2.LocationType.CPU_THREAD)
        for loc, ev in tr.events:
            t = ev.time
            if t < last.get(loc, 0):
                fail("location %s: time %d after %d" % (loc.name, t, last[loc]))
            last[loc] = t
            kind = type(ev).__name__
            c[kind] += 1
            if kind == "Enter":
                stacks[loc].append(ev.region)
                enters[(ev.region.paradigm, ev.region.name)] += 1
                if ev.region.region_role in (otf2.RegionRole.FILE_IO,
                                             otf2.RegionRole.FILE_IO_METADATA):
                    c["io_calls"] += 1
                if (loc.type == otf2.LocationType.ACCELERATOR_STREAM and
                        ev.region.region_role != otf2.RegionRole.DATA_TRANSFER):
                    kernels += 1
            elif kind == "Leave":
                if not stacks[loc] or stacks[loc][-1] != ev.region:
                    fail("location %s: Leave %s at %d closes %s" % (
                        loc.name, ev.region.name, t,
                        stacks[loc][-1].name if stacks[loc] else "nothing"))
                stacks[loc].pop()
            elif kind in ("MpiSend", "MpiIsend"):
                c["sent_bytes"] += ev.msg_length
                if kind == "MpiIsend":
                    started[(loc, ev.request_id)] = "MpiIsend"
            elif kind == "NonBlockingCollectiveRequest":
                started[(loc, ev.request_id)] = kind
            elif kind in ("MpiIsendComplete", "NonBlockingCollectiveComplete"):
                want = "MpiIsend" if kind == "MpiIsendComplete" else "NonBlockingCollectiveRequest"
                if started.pop((loc, ev.request_id), None) != want:
                    fail("location %s: %s of request %d at %d, which no %s started" % (
                        loc.name, kind, ev.request_id, t, want))
                if kind == "NonBlockingCollectiveComplete":
                    c["nbc_op " + str(ev.collective_op).split(".")[-1]] += 1
                where = stacks[loc][-1].name if stacks[loc] else ""
                if where.startswith(("MPI_Wait", "MPI_Test")):
                    c[kind + "_in_wait"] += 1
            elif kind in ("MpiRecv", "MpiIrecv"):
                c["recv_bytes"] += ev.msg_length
            elif kind == "Metric":
                for m, v in zip(ev.metric.members, ev.values):
                    k = (loc, m.name)
                    if v < metric_last.get(k, 0):
                        fail("location %s: %s went from %d to %d" % (
                            loc.name, m.name, metric_last[k], v))
                    metric_last[k] = v
                    c["metric_values"] += 1
            elif kind == "IoOperationBegin":
                io_ops[(loc, ev.matching_id)] = (ev.mode, ev.handle)
            elif kind == "IoOperationComplete":
                mode, handle = io_ops.pop((loc, ev.matching_id), (None, None))
                if handle != ev.handle:
                    fail("location %s: IoOperationComplete %d begun on no handle or another" % (
                        loc.name, ev.matching_id))
                if mode == otf2.IoOperationMode.READ:
                    c["io_read"] += ev.bytes_result
                elif mode == otf2.IoOperationMode.WRITE:
                    c["io_written"] += ev.bytes_result
            elif kind == "ThreadAcquireLock":
                held[loc].append((ev.lock_id, ev.acquisition_order))
            elif kind == "ThreadReleaseLock":
                k = (ev.lock_id, ev.acquisition_order)
                if k not in held[loc]:
                    fail("location %s: lock %d released (order %d) but not held" % (
                        loc.name, ev.lock_id, ev.acquisition_order))
                held[loc].remove(k)
    if io_ops:
        fail("I/O operations begun and never completed: %d" % len(io_ops))
    for loc, st in stacks.items():
        if st:
            fail("location %s ends inside %s" % (loc.name, [r.name for r in st]))
    return c, enters, kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpirun")
    ap.add_argument("--np", type=int, default=0)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--expect-functions", action="store_true")
    ap.add_argument("--expect-locks", action="store_true")
    ap.add_argument("--expect-threads", type=int, default=-1)
    ap.add_argument("--expect-omp", action="store_true")
    ap.add_argument("--kernels-from-output", action="store_true")
    ap.add_argument("--expect-metrics", action="store_true")
    ap.add_argument("--expect-io", action="store_true")
    ap.add_argument("--expect-lock-clashes", type=int, default=0)
    ap.add_argument("--expect-measurement", type=int, default=-1)
    ap.add_argument("--expect-completions", action="store_true")
    ap.add_argument("--dist", type=int, default=0)
    ap.add_argument("--ptgen")
    ap.add_argument("--script")
    ap.add_argument("prog", nargs="*")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    trace, out = record(a, [a.work if x == "@WORK@" else x for x in a.prog])
    archive_dir = os.path.join(a.work, "archive")
    said = run([a.paratrace, "export", "--format", "otf2", "-q", "-o", archive_dir,
                trace]).stdout
    check_clashes(a, said)
    # a second export replaces the archive of the first
    run([a.paratrace, "export", "--format", "otf2", "-q", "-o", archive_dir, trace])
    # something else at the output's name is refused, and left as it was
    other = os.path.join(a.work, "not-an-archive")
    with open(other, "w") as f:
        f.write("mine\n")
    p = subprocess.run([a.paratrace, "export", "--format", "otf2", "-q", "-o", other, trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 0 or "is no OTF2 archive" not in p.stderr or open(other).read() != "mine\n":
        fail("export over a file: exit %d, %r" % (p.returncode, p.stderr))
    archive = os.path.join(archive_dir, "traces.otf2")
    printed = otf2_print(archive)
    if a.dist:
        check_dist(a, trace, archive, printed)
    c, enters, kernels = walk(archive)
    calls, locks, io_rows = report_csv(a, trace)
    got = collections.Counter()
    for (paradigm, name), n in enters.items():
        if paradigm == otf2.Paradigm.COMPILER:
            got[name] += n
    if a.expect_functions and not calls:
        fail("the report counts no function call: nothing to compare")
    for name, n in calls.items():
        if got[name] != n:
            fail("function %s: %d entries in the archive, %d calls in the report" % (
                name, got[name], n))
    if set(got) - set(calls):
        fail("functions only in the archive: %s" % sorted(set(got) - set(calls))[:5])
    if c["threads"] < 1 or c["groups"] < 1:
        fail("no location group or thread location: %s" % dict(c))
    if a.expect_locks:
        if not locks or c["ThreadAcquireLock"] != locks:
            fail("%d ThreadAcquireLock, %d acquisitions in the report" % (
                c["ThreadAcquireLock"], locks))
        if c["ThreadReleaseLock"] != c["ThreadAcquireLock"]:
            fail("%d locks acquired, %d released" % (c["ThreadAcquireLock"],
                                                    c["ThreadReleaseLock"]))
    if a.np:
        msgs = nbytes = 0
        for l in out.splitlines():
            w = l.split()
            if len(w) == 5 and w[:2] == ["expect", "sent"]:
                msgs += int(w[3])
                nbytes += int(w[4])
        sends = c["MpiSend"] + c["MpiIsend"]
        recvs = c["MpiRecv"] + c["MpiIrecv"]
        if (sends, c["sent_bytes"], recvs, c["recv_bytes"]) != (msgs, nbytes, msgs, nbytes):
            fail("sent %d (%d B), received %d (%d B); the program sent %d (%d B)" % (
                sends, c["sent_bytes"], recvs, c["recv_bytes"], msgs, nbytes))
        if c["MpiIsend"] != c["MpiIsendComplete"] or c["MpiIrecv"] > c["MpiIrecvRequest"]:
            fail("requests: %s" % dict(c))
        colls = sum(n for (p, name), n in enters.items() if p == otf2.Paradigm.MPI and
                    name in COLLECTIVES and not name.startswith("MPI_I"))
        nbc = sum(n for (p, name), n in enters.items() if p == otf2.Paradigm.MPI and
                  name in COLLECTIVES and name.startswith("MPI_I"))
        if c["MpiCollectiveBegin"] != colls or c["MpiCollectiveEnd"] != colls:
            fail("%d collective calls, %d begin, %d end" % (
                colls, c["MpiCollectiveBegin"], c["MpiCollectiveEnd"]))
        if (c["NonBlockingCollectiveRequest"] != nbc or
                c["NonBlockingCollectiveComplete"] != nbc):
            fail("%d non-blocking collective calls, %d requested, %d completed" % (
                nbc, c["NonBlockingCollectiveRequest"], c["NonBlockingCollectiveComplete"]))
        print("mpi: %d messages, %d bytes, %d collectives, %d non-blocking" % (
            msgs, nbytes, colls, nbc))
    if a.expect_completions:
        if not c["MpiIsendComplete"]:
            fail("no MpiIsendComplete")
        for k in ("MpiIsendComplete", "NonBlockingCollectiveComplete"):
            if c[k + "_in_wait"] != c[k]:
                fail("%d %s, %d of them in a Wait or Test call" % (c[k], k, c[k + "_in_wait"]))
        ops = collections.Counter()
        for (p, name), n in enters.items():
            if p == otf2.Paradigm.MPI and name in COLLECTIVES and name.startswith("MPI_I"):
                ops["nbc_op " + name[5:].upper()] += n
        if any(c[k] != n for k, n in ops.items()):
            fail("non-blocking collectives completed %s, called %s" % (
                {k: v for k, v in c.items() if k.startswith("nbc_op")}, dict(ops)))
        print("completions: %d sends, %d collectives, each in its Wait or Test" % (
            c["MpiIsendComplete"], c["NonBlockingCollectiveComplete"]))
    if a.expect_omp:
        par = sum(n for (p, name), n in enters.items()
                  if p == otf2.Paradigm.OPENMP and name.startswith("!$omp parallel"))
        if (not c["ThreadFork"] or c["ThreadFork"] != c["ThreadJoin"] or not par or
                c["ThreadTeamBegin"] != c["ThreadTeamEnd"] or c["ThreadTeamBegin"] != par):
            fail("OpenMP: %d fork, %d join, %d team begin, %d end, %d parallel regions" % (
                c["ThreadFork"], c["ThreadJoin"], c["ThreadTeamBegin"], c["ThreadTeamEnd"],
                par))
    if a.expect_threads >= 0:
        n = a.expect_threads
        got_t = [c[k] for k in ("ThreadCreate", "ThreadBegin", "ThreadEnd", "ThreadWait")]
        if got_t != [n] * 4 or c["threads"] != n + 1:
            fail("threads: create, begin, end, wait %s on %d locations; %d created" % (
                got_t, c["threads"], n))
    if a.expect_metrics:
        values = 0
        for l in run([a.paratrace, "dump", trace]).stdout.splitlines():
            w = l.split()
            if len(w) > 4 and w[3] == "COUNTERS" and w[4].startswith("n="):
                values += int(w[4][2:])
        if not values:
            print("note: the run read no counter (perf events unavailable): metrics not checked")
        elif c["metric_values"] != values:
            fail("%d metric values, %d counter values in the trace" % (c["metric_values"],
                                                                       values))
    if a.expect_io:
        got_io = (c["io_calls"], c["io_read"], c["io_written"])
        want = (io_rows["calls"], io_rows["bytes_read"], io_rows["bytes_written"])
        if not io_rows["calls"] or got_io != want:
            fail("I/O: %d calls, %d bytes read, %d written; the report: %d, %d, %d" % (
                got_io + want))
        if not c["IoCreateHandle"] or not c["IoDestroyHandle"]:
            fail("I/O: %d handles created, %d destroyed" % (c["IoCreateHandle"],
                                                            c["IoDestroyHandle"]))
        print("io: %d calls, %d bytes read, %d written" % got_io)
    if a.expect_measurement >= 0 and c["MeasurementOnOff"] != a.expect_measurement:
        fail("%d MeasurementOnOff, %d expected" % (c["MeasurementOnOff"], a.expect_measurement))
    if a.kernels_from_output:
        want = sum(int(l.split()[1]) for l in out.splitlines()
                   if l.startswith("launches_") and len(l.split()) == 2)
        if not want or kernels != want:
            fail("%d kernels on the streams, the program launched %d" % (kernels, want))
    print("ok: %d events, %d functions, %d lock acquisitions" % (
        sum(v for k, v in c.items() if k[0].isupper()), len(calls), c["ThreadAcquireLock"]))


def check_clashes(a, said):
    """The export warned of as many locks sharing an id as expected."""
    clash = "warning: %d locks share their id" % a.expect_lock_clashes
    if ("locks share their id" in said) != (a.expect_lock_clashes > 0) or (
            a.expect_lock_clashes > 0 and clash not in said):
        fail("export said %r; expected %d locks sharing an id" % (said, a.expect_lock_clashes))


def check_dist(a, trace, archive, printed):
    """The archive of M analyzer processes is the one of one process."""
    dist_dir = os.path.join(a.work, "archive-dist")
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")
    for k in ("PARATRACE_DIR", "LD_PRELOAD"):
        env.pop(k, None)
    said = run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", str(a.dist),
                a.paratrace, "export", "--format", "otf2", "-o", dist_dir, trace],
               env=env).stdout
    # rank 0 says it, for all: not M exports of the whole trace each
    want = "written by %d analyzer processes" % a.dist
    if said.count("/traces.otf2 (") != 1 or want not in said:
        fail("mpirun -np %d export said %r, not once %r" % (a.dist, said, want))
    check_clashes(a, said)
    left = [f for f in os.listdir(a.work) if ".tmp-" in f]
    if left:
        fail("temporary folders left: %s" % left)
    dist = os.path.join(dist_dir, "traces.otf2")
    for args, one in ((("-G",), otf2_print(archive, ("-G",))), ((), printed)):
        many = otf2_print(dist, args)
        if many != one:
            diff = [(x, y) for x, y in zip(one.splitlines(), many.splitlines()) if x != y]
            fail("otf2-print %s: the archive of %d processes differs from one's (%d and %d "
                 "lines); first: %s" % (" ".join(args), a.dist, len(one.splitlines()),
                                        len(many.splitlines()), diff[:3]))
    print("dist: %d processes wrote the same archive (%d lines of otf2-print)" % (
        a.dist, len(printed.splitlines())))
    # the timelines are not shared out: one process writes the file, once
    for fmt, ext in (("chrome", ".json"), ("perfetto", ".perfetto-trace")):
        one, many = (os.path.join(a.work, "timeline-%s%s" % (n, ext)) for n in ("one", "dist"))
        run([a.paratrace, "export", "--format", fmt, "-q", "-o", one, trace])
        p = run([a.mpirun, "--oversubscribe", "--bind-to", "none", "-np", str(a.dist),
                 a.paratrace, "export", "--format", fmt, "-o", many, trace], env=env)
        said = p.stdout + p.stderr
        with open(one, "rb") as f1, open(many, "rb") as f2:
            if f1.read() != f2.read():
                fail("mpirun -np %d export --format %s: not the file one process writes" % (
                    a.dist, fmt))
        if said.count(os.path.basename(many)) != 1:
            fail("mpirun -np %d export --format %s said %r: not written once" % (
                a.dist, fmt, said))
    print("dist: the chrome and perfetto exports written once, by one process")


# the report's lock table rows that are no lock a thread holds
NOT_LOCKS = {"semaphore", "barrier", "condition", "futex"}

_COLL = ("Barrier Bcast Reduce Allreduce Alltoall Alltoallv Alltoallw Gather Gatherv Scatter "
         "Scatterv Allgather Allgatherv Scan Exscan Reduce_scatter Reduce_scatter_block").split()
COLLECTIVES = {"MPI_" + n for n in _COLL} | {"MPI_I" + n.lower() for n in _COLL}

if __name__ == "__main__":
    main()
