#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints the build outputs that the tests of one label run or read, in a
Ninja build tree: every file of the tree that the tree's build makes and
that their commands or environments name. Building those (ninja builds what
each needs first) gives the tests everything without the rest of the tree.

Usage: test_outputs.py BUILD_DIR LABEL
Exit status 1, printing nothing, when BUILD_DIR is not a Ninja tree.

The tests are read from the CTestTestfile.cmake files CMake generates
(ctest itself does not say the command of a test whose program is not
built yet).
"""
import os
import re
import subprocess
import sys

# CMake's generated arguments: [=[bracket]=], "quoted" (backslash escapes)
# or bare words (PROPERTIES, LABELS).
ARG = re.compile(r'\[=\[(.*?)\]=\]|"((?:[^"\\]|\\.)*)"|([^\s"]+)')
CALL = re.compile(r"^(add_test|set_tests_properties|subdirs|set_directory_properties)\((.*)\)\s*$")


def unquote(m):
    if m.group(1) is not None:
        return m.group(1)
    if m.group(2) is not None:
        return re.sub(r"\\(.)", r"\1", m.group(2))
    return m.group(3)


def read_tests(build, path, tests):
    """Each test's name -> (words of its command and properties, labels).
    Returns the names of the tests this file and its subdirectories add
    (a directory's LABELS apply to all of them)."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return set()
    here = set()
    for line in lines:
        m = CALL.match(line)
        if not m:
            continue
        args = [unquote(a) for a in ARG.finditer(m.group(2))]
        if m.group(1) == "subdirs":
            for d in args:
                sub = os.path.join(os.path.dirname(path), d, "CTestTestfile.cmake")
                here |= read_tests(build, sub, tests)
            continue
        if m.group(1) == "set_directory_properties":
            if "LABELS" in args:
                for name in here:
                    tests[name][1].update(args[args.index("LABELS") + 1].split(";"))
            continue
        if not args:
            continue
        words, labels = tests.setdefault(args[0], ([], set()))
        here.add(args[0])
        words += args[1:]
        if m.group(1) == "set_tests_properties" and "LABELS" in args:
            labels.update(args[args.index("LABELS") + 1].split(";"))
    return here


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, label = os.path.realpath(sys.argv[1]), sys.argv[2]
    if not os.path.exists(os.path.join(build, "build.ninja")):
        return 1
    listed = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"], check=True,
                            capture_output=True, text=True).stdout
    made = {line.rsplit(": ", 1)[0] for line in listed.splitlines()}
    tests = {}
    read_tests(build, os.path.join(build, "CTestTestfile.cmake"), tests)
    outputs = set()
    for words, labels in tests.values():
        if label not in labels:
            continue
        for w in words:
            # a path alone, in a list, or after NAME= or --option=
            for part in re.split(r"[=;:]", w):
                if os.path.isabs(part):
                    rel = os.path.relpath(part, build)
                    if rel in made:
                        outputs.add(rel)
    print("\n".join(sorted(outputs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
