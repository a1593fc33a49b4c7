#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of `paratrace plot`.

Usage: test_plot.py --paratrace P --ptgen G --work DIR CASE
                    [--cc CLANG --plugin instrument.so --runtime libtrace.so]
CASE:
  real     examples/demo/demo.c built with the plugin and run preloaded: the
           SVG parses, has one row per thread labelled as in the Paraver .row,
           the legend lists the profile's top functions with their exclusive
           times, the flame graph's root is every thread's lifetime and its
           boxes carry the profile's inclusive times; --png; progress on a
           terminal only
  golden   every small scripted trace of tests/analyzer/golden/cases (longjmp
           landings, lost data, fork, ties): the pictures agree with
           `report --json` (same call-stack rule)
  lost     data lost while functions were open: the gap is marked, the row
           shows what ran before it
  many     300 threads: 256 rows drawn and a note saying so
  files    output through a temporary file and rename: a symbolic link in the
           way is replaced, not written through; a failed run leaves no file;
           --png without rsvg-convert is refused before any reading
"""
import argparse
import glob
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svg_read  # noqa: E402
from check import expect, fail, finish, on_terminal, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
A = None


def work(name):
    d = os.path.join(A.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def report(trace):
    return json.loads(run([A.paratrace, "report", "--json", trace]).stdout)


def plot(trace, out, *extra):
    run([A.paratrace, "plot", "-q", "-o", out, trace] + list(extra))
    return svg_read.read(out)


def row_labels(trace, base):
    """The THREAD level of the .row that `analyze` writes."""
    run([A.paratrace, "analyze", "-q", "--no-profile", "-o", base, trace])
    lines = open(base + ".row").read().split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("LEVEL THREAD SIZE"))
    n = int(lines[i].split()[-1])
    return lines[i + 1:i + 1 + n]


def device_names(trace):
    """The kernels a trace defines: with copies ("GPU copy DtoH", "GPU
    memset"), what a picture's legend has besides the profile's functions."""
    out = run([A.paratrace, "dump", "--kind", "GPU_KERNEL_DEF", trace]).stdout
    return {l.split(" name=", 1)[1] for l in out.splitlines() if " name=" in l}


def agree(pic, rep, what, device=None):
    """What every picture must share with the profile (device: the names of
    a trace's GPU work, which the legend has too)."""
    expect(pic.nodes["flame-root"]["ns"] == rep["total_thread_ns"],
           "%s: flame root %d ns, profile total %d" % (what, pic.nodes["flame-root"]["ns"],
                                                      rep["total_thread_ns"]))
    root = pic.nodes["flame-root"]
    expect(abs(root["w"] - (pic.flame_width - 20)) < 0.01 and abs(root["x"] - 10) < 0.01,
           "%s: flame root spans %.2f px of %.0f" % (what, root["w"], pic.flame_width))
    top = [(f["name"], f["excl_ns"]) for f in rep["functions"] if f["excl_ns"] > 0][:16]
    legend = pic.legend
    if device:
        gpu = [n for n, _ in legend if n in device or n.startswith("GPU ")]
        expect(gpu, "%s: no GPU work in the legend %s" % (what, legend))
        legend = [x for x in legend if x[0] not in gpu]
    expect(legend == top, "%s: legend %s, profile's top %s" % (what, pic.legend, top))
    funcs = {f["name"]: f for f in rep["functions"]}
    for name, f in funcs.items():
        incl = sum(b["ns"] for b in pic.outermost(name))
        calls = sum(n["calls"] for n in pic.nodes.values() if n["name"] == name)
        # boxes narrower than half a pixel are not drawn; when every call
        # is in a drawn box, the times must be the profile's exactly
        exact = calls == f["calls"]
        expect(incl == f["incl_ns"] if exact else incl <= f["incl_ns"] and calls < f["calls"],
               "%s: %s: flame %d ns in %d calls, profile %d ns in %d calls"
               % (what, name, incl, calls, f["incl_ns"], f["calls"]))
    # children never wider than their parent, and inside it
    for k, n in pic.nodes.items():
        p = pic.nodes.get(n["parent"]) or (root if n["parent"] == "n0" and k != "flame-root"
                                           else None)
        if p is None or k == "flame-root":
            continue
        expect(n["x"] >= p["x"] - 0.01 and n["x"] + n["w"] <= p["x"] + p["w"] + 0.01
               and n["depth"] == p["depth"] + 1,
               "%s: box %s (%s) outside its caller" % (what, k, n["name"]))


def case_real():
    for a in ("cc", "plugin", "runtime"):
        if not getattr(A, a):
            fail("case real needs --cc, --plugin and --runtime")
            return
    d = work("real")
    exe = os.path.join(d, "demo")
    run([A.cc, "-O2", "-g", "-pthread", "-fplugin=" + A.plugin,
         os.path.join(TOP, "examples", "demo", "demo.c"), "-o", exe])
    trace = os.path.join(d, "trace")
    # every call recorded: the pictures draw recorded calls, while the
    # profile adds estimated times for throttled ones (fib's)
    run([exe, "4", "256"], env=dict(os.environ, LD_PRELOAD=A.runtime, PARATRACE_DIR=trace,
                                    PARATRACE_THROTTLE="off"))
    rep = report(trace)
    out = os.path.join(d, "demo.svg")
    p = run([A.paratrace, "plot", "-o", out, trace])
    expect(("plot: %s" % out) in p.stdout, "plot's summary line: %r" % p.stdout)
    pic = svg_read.read(out)
    threads = [t for t in rep["threads"]]
    expect(len(pic.rows) == len(threads) == 5,
           "rows %d, profile threads %d (main + 4 workers)" % (len(pic.rows), len(threads)))
    labels = row_labels(trace, os.path.join(d, "demo"))
    expect([r["label"] for r in pic.rows] == labels,
           "row labels %s, .row %s" % ([r["label"] for r in pic.rows], labels))
    agree(pic, rep, "demo")
    names = [n for n, _ in pic.legend]
    for f in ("render_row", "main", "take_band", "fib"):
        expect(f in names[:5], "%s not among the legend's first entries %s" % (f, names))
    # one path per function in the demo: its box has exactly the profile's
    # inclusive time (if it is wide enough to be drawn: which thread gets
    # how much work varies from run to run)
    funcs = {f["name"]: f for f in rep["functions"]}
    for name, depth in (("main", 1), ("worker", 1), ("render_band", 2), ("take_band", 2),
                        ("fib", 2), ("render_row", 3)):
        if funcs[name]["incl_ns"] * 100 < rep["total_thread_ns"]:
            continue
        boxes = [n for n in pic.nodes.values() if n["name"] == name and n["depth"] == depth]
        expect(len(boxes) == 1 and boxes[0]["ns"] == funcs[name]["incl_ns"],
               "flame %s at depth %d: %s, profile incl %d"
               % (name, depth, boxes, funcs[name]["incl_ns"]))
    # the workers render (some may find no band left); main's row shows
    # main and fib, and its join wait
    expect(any(t.startswith("render_row") for r in pic.rows[1:] for _, _, t in r["f"]),
           "no worker's row shows render_row")
    mains = {t.split(" (")[0] for _, _, t in pic.rows[0]["f"]}
    expect({"main", "fib"} <= mains, "main's row shows %s" % mains)
    expect(pic.rows[0]["wait"], "the main thread's join wait is not marked")
    expect(not any(r["lost"] for r in pic.rows), "lost data marked in a complete trace")
    # the axis: ticks in time units, from 0
    expect(pic.ticks and pic.ticks[0] == "0" and all(
        t.split()[-1] in ("ns", "us", "ms", "s") for t in pic.ticks[1:]) and len(pic.ticks) >= 4,
        "ticks %s" % pic.ticks)

    # --png: a PNG as large as the SVG
    png = os.path.join(d, "demo.png")
    run([A.paratrace, "plot", "-q", "--png", "-o", out, trace])
    data = open(png, "rb").read() if os.path.exists(png) else b""
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "%s is no PNG" % png)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24])
        expect((w, h) == (int(pic.width), int(pic.height)),
               "PNG %dx%d, SVG %dx%d" % (w, h, pic.width, pic.height))

    # progress: on a terminal, not otherwise (and not with -q)
    for cmd in (["plot", "-o", out], ["report", "--html", "-o", os.path.join(d, "r.html")]):
        tty = on_terminal([A.paratrace] + cmd + [trace])
        expect("reading [" in tty and "\r" in tty,
               "%s on a terminal: no progress in %r" % (cmd[0], tty[-300:]))
        p = run([A.paratrace] + cmd + [trace])
        expect("reading" not in p.stderr and "\r" not in p.stderr,
               "%s not on a terminal: %r" % (cmd[0], p.stderr[-300:]))


def scripted(name, script):
    d = work(name)
    trace = os.path.join(d, "trace")
    run([A.ptgen, "--out", trace, "--scenario", "script", "--script", script])
    return d, trace


def case_golden():
    cases = sorted(glob.glob(os.path.join(TOP, "tests", "analyzer", "golden", "cases", "*.trace")))
    expect(len(cases) >= 5, "golden cases: %s" % cases)
    for script in cases:
        name = os.path.basename(script)[:-6]
        d, trace = scripted("golden-" + name, script)
        rep = report(trace)
        pic = plot(trace, os.path.join(d, name + ".svg"))
        expect(len(pic.rows) == len(rep["threads"]),
               "%s: rows %d, threads %d" % (name, len(pic.rows), len(rep["threads"])))
        gpu = glob.glob(os.path.join(trace, "*", "g*.ptl"))
        agree(pic, rep, name, device_names(trace) if gpu else None)


def case_lost():
    script = os.path.join(TOP, "tests", "analyzer", "golden", "cases", "lost.trace")
    d, trace = scripted("lost", script)
    pic = plot(trace, os.path.join(d, "lost.svg"))
    # the disk filled after the record at 300, data resumed at 50000; the
    # run spans 0 .. 51200 (its last record)
    lost = pic.rows[0]["lost"]
    expect(len(lost) == 1, "lost marks %s" % lost)
    if lost:
        x, w, title = lost[0]
        bin_px = (pic.axis_x1 - pic.axis_x0) / 800  # 64 ns bins
        expect(abs(x - pic.x_of(300 / 51200)) <= bin_px + 0.01
               and abs(x + w - pic.x_of(50000 / 51200)) <= bin_px + 0.01,
               "lost from %.1f to %.1f px, expected %.1f to %.1f"
               % (x, x + w, pic.x_of(300 / 51200), pic.x_of(50000 / 51200)))
        expect("lost" in title, "lost title %r" % title)
    shown = [t.split(" (")[0] for _, _, t in pic.rows[0]["f"]]
    expect(shown[:3] == ["main", "loop", "trivial"], "before the gap: %s" % shown)
    # the cut calls add no time: main's box (if any) has none
    expect(not [n for n in pic.nodes.values() if n["name"] == "main" and n["ns"]],
           "main was cut by the gap, yet has time in the flame graph")


def case_many():
    d = work("many")
    trace = os.path.join(d, "trace")
    run([A.ptgen, "--out", trace, "--scenario", "threads", "--threads", "300", "--calls", "3"])
    pic = plot(trace, os.path.join(d, "many.svg"))
    expect(len(pic.rows) == 256, "rows %d, expected the first 256" % len(pic.rows))
    rep = report(trace)
    more = "%d more rows" % (len(rep["threads"]) - 256)
    expect(len(rep["threads"]) > 300 and pic.more and more in pic.more[0],
           "note on rows not drawn: %s" % pic.more)
    expect(pic.nodes["flame-root"]["ns"] == rep["total_thread_ns"],
           "all 300 threads in the flame graph")


def case_files():
    d = work("files")
    trace = os.path.join(d, "trace")
    run([A.ptgen, "--out", trace, "--scenario", "known", "--threads", "2", "--calls", "5"])
    victim = os.path.join(d, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me\n")
    link = os.path.join(d, "link.svg")
    os.symlink(victim, link)
    run([A.paratrace, "plot", "-q", "-o", link, trace])
    expect(open(victim).read() == "keep me\n", "plot wrote through a symbolic link")
    expect(os.path.isfile(link) and not os.path.islink(link), "the link was not replaced")
    svg_read.read(link)
    left = [f for f in os.listdir(d) if ".tmp-" in f]
    expect(not left, "temporary files left: %s" % left)
    # nothing to read: an error, no file
    out = os.path.join(d, "none.svg")
    p = run([A.paratrace, "plot", "-q", "-o", out, os.path.join(d, "missing")], rc=None)
    expect(p.returncode != 0 and not os.path.exists(out), "plot of a missing trace: %d, %s"
           % (p.returncode, os.listdir(d)))
    p = run([A.paratrace, "plot"], rc=2)
    # --png without rsvg-convert: refused at once, with what to install
    empty = work("files-nopath")
    out = os.path.join(d, "nopng.svg")
    p = run([A.paratrace, "plot", "--png", "-o", out, trace], rc=None,
            env=dict(os.environ, PATH=empty))
    expect(p.returncode != 0 and "rsvg-convert" in p.stderr and "librsvg2-bin" in p.stderr,
           "--png without rsvg-convert: status %d, %r" % (p.returncode, p.stderr))
    expect(not os.path.exists(out), "--png without rsvg-convert still wrote the SVG")


def main():
    global A
    ap = argparse.ArgumentParser()
    for a in ("paratrace", "ptgen", "work"):
        ap.add_argument("--" + a, required=True)
    for a in ("cc", "plugin", "runtime"):
        ap.add_argument("--" + a)
    ap.add_argument("case")
    A = ap.parse_args()
    os.makedirs(A.work, exist_ok=True)
    globals()["case_" + A.case]()
    finish()


if __name__ == "__main__":
    main()
