#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Structural checker for a Paraver trace (NAME.prv or NAME.prv.gz, with
NAME.pcf and NAME.row beside it), as Paraver's parsers read them
(docs/ANALYZER.md):

  - header: `#Paraver (date):END_ns:N(c1,..):1:T(th:node,...),C`; the
    thread and CPU counts match the .row's LEVEL THREAD / LEVEL CPU sizes;
  - every record parses, names an existing appl/task/thread, a CPU in range
    on the task's node, and has times <= END;
  - the body is sorted by time (state begin, event time, logical send);
  - per thread, states are written in begin order and never overlap, each
    with begin < end, and every state value is named in the .pcf;
  - per thread, event records have strictly increasing times (Paraver does
    not count a call whose entry and exit share a time); the wait-state
    lines (types 69000000-69000099 only) among themselves;
  - every event type is declared in the .pcf, and when its block has
    VALUES every value used is among them;
  - per thread, user functions nest: a 60000019 value opens a call, a 0
    ends the innermost one, none ends when none is open, and none is open
    at the end of the trace; calls left out (61000030 = count, 61000031 =
    their time) are summed in the summary as left_calls and left_ns;
  - communication records point at existing threads.

Usage: prv_check.py TRACE.prv [--summary OUT.json]
The summary gives per-thread state time, event counts per (type, value) and
communications, so tests can check numbers without parsing the trace again.
Exit status 0 when the trace is valid; 1 with one line per problem (at most
20) otherwise.
"""
import gzip
import json
import re
import subprocess
import sys
from collections import defaultdict


class Problems:
    def __init__(self):
        self.items = []

    def add(self, msg):
        self.items.append(msg)


def open_text(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, "r", encoding="utf-8", errors="replace", newline="")


def base_name(path):
    for ext in (".prv.gz", ".prv"):
        if path.endswith(ext):
            return path[: -len(ext)]
    raise SystemExit("prv_check: %s: not a .prv or .prv.gz file" % path)


def parse_header(line, P):
    m = re.match(r"^#Paraver \(([^)]*)\):(\d+)(_ns|_us|_ms)?:(.*)$", line)
    if not m:
        P.add("header: not a Paraver header: %r" % line[:120])
        return None
    end = int(m.group(2))
    if m.group(3) != "_ns":
        P.add("header: time unit is %r, expected _ns" % m.group(3))
    rest = m.group(4)
    m2 = re.match(r"^(\d+)\(([\d,]+)\):(\d+):(.*)$", rest)
    if not m2:
        P.add("header: resource model / applications unreadable: %r" % rest[:120])
        return None
    nnodes = int(m2.group(1))
    cpus = [int(x) for x in m2.group(2).split(",")]
    if len(cpus) != nnodes:
        P.add("header: %d nodes but %d CPU counts" % (nnodes, len(cpus)))
    nappl = int(m2.group(3))
    appls = []
    s = m2.group(4)
    for a in range(nappl):
        m3 = re.match(r"^(\d+)\(([^)]*)\)(.?)", s)
        if not m3:
            P.add("header: application %d unreadable: %r" % (a + 1, s[:120]))
            return None
        ntasks = int(m3.group(1))
        tasks = []
        for t in m3.group(2).split(","):
            th, node = t.split(":")
            tasks.append((int(th), int(node)))
        if len(tasks) != ntasks:
            P.add("header: application %d declares %d tasks, lists %d" % (a + 1, ntasks, len(tasks)))
        for th, node in tasks:
            if th <= 0:
                P.add("header: a task with %d threads" % th)
            if node < 1 or node > nnodes:
                P.add("header: task on node %d of %d" % (node, nnodes))
        appls.append(tasks)
        s = s[len(m3.group(0)):]
    ncomm = int(s) if s.strip() else 0
    # CPU -> node (CPUs numbered globally in node order)
    cpu_node = [0]
    for n, c in enumerate(cpus):
        cpu_node += [n + 1] * c
    return {"end": end, "cpus": sum(cpus), "cpu_node": cpu_node, "appls": appls, "ncomm": ncomm}


def parse_pcf(path, P):
    states = set()
    types = {}  # type -> set of values or None (no VALUES)
    section = None
    block = []  # types of the current EVENT_TYPE block
    in_values = False
    names = ("DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES", "STATES_COLOR", "EVENT_TYPE",
             "GRADIENT_COLOR", "GRADIENT_NAMES")
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.strip().replace("\t", " ")
            if not line or line.startswith("#"):
                continue
            if line in names:
                section = line
                block = []
                in_values = False
                continue
            if section == "STATES":
                m = re.match(r"^(-?\d+)\s+(\S.*)$", line)
                if m:
                    states.add(int(m.group(1)))
            elif section == "EVENT_TYPE":
                if line == "VALUES":
                    in_values = True
                    for t in block:
                        types[t] = set()
                    continue
                if line.startswith("PRECISION"):
                    continue
                if not in_values:
                    m = re.match(r"^-?\d+\s+(\d+)\s+(\S.*)$", line)
                    if not m:
                        P.add("pcf: unreadable type line %r" % line)
                        continue
                    t = int(m.group(1))
                    if t > 2147483647:
                        P.add("pcf: type %d does not fit Paraver's int" % t)
                    block.append(t)
                    types.setdefault(t, None)
                else:
                    m = re.match(r"^(-?\d+)\s+(\S.*)$", line)
                    if not m:
                        P.add("pcf: unreadable value line %r" % line)
                        continue
                    v = int(m.group(1))
                    if v > 2147483647 or v < -2147483648:
                        P.add("pcf: value %d cannot be labelled (int32)" % v)
                    for t in block:
                        types[t].add(v)
    return states, types


def parse_row(path, P):
    levels = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        m = re.match(r"^LEVEL (\S+) SIZE (\d+)$", line)
        if m:
            n = int(m.group(2))
            labels = lines[i + 1 : i + 1 + n]
            if len(labels) < n:
                P.add("row: LEVEL %s SIZE %d has only %d labels" % (m.group(1), n, len(labels)))
            for lb in labels:
                if lb.startswith("LEVEL ") or not lb.strip():
                    P.add("row: LEVEL %s: missing label (got %r)" % (m.group(1), lb))
                    break
            levels[m.group(1)] = labels
            i += 1 + n
            continue
        i += 1
    return levels


def analyze_and_check(paratrace, trace_dir, out):
    """Runs `paratrace analyze -q -o OUT TRACE_DIR` and checks what it
    wrote. Returns (problems, summary): problems is a list of messages (an
    analyze that failed is one), summary check()'s (None when analyze
    failed or the header was unreadable)."""
    r = subprocess.run([paratrace, "analyze", "-q", "-o", out, trace_dir], stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return ["analyze failed (exit %d): %s" % (r.returncode, r.stderr)], None
    P, s = check(out + ".prv")
    return ["prv_check: " + m for m in P.items], s


def check(prv, summary_path=None):
    P = Problems()
    base = base_name(prv)
    states_named, types = parse_pcf(base + ".pcf", P)
    levels = parse_row(base + ".row", P)
    f = open_text(prv)
    first = f.readline().rstrip("\r\n")
    H = parse_header(first, P)
    if H is None:
        return P, None
    for _ in range(H["ncomm"]):
        c = f.readline()
        if not c or c[0] not in "cCiI":
            P.add("header: communicator line expected, got %r" % c[:60])
    nthreads = sum(th for appl in H["appls"] for th, _ in appl)
    if "THREAD" not in levels:
        P.add("row: no LEVEL THREAD")
    elif len(levels["THREAD"]) != nthreads:
        P.add("row: %d THREAD labels, header has %d threads" % (len(levels["THREAD"]), nthreads))
    if "CPU" in levels and len(levels["CPU"]) != H["cpus"]:
        P.add("row: %d CPU labels, header has %d CPUs" % (len(levels["CPU"]), H["cpus"]))
    if "TASK" in levels and len(levels["TASK"]) != sum(len(a) for a in H["appls"]):
        P.add("row: %d TASK labels, header has %d tasks" % (len(levels["TASK"]), sum(len(a) for a in H["appls"])))

    end = H["end"]
    last_time = 0
    last_state_end = {}
    last_state_begin = {}
    last_event = {}
    # Totals keyed by tuples while reading (formatting a string key per
    # record took a third of the time on a 150 MB trace), named at the end.
    state_ns = defaultdict(int)  # (appl, task, thread, state) -> ns
    counts = defaultdict(int)  # (type, value) -> events
    comms = []
    nrec = 0
    depth = defaultdict(int)
    left_calls = left_ns = 0
    # What was found good once is not checked again: the rows
    # (cpu, appl, task, thread) and the (type, value) pairs the .pcf names.
    # What was bad is checked (and reported) at every use.
    rows_ok = set()
    labelled = set()

    def state(lineno, key, b, e, st):
        """A state record's checks (both paths below), and its time added."""
        if b >= e:
            P.add("line %d: empty or reversed state %d..%d" % (lineno, b, e))
        if e > end:
            P.add("line %d: state ends at %d after the trace end %d" % (lineno, e, end))
        if b < last_state_end.get(key, 0):
            P.add("line %d: state %d..%d overlaps the previous state of thread %d.%d.%d (ends %d)"
                  % ((lineno, b, e) + key + (last_state_end[key],)))
        if b < last_state_begin.get(key, 0):
            P.add("line %d: states of thread %d.%d.%d out of order" % ((lineno,) + key))
        last_state_end[key] = e
        last_state_begin[key] = b
        state_ns[key + (st,)] += e - b

    def thread_ok(cpu, appl, task, thread, lineno):
        if (cpu, appl, task, thread) in rows_ok:
            return True
        if appl < 1 or appl > len(H["appls"]):
            P.add("line %d: application %d does not exist" % (lineno, appl))
            return False
        tasks = H["appls"][appl - 1]
        if task < 1 or task > len(tasks):
            P.add("line %d: task %d does not exist" % (lineno, task))
            return False
        if thread < 1 or thread > tasks[task - 1][0]:
            P.add("line %d: thread %d.%d.%d does not exist" % (lineno, appl, task, thread))
            return False
        if cpu < 0 or cpu > H["cpus"]:
            P.add("line %d: CPU %d out of range" % (lineno, cpu))
            return False
        if cpu and H["cpu_node"][cpu] != tasks[task - 1][1]:
            P.add("line %d: CPU %d is not on the node of task %d" % (lineno, cpu, task))
            return False
        rows_ok.add((cpu, appl, task, thread))
        return True

    # The fast paths below: most lines repeat a row and an event payload
    # (or a state) already checked once. A row is taken from `rows` once
    # thread_ok found it good; a payload (its type:value pairs) once each
    # pair is labelled and nothing about it is a problem; then only what
    # depends on the line itself (times, order, nesting) is checked, as the
    # full path below does. Anything else, and every first sight, takes
    # the full path, which reports it.
    rows = {}  # (cpu, appl, task, thread) as text -> ((appl, task, thread), late key)
    payloads = {}  # "type:value:..." -> (late, nesting steps, left calls, left ns, pairs)
    per_payload = defaultdict(int)  # events counted per payload, named at the end
    named_states = {}  # state as text -> its value

    def fast_row(text):
        try:
            r = tuple(map(int, text))
        except ValueError:
            return None
        if r not in rows_ok:
            return None
        k = r[1:]
        rows[text] = (k, ("late",) + k)
        return rows[text]

    def fast_payload(text):
        try:
            nums = list(map(int, text.split(":")))
        except ValueError:
            return None
        if len(nums) < 2 or len(nums) % 2:
            return None
        pairs = tuple(zip(nums[0::2], nums[1::2]))
        steps = []
        lc = ln = 0
        for pr in pairs:
            if pr not in labelled:
                return None
            ty, v = pr
            if ty == 60000019:
                steps.append(1 if v else -1)
            elif ty == 61000030:
                if v < 1:
                    return None
                lc += v
            elif ty == 61000031:
                if v < 0:
                    return None
                ln += v
        info = (all(69000000 <= ty <= 69000099 for ty, _ in pairs), tuple(steps), lc, ln, pairs)
        # payloads that carry a measure (left-out time, counters) are often
        # all different: keep the table's memory bounded
        if len(payloads) < 100000:
            payloads[text] = info
        return info

    lineno = 1 + H["ncomm"]
    for raw in f:
        lineno += 1
        line = raw.rstrip("\r\n")
        if not line or line[0] == "#":
            continue
        if len(P.items) > 20:
            break
        nrec += 1
        if line[:2] == "2:":
            p = line.split(":", 6)
            if len(p) == 7:
                text = (p[1], p[2], p[3], p[4])
                row = rows.get(text) or fast_row(text)
                info = payloads.get(p[6]) or (row and fast_payload(p[6]))
                try:
                    t = int(p[5])
                except ValueError:
                    t = -1
                if row and info and t >= 0:
                    if t > end:
                        P.add("line %d: event at %d after the trace end %d" % (lineno, t, end))
                    key = row[1] if info[0] else row[0]
                    prev = last_event.get(key)
                    if prev is not None and t <= prev:
                        P.add("line %d: event at %d, not after the previous event of thread %d.%d.%d"
                              % ((lineno, t) + row[0]))
                    last_event[key] = t
                    for step in info[1]:
                        d = depth[key] + step
                        if d < 0:
                            P.add("line %d: thread %d.%d.%d ends a call when none is open"
                                  % ((lineno,) + row[0]))
                            d = 0
                        depth[key] = d
                    left_calls += info[2]
                    left_ns += info[3]
                    if p[6] in payloads:
                        per_payload[p[6]] += 1
                    else:
                        for pr in info[4]:
                            counts[pr] += 1
                    if t < last_time:
                        P.add("line %d: time %d before the previous record's %d (body not sorted)"
                              % (lineno, t, last_time))
                    last_time = t
                    continue
        elif line[:2] == "1:":
            p = line.split(":")
            if len(p) == 8:
                text = (p[1], p[2], p[3], p[4])
                row = rows.get(text) or fast_row(text)
                st = named_states.get(p[7])
                if st is None and p[7].isdecimal() and int(p[7]) in states_named:
                    st = named_states[p[7]] = int(p[7])
                try:
                    b, e = int(p[5]), int(p[6])
                except ValueError:
                    b = -1
                if row and st is not None and b >= 0:
                    state(lineno, row[0], b, e, st)
                    if b < last_time:
                        P.add("line %d: time %d before the previous record's %d (body not sorted)"
                              % (lineno, b, last_time))
                    last_time = b
                    continue
        kind, _, rest = line.partition(":")
        try:
            nums = list(map(int, rest.split(":")))
        except ValueError:
            P.add("line %d: non-integer field: %r" % (lineno, line[:120]))
            continue
        if kind == "2":
            n = len(nums)
            if n < 7 or (n - 5) % 2:
                P.add("line %d: event record with %d fields" % (lineno, n))
                continue
            cpu, appl, task, th, t = nums[:5]
            if (cpu, appl, task, th) not in rows_ok and not thread_ok(cpu, appl, task, th, lineno):
                continue
            if t > end:
                P.add("line %d: event at %d after the trace end %d" % (lineno, t, end))
            key = (appl, task, th)
            # wait-state lines (written after the rows, docs/ANALYZER.md
            # "Wait states") may share a time with the row's other lines,
            # never with one another (one pair, the common line, tested
            # without a generator: this loop is most of the checker's time)
            if n == 7:
                late = 69000000 <= nums[5] <= 69000099
            else:
                late = all(69000000 <= nums[i] <= 69000099 for i in range(5, n, 2))
            if late:
                key = ("late",) + key
            prev = last_event.get(key)
            if prev is not None and t <= prev:
                P.add("line %d: event at %d, not after the previous event of thread %d.%d.%d"
                      % (lineno, t, appl, task, th))
            last_event[key] = t
            for i in range(5, n, 2):
                ty = nums[i]
                v = nums[i + 1]
                counts[ty, v] += 1
                if (ty, v) not in labelled:
                    if ty not in types:
                        P.add("line %d: event type %d not in the .pcf" % (lineno, ty))
                    elif types[ty] is not None and v not in types[ty] and -2**31 <= v < 2**31:
                        # (values outside int32 cannot be labelled by Paraver at all)
                        P.add("line %d: value %d of type %d not named in the .pcf" % (lineno, v, ty))
                    else:
                        labelled.add((ty, v))
                if ty == 60000019:
                    d = depth[key] + (1 if v else -1)
                    if d < 0:
                        P.add("line %d: thread %d.%d.%d ends a call when none is open"
                              % (lineno, appl, task, th))
                        d = 0
                    depth[key] = d
                elif ty == 61000030:
                    if v < 1:
                        P.add("line %d: %d calls left out" % (lineno, v))
                    left_calls += v
                elif ty == 61000031:
                    if v < 0:
                        P.add("line %d: %d ns left out" % (lineno, v))
                    left_ns += v
        elif kind == "1":
            if len(nums) != 7:
                P.add("line %d: state record with %d fields" % (lineno, len(nums)))
                continue
            cpu, appl, task, th, b, e, st = nums
            if (cpu, appl, task, th) not in rows_ok and not thread_ok(cpu, appl, task, th, lineno):
                continue
            t = b
            state(lineno, (appl, task, th), b, e, st)
            if st not in states_named:
                P.add("line %d: state %d not named in the .pcf" % (lineno, st))
        elif kind == "3":
            if len(nums) != 14:
                P.add("line %d: communication record with %d fields" % (lineno, len(nums)))
                continue
            ok = thread_ok(*nums[0:4], lineno) and thread_ok(*nums[6:10], lineno)
            t = nums[4]
            if ok:
                for x in (nums[4], nums[5], nums[10], nums[11]):
                    if x > end or x < 0:
                        P.add("line %d: communication time %d outside 0..%d" % (lineno, x, end))
                comms.append({"from": "%d.%d.%d" % tuple(nums[1:4]), "to": "%d.%d.%d" % tuple(nums[7:10]),
                              "send": nums[4], "recv": nums[10], "size": nums[12], "tag": nums[13]})
        else:
            P.add("line %d: unknown record type %r" % (lineno, kind))
            continue
        if t < last_time:
            P.add("line %d: time %d before the previous record's %d (body not sorted)" % (lineno, t, last_time))
        last_time = t
    f.close()
    for text, c in per_payload.items():
        for pr in payloads[text][4]:
            counts[pr] += c
    for key, d in sorted(depth.items()):
        if d:
            P.add("thread %d.%d.%d: %d calls still open at the end" % (key + (d,)))
    state_time = defaultdict(lambda: defaultdict(int))
    for (appl, task, th, st), ns in state_ns.items():
        state_time["%d.%d.%d" % (appl, task, th)][str(st)] += ns
    ev_count = defaultdict(int)
    for (ty, v), c in counts.items():
        ev_count["%d:%d" % (ty, v)] = c
    left = {"calls": left_calls, "ns": left_ns}
    summary = {"end": end, "threads": nthreads, "records": nrec, "states": state_time,
               "events": ev_count, "comms": comms,
               "left_calls": left["calls"], "left_ns": left["ns"],
               "thread_labels": levels.get("THREAD", []), "task_labels": levels.get("TASK", [])}
    if summary_path:
        with open(summary_path, "w") as out:
            json.dump(summary, out, indent=1, sort_keys=True)
    return P, summary


def main():
    args = sys.argv[1:]
    summary = None
    if "--summary" in args:
        i = args.index("--summary")
        summary = args[i + 1]
        del args[i : i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    P, _ = check(args[0], summary)
    for msg in P.items[:20]:
        print("prv_check: %s: %s" % (args[0], msg), file=sys.stderr)
    return 1 if P.items else 0


if __name__ == "__main__":
    sys.exit(main())
