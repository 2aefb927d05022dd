#!/usr/bin/env bash
# Builds nimtb with sanitizers and runs the tests under them.
#
#   tools/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer,
#                               the suite but the few long tests named below (build-asan/,
#                               which also builds the libFuzzer harnesses for
#                               FUZZ_BUILD=build-asan tools/fuzz.sh)
#   tools/sanitize.sh thread    ThreadSanitizer on the parallel solver, verify and writer
#                               tests (build-tsan/)
#   tools/sanitize.sh           both
#
# Installs what is missing first (tools/setup.sh's packages). Any report fails the run:
# every sanitizer halts on its first error and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
KINDS=("${@:-address thread}")
read -r -a KINDS <<<"${KINDS[*]}"

tools/setup.sh install

for kind in "${KINDS[@]}"; do
    case "$kind" in
        # ASan with clang, whose sanitized code runs in about three quarters
        # of GCC's time (and so every source meets a second compiler: the
        # release build is GCC's). TSan with GCC: under clang it reports races in
        # oneTBB's inlined code that tools/sanitizers/tsan.supp does not cover.
        address) dir=build-asan; flags="address,undefined"; compiler=(clang clang++) ;;
        thread) dir=build-tsan; flags="thread"; compiler=(gcc g++) ;;
        *) echo "usage: tools/sanitize.sh [address] [thread]" >&2; exit 2 ;;
    esac
    if [[ ! -f $dir/CMakeCache.txt ]]; then
        # -O1 keeps the suite fast enough; the reports keep their line numbers
        # (CMakeLists.txt adds -g1, line tables only, to every sanitizer build).
        # A unity build under Ninja, which compiles a library while the ones it
        # uses are still compiling: this tree is built whole, in half the time
        # of one compilation a file under make.
        cmake -G Ninja -S . -B "$dir" -DCMAKE_C_COMPILER="${compiler[0]}" -DCMAKE_CXX_COMPILER="${compiler[1]}" \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1" -DCMAKE_UNITY_BUILD=ON \
            -DNIMTB_SANITIZE="$flags" -DNIMTB_BUILD_BENCHMARKS=OFF \
            -DNIMTB_FUZZ_HARNESSES=$([[ $kind == address ]] && echo ON || echo OFF) \
            -DNIMTB_BUILD_MPI=$([[ $kind == address ]] && echo ON || echo OFF) >&2
    fi
    # TSan runs only the two unit-test programs below: the rest is not built.
    targets=()
    [[ $kind == thread ]] && targets=(--target test_engine test_io)
    cmake --build "$dir" -j"$(nproc)" "${targets[@]}" >&2
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    export LSAN_OPTIONS="suppressions=$here/tools/sanitizers/lsan.supp:print_suppressions=0"
    export TSAN_OPTIONS="suppressions=$here/tools/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1"
    if [[ $kind == address ]]; then
        # Left to the release run, where they take seconds, not minutes:
        # VerifyLarge (120 million positions solved and verified), the long
        # two-thread sequence (the one-thread code it compares with runs
        # here in Sequence and LongSequence's other tests), the quotient's
        # memory cap (the allocator's, not ASan's, is its subject), and the
        # CLI's usage and answer texts (many short processes; the
        # same parsing meets ASan through e2e.test_first_use.Messages and
        # e2e.test_cli). Of the distributed solve, the tables (every family, on
        # 1 and 3 processes here): its checkpoints and a killed process exercise
        # mpirun more than memory. The page's browser tests exercise
        # JavaScript; the server's C++ meets ASan through e2e.test_serve
        # (every endpoint, what a shared server bounds, and 8 clients at once).
        # Two of the quotient's tests are the same computation at scale (the
        # quotients of ten games checked position by position, Dawson's
        # Kayles heap by heap to 30: 66 s and 41 s under ASan, 7 s and 6 s in
        # release); their code meets ASan in the other Quotient tests. The
        # writers killed with SIGKILL at many moments (e2e.test_whole_files)
        # and the server run twice over the corpus with a rewording worker
        # (e2e.test_events.Worker) exercise processes, not memory: the
        # publishing of files and the events meet ASan in e2e.test_events.Events,
        # e2e.test_cli and e2e.test_serve.
        ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" \
            -E '^(VerifyLarge\.|LongSequence\.TwoThreadsGiveTheValuesOfOne$|Quotient\.(ACandidateTooLargeStopsItsHeapBeforeItsTableIsBuilt|PredictsEveryPositionAndIsReduced|DawsonsKaylesGrowsHeapByHeapTo360ElementsAtHeap30)$|e2e\.test_first_use\.(Usage|Answers)$|e2e\.test_mpi\.(Checkpoints|ProcessDeath)|e2e\.test_whole_files\.|e2e\.test_events\.Worker$|browser\.)'
    else
        # The parallel parts: the solver, verify, the parallel table writer,
        # the sequence on two threads and the genus of sums.
        ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" -R '^(Solver|Verify|Periodicity|Sequence|SequenceThreads|TableFiles|Genus)\.'
    fi
done
