#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and builds an outside program
# against the reader three ways: pkg-config, find_package (shared), and
# find_package (static); each must read a corpus log to the same count.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
log="$src/corpus/thread-all-kinds.ptl"
libdir=$(dirname "$(find "$tmp/prefix" -name 'libptlog.so' | head -1)")
test -x "$tmp/prefix/bin/paratrace"
test -f "$tmp/prefix/include/paratrace/log.h"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc "$src/consumer/count.c" $(pkg-config --cflags --libs paratrace) -Wl,-rpath,"$libdir" -o "$tmp/count_pc"
want=$("$tmp/count_pc" "$log")

cmake -S "$src/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
got_shared=$("$tmp/consumer/count_shared" "$log")
got_static=$("$tmp/consumer/count_static" "$log")
echo "pkg-config: $want; cmake shared: $got_shared; cmake static: $got_static"
[ "$want" = "$got_shared" ] && [ "$want" = "$got_static" ]
case "$want" in *" complete") ;; *) echo "expected a complete log" >&2; exit 1 ;; esac
# The installed CLI runs and reads the same log.
"$tmp/prefix/bin/paratrace" dump --raw "$log" | wc -l | grep -qx "${want%% *}"
