# SPDX-License-Identifier: MIT
"""Reads what `paratrace plot` drew (analyzer/tools/plot/plot_svg.c) back
from its SVG, for the tests: the timeline's rows and what each painted,
the legend, the axis, and the flame graph's boxes. Parsing with
xml.etree also checks that the file is well-formed XML."""
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def _title(e):
    t = e.find(SVG + "title")
    return t.text if t is not None and t.text else ""


class Picture:
    def __init__(self, root):
        self.root = root
        self.width = float(root.get("width"))
        self.height = float(root.get("height"))
        self.timeline = self._find_svg("timeline")
        self.flame = self._find_svg("flame")
        self.rows = []  # {label, f: [(x, w, title)], wait: [...], lost: [...]}
        for g in self.timeline.iter(SVG + "g"):
            if g.get("class") != "row":
                continue
            row = {"label": g.get("data-label"), "f": [], "wait": [], "lost": []}
            for r in g.iter(SVG + "rect"):
                c = r.get("class")
                if c in ("f", "wait", "lost"):
                    row[c].append((float(r.get("x")), float(r.get("width")), _title(r)))
            self.rows.append(row)
        self.legend = [(g.get("data-name"), int(g.get("data-ns")))
                       for g in self.timeline.iter(SVG + "g") if g.get("class") == "legend-item"]
        self.ticks = [t.text for t in self.timeline.iter(SVG + "text") if t.get("class") == "tick"]
        self.more = [t.text for t in self.timeline.iter(SVG + "text") if t.get("class") == "more"]
        axis = [l for g in self.timeline.iter(SVG + "g") if g.get("class") == "axis"
                for l in g.iter(SVG + "line")]
        self.axis_x0 = float(axis[0].get("x1"))
        self.axis_x1 = float(axis[0].get("x2"))
        self.nodes = {}  # id -> {name, parent, ns, calls, depth, x, w}
        for g in self.flame.iter(SVG + "g"):
            if g.get("class") != "node":
                continue
            r = g.find(SVG + "rect")
            self.nodes[g.get("id")] = {
                "name": _title(g).split("\n")[0], "parent": g.get("data-parent"),
                "ns": int(g.get("data-ns")), "calls": int(g.get("data-calls")),
                "depth": int(g.get("data-depth")), "x": float(r.get("x")),
                "w": float(r.get("width"))}
        self.flame_width = float(self.flame.get("width"))

    def _find_svg(self, ident):
        for e in self.root.iter(SVG + "svg"):
            if e.get("id") == ident:
                return e
        raise ValueError("no <svg id=%r>" % ident)

    def x_of(self, frac):
        """x of a fraction of the run's time on the axis."""
        return self.axis_x0 + frac * (self.axis_x1 - self.axis_x0)

    def outermost(self, name):
        """Boxes of `name` with no `name` above them (the profile's
        inclusive time counts a recursion once, at its outermost call)."""
        out = []
        for k, n in self.nodes.items():
            if n["name"] != name:
                continue
            p, nested = n["parent"], False
            while p in self.nodes and p != "n0":
                if self.nodes[p]["name"] == name:
                    nested = True
                p = self.nodes[p]["parent"]
            if not nested:
                out.append(n)
        return out


def read(path):
    return Picture(ET.parse(path).getroot())


def read_text(text):
    return Picture(ET.fromstring(text))
