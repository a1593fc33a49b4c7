#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every source file of the repository names its licence in an SPDX line.

  scripts/spdx.py [DIR]          list the tracked source files without one (exit 1 if any)
  scripts/spdx.py --fix [DIR]    add the line to them

DIR is the checkout (default: the one around the current directory); outside
a git checkout (a source tarball) there is nothing to check: exit 77, which
CTest reports as skipped.

A source file is code, a build file or a script (by name, below); data (golden
outputs, traces, Paraver views, pictures) and prose (*.md) are not. The line is
the first line, or the second after a `#!` line, in the file's own comment
syntax. Within the first five lines counts as present, so a file whose first
lines must stay as they are (none today) can carry it a little lower.
"""
import os
import subprocess
import sys

LICENSE = "MIT"
TAG = "SPDX-License-Identifier:"

# File name suffix (or whole base name) -> comment syntax for the line.
C_BLOCK = ("/* ", " */")
LINE_SLASH = ("// ", "")
LINE_HASH = ("# ", "")
SYNTAX = {
    ".c": C_BLOCK,
    ".h": C_BLOCK,
    ".css": C_BLOCK,
    ".js": C_BLOCK,
    ".cpp": LINE_SLASH,
    ".hpp": LINE_SLASH,
    ".cl": LINE_SLASH,
    ".cu": LINE_SLASH,
    ".f90": ("! ", ""),
    ".py": LINE_HASH,
    ".sh": LINE_HASH,
    ".cmake": LINE_HASH,
    ".cmake.in": LINE_HASH,
    ".pc.in": LINE_HASH,
    ".ac": LINE_HASH,
    ".map": C_BLOCK,
    "CMakeLists.txt": LINE_HASH,
    "Makefile": LINE_HASH,
    "Makefile.in": LINE_HASH,
    "run": LINE_HASH,  # .ci/run
    "paratrace-cc.in": LINE_HASH,
}


def syntax_of(path):
    base = os.path.basename(path)
    if base in SYNTAX:
        return SYNTAX[base]
    for suffix in sorted((s for s in SYNTAX if s.startswith(".")), key=len, reverse=True):
        if base.endswith(suffix):
            return SYNTAX[suffix]
    return None


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def has_line(text):
    return any(TAG in line for line in text.splitlines()[:5])


def with_line(text, syntax):
    line = f"{syntax[0]}{TAG} {LICENSE}{syntax[1]}\n"
    if text.startswith("#!"):
        first, _, rest = text.partition("\n")
        return first + "\n" + line + rest
    return line + text


def main(argv):
    fix = "--fix" in argv[1:]
    dirs = [a for a in argv[1:] if a != "--fix"]
    top = subprocess.run(["git", "-C", dirs[0] if dirs else ".", "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if top.returncode != 0:
        print("not a git checkout: no list of source files to check", file=sys.stderr)
        return 77
    root = top.stdout.strip()
    missing = []
    for rel in tracked_files(root):
        syntax = syntax_of(rel)
        path = os.path.join(root, rel)
        if syntax is None or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if has_line(text):
            continue
        missing.append(rel)
        if fix:
            mode = os.stat(path).st_mode
            with open(path, "w", encoding="utf-8") as f:
                f.write(with_line(text, syntax))
            os.chmod(path, mode)
    for rel in missing:
        print(("added: " if fix else "no SPDX line: ") + rel)
    if missing and not fix:
        print(f"{len(missing)} source file(s) without an SPDX line; "
              "scripts/spdx.py --fix adds it", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
