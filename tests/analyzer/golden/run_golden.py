#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden (expected-output) tests of the analyzer.

  run_golden.py --paratrace P --ptgen G --work DIR [--update] [CASE ...]

Each case is a small trace described in cases/CASE.trace (the script format
of bench/analyzer/ptgen.c). ptgen writes its logs, then the outputs of
`paratrace dump`, `paratrace report` and `paratrace analyze` (.prv, .pcf,
.row) are compared with expected/CASE/. Without CASE, every case runs. A
line "# analyze: OPTIONS" in a case gives its analyze those options, and
"# report: OPTIONS" its report.

Expected files are text in the style of DynamoRIO drcachesim's .templatex
files: literal, except that `{{REGEX}}` in a line matches REGEX (Python
syntax) there. What differs from machine to machine is normalised before
the comparison: the host name (in the .row) becomes `<host>`, the work
directory `<work>`; times are printed in UTC (TZ=UTC), workers are -j1.
Each .prv is also checked by prv_check.py (structure, sorting, labels).

--update rewrites expected/ from the current outputs (update.sh beside
this file does it for every case); review `git diff` before committing.
Exit status: 0 all equal, 1 a difference (a unified diff is printed).
"""
import argparse
import difflib
import os
import re
import shutil
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import prv_check  # noqa: E402
OUTPUTS = ("dump.txt", "report.txt", "trace.prv", "trace.pcf", "trace.row")


def run(args, env=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def normalise(text, work):
    text = text.replace(work, "<work>")
    host = socket.gethostname()
    if host:
        text = re.sub(r"(?m)^(\d+\.)%s$" % re.escape(host), r"\1<host>", text)
        text = re.sub(r"(?m)^%s$" % re.escape(host), "<host>", text)
    return text


def outputs(a, case):
    """The case's outputs, by expected file name."""
    work = os.path.abspath(os.path.join(a.work, case))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    trace = os.path.join(work, "trace")
    rc, out, err = run([a.ptgen, "--out", trace, "--scenario", "script",
                        "--script", os.path.join(HERE, "cases", case + ".trace")])
    if rc:
        sys.exit("golden %s: ptgen failed: %s" % (case, err))
    env = dict(os.environ, TZ="UTC")
    got = {}
    rc, out, err = run([a.paratrace, "dump", trace], env)
    got["dump.txt"] = out + (err and "--- stderr\n" + err) + "--- status %d\n" % rc
    # "# analyze: OPTIONS" and "# report: OPTIONS" lines in the case: the
    # options of this case's analyze and report
    opts, ropts = [], []
    with open(os.path.join(HERE, "cases", case + ".trace")) as f:
        for line in f:
            if line.startswith("# analyze:"):
                opts = line.split(":", 1)[1].split()
            if line.startswith("# report:"):
                ropts = line.split(":", 1)[1].split()
    rc, out, err = run([a.paratrace, "report", "-j1"] + ropts + [trace], env)
    got["report.txt"] = out + (err and "--- stderr\n" + err) + "--- status %d\n" % rc
    base = os.path.join(work, "trace")
    rc, out, err = run([a.paratrace, "analyze", "-q", "-j1", "-o", base] + opts + [trace], env)
    if rc:
        sys.exit("golden %s: analyze failed (%d): %s" % (case, rc, err))
    for ext in ("prv", "pcf", "row"):
        with open(base + "." + ext) as f:
            got["trace." + ext] = f.read()
    P, _ = prv_check.check(base + ".prv")
    for m in P.items:
        print("golden %s: prv_check: %s" % (case, m))
    return {k: normalise(v, work) for k, v in got.items()}, not P.items


def line_matches(want, got):
    if "{{" not in want:
        return want == got
    parts = re.split(r"\{\{(.*?)\}\}", want)
    rx = "".join(re.escape(p) if i % 2 == 0 else "(?:%s)" % p for i, p in enumerate(parts))
    return re.fullmatch(rx, got) is not None


def compare(case, name, want, got):
    wl, gl = want.splitlines(), got.splitlines()
    if len(wl) == len(gl) and all(line_matches(w, g) for w, g in zip(wl, gl)):
        return True
    sys.stdout.writelines(difflib.unified_diff(
        [l + "\n" for l in wl], [l + "\n" for l in gl],
        "expected/%s/%s" % (case, name), "got/%s/%s" % (case, name)))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paratrace", required=True)
    ap.add_argument("--ptgen", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    cases = a.cases or sorted(f[:-6] for f in os.listdir(os.path.join(HERE, "cases"))
                              if f.endswith(".trace"))
    ok = True
    for case in cases:
        got, valid = outputs(a, case)
        exp = os.path.join(HERE, "expected", case)
        if a.update:
            os.makedirs(exp, exist_ok=True)
            for name in OUTPUTS:
                with open(os.path.join(exp, name), "w") as f:
                    f.write(got[name])
            print("golden %s: expected/%s updated" % (case, case))
            ok = ok and valid
            continue
        same = valid
        for name in OUTPUTS:
            path = os.path.join(exp, name)
            if not os.path.exists(path):
                print("golden %s: %s missing (run update.sh)" % (case, path))
                same = False
                continue
            with open(path) as f:
                same = compare(case, name, f.read(), got[name]) and same
        print("golden %s: %s" % (case, "ok" if same else "DIFFERENT"))
        ok = ok and same
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
