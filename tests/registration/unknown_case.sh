#!/bin/sh
# A case name that a test program does not hold fails (exit 2, "unknown case NAME" and the known names on stderr)
# instead of running nothing and passing (tests/cases.h). Usage: unknown_case.sh PROGRAM ONE_OF_ITS_CASES
prog=$1 known=$2
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
fail() { echo "FAIL: $*"; cat "$err"; exit 1; }
"$prog" no_such_case >/dev/null 2>"$err"
rc=$?
[ "$rc" -eq 2 ] || fail "$prog no_such_case exited $rc, expected 2"
grep -qx "unknown case no_such_case" "$err" || fail "stderr has no line 'unknown case no_such_case'"
grep -qx "  $known" "$err" || fail "stderr does not list the known case $known"
echo "PASS"
