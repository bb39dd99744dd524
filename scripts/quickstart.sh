#!/usr/bin/env bash
# Install what is missing, build perfscope, record the reference training workload and print its report.
#   scripts/quickstart.sh [SCENARIO]     (data-bound by default; see docs/workloads.md)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
# Only what this script runs: the binary, the probe it injects and the reference workload (scripts/test.sh builds
# the tests and benchmarks). Without the NVTX headers the probe and the workload are not targets.
targets=(perfscope)
for t in perfscope_probe train; do
    cmake --build build --target help | grep -q "^$t:" && targets+=("$t")
done
cmake --build build -j "$(nproc)" --target "${targets[@]}"
if [ ! -x build/workloads/train ]; then
    echo "quickstart: build/workloads/train was not built (no NVTX headers: install the CUDA toolkit at /usr/local/cuda," >&2
    echo "or pass -DPS_CUDA_ROOT=... to cmake); perfscope report is built: build/cli/perfscope report TRACE" >&2
    exit 1
fi
scenario="${1:-data-bound}"
out="build/quickstart-${scenario}.sqlite"
build/cli/perfscope record -f -o "$out" -- build/workloads/train --scenario "$scenario"
build/cli/perfscope report "$out"
