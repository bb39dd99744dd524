#!/usr/bin/env bash
# Write perfscope(1) in roff from the binary's own help, one section per subcommand, so the man page always
# says what the installed binary accepts.   usage: scripts/gen-man.sh PERFSCOPE_BINARY OUT.1
set -euo pipefail
bin=$1
out=$2
version=$("$bin" --version | awk '{print $NF}')
# The subcommands, from the "commands:" list of `perfscope --help`.
cmds=$("$bin" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
# Preformatted roff: backslashes shown as \e, lines starting with . or ' protected with \&.
pre() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
{
    echo ".TH PERFSCOPE 1 \"\" \"perfscope $version\" \"User Commands\""
    echo ".SH NAME"
    echo "perfscope \\- where each GPU training step's time goes, and what to change"
    echo ".SH SYNOPSIS"
    echo ".nf"
    for c in $cmds; do echo "perfscope $c ..."; done
    echo ".fi"
    echo ".SH DESCRIPTION"
    echo "perfscope records any program (no recompilation) into a SQLite trace that uses Nsight Systems' tables,"
    echo "and reports the bottleneck of each training step (data loading, host/device copies, GPU kernels,"
    echo "synchronisation, host overhead) with its evidence and a fix. It also reads Nsight Systems SQLite exports and"
    echo "PyTorch profiler (Kineto) traces."
    echo ".PP"
    echo ".nf"
    "$bin" --help | pre
    echo ".fi"
    echo ".SH COMMANDS"
    for c in $cmds; do
        echo ".SS perfscope $c"
        echo ".nf"
        "$bin" help "$c" | pre
        echo ".fi"
    done
    echo ".SH FILES"
    echo ".TP"
    echo ".I <prefix>/lib/perfscope/libperfscope_probe.so"
    echo "the library injected into recorded programs (found relative to the perfscope binary; PERFSCOPE_PROBE overrides)"
    echo ".SH SEE ALSO"
    echo "nsys(1), the documents in <prefix>/share/doc/perfscope/"
} > "$out"
