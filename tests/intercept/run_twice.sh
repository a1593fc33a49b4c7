#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the program twice from a shell: sh forks and execs each run, so the
# trace must hold the shell and both runs, each linked by a FORK record.
"$1" twice
"$1" twice
echo "expect procs >= 3"
echo "expect status 0"
exit 0
