"""What each planted-bottleneck script of bench/replay plants, and the saving perfscope's report predicts for it:
read by bench/replay/predicted_vs_measured.sh and tests/replay/replay.sh.

  replay.py check SCRIPT REPORT.json TRUTH.json   assert the report names the planted cause and predicts its
                                                  time per step within 25 % of the script's own clock (exit 1 if not)
  replay.py predicted SCRIPT REPORT.json          print the predicted saving per step, ms
  replay.py cause SCRIPT                          print the planted cause's JSON key
"""
import json
import sys

# script -> (the cause's key in causes.by_cause, whether only its first-named function is the planted one, the
# name the report should give that function or None). preprocess_main: host compute on a CPU-only trace is the
# whole step (the model too), so only its first name, preprocess, is what the fix removes.
PLANTED = {
    "preprocess_main": ("host", True, "preprocess"),
    "sleep_step": ("waiting", False, None),
    "lock_wait": ("waiting", False, None),
    "slow_loader": ("data", False, None),
}

# Causes the verdict puts in its compute group on a trace without GPU rows (docs/report.md "Verdict"): the model's
# own work, never the planted one for the scripts planting waiting or data loading.
COMPUTE = {"kernel", "host", "launch", "unexplained"}

TOLERANCE = 0.25


def predicted(report, key, top=False):
    """The saving per average steady step, ns, that the report predicts for removing cause `key` (top: only the
    cause's first-named function). Uses causes.by_cause.<key>.gain_ns / top_gain_ns (the step replayed without
    it) where the report has them, else the cause's time (ns / top[0].ns): removing a cause saves at most that."""
    c = report["causes"]["by_cause"][key]
    if top:
        if c.get("top_gain_ns") is not None:
            return c["top_gain_ns"]
        return c["top"][0]["ns"] if c["top"] else 0
    return c["gain_ns"] if c.get("gain_ns") is not None else c["ns"]


def source(report, key, top=False):
    """Which field predicted() read: for the bench's table."""
    c = report["causes"]["by_cause"][key]
    if top:
        return "top_gain_ns" if c.get("top_gain_ns") is not None else "top[0].ns"
    return "gain_ns" if c.get("gain_ns") is not None else "ns"


def planted_ms(script, truth):
    """The planted time per step by the script's clock that the report should find: for waiting, less the part
    the thread spent runnable after its wake-up (waiting for a CPU on a loaded machine), which thread-state samples
    see as running (docs/report.md "Where the step goes": waiting is asleep, blocked or stopped)."""
    if PLANTED[script][0] == "waiting":
        return truth["planted_ms"] - truth.get("planted_runqueue_ms", 0)
    return truth["planted_ms"]


def check(script, report, truth):
    """The failures (empty when the report finds what `script` planted): at least 10 steady steps; the planted
    cause named (host: the function to move is the planted one) or the largest cause outside the compute group and
    the verdict's bottleneck;
    the predicted saving within TOLERANCE of the planted time per step by the script's own clock."""
    key, top, name = PLANTED[script]
    c = report["causes"]
    by = c["by_cause"]
    bad = []
    if c["steps"] < 10:
        bad.append("%d steady steps, want >= 10" % c["steps"])
    if name is not None:
        # the function the fix moves (docs/report.md "Expected gains"): the planted one, whichever of its callees
        # the samples name first
        moved = by[key].get("function")
        if moved != name:
            bad.append("%s's function to move is %r, want %r (top: %s, chain: %s)" %
                       (key, moved, name, by[key]["top"], by[key].get("chain")))
    else:
        # the verdict's JSON bottleneck too, where the planted cause is a group of its own (docs/report.md "Verdict")
        want_bn = {"waiting": "waiting", "data": "data-loading"}[key]
        if report["verdict"]["bottleneck"] != want_bn:
            bad.append("verdict.bottleneck is %r, want %r" % (report["verdict"]["bottleneck"], want_bn))
        largest = max((k for k in by if k not in COMPUTE), key=lambda k: by[k]["ns"])
        if largest != key:
            bad.append("largest cause outside compute is %s (%.1f ms), want %s (%.1f ms)" %
                       (largest, by[largest]["ns"] / 1e6, key, by[key]["ns"] / 1e6))
    want_ms = planted_ms(script, truth)
    got_ms = predicted(report, key, top) / 1e6
    if abs(got_ms - want_ms) > TOLERANCE * want_ms:
        bad.append("predicted %.2f ms per step (%s), the script planted %.2f ms: off by %.0f %%, more than %d %%" %
                   (got_ms, source(report, key, top), want_ms, 100 * (got_ms / want_ms - 1), 100 * TOLERANCE))
    return bad


def main(argv):
    if len(argv) == 5 and argv[1] == "check":
        report, truth = json.load(open(argv[3])), json.load(open(argv[4]))
        bad = check(argv[2], report, truth)
        key, top, _ = PLANTED[argv[2]]
        print("%s: %s predicted %.2f ms per step (%s), planted %.2f ms (script's clock; %.2f ms of it runnable); "
              "step %.2f ms (report), %.2f ms (script)" %
              (argv[2], key, predicted(report, key, top) / 1e6, source(report, key, top), truth["planted_ms"],
               truth.get("planted_runqueue_ms", 0), report["causes"]["step_ns"] / 1e6, truth["step_ms"]))
        for b in bad:
            print("FAIL: " + b)
        return 1 if bad else 0
    if len(argv) == 4 and argv[1] == "predicted":
        key, top, _ = PLANTED[argv[2]]
        print("%.3f" % (predicted(json.load(open(argv[3])), key, top) / 1e6))
        return 0
    if len(argv) == 3 and argv[1] == "cause":
        key, top, name = PLANTED[argv[2]]
        print(key + (" (%s)" % name if top else ""))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
