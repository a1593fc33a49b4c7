# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: the median of the numbers on stdin, one
# per line, with two decimals.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
