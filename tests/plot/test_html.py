#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end test of `paratrace report --html` in a real browser.

Usage: test_html.py --paratrace P --work DIR [--chromium PATH]
                    [--cc CLANG --plugin instrument.so --runtime libtrace.so | --ptgen G]

Traces examples/demo/demo.c (built with the plugin, run preloaded; without
the plugin: a ptgen trace), writes the report, and has headless Chromium
(Debian's package, which scripts/deps.sh installs: a missing browser is a
failure, not a skip; one browser for every load, browser.py) load it from
disk:
  * the DOM after the page's script ran (as --dump-dom prints it). The script marks
    <body data-ready="1"> when done; the tables must hold every function,
    lock and thread of `report --json`, and clicking column headers (the
    address's #click=TABLE.KEY,... makes the page click them) must sort;
    the timeline and the flame graph are there, one row per thread.
  * the headline on the first screen and the timeline's range selection
    and zoom, the tables following the range; the page of a killed run
    (html_checks.py); one palette for the page and `plot`, the same in a
    second run of the demo;
  * a 1400x1000 PNG of the page, without scrollbars (WORK/report.png; the
    one in docs/img/ comes from here).
The page may load nothing: no address outside the file, and a Content
Security Policy that forbids it.
"""
import argparse
import atexit
import html.parser
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402
from check import expect, finish, run  # noqa: E402
from html_checks import check_colours, check_headline, check_killed, check_range  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "source", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], ""

    def iter(self, tag=None):
        if tag is None or self.tag == tag:
            yield self
        for c in self.children:
            yield from c.iter(tag)

    def find(self, tag, **attrs):
        for n in self.iter(tag):
            if all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()):
                return n
        return None

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)


class Dom(html.parser.HTMLParser):
    """The dumped DOM as a tree (enough of HTML for what the page holds)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#document", [], None)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


def chromium_args(a, profile):
    return [a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--user-data-dir=" + profile]


BROWSER = []  # the one browser of this run, and its profile


def browser(a):
    if not BROWSER:
        profile = tempfile.TemporaryDirectory(prefix="pt-chromium-")
        BROWSER.extend([Browser(chromium_args(a, profile.name)), profile])
        atexit.register(lambda: (BROWSER[0].close(), BROWSER[1].cleanup()))
    return BROWSER[0]


def load(a, url):
    """The DOM of url once its script ran."""
    return Dom(browser(a).dom(url)).root


def column(table, k):
    body = table.find("tbody")
    return [tr.children[k].all_text() for tr in body.iter("tr") if tr.attrs.get("class") != "more"]


def check_tables(dom, rep, what):
    expect(dom.find("body", data_ready="1") is not None,
           "%s: <body data-ready=1> missing: the page's script did not finish" % what)
    for tid, n in (("functions", len(rep["functions"])), ("locks", len(rep["locks"])),
                   ("threads", len(rep["threads"]))):
        t = dom.find("table", id=tid)
        expect(t is not None, "%s: no table %s" % (what, tid))
        if t is None:
            continue
        rows = [tr for tr in t.find("tbody").iter("tr")]
        expect(len(rows) == min(n, 500), "%s: table %s has %d rows, the profile %d"
               % (what, tid, len(rows), n))


def trace_demo(a, d, name="trace"):
    exe = os.path.join(d, "demo")
    if not os.path.exists(exe):
        run([a.cc, "-O2", "-g", "-pthread", "-fplugin=" + a.plugin,
             os.path.join(TOP, "examples", "demo", "demo.c"), "-o", exe])
    trace = os.path.join(d, name)
    run([exe, "4", "256"], env=dict(os.environ, LD_PRELOAD=a.runtime, PARATRACE_DIR=trace))
    return trace


def main():
    ap = argparse.ArgumentParser()
    for k in ("paratrace", "work"):
        ap.add_argument("--" + k, required=True)
    for k in ("cc", "plugin", "runtime", "ptgen"):
        ap.add_argument("--" + k)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    a = ap.parse_args()
    if not (os.path.isfile(a.chromium) and os.access(a.chromium, os.X_OK)):
        print("FAIL: %s is not there: the HTML report is tested in headless Chromium, which "
              "scripts/deps.sh installs (Debian package chromium)" % a.chromium, file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    if a.cc and a.plugin and a.runtime:
        trace = trace_demo(a, a.work)
    else:
        trace = os.path.join(a.work, "trace")
        run([a.ptgen, "--out", trace, "--scenario", "known", "--threads", "3", "--calls", "20"])
    page = os.path.join(a.work, "report.html")
    run([a.paratrace, "report", "--html", "-q", "-o", page, trace])
    rep = json.loads(run([a.paratrace, "report", "--json", trace]).stdout)
    src = open(page, encoding="utf-8").read()
    bare = src.replace('xmlns="http://www.w3.org/2000/svg"', "")
    urls = [w for w in ("http:", "https:", "src=", "url(", "@import", 'href="//') if w in bare]
    expect(not urls, "the page may load something: %s" % urls)
    expect("Content-Security-Policy" in src and "default-src 'none'" in src,
           "no Content-Security-Policy forbidding loads")
    url = "file://" + os.path.abspath(page)

    dom = load(a, url)
    check_tables(dom, rep, "as loaded")
    fn = dom.find("table", id="functions")
    if fn is not None:
        # by exclusive time, as report --json lists them
        expect(column(fn, 0) == [f["name"] for f in rep["functions"]][:500],
               "functions in the page: %s" % column(fn, 0))
    tl = dom.find("svg", id="timeline")
    expect(tl is not None and len([g for g in tl.iter("g") if g.attrs.get("class") == "row"])
           == len(rep["threads"]), "timeline rows: one per thread")
    root = dom.find("g", id="flame-root")
    expect(root is not None and int(root.attrs.get("data-ns", -1)) == rep["total_thread_ns"],
           "flame graph root: %s" % (root and root.attrs))
    summary = dom.find("p", id="summary")
    expect(summary is not None and "of thread time" in summary.all_text(),
           "summary line: %r" % (summary and summary.all_text()))
    expect(dom.find("section", id="s-mpi") is None, "an MPI section for a trace without MPI ranks")

    # clicks on the headers sort
    calls = [f["calls"] for f in rep["functions"]]
    for clicks, key, want, order in (
            ("functions.calls", "calls", sorted(calls, reverse=True), "descending"),
            ("functions.calls,functions.calls", "calls", sorted(calls), "ascending"),
            ("functions.name", "name", None, "ascending")):
        dom = load(a, url + "#click=" + clicks)
        check_tables(dom, rep, clicks)
        t = dom.find("table", id="functions")
        if t is None:
            continue
        th = t.find("th", data_key=key)
        expect(th is not None and th.attrs.get("aria-sort") == order,
               "%s: header %s" % (clicks, th and th.attrs))
        if key == "calls":
            got = [int(x) for x in column(t, 2)]
            expect(got == want, "%s: calls %s, expected %s" % (clicks, got, want))
        else:
            got = column(t, 0)
            expect(got == sorted(got, key=str.lower) or got == sorted(got),
                   "%s: names not in order: %s" % (clicks, got))

    check_headline(browser(a), url, rep)
    check_range(browser(a), url, rep, bool(a.cc and a.plugin and a.runtime))
    check_killed(browser(a), a, a.work)
    again = None
    if a.cc and a.plugin and a.runtime:
        again = os.path.join(a.work, "again.html")
        run([a.paratrace, "report", "--html", "-q", "-o", again, trace_demo(a, a.work, "again")])
    check_colours(browser(a), a, page, trace, again)

    shot = os.path.join(a.work, "report.png")
    browser(a).screenshot(url, 1400, 1000, shot)
    data = open(shot, "rb").read() if os.path.exists(shot) else b""
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "no screenshot at %s" % shot)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24])
        expect((w, h) == (1400, 1000), "screenshot %dx%d" % (w, h))
        expect(len(data) > 30000, "screenshot of %d bytes: blank?" % len(data))
    finish("screenshot in %s" % shot)


if __name__ == "__main__":
    main()
