#!/usr/bin/env python3
"""An Nsight Systems SQLite export (the tables perfscope reads) with the timeline of gen_causes_trace.py
--stream-wait (decoy_kernel included): four NVTX `step` ranges of 10000 µs in which stream 9's consumer_kernel
waits on stream 7's producer_gemm through cudaEventRecord + cudaStreamWaitEvent, as a
CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row (syncType 2, CUPTI's STREAM_WAIT_EVENT) joined by (eventId, eventSyncId) to
the CUPTI_ACTIVITY_KIND_CUDA_EVENT row of the record.
Usage: gen_nsys_waits.py OUT [--no-sync-id] [--no-cuda-event]

Column names: those two tables as the DDL of a real nsys 2026.2.1 export (schema 3.25) declares them, which
matches the CUPTI records they come from (CUpti_ActivitySynchronization2: type, streamId, cudaEventId,
cudaEventSyncId; CUpti_ActivityCudaEvent2: streamId "where the event was recorded", eventId, cudaEventSyncId "to
associate event synchronization records with the latest CUDA Event record"; docs.nvidia.com/cupti/api). The other
tables hold the columns perfscope's reader needs (docs/readers.md). --no-sync-id drops eventSyncId from both (older
exports: the record is then the event's latest before the wait call); --no-cuda-event leaves CUDA_EVENT out (the
recording stream is then unknown, as in perfscope's own traces)."""
import sqlite3, sys

out = sys.argv[1]
sync_id = "--no-sync-id" not in sys.argv
db = sqlite3.connect(out)
PID, TID = 100, 100
gpid = (1 << 48) | (PID << 24)
gtid = gpid | TID
sid_col = ", eventSyncId INTEGER" if sync_id else ""
db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
  globalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL,
  eventId INTEGER NOT NULL%s);
""" % sid_col)
if "--no-cuda-event" not in sys.argv:
    db.execute("""CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp INTEGER, deviceId INTEGER NOT NULL,
      contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
      globalPid INTEGER, eventId INTEGER NOT NULL%s)""" % sid_col)
names = {}


def sid(s):
    if s not in names:
        names[s] = len(names) + 1
        db.execute("INSERT INTO StringIds VALUES (?, ?)", (names[s], s))
    return names[s]


corr = 1
us = 1000


def call(name, ts, dur):
    global corr
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0)",
               (ts * us, (ts + dur) * us, gtid, corr, sid(name)))
    corr += 1
    return corr - 1


def kernel(name, stream, ts, dur, c):
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,?,?,?,?,?)",
               (ts * us, (ts + dur) * us, stream, c, gpid, sid(name), sid(name)))


def record(c, event, sync):
    if "--no-cuda-event" not in sys.argv:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0,0,1,NULL,7,?,?,?%s)"
                   % (",?" if sync_id else ""), (c, gpid, event) + ((sync,) if sync_id else ()))


def wait(ts, c, event, sync):
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,0,1,NULL,9,?,?,NULL,2,?%s)"
               % (",?" if sync_id else ""), (ts * us, (ts + 3) * us, c, gpid, event) + ((sync,) if sync_id else ()))


kernel("warmup", 9, 120, 80, call("cudaLaunchKernel_v7000", 100, 10))
for k in range(4):
    b = 1000 + k * 10000
    db.execute("INSERT INTO NVTX_EVENTS VALUES (?,?,59,'step',?,NULL,0)", (b * us, (b + 10000) * us, gtid))
    old = call("cudaEventRecord_v3020", b + 50, 5)
    record(old, 2, 100 + 2 * k)          # event 2: recorded before this step's producer
    kernel("producer_gemm", 7, b + 120, 4000, call("cudaLaunchKernel_v7000", b + 100, 10))
    rec = call("cudaEventRecord_v3020", b + 200, 5)
    record(rec, 1, 101 + 2 * k)          # event 1, recorded after producer_gemm: each record its own sync id
    wait(b + 300, call("cudaStreamWaitEvent_v3020", b + 300, 3), 1, 101 + 2 * k)
    kernel("consumer_kernel", 9, b + 4150, 2000, call("cudaLaunchKernel_v7000", b + 400, 10))
    # ends nearest consumer_kernel's start
    kernel("decoy_kernel", 11, b + 4130, 10, call("cudaLaunchKernel_v7000", b + 4100, 10))
    wait(b + 6160, call("cudaStreamWaitEvent_v3020", b + 6160, 3), 2, 100 + 2 * k)
    kernel("late_kernel", 9, b + 6400, 500, call("cudaLaunchKernel_v7000", b + 6200, 10))
db.commit()
