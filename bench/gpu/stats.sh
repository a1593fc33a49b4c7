# SPDX-License-Identifier: MIT
# Sourced by the GPU benchmarks (run.sh, cuda_bench.sh): the statistics of
# their interleaved runs. out[CONFIG] holds each run's "KEY VALUE" lines.

source "$root/bench/median.sh"
# The median, and the least, of KEY's values over CONFIG's runs.
value() { printf '%s' "${out[$1]}" | awk -v k="$2" '$1 == k { print $2 }' | median; }
least() { printf '%s' "${out[$1]}" | awk -v k="$2" '$1 == k { print $2 }' | sort -g | head -1; }
# B / A, as "1.23x".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b / a }'; }
