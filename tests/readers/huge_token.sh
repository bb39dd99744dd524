#!/bin/sh
# A 10 MB gzip file that inflates to one 10 GB string or number (concatenated gzip members of one character: gzip(1)
# reads them as one stream, and so do the readers) through the real binary, under a memory limit: `report` and
# `export --format tracelens` exit 1 with the message naming the file and the token's first byte, in bounded time
# and memory. Before the cap (docs/readers.md, "Strings and numbers: length and UTF-8") libyajl held the token
# whole, about 5 bytes of memory per byte of it, and crashed in yajl_buf_append on an unchecked realloc (SIGSEGV
# under `ulimit -v`). The file is written member by member: nothing of gigabytes touches the disk.
# Usage: huge_token.sh PERFSCOPE CASE SANITIZE (ON: an ASan build, whose shadow memory `ulimit -v` cannot hold:
# ASan's own hard_rss_limit_mb bounds it instead).
set -u
ps=$1 case=$2 san=${3:-OFF}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 needed to write the file"; exit 77; }

# hostile KIND OUT: a Kineto trace whose first event holds a 10 GiB KIND (string: its "name"; number: its "ts")
hostile() {
    python3 - "$1" "$2" <<'PY'
import sys, zlib
kind, out = sys.argv[1], sys.argv[2]
def member(data):
    z = zlib.compressobj(9, zlib.DEFLATED, 31)   # 31: a gzip member
    return z.compress(data) + z.flush()
block = 16 << 20
fill = member((b"1" if kind == "number" else b"a") * block)   # 16 MiB of one character: a 16 KB member
head = {"string": b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"',
        "number": b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","ts":'}[kind]
tail = {"string": b'","pid":1,"tid":1,"ts":1,"dur":1}]}', "number": b',"pid":1,"tid":1,"dur":1}]}'}[kind]
with open(out, "wb") as f:
    f.write(member(head))
    for _ in range((10 << 30) // block):
        f.write(fill)
    f.write(member(tail))
PY
}

# refused KIND BYTE CMD...: CMD on the hostile file ($f) exits 1 within 120 s and 2 GB, saying which token where
refused() {
    kind=$1 byte=$2
    shift 2
    f=$tmp/huge.pt.trace.json.gz
    hostile "$kind" "$f" || fail "cannot write the file"
    size=$(wc -c <"$f")
    [ "$size" -lt 12000000 ] || fail "the file is $size bytes, not about 10 MB"
    if [ "$san" = ON ]; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=2048" timeout 120 "$@" "$f" >"$tmp/out" 2>"$tmp/err"
    else
        (ulimit -v 2097152 && exec timeout 120 "$@" "$f") >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
    [ "$rc" -eq 1 ] || fail "exit $rc (want 1: 124 is the time limit, 139 a crash): $(tail -c 600 "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "want one line: $(tail -c 600 "$tmp/err")"
    grep -q "$f: byte $byte of the JSON (event 0): a $kind longer than 16 MiB starts here" "$tmp/err" ||
        fail "message: $(cat "$tmp/err")"
}

case $case in
report_refuses_a_10_gb_string_of_a_10_mb_gzip_in_bounded_memory)
    refused string 48 "$ps" report
    ;;
report_refuses_a_10_gb_number_of_a_10_mb_gzip_in_bounded_memory)
    refused number 57 "$ps" report
    ;;
export_tracelens_refuses_a_10_gb_string_of_a_10_mb_gzip_in_bounded_memory)
    refused string 48 "$ps" export --format tracelens -o "$tmp/csv"
    [ ! -e "$tmp/csv" ] || fail "a failed export left its folder behind"
    ;;
*) fail "unknown case $case" ;;
esac
echo PASS
