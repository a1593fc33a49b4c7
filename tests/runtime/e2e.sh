#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end tests of libtrace.so's core: e2e.sh <case>
# Environment (set by CTest): LIBTRACE, CHECK (check_trace), BIN (test
# programs), CLI (paratrace, may be missing), WORK (scratch folder).
set -u
case_name=$1
work=$WORK/$case_name
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# run <dir> <prog> [args]: runs preloaded, stdout/stderr to files, sets rc
run() {
	local dir=$1; shift
	PARATRACE_DIR=$dir LD_PRELOAD=$LIBTRACE "$@" >"$work/out" 2>"$work/err"
	rc=$?
}
check() { "$CHECK" "$@" >"$work/check" 2>&1 || fail "check_trace failed: $(cat "$work/check")"; }
expect_line() { grep -Eq -- "$1" "$work/check" || { cat "$work/check" >&2; fail "no line matching: $1"; }; }
# Every file of the run has the same run id and clock. Each header's TSC
# calibration is measured from the run's start to that file's last update
# (runtime/core/clock.c), so their mults agree to within 1e-4, not to the digit.
one_clock() {
	grep '^file ' "$work/check" | grep -o 'run=[0-9a-f]* mult=[0-9]* shift=[0-9]*' | tr '=' ' ' |
		awk '{ runs[$2] = 1; shifts[$6] = 1; if (!n++ || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
		     END { for (k in runs) nr++; for (k in shifts) ns++
			   exit !(n > 0 && nr == 1 && ns == 1 && hi <= lo * 1.0001) }'
}
no_line() { ! grep -Eq -- "$1" "$work/check" || { grep -E -- "$1" "$work/check" >&2; fail "unexpected line: $1"; }; }

# <case>_prefault: the same case with the prefault helper forced on and
# small windows, so that it prepares many of them (runtime/core/prefault.c).
test_case=$case_name
if [ "${case_name%_prefault}" != "$case_name" ]; then
	export PARATRACE_PREFAULT=on PARATRACE_BUFFER_SIZE=256K
	test_case=${case_name%_prefault}
fi

case $test_case in
threads8)
	run "$work/tr" "$BIN/pt_threads8" 8 1000000
	[ "$rc" = 0 ] || fail "exit status $rc"
	check "$work/tr" --seq seq
	n=$(grep -c '^seq .* count=1000000 inorder=1$' "$work/check")
	[ "$n" = 8 ] || { grep '^seq' "$work/check" >&2; fail "$n of 8 threads have 1000000 events in order"; }
	no_line 'state=(error|more)'
	no_line 'complete=0'
	no_line 'monotonic=0'
	one_clock || fail "files disagree on run id or clock"
	# in each thread's log, and in the process log with the thread's tid
	[ "$(grep -cE '^threadname [^ ]*/t[0-9]+\.ptl worker-[0-9]+$' "$work/check")" = 8 ] ||
		fail "thread names missing"
	[ "$(grep -cE '^threadname [^ ]*/process\.ptl worker-[0-9]+ tid=[0-9]+$' "$work/check")" = 8 ] ||
		fail "thread names missing in the process log"
	;;
exit_threads)
	run "$work/tr" "$BIN/pt_exit_threads"
	[ "$rc" = 3 ] || fail "exit status $rc, expected 3"
	check "$work/tr"
	no_line 'state=(error|more)'
	no_line 'monotonic=0'
	expect_line '^exit .*process.ptl status=3 how=1$'
	expect_line '^file .*process.ptl .*complete=1'
	# the thread that called exit() has a complete log; the 3 others are
	# readable to their last record
	[ "$(grep -c '^file .*/t[0-9.]*ptl kind=1 ' "$work/check")" = 4 ] || fail "expected 4 thread logs"
	[ "$(grep -c '^file .*/t[0-9.]*ptl kind=1 .*complete=1' "$work/check")" -ge 1 ] ||
		fail "the exiting thread's log is not complete"
	[ "$(grep -c '^count .* FUNC_ENTER [0-9]' "$work/check")" -ge 4 ] || fail "function events missing"
	expect_line '^funcdef [0-9]+ work$'
	;;
cyg_names)
	run "$work/tr" "$BIN/pt_cyg_names"
	[ "$rc" = 5 ] || fail "exit status $rc, expected 5"
	check "$work/tr"
	expect_line '^count .*/t[0-9]+\.ptl FUNC_ENTER_PC 3001$'
	expect_line '^count .*/t[0-9]+\.ptl FUNC_EXIT_PC 3001$'
	expect_line '^module .* flags=2 buildid=20 .*/pt_cyg_names$'
	expect_line '^exit .* status=5 how=1$'
	if [ -x "${CLI:-}" ]; then
		"$CLI" dump "$work/tr" >"$work/dump" 2>"$work/dump.err" || fail "paratrace dump: $(cat "$work/dump.err")"
		for f in main pt_test_alpha pt_test_beta; do
			grep -q "FUNC_ENTER_PC.*$f" "$work/dump" || fail "dump does not name $f"
		done
		[ "$(grep -c 'FUNC_ENTER_PC.*pt_test_alpha' "$work/dump")" = 2000 ] || fail "pt_test_alpha count in dump"
	else
		echo "paratrace CLI not built: names not checked" >&2
	fi
	;;
manual_api)
	"$BIN/pt_manual_api" >"$work/out.untraced"
	[ $? = 9 ] || fail "untraced run: wrong status"
	run "$work/tr" "$BIN/pt_manual_api"
	[ "$rc" = 9 ] || fail "exit status $rc"
	cmp -s "$work/out" "$work/out.untraced" || fail "output differs when traced"
	check "$work/tr"
	expect_line '^type [0-9]+ flags=1 phase$'
	expect_line '^type [0-9]+ flags=0 iteration$'
	expect_line '^valuename [0-9]+ 2 accumulate$'
	expect_line '^funcdef [0-9]+ compute$'
	expect_line '^threadname .* main-thread$'
	# 10 x (scope begin, update, event, scope end) + counter
	expect_line '^count .*/t[0-9]+\.ptl USER_EVENT 4[01]$'
	expect_line '^count .*/t[0-9]+\.ptl FUNC_ENTER 1$'
	expect_line '^count .*/t[0-9]+\.ptl FUNC_EXIT 1$'
	expect_line '^exit .* status=9 how=1$'
	;;
user_names_pcf)
	# The manual API's names reach the .pcf: the type's own name, the
	# scope's with its named value (not "User event N" without VALUES).
	[ -n "$CLI" ] || { echo "SKIP: no paratrace CLI"; exit 77; }
	run "$work/tr" "$BIN/pt_user_names"
	[ "$rc" = 0 ] || fail "exit status $rc"
	"$CLI" analyze "$work/tr" -o "$work/u" >"$work/analyze" 2>&1 || fail "analyze: $(cat "$work/analyze")"
	# EVENT_TYPE blocks: "0 <type> <label>", then VALUES lines
	awk '/^EVENT_TYPE$/ { getline; sub(/^0 +[0-9]+ +/, ""); label = $0; print label; next }
	     /^VALUES$/ { in_v = 1; next }
	     /^$/ { in_v = 0; next }
	     in_v { print label ": " $0 }' \
		"$work/u.pcf" >"$work/labels"
	grep -qx 'phase' "$work/labels" || fail "no type labelled phase: $(grep -A1 EVENT_TYPE "$work/u.pcf" | tail -6)"
	grep -Eqx 'step: 5 +five' "$work/labels" || fail "no value 5 five of step: $(cat "$work/labels")"
	! grep -q 'User event' "$work/u.pcf" || fail "unnamed user types: $(grep 'User event' "$work/u.pcf")"
	;;
forkexec)
	run "$work/tr" "$BIN/pt_forkexec"
	[ "$rc" = 14 ] || fail "exit status $rc, expected 14"
	check "$work/tr"
	no_line 'state=(error|more)'
	no_line 'monotonic=0'
	parent=$(ls "$work/tr" | grep -E '^p[0-9]+$' | sort -n -k1.2 | head -1)
	[ "$(ls "$work/tr" | wc -l)" = 3 ] || fail "expected 3 process folders: $(ls "$work/tr")"
	one_clock || fail "processes disagree on run id or clock"
	expect_line '^file p[0-9]+/process.ptl .*flags=[15]$'    # forked child (| writer lock)
	expect_line '^file p[0-9]+\.1/process.ptl .*flags=[26]$' # exec'd image
	expect_line '^exit p[0-9]+\.1/process.ptl status=4 how=1$'
	expect_line '^count p[0-9]+/process.ptl FORK 1$'
	expect_line '^type [0-9]+ flags=0 exec-child$'
	;;
clock)
	# An interval between two events, converted by the reader with the
	# header's calibration, is the CLOCK_MONOTONIC interval the program saw
	# around them, to 2e-5 (+2 us): the calibration is no 10 ms measurement
	# any more but the slope from the run's start to the file's close.
	[ -n "$CLI" ] || { echo "SKIP: no paratrace CLI"; exit 77; }
	run "$work/tr" "$BIN/pt_clock_gap" 300
	[ "$rc" = 0 ] || fail "exit status $rc"
	read -r _ lo hi <"$work/out"
	"$CLI" dump --kind USER_EVENT "$work/tr" >"$work/dump" 2>"$work/dump.err" || fail "dump failed"
	t1=$(awk '$4 == "USER_EVENT" && / value=1( |$)/ { print $1; exit }' "$work/dump")
	t2=$(awk '$4 == "USER_EVENT" && / value=2( |$)/ { print $1; exit }' "$work/dump")
	[ -n "$t1" ] && [ -n "$t2" ] || fail "user events missing: $(head -5 "$work/dump")"
	awk -v g=$((t2 - t1)) -v lo="$lo" -v hi="$hi" \
		'BEGIN { exit !(g >= lo - 2000 - lo * 2e-5 && g <= hi + 2000 + hi * 2e-5) }' ||
		fail "traced interval $((t2 - t1)) ns, the program measured $lo..$hi ns"
	echo "traced $((t2 - t1)) ns for $lo..$hi ns"
	;;
clock_offset | clock_timens)
	# A process of the run whose CLOCK_MONOTONIC is not its parent's, behind
	# or ahead by a minute: exec'd with PARATRACE_TEST_CLOCK_OFFSET_NS
	# (clock_offset, which needs nothing of the kernel), or forked into a
	# new time namespace (clock_timens: unshare --time, as containers and
	# checkpoint/restore do). It must start at once (it used to wait for
	# its clock to pass the run's start: a minute), record the offset in
	# its headers, and its times must land on the run's clock: after the
	# parent's EXEC or FORK, before the run's last record.
	[ -n "$CLI" ] || { echo "SKIP: no paratrace CLI"; exit 77; }
	if [ "$test_case" = clock_timens ]; then
		command -v unshare >/dev/null || { echo "SKIP: no unshare (util-linux)"; exit 77; }
		unshare --time --monotonic -60 --fork true 2>"$work/unshare.err" ||
			{ echo "SKIP: no time namespace here: $(head -1 "$work/unshare.err")"; exit 77; }
	fi
	for off in -60 60; do
		tr=$work/tr$off
		if [ "$test_case" = clock_timens ]; then
			set -- unshare --time --monotonic "$off" --fork "$BIN/pt_plain"
			start=FORK
		else
			set -- env "PARATRACE_TEST_CLOCK_OFFSET_NS=${off}000000000" "$BIN/pt_plain"
			start=EXEC
		fi
		t0=$(date +%s)
		PARATRACE_DIR=$tr LD_PRELOAD=$LIBTRACE timeout 30 "$@" >"$work/out" 2>"$work/err"
		rc=$?
		[ "$rc" != 124 ] || fail "offset ${off}s: still running after 30 s"
		[ "$rc" = 42 ] || fail "offset ${off}s: exit status $rc: $(cat "$work/err")"
		[ $(($(date +%s) - t0)) -le 10 ] || fail "offset ${off}s: took $(($(date +%s) - t0)) s"
		check "$tr"
		no_line 'state=(error|more)'
		# the new process's files say its offset (to within 1 ms)
		n=$(grep -o 'clock_offset=[-0-9]*' "$work/check" | cut -d= -f2 |
			awk -v o="${off}e9" '{ d = $1 - o; if (d < 0) d = -d; if (d < 1e6) n++ } END { print n + 0 }')
		[ "$n" -ge 2 ] || { grep '^file' "$work/check" >&2; fail "offset ${off}s: not in the headers"; }
		"$CLI" dump "$tr" >"$work/dump" 2>"$work/dump.err" || fail "dump failed: $(head -3 "$work/dump.err")"
		# Records after the parent's EXEC/FORK line that are not the
		# parent image's: from the next PROCESS_INFO on (dump order:
		# process log, then threads, process by process).
		awk -v start="$start" -v off="$off" '
			$4 == start && !t0 { t0 = $1; next }
			t0 && $4 == "PROCESS_INFO" { child = 1 }
			child { n++; if ($1 < lo || !lo) lo = $1; if ($1 > hi) hi = $1 }
			{ if ($1 > last) last = $1 }
			END {
				if (!n) { print "no record of the new process"; exit 1 }
				if (lo < t0 || hi > last || hi - t0 > 10e9) {
					printf "offset %ss: its records at %d..%d ns, the %s at %d\n", off, lo, hi, start, t0
					exit 1
				}
			}' "$work/dump" >"$work/placed" || fail "$(cat "$work/placed")"
	done
	;;
startup)
	# No waiting at start-up: the TSC is calibrated from pairs of clock
	# readings taken as the run goes, not by sleeping (10 ms before).
	command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
	PARATRACE_DIR="$work/tr" strace -f -qq -E LD_PRELOAD="$LIBTRACE" \
		-e trace=nanosleep,clock_nanosleep,select,pselect6,poll,ppoll -o "$work/strace" \
		"$BIN/pt_plain" >"$work/out" 2>"$work/err"
	rc=$?
	if grep -q "Operation not permitted" "$work/err"; then
		echo "SKIP: strace may not trace here: $(head -1 "$work/err")"
		exit 77
	fi
	[ "$rc" = 42 ] || fail "exit status $rc: $(cat "$work/err")"
	ls "$work"/tr/p*/process.ptl >/dev/null 2>&1 || fail "no trace was written"
	[ ! -s "$work/strace" ] || fail "the traced program waited: $(head -3 "$work/strace")"
	# No work that is not needed: libunwind (call stacks, sampling: both
	# off by default) is loaded only when one of them is asked for, and the
	# context-switch event that init opens to see whether the kernel allows
	# it is the main thread's own (one perf_event_open, not two).
	traced_calls() { # <strace output> [VAR=value...]: pt_plain traced under strace
		local out=$1; shift
		env PARATRACE_DIR="$work/tr-$(basename "$out")" "$@" strace -f -qq \
			-E LD_PRELOAD="$LIBTRACE" -e trace=open,openat,perf_event_open -o "$out" \
			"$BIN/pt_plain" >"$work/out" 2>"$work/err"
		[ $? = 42 ] || fail "exit status: $(cat "$work/err")"
	}
	traced_calls "$work/default"
	! grep -q 'libunwind' "$work/default" ||
		fail "libunwind loaded with call stacks and sampling off: $(grep libunwind "$work/default")"
	n=$(grep -c 'perf_event_open(' "$work/default")
	[ "$n" -le 1 ] || fail "$n perf_event_open calls for one thread: $(grep perf_event_open "$work/default")"
	if grep -q unw_backtrace "$LIBTRACE"; then # built with call stacks
		traced_calls "$work/callstack" PARATRACE_CALLSTACK=4
		grep -q 'libunwind[^"]*", .*= [0-9]' "$work/callstack" ||
			fail "PARATRACE_CALLSTACK=4 did not load libunwind: $(cat "$work/err")"
	fi
	;;
unwind_tls)
	# libunwind is loaded at init when sampling is on (not linked): its
	# thread-local block is set up in each thread at its start, never first
	# in the sampling signal's handler.
	grep -q unw_backtrace "$LIBTRACE" || { echo "SKIP: built without libunwind"; exit 77; }
	PARATRACE_SAMPLING=10s run "$work/tr" "$BIN/pt_unwind_tls"
	[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$work/err")"
	grep -qx 'tls main 1' "$work/out" || fail "main thread: $(cat "$work/out" "$work/err")"
	grep -qx 'tls thread 1' "$work/out" || fail "second thread: $(cat "$work/out" "$work/err")"
	;;
secure)
	# A program that loads libtrace.so while privileged (setuid root, or a
	# file capability) run by an unprivileged user: never traced, one line
	# on stderr, and nothing created where that user's PARATRACE_DIR says.
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a setuid copy"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is missing"; exit 77; }
	id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
	d=$(mktemp -d /tmp/pt-secure-XXXXXX)
	trap 'rm -rf "$d"' EXIT
	chmod 755 "$d"
	cp "$BIN/pt_secure" "$d/suid"
	chmod 4755 "$d/suid"
	privileged() { # <copy>: run by nobody, checked
		local prog=$1 dir=$d/trace-$(basename "$1")
		env PARATRACE_DIR="$dir" setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$d/$prog" >"$work/out" 2>"$work/err"
		rc=$?
		if ! grep -q '^secure 1$' "$work/out"; then
			echo "SKIP: $prog did not run in secure-execution mode here (nosuid mount?): $(cat "$work/out" "$work/err")"
			exit 77
		fi
		[ "$rc" = 42 ] || fail "$prog: exit status $rc: $(cat "$work/err")"
		[ ! -e "$dir" ] || fail "$prog: the trace directory was created: $(ls -ld "$dir")"
		[ "$(wc -l <"$work/err")" = 1 ] || fail "$prog: want one line on stderr, got: $(cat "$work/err")"
		grep -q "privileged program .* never traced" "$work/err" || fail "$prog: $(cat "$work/err")"
	}
	privileged suid
	cp "$BIN/pt_secure" "$d/cap"
	if command -v setcap >/dev/null && setcap cap_net_bind_service+ep "$d/cap" 2>/dev/null; then
		privileged cap
	else
		echo "file capabilities cannot be set here: only the setuid copy was checked"
	fi
	;;
bad_config)
	"$BIN/pt_plain" >"$work/out.untraced"
	for kv in PARATRACE_BUFFER_SIZE=abc PARATRACE_BUFFER_SIZE=1K PARATRACE_ENABLE=maybe \
		PARATRACE_VERBOSE=7 PARATRACE_MAX_SIZE=12 PARATRACE_SAMPLING=fast PARATRACE_CLOCK=hpet \
		PARATRACE_CALLSTACK=x PARATRACE_GPU=2 PARATRACE_COUNTERS_AT=nonsense; do
		env "$kv" PARATRACE_DIR="$work/tr" LD_PRELOAD="$LIBTRACE" "$BIN/pt_plain" >"$work/out" 2>"$work/err"
		rc=$?
		[ "$rc" = 42 ] || fail "$kv: exit status $rc, expected 42"
		cmp -s "$work/out" "$work/out.untraced" || fail "$kv: output changed"
		[ "$(wc -l <"$work/err")" = 1 ] || fail "$kv: expected one line on stderr, got: $(cat "$work/err")"
		grep -q "${kv%%=*}" "$work/err" || fail "$kv: message does not name the variable"
		grep -q "tracing disabled" "$work/err" || fail "$kv: message does not say tracing is off"
		[ ! -e "$work/tr" ] || fail "$kv: a trace was written"
	done
	;;
permissions)
	# default directory name, modes 0700/0600
	mkdir -p "$work/cwd"
	(cd "$work/cwd" && LD_PRELOAD=$LIBTRACE "$BIN/pt_plain" >/dev/null 2>"$work/err")
	[ $? = 42 ] || fail "exit status"
	d=$(ls -d "$work"/cwd/paratrace-pt_plain-[0-9]*-[0-9]*-[0-9]* 2>/dev/null | head -1)
	[ -n "$d" ] || fail "default trace directory not found: $(ls "$work/cwd")"
	[ "$(stat -c %a "$d")" = 700 ] || fail "trace dir mode $(stat -c %a "$d")"
	for p in "$d"/p*; do [ "$(stat -c %a "$p")" = 700 ] || fail "process dir mode"; done
	for f in "$d"/p*/*.ptl; do [ "$(stat -c %a "$f")" = 600 ] || fail "file mode $(stat -c %a "$f") for $f"; done
	# a symlink as the trace directory is refused; the program runs unchanged
	mkdir -p "$work/elsewhere"
	ln -s "$work/elsewhere" "$work/link"
	run "$work/link" "$BIN/pt_plain"
	[ "$rc" = 42 ] || fail "symlink: exit status $rc"
	grep -q "symbolic link" "$work/err" || fail "symlink: no warning: $(cat "$work/err")"
	[ -z "$(ls -A "$work/elsewhere")" ] || fail "symlink was followed"
	;;
max_size)
	# PARATRACE_MAX_SIZE reached: records are dropped and counted, and every
	# log still ends complete with a LOST record saying how many
	# (off-CPU records off: a dropped one would be counted as lost beside
	# the user events this case sums)
	PARATRACE_OFFCPU=off PARATRACE_MAX_SIZE=256K run "$work/tr" "$BIN/pt_threads8" 4 200000
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -q "records .* were lost" "$work/err" || fail "no warning about lost records: $(cat "$work/err")"
	check "$work/tr" --seq seq
	no_line 'state=(error|more)'
	no_line 'complete=0'
	for f in "$work"/tr/p*/t*.ptl; do
		[ "$(stat -c %s "$f")" -le $((256 * 1024 + 128)) ] || fail "$f exceeds the cap"
	done
	n=0
	while read -r rel count; do
		lost=$(awk -v r="$rel" '$1 == "lost" && $2 == r { sub("records=", "", $3); print $3 }' "$work/check")
		[ -n "$lost" ] || fail "$rel: no LOST record"
		# every user event is either in the log or counted as lost
		[ $((count + lost)) = 200000 ] || fail "$rel: $count kept + $lost lost != 200000"
		n=$((n + 1))
	done < <(awk '$1 == "seq" { sub("count=", "", $4); print $2, $4 }' "$work/check")
	[ "$n" = 4 ] || fail "expected 4 thread logs with events, got $n"
	;;
fork_busy)
	run "$work/tr" "$BIN/pt_fork_busy" 300000
	[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$work/err")"
	check "$work/tr" --seq seq
	n=$(grep -c '^seq .* count=300000 inorder=1$' "$work/check")
	[ "$n" = 2 ] || { grep '^seq' "$work/check" >&2; fail "$n of 2 processes have 300000 events in order"; }
	no_line 'state=(error|more)'
	no_line 'complete=0'
	;;
sigkill | sigkill_early)
	# sigkill_early: killed right after start, its records still in the
	# logs' first (small) windows, which were never trimmed
	n=200000
	[ "$test_case" = sigkill_early ] && n=3
	PARATRACE_DIR=$work/tr LD_PRELOAD=$LIBTRACE "$BIN/pt_sigkill" $n >"$work/out" 2>"$work/err" &
	pid=$!
	for _ in $(seq 100); do grep -q ready "$work/out" 2>/dev/null && break; sleep 0.1; done
	grep -q ready "$work/out" || { kill -9 $pid; fail "program did not start"; }
	kill -9 $pid
	wait $pid 2>/dev/null
	check "$work/tr" --seq seq
	expect_line "^seq .* count=$n inorder=1\$"
	no_line 'state=(error|more)'
	;;
*)
	fail "unknown case"
	;;
esac
rm -rf "$work"
echo "PASS [$case_name]"
