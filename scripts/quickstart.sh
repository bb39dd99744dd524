#!/usr/bin/env bash
# Install what is missing, build perfscope, record the reference training workload and print its report.
#   scripts/quickstart.sh [SCENARIO]     (data-bound by default; see docs/workloads.md)
# PS_BUILD_DIR names the build folder (default build); PS_QUICKSTART_NO_INSTALL=1 skips the package check (the
# test that runs this script's logic, tests/install/quickstart_test.sh, sets both).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PS_BUILD_DIR:-build}
[ "${PS_QUICKSTART_NO_INSTALL:-0}" = 1 ] || scripts/install-deps.sh
cmake -S . -B "$build" -G Ninja >/dev/null
# Only what this script runs: the binary, the probe it injects and the reference workload (scripts/test.sh builds
# the tests and benchmarks). Without the NVTX headers the probe and the workload are not targets. The target list
# is read whole before it is searched: `help | grep -q` under pipefail failed at random (grep's early exit sends
# SIGPIPE to cmake), and a target was then silently not built.
help=$(cmake --build "$build" --target help)
has_target() { grep -q "^$1:" <<<"$help"; }
if ! has_target perfscope_probe || ! has_target train; then
    echo "quickstart: the probe and the reference workload need the NVTX headers: install the CUDA toolkit at" >&2
    echo "/usr/local/cuda, or pass -DPS_CUDA_ROOT=... to cmake; perfscope report alone is built with:" >&2
    echo "cmake --build $build --target perfscope, then $build/cli/perfscope report TRACE" >&2
    exit 1
fi
cmake --build "$build" -j "$(nproc)" --target perfscope perfscope_probe train
for f in "$build/cli/perfscope" "$build/workloads/train" "$build/probe/libperfscope_probe.so"; do
    [ -e "$f" ] || { echo "quickstart: $f was not built" >&2; exit 1; }
done
scenario="${1:-data-bound}"
out="$build/quickstart-${scenario}.sqlite"
"$build/cli/perfscope" record -f -o "$out" -- "$build/workloads/train" --scenario "$scenario"
report=$("$build/cli/perfscope" report "$out")
printf '%s\n' "$report"
# A recording without the probe's NVTX ranges has nothing to break down: that is a failed quick start, not a report.
if grep -q "^Verdict: unknown" <<<"$report"; then
    echo "quickstart: the report has no verdict: the probe recorded nothing (see the report's first lines)" >&2
    exit 1
fi
