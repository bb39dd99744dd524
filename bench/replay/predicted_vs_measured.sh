#!/usr/bin/env bash
# How well the report's predicted saving (docs/report.md "Where the step goes", "Verdict") foretells what fixing a
# bottleneck saves, on four CPU PyTorch scripts with a planted bottleneck and their --fixed versions (bench/replay:
# preprocess() in the main thread; a sleep in the step; a lock a writer thread holds through its write; a
# DataLoader without workers), with Debian's python3-torch:
#   for each script, RUNS pairs interleaved (planted, fixed, planted, fixed, ...), both under `perfscope record`
#   (the same recording cost on both sides) with samples at 100 Hz (tests/replay/replay.sh says why);
#   predicted: the saving per step the planted run's JSON report predicts for the planted cause
#     (bench/replay/replay.py predicted(): causes.by_cause.<key>.gain_ns, or top_gain_ns for preprocess_main's host
#     compute first named `preprocess`, once the report has them; until then the cause's time, ns / top[0].ns);
#   measured: planted average steady step - fixed average steady step (causes.step_ns of both reports), and the
#     same from the scripts' own clocks (--truth: mean step from optimizer.step to optimizer.step);
#   the table: medians over the runs, predicted / measured, and whether the prediction is within 25 % of the
#   measured saving (report's steps). On a machine whose second core is not free, moving work to a worker saves
#   less than the work took, and the measured saving falls short of the prediction (docs/report.md "Where the
#   step goes", the measured figures).
# Usage: bench/replay/predicted_vs_measured.sh [BUILD_DIR] [RUNS]   (default build, 5)
set -u
BUILD=${1:-build}
RUNS=${2:-5}
PS=$(cd "$BUILD" 2>/dev/null && pwd)/cli/perfscope
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
$PY -c "import torch, PIL" 2>/dev/null || { echo "needs Debian's python3-torch and python3-pil" >&2; exit 1; }
[ -x "$PS" ] || { echo "no $PS: build first (cmake --build $BUILD)" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
# one SCRIPT SIDE: record it, report it; prints "report_step_ms script_step_ms predicted_ms"
one() {
    local script=$1 side=$2 flag=
    [ "$side" = fixed ] && flag=--fixed
    (cd "$TMP" && "$PS" record -f -o "$side.sqlite" --sample-hz 100 --python-stack-hz 100 -- \
        "$PY" "$HERE/$script.py" $flag --truth "$side.truth" >"$side.out" 2>&1) ||
        { echo "$script $side: record failed" >&2; cat "$TMP/$side.out" >&2; return 1; }
    "$PS" report "$TMP/$side.sqlite" --format json -o "$TMP/$side.json" -f || return 1
    python3 - "$HERE" "$script" "$TMP/$side.json" "$TMP/$side.truth" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import replay
r, t = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
key, top, _ = replay.PLANTED[sys.argv[2]]
print("%.3f %.3f %.3f %s" % (r["causes"]["step_ns"] / 1e6, t["step_ms"], replay.predicted(r, key, top) / 1e6,
                             replay.source(r, key, top)))
PY
}
printf '%-16s %-30s %10s %10s %10s %8s %8s %6s\n' script cause predicted measured "(clock)" pred/meas planted within
for script in preprocess_main sleep_step lock_wait slow_loader; do
    pred=() meas=() clock=() planted=()
    for ((i = 0; i < RUNS; i++)); do
        p=$(one "$script" planted) || exit 1
        f=$(one "$script" fixed) || exit 1
        read -r p_step p_clock p_pred src <<<"$p"
        read -r f_step f_clock _ _ <<<"$f"
        pred+=("$p_pred")
        meas+=("$(awk -v a="$p_step" -v b="$f_step" 'BEGIN { printf "%.3f", a - b }')")
        clock+=("$(awk -v a="$p_clock" -v b="$f_clock" 'BEGIN { printf "%.3f", a - b }')")
        planted+=("$(python3 -c "import json; print('%.3f' % json.load(open('$TMP/planted.truth'))['planted_ms'])")")
    done
    mp=$(median "${pred[@]}") mm=$(median "${meas[@]}") mc=$(median "${clock[@]}") pl=$(median "${planted[@]}")
    cause="$(python3 "$HERE/replay.py" cause "$script") [$src]"
    awk -v s="$script" -v c="$cause" -v p="$mp" -v m="$mm" -v k="$mc" -v pl="$pl" 'BEGIN {
        r = m > 0 ? p / m : 0
        printf "%-16s %-30s %8.2f ms %8.2f ms %8.2f ms %8.2f %6.2f ms %6s\n", s, c, p, m, k, r, pl,
            (m > 0 && p >= 0.75 * m && p <= 1.25 * m) ? "yes" : "no" }'
    echo "  runs: predicted ${pred[*]}; measured ${meas[*]}; by the clock ${clock[*]}"
done
echo "predicted: the planted run's report; measured: planted - fixed average steady step (reports; (clock): the"
echo "scripts' own clocks); planted: the script's own planted time per step; medians of $RUNS interleaved pairs."
