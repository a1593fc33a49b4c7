#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile names through every output: progs/hostile_names.c, run under a
file name of the same kind (a line break, a terminal escape, a byte that is
not UTF-8), then every output of the analyzer is read back as its consumer
would, against the policies of analyzer/symbols/pt_text.h:

  text (report, analyze's summary, dump, CSV): valid UTF-8 with no control
      character but the line ends, the names escaped (\\xNN), one row per
      thread;
  .pcf / .row: the same, and every label on one line (each .row level holds
      exactly SIZE labels);
  JSON (report --json, Chrome, the HTML report's data): strict JSON of
      valid UTF-8, the names as the bytes read with errors="replace";
  Perfetto: every protobuf string valid UTF-8, the same names;
  SVG (plot) and HTML: the SVG parses as XML, the HTML holds no control
      character;
  stderr (every command's): the text policy too, each line a message of
      paratrace's own ("paratrace: ...") or an indented line of an error's
      list; checked as well on warnings and errors that name the trace
      directory, a path and the program: a damaged log in a directory with
      such a name, a path that is not there, two runs of the program in one
      directory.

usage: check_hostile.py --prog BIN --runtime LIBTRACE --paratrace CLI --work DIR
"""
import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_read  # noqa: E402
from testlib import FAILS, arguments, fail, traced  # noqa: E402

PROGRAM = b"prog\n\x1b]0;T\x07X\xff"
FUNC = b"fn\x1b[31mRED\x1b[0m\rOVERWRITE\n\xff\xfe<&>\"'\\"
FILE = b"f\xff\n.c"
WAITER = b"waiter\x1b]0;T\x07\xc2\x9b\xe6\x97"
THREAD = b"worker\x1b]0;PWNED-title\x07\x1b[2J\r\nFAKE LINE\xff"
TYPE = b"ph\x1b[2Jase\n"
SCOPE = b"st\xffep"
VALUE = b"fi\rve\xc0"
DIRNAME = b"tr\n\x1b]0;T\x07\r\x1b[2J\xffdir"

def utf8_len(b, i):
    for n in range(1, 5):
        try:
            if len(b[i:i + n].decode("utf-8")) == 1:
                return n
        except UnicodeDecodeError:
            pass
    return 0


def text(b):
    """The text policy: printable UTF-8 kept; C0, DEL, C1, the backslash
    and bytes that are not UTF-8 as \\xNN, a byte at a time."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else utf8_len(b, i)
        if c < 0x80:
            keep = 0x20 <= c < 0x7F and c != 0x5C
        else:
            keep = n and not (n == 2 and c == 0xC2 and b[i + 1] < 0xA0)
        n = n or 1
        out.append(b[i:i + n].decode() if keep else "".join("\\x%02x" % x for x in b[i:i + n]))
        i += n
    return "".join(out)


def replaced(b):
    return b.decode("utf-8", "replace")


def displayable(what, data, allow="\n"):
    """data (bytes) is UTF-8 with no control character but those in allow."""
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8: %s" % (what, e))
        return ""
    bad = [c for c in s if (ord(c) < 0x20 and c not in allow) or 0x7F <= ord(c) < 0xA0]
    if bad:
        fail("%s: control characters %r" % (what, sorted(set(bad))))
    return s


def check_stderr(what, err):
    """A command's stderr: displayable, every line paratrace's own message
    or an indented line of one (an error's list); returns it as text."""
    s = displayable(what + ": stderr", err)
    for line in s.split("\n")[:-1]:
        if not line.startswith("paratrace: ") and not line.startswith("  "):
            fail("%s: stderr line %r is no message of paratrace's" % (what, line))
    return s


def run_p(a, args, what, status=0):
    p = subprocess.run([a.paratrace] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    if p.returncode != status:
        fail("%s: exit status %d, not %d: %s" % (what, p.returncode, status, p.stderr[-500:]))
    p.err = check_stderr(what, p.stderr)
    return p


def run(a, args, what):
    return run_p(a, args, what).stdout


def table_rows(s, title):
    """The rows of the text table whose title line starts with title."""
    lines = s.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(title):
            rows = []
            for row in lines[i + 2:]:
                if not row.strip():
                    break
                rows.append(row)
            return rows
    return None


def check_report_text(a, trace):
    s = displayable("report", run(a, ["report", trace], "report"))
    threads = table_rows(s, "Threads")
    if threads is None or len(threads) != 2:
        fail("report: the Threads table has %s rows, not 2: %r" % (
            None if threads is None else len(threads), threads))
    funcs = table_rows(s, "Functions by exclusive time") or []
    # names are cut at their start to the column: their escaped ends show
    if not any(text(FUNC)[-6:] in r for r in funcs):
        fail("report: no function row ends with %r: %r" % (text(FUNC)[-6:], funcs))
    if threads and not any(text(THREAD)[-12:] in r for r in threads):
        fail("report: no thread row ends with %r: %r" % (text(THREAD)[-12:], threads))
    locks = table_rows(s, "Locks by wait time") or []
    if not any(text(WAITER)[-8:] in r for r in locks):
        fail("report: the locks table does not name the waiter: %r" % locks)


def check_csv(a, trace):
    s = displayable("report --csv", run(a, ["report", "--csv", trace], "report --csv"))
    rows = list(csv.reader(io.StringIO(s)))
    funcs = [r for r in rows if r and r[0] == "function"]
    if not any(r[1] == text(FUNC) and r[2] == text(FILE) for r in funcs):
        fail("report --csv: no function row %r in %r: %r" % (text(FUNC), text(FILE), funcs))
    threads = [r for r in rows if r and r[0] == "thread"]
    if len(threads) != 2 or not any(r[3].startswith(text(PROGRAM)) and
                                    r[3].endswith("(%s)" % text(THREAD)) for r in threads):
        fail("report --csv: threads %r" % threads)


def check_json_names(what, names, want):
    for w in want:
        if not any(w in n for n in names):
            fail("%s: %r is in none of %r" % (what, w, sorted(names)[:20]))


def check_json(a, trace):
    data = run(a, ["report", "--json", trace], "report --json")
    try:
        d = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("report --json: not strict JSON: %s" % e)
        return
    f = [(x["name"], x["file"]) for x in d["functions"]]
    if (replaced(FUNC), replaced(FILE)) not in f:
        fail("report --json: functions %r" % f)
    check_json_names("report --json threads", [x["name"] for x in d["threads"]],
                     [replaced(THREAD)])
    check_json_names("report --json locks", [x["top_waiter"] for x in d["locks"]],
                     [replaced(WAITER)])


def check_chrome(a, trace, work):
    out = os.path.join(work, "c.json")
    run(a, ["export", "--format", "chrome", trace, "-o", out], "export chrome")
    try:
        d = json.loads(open(out, "rb").read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("chrome: not strict JSON: %s" % e)
        return
    evs = d["traceEvents"] if isinstance(d, dict) else d
    names = {e.get("name") for e in evs} | {e.get("args", {}).get("name") for e in evs}
    names.discard(None)
    # (the timeline exports name threads by id, not by THREAD_NAME)
    check_json_names("chrome", names, [replaced(FUNC), replaced(WAITER), replaced(PROGRAM)])


def check_perfetto(a, trace, work):
    out = os.path.join(work, "p.pftrace")
    run(a, ["export", "--format", "perfetto", trace, "-o", out], "export perfetto")
    try:
        packets = perfetto_read.read(out)  # decodes every string as strict UTF-8
    except (UnicodeDecodeError, ValueError) as e:
        fail("perfetto: %s" % e)
        return
    names = set()
    for p in packets:
        names |= set(p["names"].values())
        if p["event"] and p["event"]["name"]:
            names.add(p["event"]["name"])
        tr = p["track"]
        if tr:
            for k in ("name",):
                if tr.get(k):
                    names.add(tr[k])
            for sub in ("process", "thread"):
                if tr.get(sub) and tr[sub].get("name"):
                    names.add(tr[sub]["name"])
    check_json_names("perfetto", names, [replaced(FUNC), replaced(WAITER), replaced(PROGRAM)])


def check_paraver(a, trace, work):
    name = os.path.join(work, "a")
    displayable("analyze", run(a, ["analyze", trace, "-o", name], "analyze"))
    pcf = displayable(".pcf", open(name + ".pcf", "rb").read(), "\n")
    labels = set()
    for line in pcf.split("\n"):
        # "<colour> <type> <label>" in EVENT_TYPE, "<value> <label>" in VALUES
        for pat in (r"^\d+\s+\d+\s+(.*)$", r"^-?\d+\s+(.*)$"):
            m = re.match(pat, line)
            if m:
                labels.add(m.group(1))
    for want in (text(TYPE), text(SCOPE), text(VALUE), text(FUNC)):
        if not any(l == want or l.startswith(want + " ") for l in labels):
            fail(".pcf: no label %r" % want)
    row = displayable(".row", open(name + ".row", "rb").read(), "\n")
    lines = row.split("\n")
    i, levels = 0, {}
    while i < len(lines):
        m = re.match(r"^LEVEL (\w+) SIZE (\d+)$", lines[i])
        if not m:
            if lines[i]:
                fail(".row: line %d is no LEVEL line and no blank: %r" % (i + 1, lines[i]))
            i += 1
            continue
        n = int(m.group(2))
        levels[m.group(1)] = lines[i + 1:i + 1 + n]
        i += 1 + n
        if i < len(lines) and lines[i]:
            fail(".row: level %s holds more lines than its SIZE %d: %r" % (m.group(1), n,
                                                                         lines[i]))
    if levels.get("APPL") != [text(PROGRAM)]:
        fail(".row: APPL %r, not [%r]" % (levels.get("APPL"), text(PROGRAM)))
    if not all(t.startswith(text(PROGRAM) + " pid ") for t in levels.get("TASK", [""])):
        fail(".row: TASK %r" % levels.get("TASK"))
    th = levels.get("THREAD", [])
    if len(th) != 2 or not any(t.endswith("(%s)" % text(THREAD)) for t in th):
        fail(".row: THREAD %r" % th)


def check_svg(a, trace, work):
    out = os.path.join(work, "p.svg")
    run(a, ["plot", trace, "-o", out], "plot")
    displayable("plot", open(out, "rb").read(), "\n")
    try:
        root = ET.parse(out).getroot()
    except ET.ParseError as e:
        fail("plot: not XML: %s" % e)
        return
    titles = {"".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}title")}
    for want in (text(FUNC), text(THREAD)):
        if not any(want in t for t in titles):
            fail("plot: no title holds %r" % want)


def check_html(a, trace, work):
    out = os.path.join(work, "r.html")
    run(a, ["report", "--html", trace, "-o", out], "report --html")
    s = displayable("report --html", open(out, "rb").read(), "\n\t")
    m = re.search(r'<script type="application/json" id="profile">\n(.*?)</script>', s, re.S)
    if not m:
        fail("report --html: no profile data")
        return
    d = json.loads(m.group(1))
    if replaced(FUNC) not in [x["name"] for x in d["functions"]]:
        fail("report --html: the data has no function %r" % replaced(FUNC))
    if text(PROGRAM) not in s:
        fail("report --html: the program is not named %r" % text(PROGRAM))


def check_views(a, trace):
    """report --tree, --callers, --cost and diff: text and JSON."""
    s = displayable("report --tree", run(a, ["report", "--tree", trace], "report --tree"))
    if text(FUNC) not in s:
        fail("report --tree: no line names %r" % text(FUNC))
    for what, args in (("report --tree --json", ["report", "--tree", "--json"]),
                       ("report --callers --json", ["report", "--callers", "^fn", "--json"]),
                       ("report --cost --json", ["report", "--cost", "--json"]),
                       ("diff --json", ["diff", "--json", trace])):
        data = run(a, args + [trace], what)
        try:
            d = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            fail("%s: not strict JSON: %s" % (what, e))
            continue
        found = json.dumps(d, ensure_ascii=False)
        if json.dumps(replaced(FUNC), ensure_ascii=False) not in found:
            fail("%s: no name %r" % (what, replaced(FUNC)))
    for what, args in (("report --cost", ["report", "--cost"]), ("diff", ["diff", trace]),
                       ("diff --csv", ["diff", "--csv", trace])):
        displayable(what, run(a, args + [trace], what))


def check_dump(a, trace):
    s = displayable("dump", run(a, ["dump", trace], "dump"))
    for kind, want in (("FUNC_DEF", text(FUNC)), ("THREAD_NAME", text(THREAD)),
                       ("USER_TYPE", text(TYPE)), ("USER_VALUE_NAME", text(VALUE))):
        if not re.search(r"^\S+ \S+ \S+ %s .*name=%s$" % (kind, re.escape(want)), s, re.M):
            fail("dump: no %s line with name=%r" % (kind, want))


def check_messages(a, exe, trace, work):
    """Warnings and errors that name hostile paths and programs."""
    d = os.path.join(os.fsencode(work), DIRNAME)
    shutil.copytree(os.fsencode(trace), d)
    logs = sorted(glob.glob(os.path.join(d, b"*", b"t*.ptl")))
    # 16 bytes of 0xff among the first thread log's records: damaged data
    b = bytearray(open(logs[0], "rb").read())
    b[300:316] = b"\xff" * 16
    open(logs[0], "wb").write(bytes(b))
    out = os.path.join(os.fsencode(work), b"m")
    for what, args in (("report", ["report"]), ("report --json", ["report", "--json"]),
                       ("dump", ["dump"]), ("analyze", ["analyze", "-o", out]),
                       ("export", ["export", "--format", "chrome", "-o", out + b".json"])):
        what += " (damaged log)"
        p = run_p(a, args + [d], what, status=1)
        if text(DIRNAME) not in p.err or "offset " not in p.err:
            fail("%s: no warning names %r with an offset: %r" % (what, text(DIRNAME), p.err))
    missing = os.path.join(d, b"gone\x1b[2J")
    p = run_p(a, ["report", missing], "report (a path not there)", status=2)
    if text(DIRNAME + b"/gone\x1b[2J") not in p.err:
        fail("report (a path not there): the path is not named: %r" % p.err)
    runs = os.path.join(os.fsencode(work), b"runs")
    env = dict(os.environ, PARATRACE_DIR=runs, LD_PRELOAD=a.runtime)
    for _ in range(2):
        subprocess.run([exe], env=env, timeout=60, check=True)
    p = run_p(a, ["report", runs], "report (two runs)", status=2)
    if p.err.count(text(PROGRAM)) != 2 or p.err.count("\n  run ") != 2:
        fail("report (two runs): not one line per run naming %r: %r" % (text(PROGRAM), p.err))


def main():
    a = arguments("prog", "runtime", "paratrace", "work")
    work = os.path.abspath(a.work)
    exe = os.path.join(os.fsencode(work), PROGRAM)
    shutil.copy(a.prog, exe)
    trace = os.path.join(work, "trace")
    traced("check_hostile", [exe], a.runtime, trace)
    check_report_text(a, trace)
    check_csv(a, trace)
    check_json(a, trace)
    check_views(a, trace)
    check_chrome(a, trace, work)
    check_perfetto(a, trace, work)
    check_paraver(a, trace, work)
    check_svg(a, trace, work)
    check_html(a, trace, work)
    check_dump(a, trace)
    check_messages(a, exe, trace, work)
    if FAILS:
        sys.exit("check_hostile: %d failures (outputs in %s)" % (len(FAILS), work))
    print("ok: every output of a trace with hostile names")


if __name__ == "__main__":
    main()
