#!/bin/sh
# SPDX-License-Identifier: MIT
# check_self_calls.sh LIBTRACE [ARCHIVE_OR_OBJECT...]
#
# Inside libtrace.so, a call to a function the library exports itself (a
# pthread_mutex_lock, say) binds at run time to the runtime's own wrapper:
# the runtime would then trace its own locks as the program's and re-enter
# itself from inside. Such a call shows as a dynamic relocation of the
# library against one of its own exported symbols. This fails when there
# is one that is not in the list of deliberate ones below, and likewise for
# the undefined references of the other files given (the static libraries
# linked into libtrace.so, which may be linked elsewhere too).
set -eu
lib=$1
shift

# Deliberate calls of the runtime's own entry points, with the reason.
allowed='
__paratrace_func_enter  manual API: PT_FUNCTION() enters through the hook ABI
__paratrace_func_exit   manual API: PT_FUNCTION() leaves through the hook ABI
sigaction               signal() and friends set dispositions through the wrapper table
signal                  bsd_signal() is signal()
execv                   execl() builds its argv and goes through the execv wrapper
execvp                  execlp() builds its argv and goes through the execvp wrapper
dlopen                  libcupti is loaded through the dlopen wrapper, which maps it in the module map
close_range             closefrom() goes through the close_range wrapper, which keeps the runtime fds open
close                   closefrom() without close_range(2) closes one by one through the close wrapper
dup2                    __dup2() is dup2()
malloc                  allocations of the runtime itself (thread start blocks, GPU buffers); inside its region the memory wrappers only forward
calloc                  (as malloc)
realloc                 (as malloc)
free                    (as malloc)
aligned_alloc           (as malloc: the activity buffers of CUPTI)
'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$allowed" | awk 'NF {print $1}' | sort -u >"$tmp/allowed"
nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exports"
if [ ! -s "$tmp/exports" ]; then
	echo "no exported symbols found in $lib" >&2
	exit 1
fi

status=0
report() { # what, file with symbol names
	comm -12 "$tmp/exports" "$2" | comm -23 - "$tmp/allowed" >"$tmp/bad"
	if [ -s "$tmp/bad" ]; then
		echo "$1 calls the runtime's own exported wrappers:" >&2
		sed 's/^/  /' "$tmp/bad" >&2
		status=1
	fi
}

# Relocations that name a symbol: column 5 of readelf's table.
readelf -rW "$lib" | awk 'NF >= 5 && $1 ~ /^[0-9a-f]+$/ {print $5}' | sed 's/@.*//' | sort -u \
	>"$tmp/refs"
report "$lib" "$tmp/refs"

for f in "$@"; do
	nm -u "$f" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/refs"
	report "$f" "$tmp/refs"
done
[ $status -eq 0 ] && echo "no call of the runtime's own wrappers outside the list of deliberate ones"
exit $status
