#!/bin/sh
# SPDX-License-Identifier: MIT
# check_count_add.sh CLANG CORE_DIR
#
# The runtime's increment of a throttled call's count (pt_count.h), which a
# signal handler on the same thread may also make, compiled for x86-64 and
# AArch64: one `incq` to memory on the first (as before), a relaxed atomic
# add on the second, where a load, add and store would lose the handler's
# counts. The header includes nothing a freestanding compile lacks, so
# clang needs no AArch64 sysroot. 77: no clang.
set -eu
cc=$1
core=$2
command -v "$cc" >/dev/null 2>&1 || { echo "no clang ($cc): skipped"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/count.c" <<'C'
#include "pt_count.h"
void count_one(uint64_t *p)
{
	pt_count_add1(p);
}
C
status=0
fail() {
	echo "FAIL $*" >&2
	status=1
}
build() { # target opt out [flags...]
	t=$1 o=$2 out=$3
	shift 3
	"$cc" --target="$t" "$o" -ffreestanding -I"$core" "$@" -o "$tmp/$out" "$tmp/count.c"
}
for opt in -O0 -O2; do
	build aarch64-linux-gnu $opt a64.ll -S -emit-llvm
	grep -Eq 'atomicrmw add (i64\*|ptr) %[A-Za-z0-9_.]+, i64 [%A-Za-z0-9_.]+ monotonic' "$tmp/a64.ll" ||
		fail "aarch64 $opt: the count is not a relaxed atomic add"
	build aarch64-linux-gnu $opt a64.s -S -march=armv8.1-a
	grep -Eq '^[[:space:]]*(st|ld)add[[:space:]]' "$tmp/a64.s" ||
		fail "aarch64 $opt -march=armv8.1-a: no LSE add"
	build x86_64-linux-gnu $opt x86.s -S
	grep -Eq '^[[:space:]]*incq[[:space:]]+[^[:space:]]*\(%r[a-z0-9]+\)' "$tmp/x86.s" ||
		fail "x86_64 $opt: the count is not one incq to memory"
	! grep -Eq '^[[:space:]]*lock' "$tmp/x86.s" || fail "x86_64 $opt: a lock prefix"
done
[ $status -eq 0 ] && echo "pt_count_add1: incq on x86-64, a relaxed atomic add on AArch64"
exit $status
