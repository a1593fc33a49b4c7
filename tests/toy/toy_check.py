#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The toy family (nice, tests/toy/) in every output: a Python process
calls nice through ctypes with known arguments under libtrace-toy.so, and
paratrace-toy shows exactly those calls in `dump`, the .prv and .pcf of
`analyze`, `report` and the Perfetto export. The product's paratrace reads
the same trace without them (their kinds are not its)."""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analyzer"))
import perfetto_read  # noqa: E402

INC = [1, 2, 3, 4, 5]  # the calls, in order
NICE = [sum(INC[:i + 1]) for i in range(len(INC))]  # what each returns, from 0
TOY_EV = "69000001"
errors = []


def expect(cond, msg):
    if not cond:
        errors.append(msg)


def run(args, env=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--lib", "--paratrace", "--product", "--work"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    trace = os.path.join(a.work, "trace")
    env = dict(os.environ, LD_PRELOAD=a.lib, PARATRACE_DIR=trace)
    prog = ("import ctypes, os\nlibc = ctypes.CDLL(None)\nbase = os.getpriority(os.PRIO_PROCESS, 0)\n"
            "print([libc.nice(i) - base for i in %r])" % (INC,))
    out = run([sys.executable, "-c", prog], env)
    expect(out.strip() == str(NICE), "the calls returned %r, expected %s" % (out.strip(), NICE))

    # dump: one TOY_NICE per call with its argument, one TOY_NICE_END with
    # what it returned and no error
    dump = run([a.paratrace, "dump", trace]).splitlines()
    begins = [l for l in dump if " TOY_NICE " in l + " "]
    ends = [l for l in dump if " TOY_NICE_END " in l + " "]
    got = [int(re.search(r" inc=(\d+)", l).group(1)) for l in begins]
    expect(got == INC, "dump: TOY_NICE inc=%s, expected %s" % (got, INC))
    res = [int(re.search(r" result=(-?\d+)", l).group(1)) for l in ends]
    expect(len(ends) == len(INC) and all(" errno=0" in l for l in ends)
           and [r - res[0] + NICE[0] for r in res] == NICE,
           "dump: TOY_NICE_END lines %s" % ends)

    # the product's paratrace: the same trace without error, the toy's
    # records skipped as kinds it does not know
    plain = run([a.product, "dump", trace])
    unknown = [re.search(r" UNKNOWN kind=(\d+) ", l) for l in plain.splitlines()]
    unknown = [int(m.group(1)) for m in unknown if m]
    expect(unknown == [0x2a, 0x2b] * len(INC) and "TOY_NICE" not in plain,
           "the product's dump: unknown kinds %s" % unknown)

    # .prv: on one thread row, the argument at each call and 0 at its return
    base = os.path.join(a.work, "toy")
    run([a.paratrace, "analyze", "-q", "-o", base, trace])
    values = []
    rows = set()
    for line in open(base + ".prv"):
        f = line.rstrip("\n").split(":")
        if f[0] != "2":
            continue
        for t, v in zip(f[6::2], f[7::2]):
            if t == TOY_EV:
                values.append(int(v))
                rows.add(tuple(f[1:5]))
    want = [v for u in INC for v in (u, 0)]
    expect(values == want, ".prv: type %s values %s, expected %s" % (TOY_EV, values, want))
    expect(len(rows) == 1, ".prv: toy events on rows %s" % rows)
    pcf = open(base + ".pcf").read()
    expect(re.search(r"EVENT_TYPE\n0\s+%s\s+nice \(increment asked\)\nVALUES\n0\s+End\n" % TOY_EV,
                     pcf), ".pcf: no label of type %s" % TOY_EV)
    plain_base = os.path.join(a.work, "product")
    run([a.product, "analyze", "-q", "-o", plain_base, trace])
    expect(TOY_EV not in open(plain_base + ".prv").read() + open(plain_base + ".pcf").read(),
           "the product's .prv or .pcf has type %s" % TOY_EV)

    # report: the family's section, with the calls, what they asked, and
    # some time spent in them
    rep = run([a.paratrace, "report", trace])
    m = re.search(r"\nnice \(toy family\)\n  calls (\d+)  asked (\d+)  in the calls (\d+) ns\n", rep)
    expect(m is not None, "report: no toy section in\n" + rep[-3000:])
    if m:
        calls, asked, ns = (int(x) for x in m.groups())
        expect(calls == len(INC) and asked == sum(INC),
               "report: calls %d asked %d, expected %d and %d" % (calls, asked, len(INC), sum(INC)))
        expect(ns > 0, "report: no time in the calls")

    # Perfetto: one slice "nice" per call, on one track
    pf = os.path.join(a.work, "toy.pftrace")
    run([a.paratrace, "export", "--format", "perfetto", "-q", "-o", pf, trace])
    problems, tracks, slices = perfetto_read.check(perfetto_read.read(pf))
    for m in problems:
        expect(False, "perfetto: " + m)
    toy = [(t, b, e, ev) for t, s in slices.items() for n, b, e, ev in s if n == "nice"]
    expect(len(toy) == len(INC), "perfetto: %d nice slices, expected %d" % (len(toy), len(INC)))
    expect(all(ev["categories"] == ["toy"] for _, _, _, ev in toy),
           "perfetto: categories %s" % [ev["categories"] for _, _, _, ev in toy])
    expect(len({t for t, _, _, _ in toy}) == 1, "perfetto: nice slices on several tracks")

    for e in errors:
        print("FAIL: " + e)
    print("toy family: %s" % ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
