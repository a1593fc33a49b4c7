#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# paratrace record end to end (rec_prog.c does what its arguments say).
# usage: record.sh PARATRACE REC_PROG WORKDIR
set -uo pipefail
pt=$1 prog=$2 work=$3
rm -rf "$work"
mkdir -p "$work/a" "$work/b" "$work/c" "$work/empty"
cp "$prog" "$work/rec_prog"
fail() { echo "FAIL: $*" >&2; exit 1; }
# rec ARGS...: paratrace record ARGS in the current directory; $rc, out, err
rec() {
	"$pt" record "$@" >"$work/out" 2>"$work/err" </dev/null
	rc=$?
}
trace_in() { ls "$1"/p*/process.ptl >/dev/null 2>&1; }

cd "$work/a" || fail "cd"
# 1. named after the program; analyzed; the profile printed
rec ../rec_prog threads
[ $rc = 0 ] || fail "threads: status $rc: $(cat "$work/err")"
trace_in rec_prog.paratrace || fail "no trace in rec_prog.paratrace: $(ls)"
grep -q "trace of rec_prog in $work/a/rec_prog.paratrace\$" "$work/err" ||
	fail "where the trace is not said: $(cat "$work/err")"
grep -q "^Profile: 3 threads" "$work/out" || fail "no profile: $(cat "$work/out")"
[ -s rec_prog.paratrace.prv ] || fail "no .prv: $(ls)"

# 2. the exit status passed through; an existing directory never reused
rec --no-analyze ../rec_prog exit 3
[ $rc = 3 ] || fail "exit 3: status $rc: $(cat "$work/err")"
trace_in rec_prog.paratrace.1 || fail "second run not in rec_prog.paratrace.1: $(ls)"
[ ! -e rec_prog.paratrace.1.prv ] || fail "--no-analyze analyzed"
grep -q "paratrace analyze $work/a/rec_prog.paratrace.1" "$work/err" ||
	fail "--no-analyze does not say how to analyze: $(cat "$work/err")"

# 3. killed by a signal: 128 + N, and the trace still analyzed
rec ../rec_prog kill
[ $rc = $((128 + 15)) ] || fail "kill: status $rc, not 143: $(cat "$work/err")"
grep -q "^Profile:" "$work/out" || fail "kill: no profile: $(cat "$work/out")"
trace_in rec_prog.paratrace.2 || fail "third run not in rec_prog.paratrace.2: $(ls)"

# 4. analyze with no path: the newest trace here, said on stderr
"$pt" report >"$work/out" 2>"$work/err" || fail "report without a path: $(cat "$work/err")"
grep -q "reading rec_prog.paratrace.2, the newest trace here" "$work/err" ||
	fail "report did not pick the newest: $(cat "$work/err")"
grep -q "^Profile:" "$work/out" || fail "report without a path printed no profile"
(cd "$work/empty" && "$pt" analyze >/dev/null 2>"$work/err")
[ $? = 2 ] || fail "analyze with no trace around: not status 2"
grep -q "none in the current directory" "$work/err" || fail "no trace: $(cat "$work/err")"

# 5. arguments, stdin, stdout, environment, LD_PRELOAD kept absolute and
# in front of what was there; behind env and timeout the program names it
cd "$work/b" || fail "cd"
echo hello | "$pt" record --no-analyze ../rec_prog args "a b" "" '$HOME' >"$work/out" 2>"$work/err"
[ $? = 0 ] || fail "args: $(cat "$work/err")"
[ "$(cat "$work/out")" = "$(printf '[a b]\n[]\n[$HOME]\nstdin: hello')" ] ||
	fail "arguments or stdin changed: $(cat "$work/out")"
LD_PRELOAD=libm.so.6 rec --no-analyze ../rec_prog env LD_PRELOAD
lib=$(sed -n 's/^LD_PRELOAD=\(.*\):libm.so.6$/\1/p' "$work/out")
case "$lib" in /*/libtrace.so) ;; *) fail "LD_PRELOAD: $(cat "$work/out")" ;; esac
[ -r "$lib" ] || fail "LD_PRELOAD names $lib, which is not there"
# paratrace itself preloaded (LD_PRELOAD exported): the program still
# traced into record's directory, libtrace.so loaded once
LD_PRELOAD="$lib" rec -o preloaded --no-analyze ../rec_prog env LD_PRELOAD
[ $rc = 0 ] && grep -qx "LD_PRELOAD=$lib" "$work/out" || fail "preloaded: $(cat "$work/out" "$work/err")"
trace_in preloaded || fail "paratrace preloaded itself: the program's trace is not in -o"
grep -q "paratrace itself was preloaded" "$work/err" || fail "preloaded: no note"
timeout 60 "$pt" record --no-analyze -- env X=1 ../rec_prog env X >"$work/out" 2>"$work/err" </dev/null
[ $? = 0 ] && grep -q "^X=1$" "$work/out" || fail "env X=1: $(cat "$work/out" "$work/err")"
trace_in rec_prog.paratrace.2 || fail "behind env, not named after the program: $(ls)"

# 6. options: the runtime's variables, and what they record
rec --no-analyze --counters page-faults --counters-at all --callstack 4 --sampling 1ms \
	--no-gpu --no-mpi --no-openmp --buffer-size 1M --max-size 1G --clock monotonic \
	--gpu-kernels entries ../rec_prog env PARATRACE_CALLSTACK
grep -q "^PARATRACE_CALLSTACK=4$" "$work/out" || fail "--callstack: $(cat "$work/out")"
for pair in COUNTERS=page-faults COUNTERS_AT=all SAMPLING=1ms GPU=0 MPI=0 OPENMP=0 \
	BUFFER_SIZE=1M MAX_SIZE=1G CLOCK=monotonic GPU_KERNELS=entries; do
	rec --no-analyze --counters page-faults --counters-at all --sampling 1ms --no-gpu \
		--no-mpi --no-openmp --buffer-size 1M --max-size 1G --clock monotonic \
		--gpu-kernels entries ../rec_prog env "PARATRACE_${pair%%=*}"
	grep -qx "PARATRACE_$pair" "$work/out" || fail "PARATRACE_$pair: $(cat "$work/out")"
done
rec --gpu ../rec_prog env PARATRACE_GPU
grep -qx "PARATRACE_GPU=1" "$work/out" || fail "--gpu: $(cat "$work/out")"
if "$pt" --version | grep -q "libunwind"; then
	rec -o stacks --no-analyze --callstack 4 ../rec_prog threads
	[ $rc = 0 ] || fail "--callstack: status $rc: $(cat "$work/err")"
	"$pt" dump stacks >"$work/dump" 2>"$work/err" || fail "dump: $(cat "$work/err")"
	awk '$4 == "CALLSTACK"' "$work/dump" | grep -q " n=4 " || fail "--callstack 4 recorded no call stack"
	rec -o nostacks --no-analyze ../rec_prog threads
	"$pt" dump nostacks >"$work/dump" 2>"$work/err" || fail "dump: $(cat "$work/err")"
	! awk '$4 == "CALLSTACK"' "$work/dump" | grep -q . || fail "call stacks without --callstack"
fi

# 7. -o, --report and --html
rec -o sub/mine --report ../rec_prog threads
[ $rc = 0 ] || fail "-o: status $rc: $(cat "$work/err")"
trace_in sub/mine || fail "-o sub/mine: nothing there"
grep -q "^Threads" "$work/out" || fail "--report printed no full report: $(cat "$work/out")"
rec -o sub/mine ../rec_prog exit 0
[ $rc = 2 ] && grep -q "holds a trace already" "$work/err" ||
	fail "-o over a trace: status $rc: $(cat "$work/err")"
rec -o html --html ../rec_prog threads
[ -s html.html ] || fail "--html wrote no html.html: $(ls)"

# 8. a program that is not there or cannot run: as a shell says it
cd "$work/c" || fail "cd"
rec ./no-such-program
[ $rc = 127 ] || fail "missing program: status $rc"
grep -q "cannot run ./no-such-program: No such file" "$work/err" || fail "missing: $(cat "$work/err")"
[ -z "$(ls)" ] || fail "a missing program left $(ls)"
touch not-exec
rec ./not-exec
[ $rc = 126 ] || fail "not executable: status $rc"

# 9. a paratrace without its libtrace.so beside it says so
mkdir -p "$work/lone/bin" && cp "$pt" "$work/lone/bin/paratrace"
"$work/lone/bin/paratrace" record ../rec_prog exit 0 >/dev/null 2>"$work/err"
rc=$?
[ $rc = 2 ] && grep -q "cannot find the libtrace.so of this paratrace ($work/lone/bin/" "$work/err" ||
	fail "no libtrace.so: status $rc: $(cat "$work/err")"

# 10. SIGTERM sent to paratrace reaches the program; 143 back
"$pt" record --no-analyze ../rec_prog wait "$work/c/ready" >/dev/null 2>"$work/err" </dev/null &
pid=$!
for _ in $(seq 200); do [ -e ready ] && break; sleep 0.1; done
[ -e ready ] || fail "the program did not start"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "SIGTERM: status $rc: $(cat "$work/err")"
trace_in rec_prog.paratrace || fail "SIGTERM: no trace"
echo ok
