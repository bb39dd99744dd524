/* The SQL of the perfscope trace (see ps_schema.h and docs/trace-format.md). Column names, order and
 * types of the Nsight Systems tables follow its export schema 3.25 (docs/trace-format.md);
 * nsys quotes nothing, we quote "end" so the SQL also runs where END is reserved. */
#include "ps_schema.h"

#include <errno.h>
#include <string.h>

const struct ps_enum_name ps_nsys_copy_kind[PS_NSYS_COPY_KINDS] = {
    { "Unknown", "unknown" }, { "HtoD", "HtoD" }, { "DtoH", "DtoH" }, { "HtoA", "HtoA" }, { "AtoH", "AtoH" },
    { "AtoA", "AtoA" },       { "AtoD", "AtoD" }, { "DtoA", "DtoA" }, { "DtoD", "DtoD" }, { "HtoH", "HtoH" },
    { "PtoP", "PtoP" },
};

const struct ps_enum_name ps_nsys_mem_kind[PS_NSYS_MEM_KINDS] = {
    { "Pageable", "pageable" }, { "Pinned", "pinned" },
    { "Device", "device" },     { "Array", "array" },
    { "Managed", "managed" },   { "Device Static", "device_static" },
    { "Managed Static", "managed_static" }, { "Unknown", "unknown" },
};

int ps_enum_find(const struct ps_enum_name *t, int n, const char *s, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(t[i].label) == len && memcmp(s, t[i].label, len) == 0)
            return i;
    return -ENOENT;
}

const char ps_schema_sql[] =
    "CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE ThreadNames(nameId INTEGER NOT NULL REFERENCES StringIds(id), priority INTEGER,"
    " globalTid INTEGER);\n"
    "CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);\n"
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,"
    " systemClockNs INTEGER);\n"
    "CREATE TABLE ANALYSIS_DETAILS(globalVid INTEGER NOT NULL, duration INTEGER NOT NULL,"
    " startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL);\n"
    "CREATE TABLE ENUM_NSYS_EVENT_TYPE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, \"end\" INTEGER, eventType INTEGER NOT NULL,"
    " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,"
    " endGlobalTid INTEGER, textId INTEGER REFERENCES StringIds(id), domainId INTEGER,"
    " uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,"
    " floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);\n"
    "CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT);\n"
    "CREATE TABLE PERFSCOPE_META(name TEXT NOT NULL PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE PERFSCOPE_ENUM_CUDA_STATE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE PERFSCOPE_PROCESS_INFO(globalPid INTEGER NOT NULL, pid INTEGER NOT NULL, ppid INTEGER,"
    " exe TEXT, commandLine TEXT, attachTime INTEGER, rank INTEGER, localRank INTEGER, worldSize INTEGER,"
    " rings INTEGER NOT NULL, droppedRecords INTEGER NOT NULL, unbalancedNvtx INTEGER NOT NULL,"
    " unknownRecords INTEGER NOT NULL, cudaInjected INTEGER NOT NULL,"
    " cuptiState INTEGER REFERENCES PERFSCOPE_ENUM_CUDA_STATE(id), cuptiMessage TEXT);\n"
    "CREATE TABLE PERFSCOPE_ENUM_THREAD_STATE(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\n"
    "CREATE TABLE PERFSCOPE_PROCESS_SAMPLES(timestamp INTEGER NOT NULL, globalPid INTEGER NOT NULL,"
    " cpuUserNs INTEGER, cpuSystemNs INTEGER, rssBytes INTEGER, numThreads INTEGER, readBytes INTEGER,"
    " writeBytes INTEGER, readCharBytes INTEGER, writeCharBytes INTEGER);\n"
    "CREATE TABLE PERFSCOPE_THREAD_SAMPLES(timestamp INTEGER NOT NULL, globalTid INTEGER NOT NULL,"
    " state INTEGER NOT NULL REFERENCES PERFSCOPE_ENUM_THREAD_STATE(id), cpuUserNs INTEGER,"
    " cpuSystemNs INTEGER);\n"
    "CREATE TABLE PERFSCOPE_GPU_SAMPLES(timestamp INTEGER NOT NULL, deviceIndex INTEGER NOT NULL,"
    " utilGpuPercent INTEGER, utilMemoryPercent INTEGER, memUsedBytes INTEGER, memTotalBytes INTEGER,"
    " temperatureC INTEGER, powerMw INTEGER, powerLimitMw INTEGER, clockSmMhz INTEGER, clockMemMhz INTEGER,"
    " pcieRxKBps INTEGER, pcieTxKBps INTEGER, throttleReasons INTEGER, migEnabled INTEGER);\n"
    "CREATE TABLE PERFSCOPE_GPU_PROCESS_SAMPLES(timestamp INTEGER NOT NULL, deviceIndex INTEGER NOT NULL,"
    " pid INTEGER NOT NULL, usedMemoryBytes INTEGER, smUtilPercent INTEGER, memUtilPercent INTEGER,"
    " gpuInstanceId INTEGER, computeInstanceId INTEGER);\n"
    "CREATE TABLE PERFSCOPE_LIVE_OPEN_RANGES(globalTid INTEGER NOT NULL, start INTEGER NOT NULL, text TEXT,"
    " textId INTEGER, domainId INTEGER);\n"
    "CREATE TABLE PERFSCOPE_GPU_DEVICES(deviceIndex INTEGER NOT NULL PRIMARY KEY, name TEXT,"
    " memTotalBytes INTEGER, uuid TEXT, pciBusId TEXT);\n"
    "CREATE TABLE PERFSCOPE_PYTHON_FRAMES(id INTEGER NOT NULL PRIMARY KEY, file TEXT NOT NULL, line INTEGER,"
    " function TEXT NOT NULL);\n"
    "CREATE TABLE PERFSCOPE_PYTHON_STACKS(stackId INTEGER NOT NULL, level INTEGER NOT NULL,"
    " frameId INTEGER NOT NULL REFERENCES PERFSCOPE_PYTHON_FRAMES(id), PRIMARY KEY(stackId, level));\n"
    "CREATE TABLE PERFSCOPE_PYTHON_SAMPLES(timestamp INTEGER NOT NULL, globalTid INTEGER NOT NULL,"
    " stackId INTEGER NOT NULL, depth INTEGER NOT NULL);\n"
    "CREATE TABLE PERFSCOPE_GPU_MIG_DEVICES(deviceIndex INTEGER NOT NULL, uuid TEXT NOT NULL, gpuInstanceId INTEGER,"
    " computeInstanceId INTEGER, memTotalBytes INTEGER, PRIMARY KEY(deviceIndex, uuid));\n";

const char ps_schema_enum_sql[] =
    "INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES"
    " (33,'NvtxCategory','NVTX Category'),"
    " (34,'NvtxMark','NVTX Mark'),"
    " (59,'NvtxPushPopRange','NVTX PushPop Range'),"
    " (60,'NvtxStartEndRange','NVTX StartEnd Range'),"
    " (75,'NvtxDomainCreate','NVTX Domain Create');\n"
    "INSERT INTO PERFSCOPE_ENUM_THREAD_STATE VALUES"
    " (0,'RUNNING','Running (R)'),"
    " (1,'SLEEPING','Sleeping (S)'),"
    " (2,'BLOCKED_IO','Blocked on I/O (D)'),"
    " (3,'STOPPED','Stopped (T, t)'),"
    " (4,'ZOMBIE','Zombie or dead (Z, X)'),"
    " (5,'IDLE','Idle kernel thread (I)'),"
    " (6,'OTHER','Other');\n"
    "INSERT INTO PERFSCOPE_ENUM_CUDA_STATE VALUES"
    " (0,'NONE','CUDA never initialised the probe (no CUDA driver, or no CUDA use)'),"
    " (1,'INJECTED','The CUDA driver called InitializeInjection'),"
    " (2,'CUPTI_ACTIVE','CUPTI activity collection enabled'),"
    " (3,'CUPTI_UNAVAILABLE','libcupti missing or failed'),"
    " (4,'CUPTI_BUSY','Another CUPTI subscriber holds CUPTI');\n";

/* No index on NVTX_EVENTS: Nsight Systems' exports have none, readers scan it whole, and building one
 * would add ~0.5 s per million rows to the end of every recording (measured: bench/collector). */
const char ps_schema_recovery_sql[] =
    "CREATE TABLE PERFSCOPE_RECOVERY_RINGS(ring INTEGER NOT NULL PRIMARY KEY, file TEXT NOT NULL,"
    " pid INTEGER NOT NULL, otherPidns INTEGER NOT NULL);\n"
    "CREATE TABLE PERFSCOPE_RECOVERY_LANES(ring INTEGER NOT NULL, lane INTEGER NOT NULL, chunk INTEGER NOT NULL,"
    " offset INTEGER NOT NULL, PRIMARY KEY(ring, lane)) WITHOUT ROWID;\n"
    "CREATE TABLE PERFSCOPE_RECOVERY_STATE(ring INTEGER NOT NULL, lane INTEGER NOT NULL, record BLOB NOT NULL);\n"
    "CREATE TABLE PERFSCOPE_RECOVERY_REGISTERED(ring INTEGER NOT NULL, id INTEGER NOT NULL, sid INTEGER NOT NULL,"
    " PRIMARY KEY(ring, id)) WITHOUT ROWID;\n";

const char ps_schema_recovery_drop_sql[] =
    "DROP TABLE IF EXISTS PERFSCOPE_RECOVERY_RINGS; DROP TABLE IF EXISTS PERFSCOPE_RECOVERY_LANES;"
    " DROP TABLE IF EXISTS PERFSCOPE_RECOVERY_STATE; DROP TABLE IF EXISTS PERFSCOPE_RECOVERY_REGISTERED;";

const char ps_schema_index_sql[] =
    "CREATE INDEX PERFSCOPE_THREAD_SAMPLES_TID ON PERFSCOPE_THREAD_SAMPLES(globalTid, timestamp);\n"
    "CREATE INDEX PERFSCOPE_PROCESS_SAMPLES_PID ON PERFSCOPE_PROCESS_SAMPLES(globalPid, timestamp);\n"
    "CREATE INDEX PERFSCOPE_PYTHON_SAMPLES_TID ON PERFSCOPE_PYTHON_SAMPLES(globalTid, timestamp);\n";
