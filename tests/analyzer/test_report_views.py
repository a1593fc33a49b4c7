#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The report's other views on constructed traces (views/*.trace, written
by ptgen's script scenario), every figure known from the script:

  select  report --from/--to/--include/--threads: the second phase's
          functions only, times clipped to the window, what was left out
  tree    report --tree, --callers, --callees, --threshold
  diff    paratrace diff of two runs (traces, a saved report --json)
  cost    report --cost: events and bytes per function, the filter file
  budget  analyze with a budget that leaves calls out: the functions that
          made the events, NAME.filter; none without the cut

Usage: test_report_views.py PARATRACE PTGEN WORKDIR CASE
"""
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from testlib import FAILS, expect, run  # noqa: E402


def trace(pt, gen, work, name):
    out = os.path.join(work, name)
    subprocess.run([gen, "--out", out, "--scenario", "script", "--script",
                    os.path.join(HERE, "views", name + ".trace")], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def funcs(rep):
    return {f["name"]: f for f in rep["functions"]}


def case_select(pt, gen, work):
    ph = trace(pt, gen, work, "phases")
    rep = json.loads(run([pt, "report", "--json", "--from", "1000ns", "--to", "2000ns", ph]).stdout)
    f = funcs(rep)
    # phase two's functions; load ends where the window begins: outside
    expect(sorted(f) == ["main", "solve", "worker", "write"], "window functions %s" % sorted(f))
    expect(f["solve"]["calls"] == 2 and f["solve"]["incl_ns"] == 1200, "solve %s" % f["solve"])
    expect(f["main"]["incl_ns"] == 1000 and f["main"]["excl_ns"] == 200, "main %s" % f["main"])
    expect(f["worker"]["excl_ns"] == 400, "worker %s" % f["worker"])
    expect(rep["total_thread_ns"] == 1000 + 900, "thread time %d" % rep["total_thread_ns"])
    sel = rep["selection"]
    expect(sel["from_ns"] == 1000 and sel["to_ns"] == 2000 and sel["run_ns"] == 2000, "%s" % sel)
    # a window inside a call: its part only
    rep = json.loads(run([pt, "report", "--json", "--from", "500ns", "--to", "800ns", ph]).stdout)
    f = funcs(rep)
    expect(sorted(f) == ["load", "main", "parse"], "window in parse: %s" % sorted(f))
    expect(f["parse"]["incl_ns"] == 300 and f["load"]["excl_ns"] == 0 and
           f["main"]["incl_ns"] == 300, "clipped times %s" % f)
    # a share of the run: 50% .. 100% is the same second phase
    rep = json.loads(run([pt, "report", "--json", "--from", "50%", ph]).stdout)
    expect(sorted(funcs(rep)) == ["main", "solve", "worker", "write"], "--from 50%%")
    # functions and threads, and what they left out
    rep = json.loads(run([pt, "report", "--json", "--include", "^(solve|write)$",
                          "--threads", "7001", ph]).stdout)
    expect(sorted(funcs(rep)) == ["solve"], "include+threads %s" % sorted(funcs(rep)))
    expect(funcs(rep)["solve"]["incl_ns"] == 500, "worker's solve %s" % funcs(rep))
    expect([t["tid"] for t in rep["threads"]] == [7001], "threads %s" % rep["threads"])
    sel = rep["selection"]
    expect(sel["threads"] == 1 and sel["threads_left_out"] == 1, "rows %s" % sel)
    expect(sel["functions_left_out"] == 1 and sel["calls_left_out"] == 1 and
           sel["excl_left_out_ns"] == 400, "left out %s" % sel)
    txt = run([pt, "report", "--from", "1us", "--exclude", "^solve$", ph]).stdout
    expect("selected: the window 1.00 us to the end of a 2.00 us run" in txt, "text window:\n" + txt)
    expect(re.search(r"selected: 3 functions \(1 left out: 2 calls, 1.20us exclusive\)", txt),
           "text functions:\n" + txt)
    # the worker lived after the window: left out with its row
    csv = run([pt, "report", "--csv", "--to", "1000ns", ph]).stdout
    expect("\nselection,0,1000,2000,1,1,0,0,0,0\n" in csv, "csv selection:\n" + csv)
    # refusals
    p = run([pt, "report", "--min-duration", "1us", ph], rc=2)
    expect("--min-duration is an option of analyze and export" in p.stderr, p.stderr)
    p = run([pt, "report", "--tree", "--from", "1us", ph], rc=2)
    expect("whole run" in p.stderr, p.stderr)
    run([pt, "report", "--from", "3us", ph], rc=2)  # a window past the run


def node(rep, *path):
    kids = rep["roots"]
    n = None
    for name in path:
        n = [k for k in kids if k["name"] == name]
        if len(n) != 1:
            return None
        n = n[0]
        kids = n["children"]
    return n


def case_tree(pt, gen, work):
    ph = trace(pt, gen, work, "phases")
    rep = json.loads(run([pt, "report", "--tree", "--json", ph]).stdout)
    expect(rep["total_ns"] == 2900, "tree total %s" % rep["total_ns"])
    expect([r["name"] for r in rep["roots"]] == ["main", "worker"], "roots %s" % rep["roots"])
    m = node(rep, "main")
    expect(m and (m["incl_ns"], m["excl_ns"], m["calls"]) == (2000, 200, 1), "main %s" % m)
    expect([k["name"] for k in m["children"]] == ["load", "solve", "write"], "main's children")
    p = node(rep, "main", "load", "parse")
    expect(p and p["incl_ns"] == 500 and p["excl_ns"] == 500, "parse %s" % p)
    w = node(rep, "worker", "solve")
    expect(w and w["incl_ns"] == 500, "worker/solve %s" % w)
    txt = run([pt, "report", "--tree", ph]).stdout
    expect(re.search(r"2\.00us +200ns +1 +69\.0%  main\n +1\.00us +500ns +1 +34\.5%    load\n"
                     r" +500ns +500ns +1 +17\.2%      parse", txt), "text tree:\n" + txt)
    # callers: solve's 1.2 us by who called it
    rep = json.loads(run([pt, "report", "--callers", "solve", "--json", ph]).stdout)
    s = node(rep, "solve")
    expect(s and s["incl_ns"] == 1200 and s["calls"] == 2, "callers root %s" % s)
    expect(s and [(k["name"], k["incl_ns"]) for k in s["children"]] ==
           [("main", 700), ("worker", 500)], "callers %s" % s)
    # callees, with main's write (100 of 2000 ns) folded under 10%
    rep = json.loads(run([pt, "report", "--callees", "main", "--threshold", "10", "--json",
                          ph]).stdout)
    m = node(rep, "main")
    expect(m and [k["name"] for k in m["children"]] == ["load", "solve"], "callees %s" % m)
    expect(m and m.get("folded") == {"paths": 1, "calls": 1, "incl_ns": 100}, "folded %s" % m)
    # FUNC as a regular expression when no name is equal
    rep = json.loads(run([pt, "report", "--callers", "^(wri|par)", "--json", ph]).stdout)
    expect(sorted(r["name"] for r in rep["roots"]) == ["parse", "write"], "regex %s" % rep)
    p = run([pt, "report", "--callers", "nosuch", ph], rc=1)
    expect("no function 'nosuch'" in p.stderr, p.stderr)
    run([pt, "report", "--tree", "--callers", "solve", ph], rc=2)
    run([pt, "report", "--threshold", "5", ph], rc=2)
    run([pt, "report", "--tree", "--csv", ph], rc=2)


def case_diff(pt, gen, work):
    a = trace(pt, gen, work, "phases")
    b = trace(pt, gen, work, "phases_slow")
    rep = json.loads(run([pt, "diff", "--json", a, b]).stdout)
    f = rep["functions"]
    expect(f[0]["name"] == "solve", "first function %s" % f[0]["name"])
    expect(f[0]["excl_ns"] == {"a": 1200, "b": 2200, "delta": 1000, "ratio": 2200 / 1200} or
           abs(f[0]["excl_ns"]["ratio"] - 2200 / 1200) < 1e-5, "solve %s" % f[0])
    expect(all(x["excl_ns"]["delta"] == 0 for x in f[1:]), "others unchanged %s" % f[1:])
    t = rep["threads"]
    # matched across runs by what they are, not by pid and tid
    expect([x["name"] for x in t] == ["phases (main)", "phases (created by)"], "threads %s" % t)
    expect(t[0]["lifetime_ns"]["delta"] == 1000, "main thread %s" % t[0])
    # a saved profile on one side, and the text and CSV forms
    saved = os.path.join(work, "phases.json")
    with open(saved, "w") as fh:
        fh.write(run([pt, "report", "--json", a]).stdout)
    txt = run([pt, "diff", saved, b]).stdout
    expect(re.search(r"\nsolve +1\.20us +2\.20us +\+1\.00us +x1\.83 ", txt), "text:\n" + txt)
    csv = run([pt, "diff", "--csv", saved, b]).stdout
    expect("function,\"solve\",1,1,2,2,0,1.000000,1200,2200,1000,1.833333,1200,2200,1000,"
           "1.833333" in csv, "csv:\n" + csv)
    # a function only one side has
    rep = json.loads(run([pt, "diff", "--json", a, trace(pt, gen, work, "cost")]).stdout)
    gone = [x for x in rep["functions"] if x["name"] == "solve"][0]
    expect(gone["in_a"] and not gone["in_b"] and gone["excl_ns"]["ratio"] is None, "gone %s" % gone)
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as fh:
        fh.write('{"functions": [1,')
    p = run([pt, "diff", a, bad], rc=2)
    expect("bad.json: not a profile" in p.stderr and "offset 17" in p.stderr, p.stderr)
    run([pt, "diff", a], rc=2)


def case_cost(pt, gen, work):
    c = trace(pt, gen, work, "cost")
    rep = json.loads(run([pt, "report", "--cost", "--json", c]).stdout)
    f = funcs(rep)
    # 20 calls of tiny: 40 function records, the most bytes
    expect(rep["functions"][0]["name"] == "tiny", "first %s" % rep["functions"][0])
    expect(f["tiny"]["events"] == 40 and f["tiny"]["calls"] == 20, "tiny %s" % f["tiny"])
    expect(f["big"]["events"] == 2 and f["main"]["events"] == 2, "big/main %s" % f)
    expect(sum(x["bytes"] for x in rep["functions"]) <= rep["bytes"], "bytes %s" % rep)
    expect(f["tiny"]["bytes"] >= 2 * 40 and abs(f["tiny"]["size_share"] -
           f["tiny"]["bytes"] / rep["bytes"]) < 1e-5, "tiny's share %s" % f["tiny"])
    # short calls that make events go; big (50 us) and main stay
    esc = "esc\x1b[2J\ufffd"  # its 0xff as the JSON policy writes it
    for name in ("tiny", "ns::f(int, double)", "operator*", esc):
        expect(f.get(name, {}).get("filtered"), "%s not in the filter" % name)
    expect(not f["big"]["filtered"] and not f["main"]["filtered"], "big/main filtered %s" % f)
    expect(rep["filter"]["functions"] == 4, "filter %s" % rep["filter"])
    # on the terminal, the escape and the byte past ASCII are '?'
    p = subprocess.run([pt, "report", "--cost", c], stdout=subprocess.PIPE)
    printed = p.stdout.decode("utf-8", "strict")
    expect("\x1b" not in printed and "  EXCLUDE esc?\\[2J?\n" in printed,
           "printed filter: %r" % printed)
    path = os.path.join(work, "cost.filter")
    txt = run([pt, "report", "--cost", "-o", path, c]).stdout
    expect("The filter file for the compiler plugin: " + path in txt, txt)
    rules = [l.split() for l in open(path, "rb").read().decode("latin-1").split("\n")
             if l.strip() and not l.startswith("#")]
    expect(rules[0] == ["SCOREP_REGION_NAMES_BEGIN"] and rules[-1] == ["SCOREP_REGION_NAMES_END"],
           "filter blocks %s" % rules)
    pats = [r[1] for r in rules[1:-1] if r[0] == "EXCLUDE" and len(r) == 2]
    expect(len(pats) == 4 == len(rules) - 2, "filter rules %s" % rules)
    # each pattern matches its function's name and no other, as the plugin
    # matches them (fnmatch(3) with no flags: backslash escapes); the file
    # holds the name's bytes as they are
    libc = ctypes.CDLL(None)
    names = list(f)
    for want in (b"tiny", b"ns::f(int, double)", b"operator*", b"esc\x1b[2J\xff"):
        hit = [p for p in pats if libc.fnmatch(p.encode("latin-1"), want, 0) == 0]
        expect(len(hit) == 1, "%s matched by %s" % (want, hit))
    for other in (b"big", b"main", b"operatorX", b"ns::f(int,double)", b"esc\x1b[2J?"):
        hit = [p for p in pats if libc.fnmatch(p.encode("latin-1"), other, 0) == 0]
        expect(not hit, "%s matched by %s (names %s)" % (other, hit, names))


def case_budget(pt, gen, work):
    b = os.path.join(work, "bench")
    subprocess.run([gen, "--out", b, "--scenario", "bench", "--threads", "2", "--events",
                    "200000"], check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(work, "small")
    p = run([pt, "analyze", "--budget", "1MB", "-o", out, b])
    expect("The functions that made the most events" in p.stdout, "analyze:\n" + p.stdout)
    expect(os.path.exists(out + ".filter"), "no %s.filter" % out)
    if os.path.exists(out + ".filter"):
        body = open(out + ".filter").read()
        expect(body.count("EXCLUDE ") >= 1 and "SCOREP_REGION_NAMES_END" in body, body)
    full = os.path.join(work, "full")
    p = run([pt, "analyze", "--full", "-o", full, b])
    expect("made the most events" not in p.stdout and not os.path.exists(full + ".filter"),
           "--full: no cut, no list, no filter")
    p = run([pt, "analyze", "-o", full, b])  # the default budget holds it all
    expect("made the most events" not in p.stdout and not os.path.exists(full + ".filter"),
           "within the budget: no list, no filter")


def main():
    pt, gen, work, case = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    globals()["case_" + case](pt, gen, work)
    if FAILS:
        sys.exit("%d failures" % len(FAILS))
    print("ok")


if __name__ == "__main__":
    main()
