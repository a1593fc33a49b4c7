#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end tests of counters, call stacks and sampling: e2e_prog runs
# preloaded with libtrace.so, its trace is read back with `paratrace dump`
# and `paratrace analyze`; expectations come from the program (pages it
# touches, its source lines), not from recorded output.
#   e2e_counters.sh LIBTRACE PARATRACE PROG PROG_SOURCE CASE [CC PLUGIN]
# (case "functions" compiles PROG_SOURCE itself with CC -fplugin=PLUGIN)
# Exit 77 = skipped (ctest SKIP_RETURN_CODE), with the reason on stdout.
set -u
lib=$1 pt=$2 prog=$3 src=$4 case=$5 cc=${6:-} plugin=${7:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL ($case): $*"
	for f in err out report; do [ -s "$work/$f" ] && { echo "--- $f"; head -40 "$work/$f"; }; done
	exit 1
}
# run VAR=value... -- args: the program, preloaded, tracing into $work/tr
run() {
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env PARATRACE_DIR="$work/tr" "${envs[@]}" LD_PRELOAD="$lib" "$prog" "$@" >"$work/out" 2>"$work/err"
}
# Context switches are counted in the kernel only: where perf_event_paranoid
# and missing CAP_PERFMON refuse that (containers), the runtime says so once
# and the case cannot be checked here.
skip_if_refused() {
	if grep -q "counter '$1' not available: permission denied" "$work/err"; then
		echo "SKIP ($case): $(grep -m1 "counter '$1'" "$work/err")"
		exit 77
	fi
}
dump() { "$pt" dump "$work/tr" >"$work/dump" 2>>"$work/err" || fail "paratrace dump failed"; }
# Value of counter NAME in the COUNTERS record that follows the first
# record of kind KIND (the dump prints COUNTER_DEF index=I ... name=NAME).
delta_after() {
	local kind=$1 name=$2 idx
	idx=$(sed -n "s/.* COUNTER_DEF index=\([0-9]*\) .*name=$name\$/\1/p" "$work/dump" | head -1)
	[ -n "$idx" ] || fail "no COUNTER_DEF for $name"
	awk -v k="$kind" -v i="$idx" '$4 == k { want = 1; next }
		want && $4 == "COUNTERS" { for (f = 5; f <= NF; f++) if ($f ~ "^v" i "=") { sub(/^v[0-9]+=/, "", $f); print $f; exit } }' "$work/dump"
}
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }

case $case in
page_faults)
	n=300
	run PARATRACE_COUNTERS=page-faults,context-switches -- pages $n || fail "program failed"
	dump
	v=$(delta_after LOCK_RELEASED page-faults)
	[ -n "$v" ] && [ "$v" -ge $n ] || fail "page-faults across touching $n pages = '$v', want >= $n"
	echo "page-faults across $n new pages: $v"
	;;
context_switches)
	run PARATRACE_COUNTERS=page-faults,context-switches -- sleep || fail "program failed"
	skip_if_refused context-switches
	dump
	v=$(delta_after LOCK_RELEASED context-switches)
	[ -n "$v" ] && [ "$v" -gt 0 ] || fail "context-switches across 5 sleeps = '$v', want > 0"
	echo "context-switches across 5 sleeps: $v"
	;;
unknown_counter)
	run PARATRACE_COUNTERS=page-faults,nonexistent-ctr-xyz -- pages 10 || fail "program failed"
	grep -q "^pages done" "$work/out" || fail "program output changed"
	w=$(grep -c "counter 'nonexistent-ctr-xyz' not available: unknown event name" "$work/err")
	[ "$w" = 1 ] || fail "want exactly one warning naming the counter, got $w"
	dump
	logs=$(find "$work/tr" -name '*.ptl' | wc -l)
	closes=$(awk '$4 == "CLOSE"' "$work/dump" | wc -l)
	[ "$logs" -ge 2 ] && [ "$closes" = "$logs" ] || fail "$closes CLOSE records for $logs logs"
	grep -q "COUNTER_DEF .*name=page-faults$" "$work/dump" || fail "page-faults missing"
	! grep -q "name=nonexistent-ctr-xyz" "$work/dump" || fail "the unknown counter was defined"
	for k in THREAD_START LOCK_ACQUIRED LOCK_RELEASED COUNTERS THREAD_END EXIT; do
		grep -q " $k " "$work/dump" || fail "no $k record"
	done
	;;
hardware)
	run PARATRACE_COUNTERS=instructions,cycles -- spin || fail "program failed"
	if grep -q "counter 'instructions' not available" "$work/err"; then
		echo "SKIP hardware counters: $(grep "counter 'instructions'" "$work/err")"
		exit 77
	fi
	dump
	v=$(delta_after THREAD_END instructions)
	v=${v:-$(awk '$4 == "COUNTERS"' "$work/dump" | tail -1 | sed -n 's/.* v0=\([0-9]*\).*/\1/p')}
	[ -n "$v" ] && [ "$v" -ge 10000000 ] || fail "instructions over 0.3 s of CPU = '$v'"
	echo "instructions: $v"
	;;
lock_callstack)
	run PARATRACE_CALLSTACK=3 -- lock || fail "program failed"
	"$pt" analyze "$work/tr" -o "$work/a" >"$work/report" 2>>"$work/err" || fail "analyze failed"
	base=$(basename "$src")
	want="take_lock ($base:$(line_of SITE_TAKE_LOCK)) < middle ($base:$(line_of SITE_MIDDLE)) < outer ($base:$(line_of SITE_OUTER))"
	grep -A3 "^Lock contention by call site" "$work/report" | grep -qF "$want" ||
		fail "contention site '$want' not in the report"
	grep -q "^0  70000001  Caller at level 1" "$work/a.pcf" || fail "no caller type in the .pcf"
	grep -q ":70000003:" "$work/a.prv" || fail "no level-3 caller event in the .prv"
	grep -q ":80000001:" "$work/a.prv" || fail "no caller line event in the .prv"
	;;
lock_contended_once)
	# One contended request (its call stack recorded), then 200 free
	# acquisitions: the lock and its call site count one contended, and a
	# wait of more than zero.
	run PARATRACE_CALLSTACK=1 -- lock_free 200 || fail "program failed"
	"$pt" report "$work/tr" >"$work/report" 2>>"$work/err" || fail "report failed"
	read -r acq cont wait < <(awk '/^Locks by wait time/ { on = 1; next } on && /^$/ { on = 0 }
		on && $1 == "mutex" && $3 >= 200 { print $3, $4, $5; exit }' "$work/report")
	echo "lock table: acquired=$acq contended=$cont wait=$wait"
	[ "${acq:-0}" -eq 202 ] || fail "lock acquired $acq times, want 202 (main once, the contender 201 times)"
	[ "${cont:-x}" = 1 ] || fail "lock contended $cont times, want 1"
	case $wait in 0 | 0ns | "") fail "lock waited '$wait', want > 0" ;; esac
	read -r n ms < <(grep -A2 "^Lock contention by call site" "$work/report" | awk 'NR == 3 { print $1, $2 }')
	echo "call-site table: contended=$n wait_ms=$ms"
	[ "${n:-x}" = 1 ] || fail "call site contended $n times, want 1"
	awk -v m="${ms:-0}" 'BEGIN { exit !(m > 0) }' || fail "call site waited $ms ms, want > 0"
	;;
sampling)
	run PARATRACE_SAMPLING=1ms -- spin || fail "program failed"
	dump
	read -r total in < <(awk '$4 == "SAMPLE" && $3 == $2 { t++; if ($0 ~ / name=spin_uninstrumented( |$)/) s++ } END { print t + 0, s + 0 }' "$work/dump")
	echo "main thread: $total samples, $in in spin_uninstrumented"
	[ "$total" -ge 20 ] || fail "only $total samples over 0.3 s of CPU at 1 ms"
	[ $((in * 10)) -ge $((total * 9)) ] || fail "$in of $total samples in the loop, want >= 90%"
	"$pt" analyze "$work/tr" -o "$work/a" >"$work/report" 2>>"$work/err" || fail "analyze failed"
	grep -A2 "^Sampled flat profile" "$work/report" | tail -1 | grep -q "spin_uninstrumented" ||
		fail "flat profile does not put spin_uninstrumented first"
	grep -q ":30000001:" "$work/a.prv" || fail "no sampled call-stack event in the .prv"
	;;
sigprof)
	run PARATRACE_SAMPLING=1ms -- sigprof || fail "program failed or its SIGPROF handler never ran"
	grep -q "^sigprof [1-9]" "$work/out" || fail "program's SIGPROF count missing"
	dump
	grep -q " SAMPLE " "$work/dump" || fail "no samples while the program used SIGPROF"
	;;
rtsig)
	run PARATRACE_SAMPLING=1ms -- rtsig || fail "program failed: $(cat "$work/out")"
	grep -q "^rtsig 50 wrong 0 old default now ours" "$work/out" || fail "program saw: $(cat "$work/out")"
	dump
	grep -q " SAMPLE " "$work/dump" || fail "no samples while the program used the sampling signal"
	;;
rtdefault)
	"$prog" rtdefault >/dev/null 2>&1
	want=$?
	run PARATRACE_SAMPLING=1ms -- rtdefault
	got=$?
	[ "$got" = "$want" ] && [ "$want" -gt 128 ] || fail "exit status $got traced, $want untraced"
	dump
	grep -q " EXIT .*how=signal" "$work/dump" || fail "no EXIT how=signal record"
	grep -q " SAMPLE " "$work/dump" || fail "no samples before the signal"
	;;
manual)
	n=250
	run -- $n || fail "program failed"
	grep -q "^manual done" "$work/out" || fail "program output changed"
	w=$(grep -c "counter 'no-such-counter-abc' not available" "$work/err")
	[ "$w" = 1 ] || fail "want one warning for the bad PT_COUNTER name, got $w"
	dump
	grep -q "COUNTER_DEF index=0 .*name=page-faults$" "$work/dump" || fail "no PT_COUNTER definition"
	vals=$(awk '$4 == "COUNTER_VALUE" { sub(/value=/, "", $6); printf "%s ", $6 }' "$work/dump")
	set -- $vals
	echo "PT_COUNTER(page-faults) values: $vals"
	[ $# = 2 ] && [ "$1" = 0 ] && [ "$2" -ge $n ] || fail "values '$vals', want 0 then >= $n"
	"$pt" analyze "$work/tr" -o "$work/a" >"$work/report" 2>>"$work/err" || fail "analyze failed"
	grep -q "page-faults (PT_COUNTER" "$work/a.pcf" || fail "PT_COUNTER type not in the .pcf"
	;;
fork)
	run PARATRACE_SAMPLING=1ms PARATRACE_COUNTERS=page-faults,context-switches -- fork ||
		fail "program failed"
	grep -q "^child done" "$work/out" || fail "child output missing"
	want=2
	grep -q "counter 'context-switches' not available: permission denied" "$work/err" && want=1
	dump
	child=$(sed -n 's/.* FORK child=\([0-9]*\) .*/\1/p' "$work/dump" | head -1)
	[ -n "$child" ] || fail "no FORK record"
	samples=$(awk -v c="$child" '$3 == c && $4 == "SAMPLE"' "$work/dump" | wc -l)
	defs=$(awk -v c="$child" '$3 == c && $4 == "COUNTER_DEF"' "$work/dump" | wc -l)
	echo "fork child $child: $samples samples, $defs counters"
	[ "$samples" -ge 10 ] || fail "child of fork got $samples samples over 0.2 s of CPU"
	[ "$defs" = $want ] || fail "child of fork opened $defs counters, want $want"
	;;
sampling_busy)
	# Sampling while 4 threads call instrumented functions: samples landing in the hooks used to write LOST records after
	# which the writer went on with short function records, which readers
	# then refused ("short function record without a function record
	# before it"); and most samples were dropped.
	"$cc" -O2 -g -fplugin="$plugin" -pthread "$src" -o "$work/busy" 2>"$work/err" ||
		fail "cannot build with the plugin"
	prog=$work/busy
	# Throttling off: the hooks of every call are what the samples must
	# land in, and the program's few hundred ms of CPU time (much less on a
	# loaded machine, where the test must still see enough samples) shared
	# at a 250us period.
	run PARATRACE_THROTTLE=off PARATRACE_SAMPLING=250us -- 4 400000 || fail "program failed"
	read -r _ _ mid _ leaf <"$work/out"
	# every record readable (dump's status), the calls counted by analyze
	# (exact, throttled ones included: the report flags those with ~)
	"$pt" dump --kind SAMPLE,LOST "$work/tr" >"$work/dump" 2>>"$work/err" ||
		fail "paratrace dump found damaged data: $(grep -m1 -v '^$' "$work/err")"
	"$pt" analyze "$work/tr" -o "$work/a" >"$work/report" 2>>"$work/err" || fail "analyze failed"
	calls() { sed -n '/^Functions by exclusive time/,/^$/p' "$work/report" | awk -v f="$1" '$1 == f { sub(/^~/, "", $2); print $2 }'; }
	[ "$(calls mid)" = "$mid" ] && [ "$(calls leaf)" = "$leaf" ] ||
		fail "trace has $(calls mid) mid and $(calls leaf) leaf calls, the program made $mid and $leaf"
	read -r samples lost < <(awk '$4 == "SAMPLE" { s++ }
		$4 == "LOST" && / reason=reentrant/ { for (i = 5; i <= NF; i++) if ($i ~ /^records=/) { sub(/^records=/, "", $i); l += $i } }
		END { print s + 0, l + 0 }' "$work/dump")
	echo "samples written $samples, dropped (LOST reentrant) $lost"
	[ "$samples" -ge 10 ] || fail "only $samples samples written"
	[ $((samples * 2)) -ge $((samples + lost)) ] ||
		fail "$samples samples written, $lost dropped: want at least half written"
	grep -A4 "^Sampled flat profile" "$work/report" | grep -Eq " (mid|leaf|work)( |$)" ||
		fail "the sampled profile does not name the program's functions"
	;;
functions)
	n=400
	"$cc" -O1 -g -fplugin="$plugin" "$src" -o "$work/funcs" 2>"$work/err" || fail "cannot build with the plugin"
	prog=$work/funcs
	run PARATRACE_COUNTERS=page-faults,task-clock PARATRACE_COUNTERS_AT=functions -- $n ||
		fail "program failed"
	"$pt" analyze "$work/tr" -o "$work/a" >"$work/report" 2>>"$work/err" || fail "analyze failed"
	# "  touch_pages   <pf excl> [<pf incl>]  <task-clock excl> [...]"; caller's
	# inclusive page faults hold touch_pages' too.
	row() { sed -n "/^Counters per function/,/^\$/p" "$work/report" | awk -v f="$1" '$1 == f'; }
	pf=$(row touch_pages | awk '{ print $2 }')
	incl=$(row caller | awk '{ gsub(/[][]/, "", $3); print $3 }')
	tc=$(row touch_pages | awk '{ print $4 }')
	echo "touch_pages: page-faults $pf, task-clock $tc ns; caller inclusive page-faults $incl"
	[ -n "$pf" ] && [ "$pf" -ge $n ] || fail "touch_pages page-faults '$pf', want >= $n"
	[ -n "$incl" ] && [ "$incl" -ge "$pf" ] || fail "caller inclusive '$incl' < touch_pages' $pf"
	[ -n "$tc" ] && [ "$tc" -gt 0 ] || fail "touch_pages task-clock '$tc'"
	grep -q "page-faults" "$work/a.pcf" || fail "counter name not in the .pcf"
	;;
absent)
	# PT_IGNORED: the variables of the parts this build left out. Each is
	# ignored with one warning; the program runs as ever, traced.
	run PARATRACE_COUNTERS=page-faults PARATRACE_CALLSTACK=3 PARATRACE_SAMPLING=1ms -- lock ||
		fail "program failed"
	grep -q "^lock done" "$work/out" || fail "program output changed"
	for v in ${PT_IGNORED:?}; do
		w=$(grep -c "$v is ignored: this libtrace.so was built without" "$work/err")
		[ "$w" = 1 ] || fail "want one warning for $v, got $w"
	done
	dump
	for v in $PT_IGNORED; do
		case $v in
		PARATRACE_COUNTERS) kinds="COUNTER_DEF COUNTERS" ;;
		PARATRACE_CALLSTACK) kinds="CALLSTACK" ;;
		PARATRACE_SAMPLING) kinds="SAMPLING_START SAMPLE" ;;
		esac
		for k in $kinds; do
			! grep -q " $k " "$work/dump" || fail "$k record with $v ignored"
		done
	done
	logs=$(find "$work/tr" -name '*.ptl' | wc -l)
	closes=$(awk '$4 == "CLOSE"' "$work/dump" | wc -l)
	[ "$logs" -ge 3 ] && [ "$closes" = "$logs" ] || fail "$closes CLOSE records for $logs logs"
	grep -q " LOCK_REQUEST " "$work/dump" || fail "the contended lock was not traced"
	;;
*)
	echo "unknown case $case"
	exit 2
	;;
esac
exit 0
