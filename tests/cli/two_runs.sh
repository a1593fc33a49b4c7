#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two runs of one program with the same PARATRACE_DIR are two unrelated
# runs: every command refuses the trace with the list of runs, and --run
# picks either. A shell running the program twice is one run (its children
# share its run id): no refusal.
# usage: two_runs.sh LIBTRACE PARATRACE PROGRAM WORKDIR
set -uo pipefail
lib=$1 cli=$2 prog=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

PARATRACE_DIR="$work/two" LD_PRELOAD="$lib" "$prog" >/dev/null || fail "first run"
PARATRACE_DIR="$work/two" LD_PRELOAD="$lib" "$prog" >/dev/null || fail "second run"
for cmd in "dump" "analyze -q -o $work/out" "report" "export --format perfetto -q -o $work/out.pf"; do
	$cli $cmd "$work/two" >"$work/stdout" 2>"$work/stderr"
	rc=$?
	[ $rc = 2 ] || fail "$cmd: status $rc, not 2: $(cat "$work/stderr")"
	grep -q "holds 2 unrelated runs" "$work/stderr" || fail "$cmd: $(cat "$work/stderr")"
	[ "$(grep -c "^  run [0-9a-f]*  $(basename "$prog"): p[0-9]*$" "$work/stderr")" = 2 ] ||
		fail "$cmd: the two runs are not listed: $(cat "$work/stderr")"
done
ids=$(sed -n 's/^  run \([0-9a-f]*\) .*/\1/p' "$work/stderr")
pids=""
for id in $ids; do
	$cli report --run "$id" "$work/two" >"$work/report" 2>"$work/stderr" ||
		fail "report --run $id: $(cat "$work/stderr")"
	grep -q "Profile: 3 threads" "$work/report" || fail "report --run $id: $(head -3 "$work/report")"
	$cli analyze -q --run "$id" -o "$work/run-$id" "$work/two" || fail "analyze --run $id"
	pids="$pids $($cli dump --run "$id" --kind PROCESS_INFO "$work/two" | awk '{print $2}')"
done
[ "$(echo $pids | wc -w)" = 2 ] && [ "$(echo $pids | tr ' ' '\n' | sort -u | wc -l)" = 2 ] ||
	fail "--run did not pick one process each: $pids"

PARATRACE_DIR="$work/one" LD_PRELOAD="$lib" sh -c "'$prog' >/dev/null; '$prog' >/dev/null" ||
	fail "shell run"
$cli report "$work/one" >"$work/report" 2>"$work/stderr" || fail "one run: $(cat "$work/stderr")"
echo "ok"
