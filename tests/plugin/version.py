#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""instrument.so in a compiler it was not built for stops the compile with a
status other than 0 and one line of error, never a stack dump:

  other-clang  every other clang installed (/usr/lib/llvm-N/bin/clang),
               loading it with -fplugin= and with -fpass-plugin=: the line
               names the clang it needs and how to rebuild. Exit 77 (skip)
               when no other clang is installed (apt-get install clang-15).
  gcc          gcc -fplugin= (also through PARATRACE_CC=gcc paratrace-cc
               when --wrapper is given): the line says instrument.so is a
               clang plugin and points to -finstrument-functions with the
               same libtrace.so, not gcc's "undefined symbol".
  cli          `paratrace --version` names the clang the plugin is for, the
               log format and the optional parts built in.

  version.py --plugin instrument.so --major 14 [--paratrace paratrace]
             [--wrapper paratrace-cc] --work DIR CASE
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

from filters import check, finish

A = None


def compile_with(cc, flag):
    src = os.path.join(A.work, "t.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    cmd = [cc, "-c", src, "-o", os.path.join(A.work, "t.o")] + ([flag + A.plugin] if flag else [])
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout)
    return r.returncode, [l for l in r.stdout.splitlines() if l.strip()]


def other_clang():
    others = []
    for cc in sorted(glob.glob("/usr/lib/llvm-*/bin/clang")):
        m = re.search(r"llvm-(\d+)/", cc)
        if m and int(m.group(1)) != A.major:
            others.append((int(m.group(1)), cc))
    if not others:
        print("no clang other than %d installed (apt-get install clang-15): skipped" % A.major)
        sys.exit(77)
    for major, cc in others:
        for flag in ("-fplugin=", "-fpass-plugin="):
            rc, lines = compile_with(cc, flag)
            what = "clang %d %s" % (major, flag)
            check(rc != 0, "%s: the compile fails (status %d)" % (what, rc))
            check(len(lines) == 1, "%s: one line of output (got %d)" % (what, len(lines)))
            line = lines[0] if lines else ""
            check("built for clang %d." % A.major in line and "clang-%d" % A.major in line,
                  "%s: the line names the clang the plugin needs" % what)
            check("-DPT_LLVM_ROOT=/usr/lib/llvm-%d" % major in line,
                  "%s: the line says how to rebuild for this clang" % what)


def gcc():
    gcc = shutil.which("gcc")
    if not gcc:
        print("no gcc: skipped")
        sys.exit(77)
    want = ("paratrace: %s is a clang plugin and cannot run in gcc: with gcc, compile with "
            "-finstrument-functions instead of -fplugin= and run with the same libtrace.so"
            % A.plugin)
    runs = [("gcc -fplugin=", compile_with(gcc, "-fplugin="))]
    if A.wrapper:
        os.environ["PARATRACE_CC"] = gcc
        os.environ["PARATRACE_PLUGIN"] = A.plugin
        runs.append(("PARATRACE_CC=gcc paratrace-cc", compile_with(A.wrapper, "")))
    for what, (rc, lines) in runs:
        check(rc != 0, "%s: the compile fails (status %d)" % (what, rc))
        check(lines == [want], "%s: the one line %r (got %r)" % (what, want, lines))


def cli():
    r = subprocess.run([A.paratrace, "--version"], stdout=subprocess.PIPE, text=True)
    print(r.stdout)
    check(r.returncode == 0, "paratrace --version succeeds")
    check(re.search(r"^paratrace \S+ \(log format \d+\.\d+\)$", r.stdout, re.M) is not None,
          "the version and the log format")
    check(re.search(r"^plugin: instrument\.so for clang %d\.\d+\.\d+$" % A.major, r.stdout, re.M)
          is not None, "the clang the plugin is built for")
    check(re.search(r"^built with: OpenMP \(OMPT\)(, [^,]+)*$", r.stdout, re.M) is not None,
          "the optional parts built in")


def main():
    global A
    p = argparse.ArgumentParser()
    p.add_argument("--plugin", required=True)
    p.add_argument("--major", type=int, required=True, help="LLVM major the plugin is built for")
    p.add_argument("--paratrace")
    p.add_argument("--wrapper", help="paratrace-cc, for the gcc case")
    p.add_argument("--work", required=True)
    p.add_argument("case", choices=["other-clang", "gcc", "cli"])
    A = p.parse_args()
    shutil.rmtree(A.work, ignore_errors=True)
    os.makedirs(A.work)
    {"other-clang": other_clang, "gcc": gcc, "cli": cli}[A.case]()
    finish()


if __name__ == "__main__":
    main()
