#!/usr/bin/env python3
"""Writes a long Kineto trace for the reader benchmark by replicating a real one: copy k (0, 1, ...) of every event
in traceEvents has its "ts" shifted by k times the trace's span (plus 1 ms), its correlation, External id and ac2g /
async flow "id" shifted by k times (the largest id + 1), and its ProfilerStep#N renumbered N + k * (number of steps),
so the copies follow one another as one long run with unique links. `M` metadata events are kept once; the keys
outside traceEvents (deviceProperties, schemaVersion, ...) are written once, after traceEvents, as Kineto does.
Usage: make_long_kineto.py SOURCE.json[.gz] OUT.json MEGABYTES   (plain JSON out: the read, not gzip, is timed)"""
import gzip
import json
import re
import sys

src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
opener = gzip.open if src.endswith(".gz") else open
with opener(src, "rt") as f:
    trace = json.load(f)
events = trace.pop("traceEvents")
timed = [e for e in events if "ts" in e]
t0 = min(e["ts"] for e in timed)
t1 = max(e["ts"] + e.get("dur", 0) for e in timed)
span = int(t1 - t0) + 1000
ID_ARGS = ("correlation", "External id", "external id")
max_id = max([e.get("id", 0) for e in events if isinstance(e.get("id"), int)] +
             [e["args"][k] for e in events for k in ID_ARGS if isinstance(e.get("args", {}).get(k), int)])
id_step = max_id + 1
step = re.compile(r"^ProfilerStep#(\d+)$")
steps = {int(m.group(1)) for e in events for m in [step.match(str(e.get("name", "")))] if m}
nsteps = max(steps) - min(steps) + 1 if steps else 0
body = [json.dumps(e) for e in events if e.get("ph") != "M"]
copy_bytes = sum(len(s) + 2 for s in body)
copies = max(1, int(mb * 1e6 / copy_bytes + 0.5))


def shifted(e, k):
    e = dict(e)
    e["ts"] = e["ts"] + k * span if "ts" in e else e.get("ts")
    if "ts" not in e or e["ts"] is None:
        e.pop("ts", None)
    if isinstance(e.get("id"), int):
        e["id"] += k * id_step
    if "args" in e:
        e["args"] = dict(e["args"])
        for a in ID_ARGS:
            if isinstance(e["args"].get(a), int) and e["args"][a] > 0:
                e["args"][a] += k * id_step
    m = step.match(str(e.get("name", "")))
    if m:
        e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + k * nsteps)
    return e


with open(out, "w") as f:
    f.write('{"traceEvents": [\n')
    first = True
    for e in events:
        if e.get("ph") == "M":
            f.write(("" if first else ",\n") + json.dumps(e))
            first = False
    for k in range(copies):
        rows = body if k == 0 else [json.dumps(shifted(e, k)) for e in events if e.get("ph") != "M"]
        f.write(("" if first else ",\n") + ",\n".join(rows))
        first = False
    f.write("\n]")
    for key, value in trace.items():
        f.write(",\n%s: %s" % (json.dumps(key), json.dumps(value)))
    f.write("\n}\n")
print("%s: %d copies of %s, %d events each, %.0f MB" % (out, copies, src, len(body), copies * copy_bytes / 1e6))
