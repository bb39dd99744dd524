#!/bin/sh
# Run each built reader fuzzer for SECONDS (default 60) on a scratch copy of its seed corpus.
# Builds nothing: configure and build first with
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DPS_FUZZ=ON
#   ninja -C build-fuzz fuzz_kineto fuzz_sqlite
# Usage: fuzz/run.sh [SECONDS] [BUILD_DIR] (either order). Exit status non-zero if a target crashed (its reproducer is
# kept in the scratch folder printed below: copy it to tests/readers/regress/ as a regression test).
set -u
# Arguments in either order: a number is the seconds, anything else the build folder.
secs=60
build=build-fuzz
for a in "$@"; do
    case "$a" in
        ''|*[!0-9]*) build=$a ;;
        *) secs=$a ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ps-fuzz.XXXXXX")
status=0
for t in kineto sqlite; do
    bin="$build/fuzz/fuzz_$t"
    if [ ! -x "$bin" ]; then
        echo "fuzz/run.sh: $bin not built (see the header of this script)" >&2
        exit 2
    fi
    mkdir -p "$scratch/$t/corpus" "$scratch/$t/artifacts"
    cp "$here/corpus/$t/"* "$scratch/$t/corpus/"
    dict=""
    [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
    if "$bin" $dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$scratch/$t/artifacts/" "$scratch/$t/corpus" >"$scratch/$t/log" 2>&1; then
        echo "PASS fuzz_$t $(grep -m1 'stat::number_of_executed_units' "$scratch/$t/log" | awk '{print $2}') runs in ${secs} s"
    else
        echo "FAIL fuzz_$t: see $scratch/$t/log; reproducer(s): $(ls "$scratch/$t/artifacts" | tr '\n' ' ')"
        tail -30 "$scratch/$t/log"
        status=1
    fi
done
[ "$status" -eq 0 ] && rm -rf "$scratch"
exit $status
