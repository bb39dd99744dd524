#!/usr/bin/env bash
# Checks of the installed perfscope (tests/install/CMakeLists.txt). usage: install_tests.sh BUILD_DIR NVTX_PROG SRC CASE
set -euo pipefail
build=$1 prog=$2 src=$3 case=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset PERFSCOPE_PROBE

# nvtx_prog known makes 27 NVTX rows of types 59/60/34 (its header comment: 20 + 1 + 3 + 2 + 1).
record_and_report() {   # $1 = the perfscope binary to use; $2 = the tree it must have taken its probe from
    local bin=$1 tree=$2
    (cd "$tmp" && "$bin" record -o known.sqlite -- "$prog" known >/dev/null 2>"$tmp/record.err") ||
        fail "record from $tree: $(cat "$tmp/record.err")"
    local rows probe
    rows=$(sqlite3 "$tmp/known.sqlite" "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60, 34)")
    [ "$rows" = 27 ] || fail "expected the 27 NVTX rows nvtx_prog known makes, got $rows"
    probe=$(sqlite3 "$tmp/known.sqlite" "SELECT value FROM PERFSCOPE_META WHERE name = 'probe_path'")
    case $probe in "$tree"/*) ;; *) fail "probe taken from '$probe', not from the tree at $tree" ;; esac
    "$bin" report "$tmp/known.sqlite" >"$tmp/report.txt" || fail "report exited $?"
    grep -q "outer" "$tmp/report.txt" || fail "the report does not name the 'outer' ranges"
    rm -f "$tmp/known.sqlite"
}

# Every relative link of the installed README and docs (](docs/x.md), ](x.md)) names an installed file.
readme_links_resolve() {   # $1 = the installed share/doc/perfscope
    local doc=$1 f link
    for f in "$doc"/README.md "$doc"/docs/*.md; do
        for link in $(grep -o '](\([^)#:]*\.md\)' "$f" | sed 's/^](//'); do
            [ -f "$(dirname "$f")/$link" ] || fail "$f links to $link, which is not installed"
        done
    done
}

case $case in
installed_tree_moved_elsewhere_records_nvtx_without_environment)
    cmake --install "$build" --prefix "$tmp/first" >/dev/null
    for f in bin/perfscope lib/perfscope/libperfscope_probe.so share/man/man1/perfscope.1 \
             lib/perfscope/python/sitecustomize.py lib/perfscope/python/perfscope_hook/torch_hooks.py \
             share/bash-completion/completions/perfscope share/doc/perfscope/docs/report.md; do
        [ -f "$tmp/first/$f" ] || fail "cmake --install did not install $f"
    done
    readme_links_resolve "$tmp/first/share/doc/perfscope"
    mv "$tmp/first" "$tmp/moved"    # relocated: nothing may point back at the build tree or the first prefix
    record_and_report "$tmp/moved/bin/perfscope" "$tmp/moved/lib/perfscope"
    ;;
man_page_has_a_section_per_subcommand)
    page=$build/perfscope.1
    [ -f "$page" ] || fail "the build wrote no $page"
    for c in $("$build/cli/perfscope" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}'); do
        grep -q "^\.SS perfscope $c\$" "$page" || fail "no section for 'perfscope $c' in perfscope(1)"
    done
    grep -q -- '--step-range' "$page" || fail "perfscope(1) does not list report's --step-range"
    if command -v man >/dev/null; then
        # the regex default keeps its backslashes once rendered: enumerate\(DataLoader\)
        MANWIDTH=200 man -l "$page" 2>/dev/null | grep -qF 'enumerate\(DataLoader\)' ||
            fail "man renders report's --data-range default without its backslashes"
    fi
    ;;
bash_completion_completes_subcommands_options_and_formats)
    bin=$build/cli/perfscope
    complete_words() {   # the words bash would offer for the command line "$@" (last word is the one completed)
        bash -c '
            _command_offset() { return 1; }
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
            _perfscope
            printf "%s\n" "${COMPREPLY[@]}"' _ "$src/scripts/perfscope-completion.bash" "$@"
    }
    [ "$(complete_words "$bin" rep)" = report ] || fail "'perfscope rep<TAB>' does not give report"
    complete_words "$bin" report --fo | grep -qx -- --format || fail "'report --fo<TAB>' does not give --format"
    [ "$(complete_words "$bin" report --format "" | sort | tr '\n' ' ')" = "html json md text " ] ||
        fail "'report --format <TAB>' gives '$(complete_words "$bin" report --format "" | tr '\n' ' ')'"
    complete_words "$bin" record --sa | grep -qx -- --sample-hz || fail "'record --sa<TAB>' does not give --sample-hz"
    mkdir -p "$tmp/d" && touch "$tmp/d/a.sqlite" "$tmp/d/b.pt.trace.json.gz" "$tmp/d/c.txt"
    got=$(cd "$tmp/d" && complete_words "$bin" report "" | sort | tr '\n' ' ')
    [ "$got" = "a.sqlite b.pt.trace.json.gz " ] || fail "'report <TAB>' offers '$got', not the two traces"
    ;;
deb_package_unpacked_records_and_reports)
    command -v dpkg-deb >/dev/null || { echo "SKIP: no dpkg-deb"; exit 77; }
    (cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
        fail "cpack -G DEB: $(tail -5 "$tmp/cpack.log")"
    deb=$(ls "$tmp"/pkg/perfscope_*.deb 2>/dev/null | head -n 1)
    [ -n "$deb" ] || fail "cpack wrote no perfscope_*.deb ($(ls "$tmp/pkg"))"
    dpkg-deb -c "$deb" >"$tmp/contents"
    for f in ./usr/bin/perfscope ./usr/lib/perfscope/libperfscope_probe.so ./usr/share/man/man1/perfscope.1 \
             ./usr/lib/perfscope/python/perfscope_hook/torch_hooks.py ./usr/share/bash-completion/completions/perfscope; do
        grep -q " $f\$" "$tmp/contents" || fail "the .deb does not hold $f"
    done
    dpkg-deb -f "$deb" Depends | grep -q libc6 || fail "the .deb does not depend on libc6"
    dpkg-deb -f "$deb" Recommends | grep -qw bash-completion || fail "the .deb does not recommend bash-completion"
    dpkg-deb -x "$deb" "$tmp/root"
    record_and_report "$tmp/root/usr/bin/perfscope" "$tmp/root/usr/lib/perfscope"
    readme_links_resolve "$tmp/root/usr/share/doc/perfscope"
    # The hook run by root writes __pycache__ beside itself; the package's prerm (run by dpkg -r / -P, with
    # DPKG_ROOT naming the root it acts on) removes them, so no folder of the package is left behind.
    hook=$tmp/root/usr/lib/perfscope/python
    python3 -m compileall -q "$hook" >/dev/null
    [ -n "$(find "$hook" -name __pycache__)" ] || fail "no __pycache__ was made to clean up"
    dpkg-deb -e "$deb" "$tmp/control"
    [ -x "$tmp/control/prerm" ] || fail "the .deb has no prerm"
    DPKG_ROOT=$tmp/root sh "$tmp/control/prerm" remove || fail "prerm remove failed"
    left=$(find "$hook" -name __pycache__)
    [ -z "$left" ] || fail "prerm left $left"
    ;;
quick_start_builds_what_it_runs_and_reports_a_verdict)
    # The README's first command, scripts/quickstart.sh, on this build tree (its package check skipped): it builds
    # the binary, the probe and the workload, records the data-bound scenario and prints a report with its verdict.
    # Its target check once lost the probe at random (SIGPIPE under pipefail) and still exited 0 with "unknown".
    PS_BUILD_DIR=$build PS_QUICKSTART_NO_INSTALL=1 "$src/scripts/quickstart.sh" data-bound >"$tmp/qs.out" 2>&1 ||
        fail "quickstart exited $?: $(tail -5 "$tmp/qs.out")"
    # (data-loading in a plain build; under ASan the workload's own compute may outweigh its loading)
    grep -q "^Verdict: [a-z]" "$tmp/qs.out" && ! grep -q "^Verdict: unknown" "$tmp/qs.out" ||
        fail "no verdict: $(grep -m1 Verdict "$tmp/qs.out")"
    probe=$(sqlite3 "$build/quickstart-data-bound.sqlite" "SELECT value FROM PERFSCOPE_META WHERE name = 'probe_path'")
    [ -n "$probe" ] || fail "the quick start's recording ran without the probe"
    rm -f "$build/quickstart-data-bound.sqlite"
    ;;
wheel_in_fresh_venv_records_and_reports_pytorch_alone)
    # scripts/build-wheel.sh on this build tree, pip-installed offline into a new venv that sees Debian's torch,
    # then a CPU PyTorch training script recorded and reported with the venv's perfscope alone: no build tree,
    # no system perfscope on PATH. train_loader.py with --workers 0 --heavy-transform waits on its loader for
    # most of each step (its docstring; tests/python: pytorch_workers0_heavy_transform_is_data_loading).
    py=/usr/bin/python3
    "$py" -c 'import ensurepip, venv' 2>/dev/null ||
        { echo "SKIP: /usr/bin/python3 cannot make a venv with pip (apt-get install python3-venv)"; exit 77; }
    "$py" -c 'import torch, torchvision' 2>/dev/null ||
        { echo "SKIP: /usr/bin/python3 cannot import torch/torchvision (apt-get install python3-torch python3-torchvision)"; exit 77; }
    "$py" -c 'import wheel.wheelfile' 2>/dev/null ||
        { echo "SKIP: no python3-wheel to check the wheel's RECORD with (apt-get install python3-wheel)"; exit 77; }
    command -v patchelf >/dev/null || { echo "SKIP: no patchelf to bundle libraries with (apt-get install patchelf)"; exit 77; }
    grep -q '^PS_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" &&
        { echo "SKIP: a wheel packages a plain build, and $build is a sanitizer build"; exit 77; }
    "$src/scripts/build-wheel.sh" -B "$build" -o "$tmp/dist" >"$tmp/wheel.out" 2>"$tmp/wheel.err" ||
        fail "build-wheel.sh exited $?: $(tail -5 "$tmp/wheel.err")"
    whl=$(tail -n 1 "$tmp/wheel.out")
    # the README's glibc is the one the wheel's ELF files ask for (the script reads their symbol versions)
    glibc=$(sed -n 's/.*needs glibc >= \([0-9.]*\).*/\1/p' "$tmp/wheel.err")
    [ -n "$glibc" ] && grep -q "glibc $glibc or newer" "$src/README.md" ||
        fail "the wheel needs glibc '$glibc'; README: $(grep -o 'glibc [0-9.]* or newer' "$src/README.md")"
    version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
    [ "$(basename "$whl")" = "perfscope-$version-py3-none-linux_$(uname -m).whl" ] ||
        fail "the wheel is named $(basename "$whl")"
    # Debian's wheel package reads every member against RECORD's sha256 and size, and refuses one not listed.
    "$py" - "$whl" "$tmp/unpacked" <<'EOF' || fail "the wheel does not check out against its RECORD"
import sys
from wheel.wheelfile import WheelFile
with WheelFile(sys.argv[1]) as w:
    w.extractall(sys.argv[2])
    tag = w.read(w.dist_info_path + "/WHEEL").decode()
    assert "Tag: py3-none-linux_" in tag and "Root-Is-Purelib: false" in tag, tag
    exe = w.getinfo(w.dist_info_path.replace(".dist-info", ".data/scripts/perfscope"))
    assert exe.external_attr >> 16 & 0o111, "the binary's zip entry is not executable"
EOF

    "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1 || fail "venv: $(tail -3 "$tmp/venv.log")"
    venv=$tmp/venv
    "$venv/bin/python" -m pip install --no-index --no-cache-dir --disable-pip-version-check -q "$whl" \
        >"$tmp/pip.log" 2>&1 || fail "pip install: $(tail -3 "$tmp/pip.log")"
    # Only the venv and the system's own directories on PATH; nothing pointing perfscope elsewhere.
    unset PYTHONPATH PYTHONDONTWRITEBYTECODE PERFSCOPE_LOG
    export PATH=$venv/bin:/usr/bin:/bin
    [ "$(command -v perfscope)" = "$venv/bin/perfscope" ] || fail "perfscope on PATH is $(command -v perfscope)"
    for elf in "$venv/bin/perfscope" "$venv/lib/perfscope/libperfscope_probe.so"; do
        ldd "$elf" >"$tmp/ldd" 2>&1 || fail "ldd $elf: $(cat "$tmp/ldd")"
        ! grep -q "not found" "$tmp/ldd" || fail "$elf: $(grep "not found" "$tmp/ldd")"
        ! grep -qF -e "$build" -e "$src" "$tmp/ldd" || fail "$elf loads from the build tree: $(grep -F -e "$build" -e "$src" "$tmp/ldd")"
        # from outside the venv only the C and C++ runtimes every glibc system has (SQLite, yajl, zlib and
        # ncurses linked in, libsimdjson bundled: README, Install)
        outside=$(awk -v v="$venv/" '$2 == "=>" && index($3, v) != 1 {print $1}' "$tmp/ldd" |
                  grep -v -x -E 'lib(c|m|dl|rt|pthread|stdc\+\+|gcc_s)\.so\.[0-9]+' || true)
        [ -z "$outside" ] || fail "$elf takes $(echo $outside) from the system, not from the wheel"
    done
    simdjson=$(ldd "$venv/bin/perfscope" | awk '$1 ~ /^libsimdjson/ {print $3}')
    [ -n "$simdjson" ] && [ "$(realpath "$simdjson")" = "$(realpath "$venv/lib/perfscope/libs")/$(basename "$simdjson")" ] ||
        fail "libsimdjson is not the wheel's own: '$simdjson'"

    mkdir "$tmp/run" && cp "$src/workloads/pytorch/train_loader.py" "$tmp/run/"
    (cd "$tmp/run" && perfscope record -o run.sqlite -- python3 train_loader.py --workers 0 --heavy-transform \
        --steps 12 --device cpu >out.txt 2>record.err) || fail "record exited $?: $(tail -5 "$tmp/run/record.err")"
    # (a warning about another recording's leftovers may come too: only the probe and the hook matter here)
    warned=$(grep -i warning "$tmp/run/record.err" | grep -i -e probe -e hook || true)   # whole: no -q to break the pipe
    [ -z "$warned" ] || fail "record: $warned"
    db=$tmp/run/run.sqlite
    probe=$(sqlite3 "$db" "SELECT value FROM PERFSCOPE_META WHERE name = 'probe_path'")
    [ "$probe" = "$(realpath "$venv/lib/perfscope/libperfscope_probe.so")" ] || fail "probe taken from '$probe'"
    # the hook was imported from the wheel's copy (Python left its bytecode there)
    [ -d "$venv/lib/perfscope/python/perfscope_hook/__pycache__" ] || fail "the wheel's Python hook was not imported"
    perfscope report "$db" --format json >"$tmp/r.json" 2>"$tmp/report.err" || fail "report: $(cat "$tmp/report.err")"
    steps=$(sed -n 's/^steps: //p' "$tmp/run/out.txt")
    [ "$steps" = 12 ] || fail "the script printed $steps steps, it was asked for 12"
    got=$("$py" -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["verdict"]["bottleneck"], len(r["steps"]), r["pytorch"]["loaders"][0]["num_workers"])' "$tmp/r.json") ||
        fail "the JSON report lacks the verdict, steps or loader"
    set -- $got
    [ "$1" = data-loading ] || fail "verdict $1, expected data-loading"
    [ "$2" -ge 11 ] && [ "$2" -le 12 ] || fail "$2 steps in the report, the script took 12"
    [ "$3" = 0 ] || fail "the hook saw num_workers=$3"
    perfscope report "$db" >"$tmp/report.txt" || fail "text report exited $?"
    grep -q "^Verdict: data-loading" "$tmp/report.txt" || fail "text report: $(grep -m1 Verdict "$tmp/report.txt")"
    # pip uninstall takes back everything, bytecode included (pip removes __pycache__ of each RECORDed .py).
    "$venv/bin/python" -m pip uninstall -y -q perfscope >"$tmp/pip.log" 2>&1 || fail "pip uninstall: $(cat "$tmp/pip.log")"
    [ ! -e "$venv/bin/perfscope" ] && [ ! -e "$venv/lib/perfscope" ] ||
        fail "pip uninstall left $(find "$venv/bin/perfscope" "$venv/lib/perfscope" 2>/dev/null | head -5 | tr '\n' ' ')"
    ;;
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
