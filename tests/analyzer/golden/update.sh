#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the analyzer's expected outputs (tests/analyzer/golden/expected/)
# from the current build, for every case or the ones named:
#
#   tests/analyzer/golden/update.sh [-B BUILD_DIR] [CASE ...]
#
# (also `cmake --build build --target golden_update`). Review the change
# with `git diff tests/analyzer/golden/expected` and say why in the commit.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../../build"
if [ "${1:-}" = "-B" ]; then
	build=$2
	shift 2
fi
build=$(cd "$build" && pwd)
exec python3 "$here/run_golden.py" --paratrace "$build/bin/paratrace" --ptgen "$build/bin/ptgen" \
	--work "$build/golden-work" --update "$@"
