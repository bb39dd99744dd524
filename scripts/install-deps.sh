#!/usr/bin/env bash
# Install the Debian packages perfscope needs to build and test (only what is missing).
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ make pkg-config libsqlite3-dev zlib1g-dev libyajl-dev libdeflate-dev libsimdjson-dev
      libncurses-dev sqlite3 python3 clang libclang-rt-14-dev dpkg-dev procps tmux
      patchelf python3-venv python3-wheel   # scripts/build-wheel.sh and its test (tests/install)
      python3-torch python3-torchvision python3-numpy python3-pil   # tests/python: the PyTorch hook (CPU torch 1.13)
      chromium)   # chromium: the HTML report is loaded headless in tests (check_report_formats.py)
missing=()
for p in "${pkgs[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)   # read whole: no pipe to break (SIGPIPE)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "perfscope: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
