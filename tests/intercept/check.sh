#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs one program under the preload and checks its trace against what the
# program itself says it did (lines "expect ..." on its stdout):
#   expect status N                    exit status (128+signo when killed)
#   expect count KIND OP N [FIELD...]  dump lines of KIND having every FIELD (key=value, or
#                                      key= for any value): OP is == >= <=
#   expect wait > 0 TEXT...            summed LOCK_REQUEST->LOCK_ACQUIRED time of those lines
#   expect linked-threads == N         THREAD_STARTs whose creator tid + seq match a THREAD_CREATE
#   expect countfile KIND FILE SLACK TEXT...   C <= count <= C+SLACK, C read from FILE
#   expect pid PID                     the trace has records of process PID and a FORK child=PID
#   expect procs OP N                  number of processes in the trace (PROCESS_INFO records)
#   expect clean                       `paratrace dump` read every file without an error
# usage: check.sh LIBTRACE PARATRACE WORKDIR -- COMMAND [ARGS...]
set -uo pipefail
lib=$1 cli=$2 work=$3
shift 4
rm -rf "$work"
mkdir -p "$work"
ulimit -c 0
export PARATRACE_DIR="$work/trace"
# PT_PRELOAD_CMD=1: the command is a shell line run by sh (which is traced too).
LD_PRELOAD="$lib" "$@" >"$work/out" 2>"$work/err"
status=$?
unset PARATRACE_DIR
dump_status=0
if ! "$cli" dump "$work/trace" >"$work/dump" 2>"$work/dump.err"; then
	dump_status=1
	echo "paratrace dump reported errors:" >&2
	head -20 "$work/dump.err" >&2
fi
fail=0
checks=0
count_lines() { # KIND TEXT...
	local kind=$1
	shift
	awk -v kind="$kind" -v pats="$*" 'BEGIN { n = split(pats, p, " ") }
		function has(t,   j) { for (j = 5; j <= NF; j++) if ($j == t || (t ~ /=$/ && index($j, t) == 1)) return 1; return 0 }
		$4 == kind { ok = 1; for (i = 1; i <= n; i++) if (!has(p[i])) { ok = 0; break }
			     if (ok) c++ }
		END { print c + 0 }' "$work/dump"
}
compare() { # VALUE OP EXPECTED
	case $2 in
	"==") [ "$1" -eq "$3" ] ;;
	">=") [ "$1" -ge "$3" ] ;;
	"<=") [ "$1" -le "$3" ] ;;
	">") [ "$1" -gt "$3" ] ;;
	*) return 1 ;;
	esac
}
while read -r word what rest; do
	[ "$word" = expect ] || continue
	checks=$((checks + 1))
	set -- $rest
	case $what in
	status)
		got=$status
		want=$1
		compare "$got" "==" "$want" || { echo "FAIL: exit status $got, expected $want" >&2; fail=1; } ;;
	count)
		kind=$1 op=$2 want=$3
		shift 3
		got=$(count_lines "$kind" "$@")
		compare "$got" "$op" "$want" || { echo "FAIL: $kind $* : $got, expected $op $want" >&2; fail=1; } ;;
	wait)
		op=$1 want=$2
		shift 2
		got=$(awk -v pats="$*" 'BEGIN { n = split(pats, p, " ") }
			($4 == "LOCK_REQUEST" || $4 == "LOCK_ACQUIRED") {
				for (i = 1; i <= n; i++) if (index($0, p[i]) == 0) next
				k = $2 " " $3
				if ($4 == "LOCK_REQUEST") req[k] = $1
				else if (k in req) { w += $1 - req[k]; delete req[k] } }
			END { print w + 0 }' "$work/dump")
		compare "$got" "$op" "$want" || { echo "FAIL: wait $* : $got ns, expected $op $want" >&2; fail=1; } ;;
	linked-threads)
		op=$1 want=$2
		got=$(awk '$4 == "THREAD_CREATE" { for (i = 5; i <= NF; i++) if ($i ~ /^seq=/) c[$2 " " $3 " " $i] = 1 }
			$4 == "THREAD_START" { cr = ""; s = ""
				for (i = 5; i <= NF; i++) { if ($i ~ /^creator=/) cr = substr($i, 9); if ($i ~ /^seq=/) s = $i }
				if (cr != "0") st[$2 " " cr " " s] = 1 }
			END { for (k in st) if (k in c) n++; print n + 0 }' "$work/dump")
		compare "$got" "$op" "$want" || { echo "FAIL: linked threads $got, expected $op $want" >&2; fail=1; } ;;
	countfile)
		kind=$1 file=$2 slack=$3
		shift 3
		c=$(cat "$file" 2>/dev/null || echo -1)
		got=$(count_lines "$kind" "$@")
		if [ "$c" -lt 1 ] || [ "$got" -lt "$c" ] || [ "$got" -gt $((c + slack)) ]; then
			echo "FAIL: $kind $* : $got in the trace, the program completed $c (slack $slack)" >&2
			fail=1
		fi ;;
	pid)
		p=$1
		recs=$(awk -v p="$p" '$2 == p { c++ } END { print c + 0 }' "$work/dump")
		forks=$(awk -v p="child=$p" '$4 == "FORK" { for (i = 5; i <= NF; i++) if ($i == p) c++ } END { print c + 0 }' "$work/dump")
		if [ "$recs" -lt 1 ] || [ "$forks" -lt 1 ]; then
			echo "FAIL: process $p: $recs records, $forks FORK records naming it" >&2
			fail=1
		fi ;;
	clean)
		[ "$dump_status" = 0 ] || { echo "FAIL: paratrace dump found damaged data" >&2; fail=1; } ;;
	procs)
		op=$1 want=$2
		got=$(count_lines PROCESS_INFO)
		compare "$got" "$op" "$want" || { echo "FAIL: $got processes, expected $op $want" >&2; fail=1; } ;;
	*)
		echo "FAIL: unknown expectation '$what'" >&2
		fail=1 ;;
	esac
done <"$work/out"
if [ "$checks" -eq 0 ]; then
	echo "FAIL: the program stated no expectations (status $status)" >&2
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "--- program stdout:" >&2; head -40 "$work/out" >&2
	echo "--- program stderr:" >&2; head -20 "$work/err" >&2
	echo "--- trace in $work" >&2
	exit 1
fi
echo "ok: $checks expectations met ($(wc -l <"$work/dump") records)"
# Passing traces can be large (one file per thread): keep only failing ones.
rm -rf "$work/trace" "$work/dump"
