#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA device code through instrument.so, compile-only (no GPU needed):
cuda_kernels.cu is compiled by clang for the GPU side only, to LLVM IR and
to PTX, at -O2 and -O0, and the checks are on what the pass emitted:

- no host hook, constructor or function table in device code;
- per kernel K: the 64-bit device global __paratrace_prof_K (0, externally
  initialised) that K's entry loads first, and __paratrace_tab_K holding
  K's table (gpu_abi.h format): an entries and a blocks version, one B line
  per block, the marker lines of the source among the blocks' lines, the
  blocks of an inlined helper counted as the kernel's, a recursive callee
  left as a call;
- the blocks version counts each block with one warp-aggregated shared
  atomic (activemask), both versions time the group with %globaltimer and
  end with a barrier;
- gpu=entries leaves the block counters out, gpu=off leaves kernels alone;
- the IR verifies (opt -verify) and, when CUDA's ptxas is there, the PTX
  assembles for sm_80.
"""
import argparse
import os
import re
import subprocess
import sys

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def compile_(a, out, opt, emit_llvm, gpu="all"):
    cmd = [a.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
           "--cuda-gpu-arch=sm_80", "-Wno-unknown-cuda-version", "-S", opt, "-gline-tables-only",
           "-fplugin=" + a.plugin, "-fplugin-arg-instrument-gpu=" + gpu, a.src, "-o", out]
    if emit_llvm:
        cmd.insert(-3, "-emit-llvm")
    r = subprocess.run(cmd, capture_output=True, text=True)
    check(r.returncode == 0, "%s failed: %s" % (" ".join(cmd), r.stderr[-3000:]))
    return open(out).read() if r.returncode == 0 else ""


def ir_string(ir, name):
    """The bytes of constant global @name (c"..." with \\XX escapes)."""
    m = re.search(r'^@%s = [^\n]*c"((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"' % re.escape(name), ir, re.M)
    if not m:
        return None
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))


def function_body(ir, name):
    m = re.search(r"^define [^\n]*@%s\(.*?^}" % re.escape(name), ir, re.M | re.S)
    return m.group(0) if m else ""


def markers(src):
    return {m.group(1): i for i, line in enumerate(open(src), 1) for m in [re.search(r"// ([A-Z]+)", line)] if m}


def parse_table(text):
    kernels = []
    for line in text.splitlines():
        f = line.split(" ")
        if f[0] == "K":
            kernels.append(dict(mode=f[1], n=int(f[2]), file=int(f[3]), line=int(f[4]), name=f[5], twin=f[6],
                                blocks=[]))
        elif f[0] == "B":
            kernels[-1]["blocks"].append((int(f[1]), int(f[2]), int(f[3])))
    return kernels


def check_ir(a, ir, opt):
    mark = markers(a.src)
    check("__paratrace_func_enter" not in ir and "__paratrace_register_module" not in ir and
          "llvm.global_ctors" not in ir, "%s: host hooks in device code" % opt)
    want_lines = {"branchy": ["ENTRY", "ODD", "BODY", "BIG", "SMALL"], "axpy": ["AXPY"], "recursive": ["REC"]}
    for k, lines in want_lines.items():
        slot = re.search(r"^@__paratrace_prof_%s = addrspace\(1\) externally_initialized global i64 0" % k, ir, re.M)
        check(slot, "%s %s: no slot global" % (opt, k))
        body = function_body(ir, k)
        first = [l for l in body.splitlines()[1:] if l.strip() and "llvm.dbg" not in l and " alloca " not in l][:1]
        check(first and re.search(r"load i64, (?:i64 addrspace\(1\)\*|ptr addrspace\(1\)) @__paratrace_prof_%s\b" % k, first[0]),
              "%s %s: entry does not load the slot first: %s" % (opt, k, first))
        text = ir_string(ir, "__paratrace_tab_" + k)
        if not check(text and text.startswith("T 2\n"), "%s %s: no table" % (opt, k)):
            continue
        t = parse_table(text)
        modes = {x["mode"]: x for x in t}
        check(sorted(modes) == ["b", "e"] and all(x["name"] == k and x["twin"] == "-" for x in t),
              "%s %s: table kernels %s" % (opt, k, t))
        b = modes.get("b")
        if not b:
            continue
        check(len(b["blocks"]) == b["n"] and b["n"] > 0, "%s %s: %d B lines for %d blocks" % (opt, k, len(b["blocks"]), b["n"]))
        lines_seen = {line for _, _, line in b["blocks"]}
        for m in lines:
            check(mark[m] in lines_seen, "%s %s: no block at %s (line %d): %s" % (opt, k, m, mark[m], sorted(lines_seen)))
        # private counters in the body, summed per warp at the exit (sm_80)
        check(body.count("redux.sync.add.u32") == b["n"],
              "%s %s: %d warp sums for %d blocks" % (opt, k, body.count("redux.sync.add.u32"), b["n"]))
        check(re.search(r"call i32 asm [^\n]*%smid", body), "%s %s: no copy chosen by %%smid" % (opt, k))
        # entry and exit of both versions (the optimiser may share the entry's)
        check(body.count("%globaltimer") >= 3, "%s %s: %d globaltimer reads" % (opt, k, body.count("%globaltimer")))
        check(body.count("@llvm.nvvm.barrier0()") >= 3, "%s %s: barriers %d" % (opt, k, body.count("@llvm.nvvm.barrier0()")))
        check(re.search(r"atomicrmw add (?:i32 addrspace\(3\)\*|ptr addrspace\(3\))", body), "%s %s: no shared counter" % (opt, k))
    # the recursive callee stays a call where the pass runs (the optimiser
    # may turn it into a loop afterwards): its blocks are not the kernel's
    t = parse_table(ir_string(ir, "__paratrace_tab_recursive") or "")
    check(t and all(line != mark["FACT"] for x in t for _, _, line in x["blocks"]),
          "%s: blocks of the recursive callee counted in the kernel: %s" % (opt, t))
    check(".paratrace_" not in ir, "%s: an instrumented clone was left behind" % opt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", required=True, help="clang++ instrument.so is built for")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--opt", help="LLVM opt, to verify the IR")
    ap.add_argument("--ptxas", help="CUDA's ptxas, to assemble the PTX")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    # A clang built without the NVPTX target cannot compile CUDA at all:
    # nothing to check (ctest counts exit 77 as skipped).
    probe = os.path.join(a.dir, "probe.cu")
    with open(probe, "w") as f:
        f.write("__attribute__((global)) void k(int *p) { *p = 1; }\n")
    r = subprocess.run([a.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                        "--cuda-gpu-arch=sm_80", "-Wno-unknown-cuda-version", "-S", "-emit-llvm", probe,
                        "-o", probe + ".ll"], capture_output=True, text=True)
    if r.returncode != 0:
        print("SKIP: %s cannot compile CUDA device code: %s" % (a.clang, r.stderr[-500:]))
        return 77
    for opt in ("-O2", "-O0"):
        ll = os.path.join(a.dir, "k%s.ll" % opt)
        ir = compile_(a, ll, opt, True)
        if ir:
            check_ir(a, ir, opt)
            if a.opt:
                r = subprocess.run([a.opt, "-verify", "-disable-output", ll], capture_output=True, text=True)
                check(r.returncode == 0, "%s: IR does not verify: %s" % (opt, r.stderr[-2000:]))
        ptx_path = os.path.join(a.dir, "k%s.ptx" % opt)
        ptx = compile_(a, ptx_path, opt, False)
        check(re.search(r"\.visible \.global \.align 8 \.u64 __paratrace_prof_branchy", ptx) and
              "%globaltimer" in ptx and "activemask.b32" in ptx, "%s: PTX lacks the slot or counters" % opt)
        if a.ptxas and ptx:
            r = subprocess.run([a.ptxas, "-arch=sm_80", ptx_path, "-o", ptx_path + ".cubin"],
                               capture_output=True, text=True)
            check(r.returncode == 0, "%s: ptxas: %s" % (opt, r.stderr[-2000:]))
    ir = compile_(a, os.path.join(a.dir, "entries.ll"), "-O2", True, "entries")
    check(ir and "activemask" not in ir and "%globaltimer" in ir and "\\0AK b" not in ir,
          "gpu=entries: block counters emitted")
    ir = compile_(a, os.path.join(a.dir, "off.ll"), "-O2", True, "off")
    check(ir and "__paratrace" not in ir, "gpu=off: kernels instrumented")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
