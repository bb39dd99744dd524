#!/bin/sh
# Crafted inputs that were quadratic: many processes holding step ranges (ranks.c ran every
# analysis over the whole trace once per process) and one very long event name (libyajl re-scanned a token that
# spans parser chunks from its start at every chunk). Prints the wall time and peak RSS of `perfscope report`
# on each. Usage: bench/readers/crafted.sh [BUILD_DIR] [NAME_MB]  (default build, 64; needs python3, gzip)
build=${1:-build} mb=${2:-64}
ps=$build/cli/perfscope
[ -x "$ps" ] || { echo "crafted.sh: $ps not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ps-crafted.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
for n in (5000, 10000, 20000):   # n processes x 2 step ranges each
    ev = []
    for p in range(n):
        for t in (p, p + 20):
            ev.append('{"ph":"X","cat":"user_annotation","name":"step","pid":%d,"tid":1,"ts":%d,"dur":10}' % (p + 1, t))
    open("%s/pids%d.json" % (sys.argv[1], n), "w").write('{"traceEvents":[%s]}' % ",".join(ev))
PY
n=$((mb * 1000000))
{ printf '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"'; head -c $n /dev/zero | tr '\0' 'a'
  printf '","pid":1,"tid":1,"ts":0,"dur":5}]}'; } >"$tmp/name${mb}MB.json"
gzip -1 -c "$tmp/name${mb}MB.json" >"$tmp/name${mb}MB.json.gz"
for f in pids5000.json pids10000.json pids20000.json "name${mb}MB.json" "name${mb}MB.json.gz"; do
    /usr/bin/time -f "$f: %e s wall, %M KiB peak RSS" "$ps" report "$tmp/$f" >/dev/null 2>"$tmp/err" ||
        { echo "$f: report failed:"; cat "$tmp/err"; continue; }
    tail -n 1 "$tmp/err"
done
