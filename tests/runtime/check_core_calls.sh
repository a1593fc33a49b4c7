#!/bin/sh
# SPDX-License-Identifier: MIT
# check_core_calls.sh LIBTRACE CORE_OBJECT...
#
# The runtime's core (runtime/core/) reaches no interposed family: any of
# them may be left out of a build, and a call into one would record what
# the core does as the program's. So the core's objects refer to none of
# the symbols libtrace.so exports but the ones the core defines itself,
# and those are only the hook ABI and the manual API: no wrapper of an
# interposed function lives in the core.
set -eu
lib=$1
shift

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exports"
if [ ! -s "$tmp/exports" ]; then
	echo "no exported symbols found in $lib" >&2
	exit 1
fi
nm --defined-only "$@" | awk 'NF >= 3 {print $3}' | sort -u >"$tmp/defined"
nm -u "$@" | awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | sort -u >"$tmp/refs"
comm -12 "$tmp/exports" "$tmp/refs" | comm -23 - "$tmp/defined" >"$tmp/bad"
status=0
if [ -s "$tmp/bad" ]; then
	echo "the runtime core calls interposed functions of libtrace.so:" >&2
	sed 's/^/  /' "$tmp/bad" >&2
	status=1
fi
comm -12 "$tmp/exports" "$tmp/defined" |
	grep -v -e '^__paratrace_' -e '^paratrace_' -e '^__cyg_profile_func_' >"$tmp/wrappers" || true
if [ -s "$tmp/wrappers" ]; then
	echo "the runtime core defines wrappers of interposed functions:" >&2
	sed 's/^/  /' "$tmp/wrappers" >&2
	status=1
fi
[ $status -eq 0 ] && echo "the runtime core neither calls nor defines an interposed function"
exit $status
