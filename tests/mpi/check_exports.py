#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libtrace.so exports the wrappers of every call of the table of MPI calls
(include/paratrace/mpi_calls.h): MPI_<name>, and mpi_<name>_ unless the row
says the call has no Fortran entry point; and no other MPI_*/mpi_* name
(a wrapper written by hand beside the table, or one the version script
stopped exporting, fails).

    check_exports.py GEN_WRAPPERS TABLE LIBTRACE NM
"""
import subprocess
import sys


def main():
    gen, table, lib, nm = sys.argv[1:]
    want = set(subprocess.run([sys.executable, gen, "--symbols", table], check=True,
                              capture_output=True, text=True).stdout.split())
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    have = {w[-1] for w in (line.split() for line in out.splitlines())
            if w and w[-1].lower().startswith("mpi_")}
    c = len([s for s in want if s.startswith("MPI_")])
    print("table: %d C and %d Fortran wrappers; libtrace.so: %d MPI_*/mpi_* names" %
          (c, len(want) - c, len(have)))
    ok = True
    for name in sorted(want - have):
        print("missing from %s: %s" % (lib, name))
        ok = False
    for name in sorted(have - want):
        print("exported but not in the table: %s" % name)
        ok = False
    if c < 200:  # the table read as (almost) empty: nothing was checked
        print("only %d C wrappers in the table" % c)
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
