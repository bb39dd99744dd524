#!/usr/bin/env bash
# Install what is missing, build perfscope, record the reference training workload and print its report.
#   scripts/quickstart.sh [SCENARIO]     (data-bound by default; see docs/workloads.md)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j "$(nproc)"
scenario="${1:-data-bound}"
out="build/quickstart-${scenario}.sqlite"
build/cli/perfscope record -f -o "$out" -- build/workloads/train --scenario "$scenario"
build/cli/perfscope report "$out"
