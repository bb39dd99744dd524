#!/bin/sh
# A fresh legacy-profiler trace from Debian's python3-torch (PyTorch without Kineto): perfscope report must read it
# and find its ProfilerStep windows and DataLoader time as the trace states them (expected values computed from the
# trace's own JSON by python3 here, never by perfscope). Skips (77) without python3-torch.
# usage: legacy_profiler_from_python3_torch.sh PERFSCOPE GENERATOR
set -eu
perfscope=$1 gen=$2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "skip: /usr/bin/python3 has no torch"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$gen" "$tmp/trace.json"
"$perfscope" report --format json -o "$tmp/report.json" "$tmp/trace.json"
/usr/bin/python3 - "$tmp/trace.json" "$tmp/report.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
assert isinstance(events, list) and all('cat' not in e for e in events), "not the legacy format"
steps = sorted((e for e in events if e['name'].startswith('ProfilerStep#')), key=lambda e: e['ts'])
data = [e for e in events if e['name'].startswith('enumerate(DataLoader)#')]
got = report['steps']
assert [s['name'] for s in got] == [e['name'] for e in steps], (got, steps)
for s, e in zip(got, steps):
    assert s['dur_ns'] == e['dur'] * 1000, (s, e)
    want_dl = sum(d['dur'] for d in data if e['ts'] <= d['ts'] and d['ts'] + d['dur'] <= e['ts'] + e['dur']) * 1000
    assert s['breakdown_ns']['dataloader'] == want_dl, (s, want_dl)
print("ok: %d legacy-profiler steps read as the trace states them" % len(got))
PY
