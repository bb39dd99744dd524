#!/usr/bin/env python3
"""Cut the fuzzers' seed corpora (a few KB each) from the shared real traces:
Kineto: per trace, its top-level metadata and the first two events of every (ph, cat) kind, args reduced
to the fields the reader uses; SQLite: the nsys export's tables with their real schema and a few rows each.
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
        top["distributedInfo"] = {k: d["distributedInfo"][k] for k in ("backend", "rank", "world_size")}
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
