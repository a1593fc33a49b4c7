#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Kernel profiling end to end on PoCL (PARATRACE_GPU_KERNELS): run
ocl_kernels, which builds its kernels from source at run time, untraced and
under libtrace.so with PARATRACE_GPU_KERNELS=blocks, =entries and unset, and
check:

- the program's results (checksums) and its view of its kernels are the same
  in every run (the program checks the latter itself);
- blocks: `paratrace report --csv` and `--json` (its "gpu_kernels" member,
  the same rows) have, per kernel, the launches, work-groups and work-items
  the program made, and the first block at each marker line
  of the source executed exactly as often as the work sizes and the data say
  (odd work-items, a loop whose trip count is the id mod 8, a helper that
  branches on the data, a 2-D range, a tree reduction in local memory, a
  loop whose trip count is the id);
- the .prv: per launch, on the queue's row after the kernel it profiles,
  the work-groups (63200004), instructions executed (63200001, summing to
  the report's total), hot-block share and line (63200002/3), each exactly
  what that kernel's blocks in the report give for one launch, labelled in
  the .pcf; the analyzer's structural checker accepts the trace;
- the Perfetto export: the queue's track has counter tracks whose
  "instructions executed" values add up to the same total; none with a
  time window that ends before any kernel ran;
- entries: work-groups and work-items, no block rows (CSV and JSON), no
  instruction events;
- unset: no profile at all and no compile of the source;
- offline: the same source compiled by clang with instrument.so to SPIR
  bitcode, loaded by the program with clCreateProgramWithBinary: untraced,
  the same results (the twins are not used); under blocks, the same exact
  counts in the report and the .prv, with the offline source file named;
- a clang that cannot be run: one warning, the program runs uninstrumented
  with the same results;
- separate compilation: the helper and the kernels compiled apart
  (clCompileProgram, a header given as a program), the helper made a library
  and linked with the kernels (clLinkProgram): under blocks the same results,
  kernel names, errors and build log of a compile and a link that fail as
  untraced, and the same exact counts (the helper's blocks, from its own
  source, inlined into the kernel that calls it) in the report and the .prv;
  with a clang that cannot be run, one warning and the same results.
"""
import argparse
import collections
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def run(a, mode, extra_env=None, binary=None, link=False):
    """Runs the program (mode None: untraced); returns (stdout dict, stderr, trace)."""
    trace = os.path.join(a.dir, "trace-%s%s%s" % (mode or "plain", "-binary" if binary else "",
                                                 "-link" if link else ""))
    env = dict(os.environ, POCL_CACHE_DIR=os.path.join(a.dir, "pocl-cache"))
    env.pop("PARATRACE_GPU_KERNELS", None)
    if mode:
        env.update(LD_PRELOAD=a.lib, PARATRACE_DIR=trace)
        if mode in ("blocks", "entries"):
            env["PARATRACE_GPU_KERNELS"] = mode
        if a.plugin:
            env["PARATRACE_PLUGIN"] = a.plugin
    env.update(extra_env or {})
    args = [a.prog] + (["--binary", binary] if binary else []) + (["--link"] if link else []) + [str(a.reps)]
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    if not check(r.returncode == 0, "%s run failed (%d): %s%s" % (mode, r.returncode, r.stdout, r.stderr[-3000:])):
        return None, r.stderr, trace
    said = collections.defaultdict(list)
    for line in r.stdout.splitlines():
        k, *v = line.split()
        said[k].append(v)
    return said, r.stderr, trace


def results(said):
    return {k: v for k, v in said.items() if k.startswith("sum_")}


def expected(said):
    """What the first block at each marker comment must count, per kernel,
    and the sizes of each kernel's launches, from the program's sizes and
    data."""
    one = lambda k: int(said[k][0][0])
    reps, n, w, h, lb, lr = one("reps"), one("N"), one("W"), one("H"), one("LB"), one("LR")
    nt, lt = one("NT"), one("LT")
    l2 = [int(x) for x in said["L2"][0]]
    data = [i % 7 for i in range(n)]
    trips = [i % 8 for i in range(n)]
    body = sum(trips)
    big = sum(1 for i in range(n) for k in range(trips[i]) if data[k] > 3)
    steps = (lr - 1).bit_length()
    exp = {
        # 2 launches per rep: with the group size given, and left to PoCL
        "branchy": dict(launches=2 * reps, items=2 * n * reps, groups=None,
                        lines={"ENTRY": n, "ODD": n // 2, "BODY": body, "BIG": big, "SMALL": body - big}),
        "grid2d": dict(launches=reps, items=w * h * reps, groups=(w // l2[0]) * (h // l2[1]) * reps,
                       lines={"THIRD": sum(1 for x in range(w) for y in range(h) if (x + y) % 3 == 0)}),
        "reduce": dict(launches=reps, items=n * reps, groups=n // lr * reps,
                       lines={"FOLD": n // lr * (lr - 1), "STEP": n * steps, "GROUP": n // lr}),
        "copy": dict(launches=reps, items=n * reps, groups=n // lb * reps, lines={"COPY": n}),
        # trip count = the work-item's id
        "triangle": dict(launches=reps, items=nt * reps, groups=nt // lt * reps, lines={"TRI": nt * (nt - 1) // 2}),
    }
    for k, e in exp.items():
        per = e["launches"] if k != "branchy" else 2 * reps
        e["lines"] = {m: c * per for m, c in e["lines"].items()}
    exp["branchy"]["groups_given"] = n // lb * reps
    # work-groups of each launch whose group size the program gives
    exp["per_launch_groups"] = collections.Counter({(w // l2[0]) * (h // l2[1]): reps, n // lr: reps}) + \
        collections.Counter({n // lb: 2 * reps}) + collections.Counter({nt // lt: reps})
    return exp


def report_csv(a, trace):
    r = subprocess.run([a.paratrace, "report", "--csv", trace], capture_output=True, text=True)
    if not check(r.returncode == 0, "report --csv failed: %s" % r.stderr[-2000:]):
        return [], []
    kernels, blocks = [], []
    header = None
    for row in csv.reader(io.StringIO(r.stdout)):
        if row and row[0] == "table":
            header = row
        elif row and row[0] in ("gpu_kernel", "gpu_block"):
            (kernels if row[0] == "gpu_kernel" else blocks).append(dict(zip(header, row)))
    return kernels, blocks


def report_json(a, trace):
    """The "gpu_kernels" member of `report --json`, as report_csv's rows:
    every value a string, each block row naming its kernel."""
    r = subprocess.run([a.paratrace, "report", "--json", trace], capture_output=True, text=True)
    if not check(r.returncode == 0, "report --json failed: %s" % r.stderr[-2000:]):
        return [], []
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        check(False, "report --json: not JSON (%s)" % e)
        return [], []
    check("functions" in doc and "threads" in doc, "report --json: profile members missing")
    kernels, blocks = [], []
    for k in doc.get("gpu_kernels", []):
        for b in k.pop("blocks"):
            blocks.append({"kernel": k["kernel"], **{f: str(v) for f, v in b.items()}})
        kernels.append({f: str(v) for f, v in k.items()})
    return kernels, blocks


def same_rows(csv_rows, json_rows, what):
    """The JSON's rows are the CSV's, field for field (shares as numbers)."""
    norm = lambda rows: sorted(tuple(sorted((f, "%.6f" % float(v) if f == "share" else v)
                                            for f, v in r.items() if f != "table")) for r in rows)
    check(norm(csv_rows) == norm(json_rows),
          "report: --json %s differ from --csv: %s vs %s" % (what, norm(json_rows)[:3], norm(csv_rows)[:3]))


def marker(path, line, files={}):
    """The marker comment (// NAME) on that line of the kernel source."""
    if path not in files:
        try:
            with open(path) as f:
                files[path] = f.read().splitlines()
        except OSError:
            files[path] = []
    text = files[path][line - 1] if 0 < line <= len(files[path]) else ""
    m = re.search(r"// ([A-Z]+)", text)
    return m.group(1) if m else None


def check_blocks(a, said, trace, source=r"/ocl-1\.cl"):
    csv_k, csv_b = report_csv(a, trace)
    json_k, json_b = report_json(a, trace)
    same_rows(csv_k, json_k, "kernels")
    same_rows(csv_b, json_b, "blocks")
    # the exact counts in each, so that neither passes by being empty
    check_report(said, json_k, json_b, source, "--json")
    return check_report(said, csv_k, csv_b, source, "--csv")


def check_report(said, kernels, blocks, source, fmt):
    exp = expected(said)
    by_name = {k["kernel"]: k for k in kernels}
    names = {k for k in exp if k != "per_launch_groups"}
    check(set(by_name) == names, "report %s kernels %s, expected %s" % (fmt, sorted(by_name), sorted(names)))
    total = 0
    for name, e in exp.items():
        if name == "per_launch_groups":
            continue
        k = by_name.get(name)
        if not k:
            continue
        check(int(k["launches"]) == e["launches"] and int(k["profiled"]) == e["launches"],
              "%s: launches %s profiled %s, expected %d" % (name, k["launches"], k["profiled"], e["launches"]))
        check(int(k["work_items"]) == e["items"], "%s: work-items %s, expected %d" % (name, k["work_items"], e["items"]))
        if e["groups"] is not None:
            check(int(k["work_groups"]) == e["groups"],
                  "%s: work-groups %s, expected %d" % (name, k["work_groups"], e["groups"]))
        else:
            check(int(k["work_groups"]) > e["groups_given"], "%s: work-groups %s" % (name, k["work_groups"]))
        check(int(k["groups_uncounted"]) == 0, "%s: %s groups uncounted" % (name, k["groups_uncounted"]))
        check(re.search(source + "$", k["file"]) and os.path.exists(k["file"]),
              "%s: source file %s, expected %s" % (name, k["file"], source))
        rows = sorted((b for b in blocks if b["kernel"] == name), key=lambda b: int(b["block"]))
        check(rows and int(rows[0]["executions"]) == e["items"],
              "%s: entry block ran %s times, expected %d" % (name, rows and rows[0]["executions"], e["items"]))
        for m, count in e["lines"].items():
            at = [b for b in rows if marker(b["file"], int(b["line"])) == m]
            check(at and int(at[0]["executions"]) == count,
                  "%s %s: first block at // %s executed %s times, expected %d" %
                  (fmt, name, m, at and at[0]["executions"], count))
        instr = sum(int(b["executions"]) * int(b["instructions"]) for b in rows)
        check(instr == int(k["instructions"]), "%s: instructions %s, blocks say %d" % (name, k["instructions"], instr))
        total += instr
    return total, sum(exp[k]["launches"] for k in names), exp, blocks


def prv_events(a, trace, out):
    """Events of the .prv: {type: [(row, value)]}, the .pcf, and per launch
    (the profile events on a stream row) the kernel whose execution ended
    just before: [(kernel name, {type: value})]."""
    r = subprocess.run([a.paratrace, "analyze", trace, "-o", out, "--quiet"], capture_output=True, text=True)
    if not check(r.returncode == 0, "paratrace analyze failed: %s" % r.stderr[-2000:]):
        return None, "", []
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "prv_check.py")
    v = subprocess.run([sys.executable, checker, out + ".prv"], capture_output=True, text=True)
    check(v.returncode == 0, "prv_check.py: %s%s" % (v.stdout, v.stderr))
    pcf = open(out + ".pcf").read()
    m = re.search(r"64200000\s+OpenCL kernel name\nVALUES\n((?:\d+\s+\S+\n)+)", pcf)
    names = dict(l.split() for l in m.group(1).splitlines()) if m else {}
    events = collections.defaultdict(list)  # type -> [(row, value)]
    launches, running = [], {}
    for line in open(out + ".prv"):
        # only the profile events (632000xx) and the kernel names (64200000)
        # are read: most lines (the host's calls and states) are skipped
        # before they are split
        if "63200" not in line and "64200000" not in line:
            continue
        p = line.strip().split(":")
        if p[0] != "2":
            continue
        row = (int(p[3]), int(p[4]))
        evs = {int(t): int(val) for t, val in zip(p[6::2], p[7::2])}
        for t, val in evs.items():
            events[t].append((row, val))
        if evs.get(64200000):
            running[row] = names.get(str(evs[64200000]))
        if 63200004 in evs:
            launches.append((running.get(row), evs))
    return events, pcf, launches


def check_prv_blocks(a, trace, total, nlaunches, exp, blocks, out):
    ev, pcf, launches = prv_events(a, trace, os.path.join(a.dir, out))
    if ev is None:
        return
    groups, instr = ev.get(63200004, []), ev.get(63200001, [])
    check(len(groups) == nlaunches and len(instr) == nlaunches,
          "prv: %d work-group and %d instruction events, %d launches" % (len(groups), len(instr), nlaunches))
    check(len({row for row, _ in groups}) == 1, "prv: profile events on rows %s" % {row for row, _ in groups})
    check(sum(v for _, v in instr) == total, "prv: instructions add up to %d, report %d" % (sum(v for _, v in instr), total))
    given = exp["per_launch_groups"]
    seen = collections.Counter(v for _, v in groups)
    check(all(seen[g] >= c for g, c in given.items()), "prv: work-groups per launch %s, expected at least %s" % (seen, given))
    share = ev.get(63200002, [])
    check(len(share) == nlaunches and all(0 < v <= 100 for _, v in share), "prv: hot-block shares %s" % share)
    for t in (63200001, 63200002, 63200003, 63200004):
        check(str(t) in pcf, "pcf: no label for %d" % t)
    # Each launch of a kernel runs the same work: its events follow from
    # the kernel's blocks in the report (executions per launch).
    per = collections.Counter(name for name, _ in launches)
    for name, e in exp.items():
        if name == "per_launch_groups":
            continue
        check(per[name] == e["launches"], "prv: %d profiled launches of %s, expected %d" % (per[name], name, e["launches"]))
        rows = [b for b in blocks if b["kernel"] == name]
        x = [int(b["executions"]) // e["launches"] * int(b["instructions"]) for b in rows]
        want = {63200001: sum(x)}
        if x and sum(x):
            hot = x.index(max(x))
            want[63200002] = 100 * x[hot] // sum(x)
            want[63200003] = int(rows[hot]["line"])
        if e["groups"] is not None:
            want[63200004] = e["groups"] // e["launches"]
        for _, evs in (l for l in launches if l[0] == name):
            got = {t: evs.get(t) for t in want}
            check(got == want, "prv: a launch of %s has %s, expected %s" % (name, got, want))


def check_perfetto(a, trace, total):
    import perfetto_read
    pf = os.path.join(a.dir, "blocks.pftrace")
    r = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, "export perfetto failed: %s" % r.stderr[-2000:]):
        return
    packets = perfetto_read.read(pf)
    problems, tracks, _ = perfetto_read.check(packets)
    check(not problems, "perfetto: %s" % problems[:5])
    counters = perfetto_read.counters(packets)
    instr = [pts for t, pts in counters.values() if t["name"].endswith("instructions executed")]
    check(len(instr) == 1, "perfetto: %d instruction counter tracks" % len(instr))
    if instr:
        check(sum(v for _, v in instr[0]) == total,
              "perfetto: instruction counters add up to %d, report %d" % (sum(v for _, v in instr[0]), total))
        parent = [t["parent"] for t, _ in counters.values()]
        check(all(p in tracks and not tracks[p]["counter"] and tracks[p]["name"].startswith("GPU stream")
                  for p in parent), "perfetto: counter tracks not under the queue's track")
    # a time window before any kernel ran: no counter values
    r = subprocess.run([a.paratrace, "export", "--format", "perfetto", "-q", "--to", "1us", "-o", pf + ".win",
                        trace], capture_output=True, text=True)
    if check(r.returncode == 0, "export perfetto --to 1us failed: %s" % r.stderr[-2000:]):
        packets = perfetto_read.read(pf + ".win")
        check(not perfetto_read.check(packets)[0] and not any(pts for _, pts in perfetto_read.counters(packets).values()),
              "perfetto --to 1us: counter values outside the window")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--plugin", help="instrument.so (default: found next to libtrace.so)")
    ap.add_argument("--clang", help="clang instrument.so is built for (the offline checks)")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)

    plain, _, _ = run(a, None)
    if plain is None:
        print("\n".join(failures))
        return 1
    want = results(plain)

    said, err, trace = run(a, "blocks")
    if said:
        check(results(said) == want, "blocks: results differ from the untraced run")
        check(not [l for l in err.splitlines() if l.startswith("paratrace")], "blocks: warnings %s" % err[-2000:])
        total, nlaunches, exp, blocks = check_blocks(a, said, trace)
        check_prv_blocks(a, trace, total, nlaunches, exp, blocks, "blocks")
        check_perfetto(a, trace, total)

    said, err, trace = run(a, "entries")
    if said:
        check(results(said) == want, "entries: results differ from the untraced run")
        kernels, blocks = report_csv(a, trace)
        json_k, json_b = report_json(a, trace)
        same_rows(kernels, json_k, "kernels (entries)")
        exp = expected(said)
        check(len(kernels) == 5 and not blocks and not json_b,
              "entries: %d kernels, %d block rows, %d in the JSON" % (len(kernels), len(blocks), len(json_b)))
        for k in kernels:
            e = exp.get(k["kernel"])
            check(e and int(k["work_items"]) == e["items"] and int(k["instructions"]) == 0 and
                  (e["groups"] is None or int(k["work_groups"]) == e["groups"]),
                  "entries: %s" % k)
        ev, _, _ = prv_events(a, trace, os.path.join(a.dir, "entries"))
        if ev is not None:
            check(len(ev.get(63200004, [])) == exp["branchy"]["launches"] + 4 * a.reps and 63200001 not in ev,
                  "entries: prv profile events %s" % {t: len(v) for t, v in ev.items() if t // 100 == 632000})

    said, err, trace = run(a, "off")
    if said:
        check(results(said) == want, "off: results differ from the untraced run")
        r = subprocess.run([a.paratrace, "dump", trace], capture_output=True, text=True)
        check(" GPU_PROF" not in r.stdout, "off: profile records in the dump")
        cl = [f for _, _, fs in os.walk(trace) for f in fs if f.startswith("ocl-")]
        check(not cl, "off: sources compiled %s" % cl)

    said, err, trace = run(a, "noclang", {"PARATRACE_GPU_KERNELS": "blocks",
                                          "PARATRACE_GPU_CLANG": "/nonexistent/clang"})
    if said:
        check(results(said) == want, "no clang: results differ from the untraced run")
        warns = [l for l in err.splitlines() if l.startswith("paratrace")]
        check(len(warns) == 1 and "clang not found" in warns[0], "no clang: warnings %s" % warns)
        r = subprocess.run([a.paratrace, "dump", trace], capture_output=True, text=True)
        check(" GPU_PROF" not in r.stdout and r.stdout.count(" GPU_LAUNCH ") == 6 * a.reps,
              "no clang: launches still traced, no profiles")

    if a.clang and a.plugin:
        check_offline(a, want)
    check_link(a, want)

    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def check_offline(a, want):
    src = os.path.join(a.dir, "offline.cl")
    with open(src, "w") as f:
        f.write(subprocess.run([a.prog, "--source"], capture_output=True, text=True).stdout)
    bc = os.path.join(a.dir, "offline.bc")
    cc = subprocess.run([a.clang, "-target", "spir64-unknown-unknown", "-x", "cl", "-Xclang",
                         "-finclude-default-header", "-cl-std=CL1.2", "-c", "-emit-llvm", "-O2",
                         "-gline-tables-only", "-fplugin=" + a.plugin, src, "-o", bc], capture_output=True, text=True)
    if not check(cc.returncode == 0, "offline compile failed: %s" % cc.stderr[-2000:]):
        return
    said, _, _ = run(a, None, binary=bc)
    if said:
        check(results(said) == want, "offline, untraced: results differ")
    said, err, trace = run(a, "blocks", binary=bc)
    if said:
        check(results(said) == want, "offline, blocks: results differ")
        check(not [l for l in err.splitlines() if l.startswith("paratrace")], "offline: warnings %s" % err[-2000:])
        total, nlaunches, exp, blocks = check_blocks(a, said, trace, r"/offline\.cl")
        check_prv_blocks(a, trace, total, nlaunches, exp, blocks, "offline")


def build_logs(said):
    """The failed compile's build log (PoCL names a temporary file in it)."""
    return {k: [re.sub(r"tempfile_\w+", "tempfile", " ".join(v)) for v in vs]
            for k, vs in said.items() if k.startswith("log_")}


def check_link(a, want):
    plain, _, _ = run(a, None, link=True)
    said, err, trace = run(a, "blocks", link=True)
    if not plain or not said:
        return
    check({k: v for k, v in results(plain).items() if k in want} == want,
          "link, untraced: results differ from the program built with clBuildProgram")
    check(plain["sum_badcompile"] == [["-15"]] and plain["sum_badlink"] == [["-17", "null"]] and
          build_logs(plain).get("log_badcompile"),
          "link, untraced: the bad compile and link did not fail as expected: %s %s %s" %
          (plain["sum_badcompile"], plain["sum_badlink"], build_logs(plain)))
    # the same results, kernel names, errors and build log traced
    check(results(said) == results(plain), "link, blocks: results differ from the untraced run: %s vs %s" %
          (results(said), results(plain)))
    check(build_logs(said) == build_logs(plain), "link, blocks: build logs differ: %s vs %s" %
          (build_logs(said), build_logs(plain)))
    check(not [l for l in err.splitlines() if l.startswith("paratrace")], "link: warnings %s" % err[-2000:])
    total, nlaunches, exp, blocks = check_blocks(a, said, trace, r"/ocl-\d+\.cl")
    # the helper's blocks come from its own unit, inlined into branchy
    files = {b["file"] for b in blocks if b["kernel"] == "branchy"}
    check(len(files) == 2, "link: branchy's blocks in %s, expected the kernels' and the helper's sources" % files)
    check_prv_blocks(a, trace, total, nlaunches, exp, blocks, "link")
    # the instrumented compile failing: one warning, the same results
    said, err, trace = run(a, "noclang", {"PARATRACE_GPU_KERNELS": "blocks",
                                          "PARATRACE_GPU_CLANG": "/nonexistent/clang"}, link=True)
    if said:
        check(results(said) == results(plain), "link, no clang: results differ from the untraced run")
        warns = [l for l in err.splitlines() if l.startswith("paratrace")]
        check(len(warns) == 1 and "clang not found" in warns[0], "link, no clang: warnings %s" % warns)


if __name__ == "__main__":
    sys.exit(main())
