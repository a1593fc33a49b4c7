#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shells' redirections under the runtime: `exec N>file` then a
# command writing through N, for the numbers shells use (3-9, 255) and for
# those the runtime holds in a new shell (which it must give up to the
# shell). Every file must hold exactly what was written, and every process's
# trace must be complete. Run by check.sh (the shells are traced).
#   fds_shell.sh WORKDIR
set -u
work=$1
fails=0
seq 1 100000 >"$work/want"
want=$(stat -c %s "$work/want")
trace=$(realpath -m "$PARATRACE_DIR")
# The numbers the runtime holds in a new bash: links into the trace directory.
probe='for f in /proc/$$/fd/*; do case $(readlink "$f") in '"$trace"'*) echo "${f##*/}";; esac; done'
runtime=$(bash -c "$probe" | sort -n | tr '\n' ' ')
[ -n "$runtime" ] || { echo "FAIL: no runtime descriptor found in a traced bash" >&2; fails=1; }
shells=0
for n in 3 4 5 6 7 8 9 255 $runtime; do
	out=$work/out.$n
	bash -c "exec $n>'$out'; seq 1 100000 >&$n; echo done >&$n; exec $n>&-" ||
		{ echo "FAIL: fd $n: bash exited with status $?" >&2; fails=1; }
	shells=$((shells + 1))
	echo done >>"$work/want.$n.tmp"
	cat "$work/want" "$work/want.$n.tmp" >"$work/want.$n"
	if ! cmp -s "$out" "$work/want.$n"; then
		echo "FAIL: fd $n: $(stat -c %s "$out") bytes, expected $((want + 5)), or different bytes" >&2
		fails=1
	fi
done
echo "runtime descriptors of a traced bash: $runtime"
echo "expect status 0"
echo "expect count LOST == 0"
echo "expect clean"
# this shell, the probe, and each test's bash (which execs seq in place)
echo "expect procs >= $((shells + 2))"
exit $fails
