# SPDX-License-Identifier: MIT
"""What test_html.py checks of the HTML report's headline and of its
timeline's range selection, in the one browser of the test (browser.py).

  check_headline: in a 1400x1000 window, the headline is on the first
    screen and names the hottest function of `report --json` and its
    longest wait on a lock, condition or barrier (the largest wait_max_ns
    of its locks, and that lock's object).
  check_range: #range=0,SPAN (the whole run) gives the tables the
    profile's own figures (calls and exclusive time per function, wait
    and acquisitions per lock, running and waits per thread), a throttled
    function's (counted calls, estimated time) included; two halves split
    on a slice boundary add up to it exactly, but for throttled functions:
    their calls after throttling are counted, not placed in time, so a half
    that ends after the throttling began shows them as lower bounds ("≥"
    in the cell, the range's line saying why) and the halves sum to the
    recorded calls; a half differs from the whole; #range=A,B&zoom
    relabels the axis and keeps every box inside it; and a drag with the mouse across the rows selects a range
    and changes the tables.
  check_colours: one palette: the page's legend, its #pictures data and
    `paratrace plot`'s SVG of the same trace give each function the same
    colour, every top one a different colour; and a second run of the same
    program (same top functions, other times) gets the same colours.
  check_killed: the page of a run killed while a thread waited, after
    the runtime hit its size limit (killed.trace, the waiting thread's
    CLOSE cut off): the headline says what was lost and which log was
    never closed, and the whole run as a range still gives the profile's
    figures (the open wait lasting until the process's last record).
"""
import json
import os
import re

from check import expect, run

CLOSE_BYTES = 32  # a CLOSE record: 8-byte head, pt_clock_pair

KEYS = {"functions": lambda r: (r["name"], r["file"], r["line"]),
        "locks": lambda r: (r["pid"], r["address"]),
        "threads": lambda r: (r["pid"], r["tid"])}
FIGURES = {"functions": ("calls", "excl_ns"), "locks": ("acquisitions", "wait_ns"),
           "threads": ("lifetime_ns", "running_ns", "wait_lock_ns", "wait_cond_ns",
                       "wait_join_ns", "wait_barrier_ns")}


def tables(b):
    """The rows each table shows now, by key: {table: {key: row}}."""
    rows = json.loads(b.eval("JSON.stringify({functions: ptReport.specs.functions.rows, "
                             "locks: ptReport.specs.locks.rows, "
                             "threads: ptReport.specs.threads.rows})"))
    return {t: {KEYS[t](r): r for r in rows[t]} for t in rows}


def dom_rows(b, table):
    return b.eval("document.querySelectorAll('#%s tbody tr:not(.more)').length" % table)


def check_headline(b, url, rep):
    b.viewport(1400, 1000)
    b.dom(url)
    if not b.eval("!!document.getElementById('hl-hot')"):
        expect(False, "the page has no headline (#headline, #hl-hot)")
        return
    box = b.eval("(function () { var r = document.getElementById('headline')"
                 ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
    expect(box and 0 <= box[0] and box[1] <= 1000,
           "the headline is not on the first screen (1400x1000): %s" % box)
    hot = b.eval("document.getElementById('hl-hot').textContent")
    expect(rep["functions"] and rep["functions"][0]["name"] in hot,
           "headline: the hottest function %r not in %r"
           % (rep["functions"] and rep["functions"][0]["name"], hot))
    wait = b.eval("document.getElementById('hl-wait').textContent")
    sync = int(b.eval("document.getElementById('hl-wait').dataset.syncNs"))
    if rep["locks"]:
        top = max(rep["locks"], key=lambda l: l["wait_max_ns"])
        expect(sync == top["wait_max_ns"], "headline: longest lock wait %d ns, the profile's "
               "largest wait_max_ns %d" % (sync, top["wait_max_ns"]))
        expect(not top["wait_max_ns"] or (top["object"] or top["address"]) in wait,
               "headline: the longest wait's lock %r not in %r" % (top["object"], wait))
    expect(b.eval("document.getElementById('hl-lost').textContent").startswith("Left out or lost"),
           "headline: no line of what was left out or lost")


def same(got, want, what, exact_only=False):
    """exact_only: leave out throttled functions (a range has their
    recorded calls only)."""
    for t, keys in FIGURES.items():
        for k, r in want[t].items():
            if r.get("cut_calls"):
                continue  # a call cut by lost data: its time is the profile's only
            if exact_only and r.get("estimated"):
                continue
            g = got[t].get(k)
            vals = [(f, g and g[f], r[f]) for f in keys if not g or g[f] != r[f]]
            expect(not vals and (g is not None or not any(r[f] for f in keys)),
                   "%s: %s %s: (figure, shown, expected) %s" % (what, t, k, vals))


def check_whole(b, url, rep):
    """The whole run selected as a range: the profile's own figures."""
    span = json.loads(b.eval("document.getElementById('pictures').textContent"))["span_ns"]
    b.dom(url + "#range=0,%d" % span)
    expect(b.eval("document.body.dataset.range") == "0,%d" % span,
           "#range=0,%d: the page selected %s" % (span, b.eval("document.body.dataset.range")))
    same(tables(b), {t: {KEYS[t](r): r for r in rep[t]} for t in KEYS},
         "%s: the whole run as a range" % url)


LEGEND = re.compile(r'<g class="legend-item" data-ns="\d+" data-name="([^"]*)"><rect [^>]*'
                    r'fill="(#[0-9a-f]{6})"')


def legend(path):
    """{name: fill} of the timeline's legend in an SVG or HTML file."""
    return dict(LEGEND.findall(open(path, encoding="utf-8").read()))


def check_colours(b, a, page, trace, again=None):
    """again: a second page of another run of the same program."""
    svg = os.path.join(os.path.dirname(page), "colours.svg")
    run([a.paratrace, "plot", "-q", "-o", svg, trace])
    got = legend(page)
    expect(got and legend(svg) == got, "plot and the page disagree on colours: %s, %s"
           % (legend(svg), got))
    expect(len(set(got.values())) == len(got), "two top functions share a colour: %s" % got)
    b.dom("file://" + os.path.abspath(page))
    pic = json.loads(b.eval("document.getElementById('pictures').textContent"))
    data = {f["name"]: f["colour"] for f in pic.get("functions", [])}
    expect(all(data.get(n, c) == c for n, c in got.items()),
           "the page's data and its legend disagree: %s, %s" % (data, got))
    if again:
        other = legend(again)
        if set(other) == set(got):
            expect(other == got, "two runs, the same top functions, other colours: %s, %s"
                   % (got, other))
        else:
            expect(False, "two runs of the demo with other functions on top: %s, %s"
                   % (sorted(got), sorted(other)))


def check_killed(b, a, work):
    trace = os.path.join(work, "killed")
    run([a.ptgen, "--out", trace, "--scenario", "script", "--script",
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "killed.trace")])
    log = os.path.join(trace, "p7300", "t7301.ptl")
    os.truncate(log, os.path.getsize(log) - CLOSE_BYTES)
    page = os.path.join(work, "killed.html")
    run([a.paratrace, "report", "--html", "-q", "-o", page, trace])
    rep = json.loads(run([a.paratrace, "report", "--json", trace]).stdout)
    url = "file://" + os.path.abspath(page)
    b.dom(url)
    lost = b.eval("document.getElementById('hl-lost').textContent")
    worker = [t["name"] for t in rep["threads"] if t["tid"] == 7301]
    for want in ("1 gap", "PARATRACE_MAX_SIZE", "1 log never closed", worker[0]):
        expect(want in lost, "killed run: %r not in %r" % (want, lost))
    expect(rep["threads"][1]["wait_lock_ns"] == 9500 - 400,
           "killed run: the profile's open wait %d" % rep["threads"][1]["wait_lock_ns"])
    check_whole(b, url, rep)


def function_cells(b):
    """(name, file:line) -> (calls cell's text, its tooltip) of the page's functions table."""
    rows = b.eval("Array.prototype.map.call(document.querySelectorAll('#functions tbody "
                  "tr:not(.more)'), function (tr) { return [tr.cells[0].textContent, "
                  "tr.cells[1].textContent, tr.cells[2].textContent, tr.cells[2].title]; })")
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def check_throttled(b, whole, summed, second, real):
    """second: the tables of the second half, loaded now; real: a traced
    program, whose hot functions the runtime throttles."""
    thr = {k: r for k, r in whole.items() if r.get("estimated")}
    expect(thr or not real, "no function throttled in the demo: the range's lower bounds "
           "go unchecked")
    cells = function_cells(b)
    text = b.eval("document.getElementById('range-text').textContent")
    for k, r in thr.items():
        got = second.get(k)
        expect(got is not None and got.get("at_least") and "calls" in got["at_least"],
               "second half: throttled %s not marked as a lower bound: %s" % (k, got))
        cell = cells.get((k[0], "%s:%d" % (k[1], k[2])), ("", ""))
        expect(cell[0].startswith("\u2265") and "counted, not placed in time" in cell[1],
               "second half: throttled %s's calls cell %r" % (k, cell))
        expect("\u2265" in text and "counted, not placed in time" in text,
               "second half: the range's line does not say what \u2265 means: %r" % text)
        recorded = summed.get(k, {}).get("calls")
        expect(recorded == r["calls"] - r["throttled_calls"],
               "the two halves: throttled %s has %s calls, recorded %d"
               % (k, recorded, r["calls"] - r["throttled_calls"]))
    for k, r in second.items():
        expect(not r.get("at_least") or k in thr, "%s marked as a lower bound" % (k,))


def check_range(b, url, rep, real=False):
    b.dom(url)
    if not b.eval("!!(document.getElementById('pictures') && window.ptTimeline)"):
        expect(False, "the page has no range selection (#pictures, ptTimeline)")
        return
    pic = json.loads(b.eval("document.getElementById('pictures').textContent"))
    span, slice_ns, n = pic["span_ns"], pic["slice_ns"], pic["slices"]
    whole = {t: {KEYS[t](r): r for r in rep[t]} for t in KEYS}
    check_whole(b, url, rep)

    half = slice_ns * (n // 2)
    b.dom(url + "#range=0,%d" % half)
    first = tables(b)
    text = b.eval("document.getElementById('range-text').textContent")
    expect(text.startswith("Selected"), "range text: %r" % text)
    b.dom(url + "#range=%d,%d" % (half, span))
    second = tables(b)
    summed = {}
    for t, keys in FIGURES.items():
        summed[t] = {}
        for part in (first, second):
            for k, r in part[t].items():
                s = summed[t].setdefault(k, dict(r, **{f: 0 for f in keys}))
                for f in keys:
                    s[f] += r[f]
    same(summed, whole, "the two halves summed", exact_only=True)
    check_throttled(b, whole["functions"], summed["functions"], second["functions"], real)
    changed = any(first["functions"].get(k, {}).get("excl_ns") != r["excl_ns"]
                  for k, r in whole["functions"].items())
    expect(changed, "the first half's functions table is the whole run's")
    alive = sum(r["lifetime_ns"] for r in first["threads"].values() if r["kind"] == "thread")
    busy = sum(r["excl_ns"] for r in first["functions"].values())
    expect(busy <= alive, "first half: %d ns of exclusive time in %d ns of threads alive"
           % (busy, alive))

    a, z = span // 4, span // 2
    b.dom(url + "#range=%d,%d&zoom" % (a, z))
    expect(b.eval("document.getElementById('timeline').dataset.view") == "%d,%d" % (a, z),
           "zoom: the view is %s" % b.eval("document.getElementById('timeline').dataset.view"))
    ticks = b.eval("Array.prototype.map.call(document.querySelectorAll('#timeline text.tick'),"
                   " function (t) { return t.textContent; })")
    expect(ticks and ticks[0] != "0", "zoomed axis: ticks %s" % ticks)
    out = b.eval("(function () { var l = document.querySelector('#timeline g.axis line'), "
                 "x0 = +l.getAttribute('x1'), x1 = +l.getAttribute('x2'), bad = 0; "
                 "document.querySelectorAll('#timeline g.row rect.f').forEach(function (r) {"
                 " if (r.style.display !== 'none' && (+r.getAttribute('x') < x0 - 0.01 ||"
                 " +r.getAttribute('x') + +r.getAttribute('width') > x1 + 0.01)) bad++; });"
                 " return bad; })()")
    expect(out == 0, "zoomed: %s boxes outside the axis" % out)

    # a person's drag across the rows, from a quarter to three quarters
    b.dom(url)
    before = tables(b)
    geo = b.eval("(function () { document.getElementById('timeline').scrollIntoView(); "
                 "var r = document.querySelector('#timeline g.row rect.rowbg')"
                 ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()")
    y = geo[1] + geo[3] / 2
    b.drag(geo[0] + geo[2] * 0.25, y, geo[0] + geo[2] * 0.75)
    sel = b.eval("document.body.dataset.range")
    expect(sel is not None, "a drag across the timeline selected nothing")
    after = tables(b)
    expect(after["functions"] != before["functions"] and dom_rows(b, "functions") ==
           min(len(after["functions"]), 500), "the drag did not change the functions table")
    b.eval("document.getElementById('zoom-out').click()")
    expect(tables(b)["functions"] == before["functions"], "'Whole run' did not bring back the "
           "whole run's functions")
