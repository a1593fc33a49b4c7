#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Dependencies between the source files of some folders go one way.

  scripts/check_deps.py --build BUILD_DIR [--list] FOLDER...

FOLDER is a path under the checkout (analyzer, runtime); every .c and .h
below it is checked, and only dependencies between those files count. A
file A depends on a file B (A -> B) when

  - A's object calls a function or uses a variable B's object defines
    (`nm` of the objects in BUILD_DIR: A's undefined symbols, B's defined
    ones), or
  - A includes, directly or through other headers, a header whose own
    code (an inline function, a macro) calls a function or uses a
    variable B defines: whoever includes that header may run that code.
    A declaration alone is no dependency.

The check fails (exit 1) when these dependencies form a circle (a file
depending, through others, on itself: a lower layer calling up) or when
headers include one another in a circle, and prints each circle with why
each step is there. --list prints every dependency instead (exit 0).
Exit 2: bad arguments, or no object of these folders in BUILD_DIR.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[{}]")
# defined, never called: a field of that name is no use of them
ENTRY_POINTS = {"main"}
# a macro's body (what follows its name and parameters)
DEFINE_RE = re.compile(r"^\s*#\s*define\s+[A-Za-z_][A-Za-z0-9_]*(?:\([^)]*\))?(.*)$")
# comments, then string and character literals (whose words name nothing)
STRIP_RE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def sources(folders):
    """Every .c and .h under the folders, as paths relative to ROOT."""
    out = []
    for folder in folders:
        top = os.path.join(ROOT, folder)
        if not os.path.isdir(top):
            sys.exit("check_deps: %s: not a folder of the checkout" % folder)
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return out


def includes(files):
    """file -> headers of `files` it includes directly (quoted includes),
    resolved beside the file first, then in the folders holding headers."""
    fileset = set(files)
    by_name = collections.defaultdict(list)
    for f in files:
        if f.endswith(".h"):
            by_name[os.path.basename(f)].append(f)
    graph = {}
    for f in files:
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        deps = []
        for name in INCLUDE_RE.findall(text):
            near = os.path.normpath(os.path.join(os.path.dirname(f), name))
            if near in fileset:
                deps.append(near)
            elif "/" not in name and len(by_name.get(name, [])) == 1:
                deps.append(by_name[name][0])
        graph[f] = deps
    return graph


def object_source(build, obj):
    """The source of a CMake object file (DIR/CMakeFiles/T.dir/SRC.o,
    SRC relative to DIR), relative to ROOT; None when not one."""
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    if "CMakeFiles" not in parts:
        return None
    i = parts.index("CMakeFiles")
    if i + 2 >= len(parts) or not parts[i + 1].endswith(".dir"):
        return None
    src = os.path.join(*(parts[:i] + parts[i + 2:]))[: -len(".o")]
    return os.path.normpath(src.replace("__" + os.sep, ".." + os.sep))


def symbols(build, files):
    """(defined, undefined): source -> global symbols its objects define,
    and those they use from elsewhere. Sources built into several targets
    get the union; an object older than its source is not read."""
    fileset = set(f for f in files if f.endswith(".c"))
    objects = {}
    for d, dirs, names in os.walk(build):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith(".c.o"):
                continue
            obj = os.path.join(d, n)
            src = object_source(build, obj)
            if src not in fileset:
                continue
            # older than its source: left over from an earlier build (a
            # target that no longer compiles it), not what the build uses
            if os.path.getmtime(obj) < os.path.getmtime(os.path.join(ROOT, src)):
                continue
            objects[obj] = src
    defined = collections.defaultdict(set)
    undefined = collections.defaultdict(set)
    # One nm for many objects: each nm start loads binutils' LTO plugins
    # (LLVM's among them), which costs far more than reading an object.
    paths = sorted(objects)
    for i in range(0, len(paths), 256):
        out = subprocess.run(["nm", "-P", "-A"] + paths[i:i + 256], capture_output=True,
                             text=True, check=True)
        for line in out.stdout.splitlines():
            obj, _, rest = line.partition(": ")
            parts = rest.split()
            if obj not in objects or len(parts) < 2:
                continue
            sym, kind = parts[0], parts[1]
            src = objects[obj]
            if kind in ("U", "w"):
                undefined[src].add(sym)
            elif kind.isupper() or kind == "v":
                defined[src].add(sym)
    return defined, undefined


def header_uses(headers, owner):
    """header -> {symbol: defining source} for the functions and variables
    of the checked objects that the header's own code uses: inside braces
    (inline functions, initialisers) or in a macro's body. A declaration
    names a function without depending on it, and is not counted."""
    out = {}
    for h in headers:
        with open(os.path.join(ROOT, h), encoding="utf-8", errors="replace") as fh:
            code = STRIP_RE.sub(" ", fh.read()).replace("\\\n", " ")
        used = set()
        plain = []
        for line in code.split("\n"):
            m = DEFINE_RE.match(line)
            if m:
                used.update(IDENT_RE.findall(m.group(1)))
            elif not line.lstrip().startswith("#"):
                plain.append(line)
        depth = 0
        for tok in TOKEN_RE.findall("\n".join(plain)):
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth = max(0, depth - 1)
            elif depth:
                used.add(tok)
        out[h] = {s: owner[s] for s in used if s in owner}
    return out


def closure(graph, start):
    """Headers reachable from start through includes, with the include
    chain that reaches each one (start excluded)."""
    seen = {}
    stack = [(start, [])]
    while stack:
        f, chain = stack.pop()
        for h in graph.get(f, []):
            if h not in seen and h != start:
                seen[h] = chain + [h]
                stack.append((h, chain + [h]))
    return seen


def sccs(graph):
    """Strongly connected components with more than one node, each sorted,
    in a stable order (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def cycle_in(graph, comp):
    """One circle through the component's first file: the shortest way
    back to it."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True, help="the build tree holding the objects")
    p.add_argument("--list", action="store_true", help="print every dependency")
    p.add_argument("folders", nargs="+")
    a = p.parse_args()

    files = sources(a.folders)
    inc = includes(files)
    defined, undefined = symbols(os.path.abspath(a.build), files)
    if not defined:
        print("check_deps: no object of %s in %s: build it first" % (" ".join(a.folders), a.build),
              file=sys.stderr)
        return 2
    owner = {}
    for src, syms in defined.items():
        for s in syms - ENTRY_POINTS:
            owner.setdefault(s, src)
    names = header_uses([f for f in files if f.endswith(".h")], owner)

    # why[a][b]: the reasons a depends on b
    why = collections.defaultdict(lambda: collections.defaultdict(list))
    for src in sorted(defined.keys() | undefined.keys()):
        for s in sorted(undefined[src]):
            if s in owner and owner[s] != src:
                why[src][owner[s]].append("calls %s" % s)
        for h, chain in sorted(closure(inc, src).items()):
            for s, o in sorted(names[h].items()):
                if o != src:
                    via = " via " + ", ".join(chain[:-1]) if len(chain) > 1 else ""
                    why[src][o].append("includes %s%s, whose code uses %s" % (h, via, s))
    graph = {k: set(v) for k, v in why.items()}

    if a.list:
        for f in sorted(inc):
            for h in inc[f]:
                print("%s includes %s" % (f, h))
        for x in sorted(why):
            for y in sorted(why[x]):
                print("%s -> %s: %s" % (x, y, "; ".join(why[x][y][:3])))
        return 0

    bad = 0
    for comp in sccs({k: set(v) for k, v in inc.items()}):
        bad += 1
        print("headers that include one another: %s" % " -> ".join(cycle_in(inc, comp)))
    for comp in sccs(graph):
        bad += 1
        cycle = cycle_in(graph, comp)
        print("circle: %s" % " -> ".join(os.path.basename(f) for f in cycle))
        for x, y in zip(cycle, cycle[1:]):
            reasons = why[x][y]
            more = " (and %d more)" % (len(reasons) - 2) if len(reasons) > 2 else ""
            print("  %s -> %s: %s%s" % (x, y, "; ".join(reasons[:2]), more))
        if len(comp) > len(cycle) - 1:
            print("  the same circle holds: %s" % ", ".join(comp))
    if bad:
        print("check_deps: %d circle(s) in %s" % (bad, " ".join(a.folders)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
