#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds instrument.so against every other LLVM installed under
/usr/lib/llvm-N (llvm-N-dev + libclang-N-dev + clang-N) and traces one
instrumented C++ program compiled by that clang (the "cxx" case of e2e.py:
templates, lambdas, exceptions). Exit 77 (CTest skip) when no other
version is installed.

  matrix.py --source pass/ --work DIR --skip-version 14 --runtime libtrace.so --dump paratrace
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def installed_versions():
    found = []
    for root in glob.glob("/usr/lib/llvm-*"):
        m = re.fullmatch(r"/usr/lib/llvm-(\d+)", root)
        if not m:
            continue
        need = ["lib/cmake/llvm/LLVMConfig.cmake", "lib/cmake/clang/ClangConfig.cmake", "bin/clang",
                "bin/clang++"]
        if all(os.path.exists(os.path.join(root, n)) for n in need):
            found.append((int(m.group(1)), root))
    return sorted(found)


def step(cmd):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout)
        return False
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--skip-version", type=int, default=0, help="the version the main build uses")
    p.add_argument("--runtime", required=True)
    p.add_argument("--dump", required=True)
    a = p.parse_args()
    versions = [(v, r) for v, r in installed_versions() if v != a.skip_version]
    if not versions:
        print("no other LLVM/Clang development installation under /usr/lib/llvm-N: skipped")
        sys.exit(77)
    failed = []
    for v, root in versions:
        bdir = os.path.join(a.work, "llvm-%d" % v)
        ok = step(["cmake", "-S", a.source, "-B", bdir, "-DPT_LLVM_ROOT=" + root,
                   "-DCMAKE_BUILD_TYPE=Release"]) and \
            step(["cmake", "--build", bdir, "-j2", "--target", "instrument"])
        so = os.path.join(bdir, "instrument.so")
        ok = ok and step([sys.executable, os.path.join(HERE, "e2e.py"), "--cc", root + "/bin/clang",
                          "--cxx", root + "/bin/clang++", "--plugin", so, "--runtime", a.runtime,
                          "--dump", a.dump, "--work", os.path.join(bdir, "e2e"), "--flags=-O2",
                          "cxx"])
        print("LLVM %d: %s" % (v, "ok" if ok else "FAILED"), flush=True)
        if not ok:
            failed.append(v)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
