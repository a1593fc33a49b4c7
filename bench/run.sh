#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs paratrace's benchmarks. Each benchmark lives in bench/<name>/ with a
# run.sh that builds what it needs and prints its own table.
#   bench/run.sh            every benchmark, one after the other
#   bench/run.sh NAME [..]  one benchmark, extra arguments passed to it
#                           (e.g. bench/run.sh peers --reps 7)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if (($# == 0)); then
	status=0
	for r in "$here"/*/run.sh; do
		echo "== $(basename "$(dirname "$r")")"
		"$r" || status=1
	done
	exit $status
fi
name="$1"
shift
if [ ! -x "$here/$name/run.sh" ]; then
	echo "bench/run.sh: no benchmark '$name' (have: $(cd "$here" && ls -d */ | tr -d / | tr '\n' ' '))" >&2
	exit 2
fi
exec "$here/$name/run.sh" "$@"
