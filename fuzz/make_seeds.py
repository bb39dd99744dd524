#!/usr/bin/env python3
"""Cut the fuzzers' seed corpora (a few KB each) from the shared real traces:
Kineto: per trace, its top-level metadata and the first two events of every (ph, cat) kind, args reduced
to the fields the reader uses; SQLite: the nsys export's tables with their real schema and a few rows each.
Then the hostile shapes a trace file may hold (docs/readers.md): hostile_*.json and hostile_*.sqlite.
Usage: fuzz/make_seeds.py SHARED_TRACES_DIR OUT_DIR  (writes OUT_DIR/kineto/*, OUT_DIR/sqlite/*)."""
import gzip, json, os, sqlite3, sys

src, out = sys.argv[1], sys.argv[2]
KEEP_ARGS = {"correlation", "External id", "external id", "stream", "device", "bytes", "cuda_sync_kind", "name"}

for name in sorted(os.listdir(os.path.join(src, "kineto"))):
    if not name.endswith(".json.gz"):
        continue
    d = json.load(gzip.open(os.path.join(src, "kineto", name)))
    seen, events = {}, []
    for e in d["traceEvents"]:
        k = (e.get("ph"), e.get("cat"), e.get("name") if e.get("ph") == "M" else None)
        if seen.get(k, 0) >= 2:
            continue
        seen[k] = seen.get(k, 0) + 1
        e = dict(e)
        if "args" in e:
            e["args"] = {a: v for a, v in e["args"].items() if a in KEEP_ARGS}
        if isinstance(e.get("name"), str):
            e["name"] = e["name"][:80]
        events.append(e)
    top = {"schemaVersion": d.get("schemaVersion", 1)}
    if d.get("deviceProperties"):
        top["deviceProperties"] = d["deviceProperties"][:1]
    if "distributedInfo" in d:
        top["distributedInfo"] = {k: v for k, v in d["distributedInfo"].items() if k in ("backend", "rank", "world_size")}
    top["traceEvents"] = events
    if "baseTimeNanoseconds" in d:
        top["baseTimeNanoseconds"] = d["baseTimeNanoseconds"]
    text = json.dumps(top, indent=0)
    base = name.split(".")[0]
    open(os.path.join(out, "kineto", base + ".json"), "w").write(text)
    if base.startswith("resnet50_workers0"):
        with gzip.open(os.path.join(out, "kineto", base + ".json.gz"), "wt") as g:
            g.write(text)

# SQLite: real nsys schema, 3 rows per table, the StringIds they reference; 512-byte pages.
srcdb = sqlite3.connect(os.path.join(src, "nsys", "h100_2gpu_1s.sqlite"))
tables = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "PROCESSES",
          "ThreadNames"]
for variant in ("nsys", "perfscope"):
    path = os.path.join(out, "sqlite", variant + ".sqlite")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=512")
    ids = set()
    for t in tables:
        sql = srcdb.execute("SELECT sql FROM sqlite_master WHERE name=?", (t,)).fetchone()[0]
        # drop the descriptive "-- comment" lines nsys keeps in its DDL: they only cost bytes
        sql = "\n".join(l.split("--")[0] for l in sql.splitlines())
        db.execute(sql)
        cols = [r[1] for r in srcdb.execute(f"PRAGMA table_info({t})")]
        rows = srcdb.execute(f"SELECT * FROM {t} LIMIT 3").fetchall()
        for r in rows:
            db.execute(f"INSERT INTO {t} VALUES ({','.join('?' * len(r))})", r)
            for c, v in zip(cols, r):
                if c in ("demangledName", "shortName", "mangledName", "nameId", "textId") and v is not None:
                    ids.add(v)
    db.execute("CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)")
    for i in sorted(ids):
        v = srcdb.execute("SELECT value FROM StringIds WHERE id=?", (i,)).fetchone()
        if v:
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (i, v[0][:80]))
    if variant == "perfscope":
        db.execute("CREATE TABLE PERFSCOPE_META(key TEXT NOT NULL, value TEXT)")
        db.executemany("INSERT INTO PERFSCOPE_META VALUES (?, ?)",
                       [("schema_version", "1"), ("rank", "0"), ("world_size", "2"), ("dropped_records", "0")])
    db.commit()
    db.execute("VACUUM")
    db.close()


# ---- hostile shapes (docs/readers.md): each one small, each one refused or read with a count, never a hang ----
LAUNCH = ('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,'
          '"args":{"correlation":5}}')
def kernel(args):
    return '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":13,"dur":5,"args":%s}' % args
KARGS = '{"correlation":5,"device":0,"stream":7}'
hostile_json = {
    "nul_in_names": '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1\\u0000x","pid":1,'
                    '"tid":1,"ts":0,"dur":100},{"ph":"X","cat":"kernel\\u0000cpu_op","name":"aten::mm","pid":100,'
                    '"tid":1,"ts":0,"dur":100},{"ph":"X\\u0000","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,'
                    '"dur":1},%s,%s],"deviceProperties":[{"id":0,"name":"H\\u0000100"}],"note":"a\\u0000b"}'
                    % (LAUNCH, kernel(KARGS)),
    "args_array": '{"traceEvents":[%s,%s]}' % (LAUNCH, kernel("[1,2]")),
    "args_scalar": '{"traceEvents":[%s,%s,%s]}' % (LAUNCH, kernel('"x"'), kernel("true")),
    "arg_id_container": '{"traceEvents":[%s,%s]}' % (LAUNCH, kernel('{"correlation":[5],"device":{},"stream":7}')),
    "dur_bool": '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,"dur":true}]}',
    "pid_bool_ts_object": '[{"ph":"X","cat":"cpu_op","name":"a","pid":false,"tid":1,"ts":{},"dur":1}]',
}
for name, text in hostile_json.items():
    open(os.path.join(out, "kineto", "hostile_" + name + ".json"), "w").write(text)
open(os.path.join(out, "kineto", "hostile_spaces_then_nuls.json"), "wb").write(b"   \0\0\0{}")
# The hardening issue's inputs, a few hundred bytes each: text that is not UTF-8 and \u escapes of half a surrogate
# pair (both JSON parsers refuse them), kernel times `report` refuses or leaves out (`export --format tracelens` took
# them: inf, nan, negative times, UBSan in op_perf_short.c). Not a token over 16 MiB: 17 KB of gzip, but 3 s of
# reading under ASan for each run (tests/readers/huge_token.sh and test_kineto_hostile_text.c read those).
def op_trace(name, kdur=b"5", kts=b"13"):
    return (b'{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"' + name + b'","pid":1,"tid":1,"ts":5,"dur":20,'
            b'"args":{"Input Dims":[[4,4],[4,4]],"Input type":["float","float"]}},' + LAUNCH.encode() +
            b',{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":' + kts + b',"dur":' + kdur + b',"args":' +
            KARGS.encode() + b'}]}')
hostile_bytes = {
    "utf8_overlong": op_trace(b"a\xc0\xafb"),
    "utf8_encoded_surrogate": op_trace(b"a\xed\xa0\x80b"),
    "utf8_ff_fe": op_trace(b"a\xff\xfeb"),
    "lone_surrogate_escapes": op_trace(b"a\\ud800b\\udc00"),
    "dur_plus_1e400": op_trace(b"a", b"1e400"),
    "dur_minus_1e400": op_trace(b"a", b"-1e400"),
    "dur_1e300": op_trace(b"a", b"1e300"),
    "dur_9_2e18": op_trace(b"a", b"9.2e18"),
    "dur_negative": op_trace(b"a", b"-5"),
    "span_23_days": op_trace(b"a", b"5", b"2000000000000"),
    "name_over_4_kib": op_trace(b"\\u0041" * 700 + b"a" * 100),   # over the fuzz build's cap (fuzz/CMakeLists.txt)
}
for name, data in hostile_bytes.items():
    open(os.path.join(out, "kineto", "hostile_" + name + ".json"), "wb").write(data)

GP, GT = "((1<<48)|(100<<24))", "((1<<48)|(100<<24)|100)"
BASE = (
    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringIds VALUES (1, 'kernelA'), (2, 'cudaLaunchKernel_v7000');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
    " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 5, " + GP + ", 1);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
    " correlationId INTEGER, nameId INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 900, 0, " + GT + ", 5, 2);"
    "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER,"
    " globalTid INTEGER, domainId INTEGER);"
    "INSERT INTO NVTX_EVENTS VALUES (100, 5000, 59, 'ProfilerStep#1', NULL, " + GT + ", 0);"
    "CREATE TABLE PERFSCOPE_META(key TEXT, value TEXT);"
    "INSERT INTO PERFSCOPE_META VALUES ('recording_complete', '1');"
    "CREATE TABLE PERFSCOPE_PROCESS_SAMPLES(timestamp INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
    " cpuUserNs INTEGER, cpuSystemNs INTEGER);"
    "INSERT INTO PERFSCOPE_PROCESS_SAMPLES VALUES (1000, " + GP + ", 100, 10);")
hostile_sqlite = {
    "recursive_view": "DROP TABLE NVTX_EVENTS; CREATE VIEW NVTX_EVENTS AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL"
                      " SELECT n+1 FROM r) SELECT n AS start, n+1 AS end, 59 AS eventType, 'x' AS text, NULL AS"
                      " textId, " + GT + " AS globalTid, 0 AS domainId FROM r",
    "virtual_table": "DROP TABLE StringIds; CREATE VIRTUAL TABLE StringIds USING fts4(id, value)",
    "generated_column": "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(s INTEGER,"
                        " start INTEGER GENERATED ALWAYS AS (s * 2), end INTEGER, deviceId INTEGER, streamId INTEGER,"
                        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER)",
    "unindexed_stringids": "DROP TABLE StringIds; CREATE TABLE StringIds(id INTEGER, value TEXT);"
                           "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 299)"
                           " INSERT INTO StringIds SELECT i, 'k' || i FROM r;"
                           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000 * id + 1, 1000 * id + 500, 0, 7, id, "
                           + GP + ", 299 - id FROM StringIds",
    "wrong_types": "UPDATE NVTX_EVENTS SET eventType = 59.5; UPDATE PERFSCOPE_PROCESS_SAMPLES SET timestamp = 'x';"
                   "INSERT INTO NVTX_EVENTS VALUES (1, 2, 'fiftynine', NULL, NULL, " + GT + ", 0),"
                   " (1, 2, (1<<32) + 59, 't', NULL, " + GT + ", 0), (1, 2, NULL, 't', NULL, " + GT + ", 0);"
                   "CREATE TABLE TARGET_INFO_GPU(id, name, totalMemory, smCount, computeMajor, computeMinor);"
                   "INSERT INTO TARGET_INFO_GPU VALUES ((1<<32) + 1, 'g' || char(0) || 'x', 1, 1<<40, 9, 0)",
    "wal_incomplete": "UPDATE PERFSCOPE_META SET value = '0'",
}
for name, sql in hostile_sqlite.items():
    path = os.path.join(out, "sqlite", "hostile_" + name + ".sqlite")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=512")
    db.executescript(BASE + sql)
    db.commit()
    db.execute("VACUUM")
    if name == "wal_incomplete":      # WAL mode (header bytes 18/19 = 2), no -wal beside it: a copy of a killed one
        db.execute("PRAGMA journal_mode=WAL")
    db.close()
