#!/usr/bin/env python3
"""One line about the tests ctest skipped, grouped by reason, from ctest's JUnit file (ctest --output-junit).

A skipping test (exit 77, CTest SKIP_RETURN_CODE) says why on its last line of output that starts with "SKIP:"
(tests/need_shared.sh, tests/check.h); a test that says nothing is counted under "no reason given".
usage: ctest_skips.py JUNIT.xml   -> e.g. "31 skipped: 30 ../shared/traces not present (see README: Tests); 1 no CUDA device"
"""
import collections
import re
import sys
import xml.etree.ElementTree as ET


def reason(out):
    lines = [l.strip() for l in (out or "").splitlines() if l.strip()]
    for line in reversed(lines):
        m = re.match(r"(?i)skip(?:ped)?(?:\s+\S+)?:\s*(.+)", line)
        if m:
            return m.group(1)
    return "no reason given"


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError, IndexError) as e:
        print(f"ctest_skips: cannot read ctest's JUnit file: {e}", file=sys.stderr)
        return 1
    reasons = collections.Counter()
    names = collections.defaultdict(list)
    for case in root.iter("testcase"):
        if case.find("skipped") is None:
            continue
        out = case.find("system-out")
        r = reason(out.text if out is not None else "")
        reasons[r] += 1
        names[r].append(case.get("name"))
    if not reasons:
        print("0 skipped")
        return 0
    parts = []
    for r, n in reasons.most_common():
        example = "" if n > 1 else f" ({names[r][0]})"
        parts.append(f"{n} {r}{example}")
    print(f"{sum(reasons.values())} skipped: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
