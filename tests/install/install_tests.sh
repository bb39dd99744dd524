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
*) fail "unknown case $case" ;;
esac
echo "PASS: $case"
