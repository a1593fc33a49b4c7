#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`cmake --install build` right after scripts/demo.sh: the demo must build
every target that the install installs. Checks, on the source tree, that
every install(TARGETS ...) of a CMakeLists.txt or .cmake file is one of
PT_INSTALLED_TARGETS (the top CMakeLists.txt's target `installed` depends
on them) and that scripts/demo.sh builds `installed` (or each of them).

usage: install_targets.py SOURCE_DIR
"""
import os
import re
import sys

src = sys.argv[1]
install = {}
for root, dirs, files in os.walk(src):
    dirs[:] = [d for d in dirs if not d.startswith(("build", ".")) and d != "shared"]
    for f in files:
        if f == "CMakeLists.txt" or f.endswith(".cmake"):
            path = os.path.join(root, f)
            text = open(path, errors="replace").read()
            for m in re.finditer(r"^\s*install\s*\(\s*TARGETS\s+([^)]*)", text, re.M | re.I):
                for word in m.group(1).split():
                    if word.isupper():  # EXPORT, LIBRARY, DESTINATION...: the names end
                        break
                    install[word] = os.path.relpath(path, src)
top = open(os.path.join(src, "CMakeLists.txt")).read()
m = re.search(r"set\(PT_INSTALLED_TARGETS\s+([^)]*)\)", top)
listed = set(m.group(1).split()) if m else set()
fails = ["%s installs %s, which PT_INSTALLED_TARGETS (CMakeLists.txt) does not list" % (p, t)
         for t, p in sorted(install.items()) if t not in listed]
demo = open(os.path.join(src, "scripts", "demo.sh")).read()
built = set()
for m in re.finditer(r"cmake --build \S+.*--target ((?:[\w-]+ ?)+)", demo):
    built |= set(m.group(1).split())
if "installed" not in built:
    fails += ["scripts/demo.sh does not build %s, which cmake --install installs" % t
              for t in sorted(install) if t not in built]
for f in fails:
    print("FAIL: " + f)
if not install:
    sys.exit("install_targets: no install(TARGETS) found under %s" % src)
if fails:
    sys.exit(1)
print("ok: the demo builds the %d installed targets" % len(install))
