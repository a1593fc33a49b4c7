#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds, and runs the tests (docs/TESTS.md).
#   scripts/test.sh          every tree and every test: what CI runs
#   scripts/test.sh quick    the normal tree only, and its tests labelled
#                            "quick": unit tests, the analyzer's golden
#                            outputs, the interposition cases (about a minute
#                            once the tree is built)
# Every build treats compiler warnings as errors (PT_WERROR).
#   build/       normal build: unit + end-to-end tests
#   build-asan/  ASan+UBSan build: unit tests (runtime modules, reader,
#                analyzer); only what they run is built, and its MPI unit
#                tests make their trace with build/'s libtrace.so (its own
#                would be the whole runtime compiled once more)
#   build-tsan/  ThreadSanitizer build: the unit tests whose threads share
#                runtime state (label tsan; only those are built)
#   build-min/   every optional part left out (PT_WITH_*=OFF): the runtime
#                builds without libunwind, libpfm4, OpenCL, CUPTI and MPI
#                headers, the analyzer without the OTF2 library, and its
#                tests pass (label runtime, but "slow"); only what they run
#                is built, nearly all of it from the compiler cache build/
#                filled
#                (ccache in .ccache/, where installed: a fresh clone starts
#                with an empty cache)
# A tree this script creates is generated for Ninja (a tree configured
# before keeps its generator). The normal tree's tests leave a core idle now
# and then (programs that wait, browsers and compilers starting): the other
# three trees are configured and built meanwhile, in the background at the
# lowest priority, and their tests run after the normal tree's (build-min's
# build, the longest, goes on during the sanitizer trees' tests). Each
# step's time and CPU (user and system, of every process it ran) are printed
# at the end; the total's CPU is the whole command's, background builds
# included.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
case $mode in
all | quick) ;;
*)
	echo "usage: $0 [quick]" >&2
	exit 2
	;;
esac
./scripts/deps.sh
jobs=$(nproc)

steps=()
started=$SECONDS
# cpu FILE: sets cpu_user and cpu_sys (ms) to the CPU time of this shell's
# finished children, from bash's `times` run in this shell (in a subshell it
# would count that subshell's children only); FILE holds its output.
cpu() {
	local u s
	times >"$1"
	{
		read -r _
		read -r u s
	} <"$1"
	[[ $u =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] &&
		cpu_user=$(((BASH_REMATCH[1] * 60 + 10#${BASH_REMATCH[2]}) * 1000 + 10#${BASH_REMATCH[3]}))
	[[ $s =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] &&
		cpu_sys=$(((BASH_REMATCH[1] * 60 + 10#${BASH_REMATCH[2]}) * 1000 + 10#${BASH_REMATCH[3]}))
}
cpu_user=0 cpu_sys=0
# step NAME COMMAND...: runs COMMAND, remembers how long it took, and its CPU.
# A step that fails ends the script, after the times of the steps so far.
step() {
	local name=$1 t=$SECONDS u s rc=0
	shift
	mkdir -p build
	cpu build/test-cpu.tmp
	u=$cpu_user s=$cpu_sys
	"$@" || rc=$?
	cpu build/test-cpu.tmp
	steps+=("$(printf '%-22s %4d s  CPU: user %4d s, system %4d s' "$name" $((SECONDS - t)) \
		$(((cpu_user - u) / 1000)) $(((cpu_sys - s) / 1000)))")
	if [ $rc != 0 ]; then
		steps[-1]+="  (failed: exit status $rc)"
		times_said
		exit $rc
	fi
}
times_said() {
	cpu build/test-cpu.tmp
	printf 'test.sh: %s\n' "${steps[@]}" "$(printf '%-22s %4d s  CPU: user %4d s, system %4d s' total \
		$((SECONDS - started)) $((cpu_user / 1000)) $((cpu_sys / 1000)))"
}

# configure DIR -DNAME=VALUE...: nothing when the tree has those values
# already (the build reconfigures it when a CMakeLists.txt changed).
configure() {
	local dir=$1 gen=() o missing=0
	shift
	set -- -DPT_WERROR=ON "$@"
	if [ -f "$dir/CMakeCache.txt" ]; then
		for o; do
			o=${o#-D}
			grep -q "^${o%%=*}:[A-Z]*=${o#*=}\$" "$dir/CMakeCache.txt" || missing=1
		done
		[ $missing = 0 ] && return 0
	elif command -v ninja >/dev/null; then
		gen=(-G Ninja)
	fi
	cmake -S . -B "$dir" "${gen[@]}" "$@" >/dev/null
}

# build_for_label DIR LABEL: what the tests of LABEL run (a Ninja tree), or
# everything (another generator).
build_for_label() {
	local outputs
	if outputs=$(python3 scripts/test_outputs.py "$1" "$2") && [ -n "$outputs" ]; then
		# shellcheck disable=SC2086 # one output per word
		cmake --build "$1" -j"$jobs" --target $outputs
	else
		cmake --build "$1" -j"$jobs"
	fi
}

# A compiler cache for the trees of this clone, where ccache is installed:
# build-min compiles nearly all of its files with the normal tree's very
# command, and those become hits (219 of 232); a definition that differs
# between the trees reaches only the files that use it (PT_WITH_OTF2 through
# ot_config.h, the CLI's version and parts on main.c and dist.c), whose
# misses are the rest. The cache is in the clone (.ccache/), so a fresh
# clone starts with none; paths are hashed relative to the clone (base_dir), and
# the working directory is not hashed (hash_dir off: a hit's debug
# information names the tree that compiled it first, its sources are named
# by full path). Depend mode: a lookup hashes the command and the files the
# compiler's last -MD list named, and never runs the preprocessor; a miss
# is compiled once, where the preprocessor mode preprocessed it first to
# look it up (a third more CPU per miss, and build/'s compiles are nearly
# all misses). Without ccache the trees have no launcher.
launcher=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
if command -v ccache >/dev/null; then
	export CCACHE_DIR=$PWD/.ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
	launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
normal=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}")
# build-asan's MPI unit tests preload the normal tree's libtrace.so to make
# their trace (built before they run): the runtime is compiled once.
# shellcheck disable=SC2034 # read through build_tree's nameref (local -n)
asan=(-DCMAKE_BUILD_TYPE=Debug -DPT_SANITIZE=ON -DPT_BUILD_BENCH=OFF "-DPT_TEST_LIBTRACE=$PWD/build/lib/libtrace.so")
# shellcheck disable=SC2034
tsan=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT_SANITIZE_THREAD=ON -DPT_BUILD_BENCH=OFF -DPT_BUILD_PASS=OFF)
# shellcheck disable=SC2034
min=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT_WITH_UNWIND=OFF -DPT_WITH_PFM=OFF -DPT_WITH_OPENCL=OFF
	-DPT_WITH_CUPTI=OFF -DPT_WITH_MPI=OFF -DPT_WITH_OTF2=OFF -DPT_BUILD_PASS=OFF -DPT_BUILD_BENCH=OFF
	"${launcher[@]}")

if [ "$mode" = quick ]; then
	step configure configure build "${normal[@]}"
	step build cmake --build build -j"$jobs"
	step tests bash -c "cd build && ctest --output-on-failure -j$jobs -L quick"
	times_said
	exit 0
fi

# The other trees, at the lowest priority, in a process group of their own
# (stopped with this script); each tree's configure and build output goes to
# its test-build.log, shown if it fails. build/test-others.times says when
# each is built (or failed).
build_tree() {
	local -n opts=$1
	configure "build-$1" "${opts[@]}" || return 1
	case $1 in
	asan) build_for_label build-asan unit ;;
	tsan) cmake --build build-tsan -j"$jobs" --target pt_tsan_tests ;;
	min) build_for_label build-min runtime ;;
	esac
}
others() {
	renice -n 19 $BASHPID >/dev/null
	local tree t u s
	for tree in asan tsan min; do
		t=$SECONDS
		mkdir -p build-$tree
		cpu build-$tree/test-cpu.tmp
		u=$cpu_user s=$cpu_sys
		if build_tree $tree >build-$tree/test-build.log 2>&1; then
			cpu build-$tree/test-cpu.tmp
			echo "build-$tree $((SECONDS - t)) $(((cpu_user - u) / 1000)) $(((cpu_sys - s) / 1000))" \
				>>build/test-others.times
		else
			echo "build-$tree failed" >>build/test-others.times
			return 1
		fi
	done
}
# built TREE: waits until the background job has built TREE.
# From the first wait on, nothing of ours runs beside the background builds:
# they get the normal priority back (raising it needs root; otherwise they
# stay at 19, which on a machine other work keeps busy starves them).
built() {
	local t=$SECONDS line
	renice -n 0 -g "$others_pid" >/dev/null 2>&1 || true
	until line=$(grep "^build-$1 " build/test-others.times 2>/dev/null); do
		if ! kill -0 "$others_pid" 2>/dev/null; then
			line=$(grep "^build-$1 " build/test-others.times 2>/dev/null) || line="build-$1 failed"
			break
		fi
		sleep 1
	done
	local took user sys
	read -r _ took user sys <<<"$line"
	if [ "$took" = failed ]; then
		tail -40 "build-$1/test-build.log" >&2
		echo "test.sh: configuring or building build-$1 failed (build-$1/test-build.log)" >&2
		exit 1
	fi
	steps+=("$(printf '%-22s %4d s  (its build: %d s at low priority; CPU: user %d s, system %d s)' \
		"waiting for build-$1" $((SECONDS - t)) "$took" "$user" "$sys")")
}
mkdir -p build
rm -f build/test-others.times
set -m
others &
others_pid=$!
set +m
stop_others() { kill -- -"$others_pid" 2>/dev/null || true; }
trap stop_others EXIT
trap 'exit 130' INT TERM

step "configure build" configure build "${normal[@]}"
step "build build" cmake --build build -j"$jobs"
step "tests build" bash -c "cd build && ctest --output-on-failure -j$jobs"
# build-min's build, the longest, goes on while the sanitizers' tests run.
built asan
step "tests build-asan" bash -c "cd build-asan && ctest --output-on-failure -j$jobs -L unit"
built tsan
step "tests build-tsan" bash -c "cd build-tsan && ctest --output-on-failure -j$jobs -L tsan"
built min
# The runtime's tests (label runtime): the other folders' would run the same
# code as in the normal tree (tests/CMakeLists.txt).
step "tests build-min" bash -c "cd build-min && ctest --output-on-failure -j$jobs -L runtime -LE slow"
wait "$others_pid"
trap - EXIT
times_said
