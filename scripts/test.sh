#!/usr/bin/env bash
# Build perfscope and run the whole test suite through ctest.
#   scripts/test.sh             -> build/      (RelWithDebInfo)
#   scripts/test.sh --sanitize  -> build-san/  (ASan+UBSan; the injected probe gets UBSan only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
flags=()
if [ "${1:-}" = "--sanitize" ]; then
    dir=build-san
    flags+=(-DPS_SANITIZE=ON)
fi
cmake -S . -B "$dir" -G Ninja "${flags[@]}"
cmake --build "$dir" -j "$(nproc)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
rc=0
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --output-junit ctest-results.xml || rc=$?
# One line on what was skipped and why (each skipping test prints "SKIP: reason"; tests/need_shared.sh).
python3 scripts/ctest_skips.py "$dir/ctest-results.xml" || true
exit $rc
