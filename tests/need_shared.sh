# Sourced by the test scripts that read the reference traces in ../shared/traces (README: Build, test, benchmark).
# need_shared FILE: in a user's clone without them the test is skipped (exit 77) with the one reason line that
# scripts/test.sh counts; in CI (CI set, as CI services set it) their absence is a failure.
need_shared() {
    [ -f "$1" ] && return 0
    case ${CI:-} in
    '' | false | 0) echo "SKIP: ../shared/traces not present (see README: Build, test, benchmark)"; exit 77 ;;
    *) echo "FAIL: $1 missing: the reference traces are required in CI (CI=$CI)"; exit 1 ;;
    esac
}
