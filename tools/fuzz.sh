#!/usr/bin/env bash
# The libFuzzer harnesses of tests/fuzz, with ASan and UBSan: configures and
# builds build-fuzz/ with clang, then runs each harness for SECONDS on a copy
# of its seed corpus (tests/fuzz/corpus/NAME; the tree is not changed), as
# many at a time as there are cores. A finding fails the run with
# libFuzzer's report; its input is kept in build-fuzz/findings/ (add it to
# the corpus once fixed, as a regression).
#   tools/fuzz.sh [SECONDS [NAME...]]      (default 20 s, every harness)
# FUZZ_BUILD=DIR takes the harnesses of an existing clang sanitizer build
# instead (tools/sanitize.sh address builds them in build-asan/, its code
# counting edges only, no comparison tracing): CI's brief runs over the
# seed corpora, without a third build of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
each="${1:-20}"
shift || true
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(rules quotient_file chunk checkpoint sequence_checkpoint api python sequence_file)
build="${FUZZ_BUILD:-build-fuzz}"
if [[ -n ${FUZZ_BUILD:-} ]]; then
    if ! grep -q '^NIMTB_FUZZ_HARNESSES:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
        echo "tools/fuzz.sh: $build has no harnesses: run tools/sanitize.sh address first" >&2
        exit 1
    fi
else
    # A unity build under Ninja, as tools/sanitize.sh's (a tree configured
    # before with another generator keeps it).
    generator=()
    [[ -f build-fuzz/CMakeCache.txt ]] || generator=(-G Ninja)
    cmake "${generator[@]}" -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
        -DCMAKE_UNITY_BUILD=ON -DNIMTB_FUZZ=ON -DNIMTB_BUILD_TESTS=OFF \
        -DNIMTB_BUILD_BENCHMARKS=OFF -DNIMTB_BUILD_MPI=OFF >/dev/null
fi
mkdir -p "$build/findings"
# HDF5's own leak on refusing a damaged file (tools/sanitizers/lsan.supp says whose).
export LSAN_OPTIONS="suppressions=$PWD/tools/sanitizers/lsan.supp:print_suppressions=0"
# Every harness asked for, in one build (line tables only: reports keep file:line).
# The build's output goes to a log, shown when the build fails.
if ! cmake --build "$build" -j"$(nproc)" --target "${names[@]/#/fuzz_}" >"$build/build.log" 2>&1; then
    grep -E "error|undefined reference" "$build/build.log" | head -20 >&2
    echo "tools/fuzz.sh: the harnesses did not build ($build/build.log)" >&2
    exit 1
fi
# One harness: prints libFuzzer's summary lines and a verdict, non-zero on a finding.
fuzz_one() {
    local name=$1 work status=0 timeout=10
    work="$(mktemp -d)"
    # The harness's own files (a table, a checkpoint, the input as a file) go
    # to its TMPDIR, removed with the corpus copy below.
    mkdir "$work.tmp"
    # A run over 10 s is a finding, but for the API: the page's quotients are
    # stopped at 5 s (apps/server/api.h), which ASan may stretch past 10.
    [[ $name == api ]] && timeout=30
    TMPDIR="$work.tmp" "$build"/tests/fuzz/"fuzz_$name" "$work" "tests/fuzz/corpus/$name" -max_total_time="$each" \
        -timeout="$timeout" -rss_limit_mb=4096 -artifact_prefix="$build"/findings/"$name"- \
        -print_final_stats=1 >"$work.log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|==|SUMMARY|INFO: Running|Done)|runtime error' "$work.log" || true
    # UBSan reports without stopping unless told: a report is a finding too.
    if grep -q 'runtime error\|SUMMARY: UndefinedBehaviorSanitizer' "$work.log"; then status=1; fi
    rm -rf "$work" "$work.tmp" "$work.log"
    if [[ $status -ne 0 ]]; then
        echo "fuzz_$name: a finding (exit $status); the input is in $build/findings/"
        return 1
    fi
    echo "fuzz_$name: no finding in $each s"
}
# As many harnesses at a time as there are cores, each on one; a harness's
# lines are printed together when it ends. A finding fails the run (xargs
# exits non-zero) once every harness has ended.
export -f fuzz_one
export each build
printf '%s\n' "${names[@]}" |
    xargs -P "$(nproc)" -I{} bash -c 'out=$(fuzz_one "$1"); status=$?; printf "%s\n" "$out"; exit $status' _ {}
