#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# paratrace-cc and paratrace-c++ warn when they link with -static (a static
# program cannot load libtrace.so: it would run untraced without a word),
# and only then: not when compiling with -static, not for a dynamic link.
#   static.sh BINDIR WORKDIR
set -u
bin=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
printf 'int main(void) { return 0; }\n' >"$work/p.c"
cp "$work/p.c" "$work/p.cpp"
warned() { grep -q "warning: linking with -static: a statically linked program cannot load libtrace.so" "$work/err"; }
for w in paratrace-cc paratrace-c++; do
	src=$work/p.c
	[ $w = paratrace-c++ ] && src=$work/p.cpp
	"$bin/$w" -O1 -c "$src" -o "$work/p.o" -static 2>"$work/err" || fail "$w -c -static: $(cat "$work/err")"
	! warned || fail "$w warned when only compiling"
	"$bin/$w" -O1 "$src" -o "$work/dyn" 2>"$work/err" || fail "$w dynamic link: $(cat "$work/err")"
	! warned || fail "$w warned for a dynamic link"
	if ! "$bin/$w" "$work/p.o" -o "$work/static" -static 2>"$work/err"; then
		grep -q "cannot find -lc\|cannot find -lstdc++" "$work/err" &&
			{ echo "SKIP: no static C/C++ library here"; exit 77; }
		fail "$w -static link: $(cat "$work/err")"
	fi
	warned || fail "$w linked with -static without a warning: $(cat "$work/err")"
	[ "$(grep -c . "$work/err")" = 1 ] || fail "$w: more than one line: $(cat "$work/err")"
	"$bin/$w" -O1 "$src" -o "$work/static2" -static-pie 2>"$work/err" ||
		{ grep -q "cannot find\|static-pie" "$work/err" || fail "$w -static-pie: $(cat "$work/err")"; }
	[ ! -s "$work/static2" ] || warned || fail "$w linked with -static-pie without a warning"
	echo "$w: warns for -static links only"
done
