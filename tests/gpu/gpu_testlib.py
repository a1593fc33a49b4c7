# SPDX-License-Identifier: MIT
"""What the checks of this folder share: their output folder made empty;
for the CUDA ones (check_cuda_*.py, check_cupti_lazy.py), their failure
list, their end (each failure printed, then the exit status) and the GPU
tables of `paratrace report --csv`."""
import collections
import csv
import io
import os
import shutil
import subprocess
import sys

FAILS = []


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
    return cond


def gpu_tables(paratrace, trace):
    """{table: [row as {column: value}]} of report --csv's gpu_* tables,
    and the whole CSV."""
    r = subprocess.run([paratrace, "report", "--csv", trace], capture_output=True, text=True)
    rows = collections.defaultdict(list)
    header = None
    for row in csv.reader(io.StringIO(r.stdout)):
        if row and row[0] == "table":
            header = row
        elif row and row[0].startswith("gpu_"):
            rows[row[0]].append(dict(zip(header, row)))
    return rows, r.stdout


def finish(said=None, ok=None):
    """Prints each failure, then said, then ok if nothing failed; exits 1
    on a failure, else 0."""
    for f in FAILS:
        print("FAIL:", f)
    if said is not None:
        print(said)
    if ok and not FAILS:
        print(ok)
    sys.exit(1 if FAILS else 0)
