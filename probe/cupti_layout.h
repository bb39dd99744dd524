/* Which CUPTI versions perfscope reads, and why that is safe. CUPTI writes each activity record in the layout of
 * the library that runs, not of the headers a tool was built with; perfscope reads CUDA 13.0's structs.
 *
 * The record structs of later 13.x releases only append fields to 13.0's (published CUPTI API reference,
 * docs.nvidia.com/cupti/api/structCUpti__Activity*.html, and the release notes):
 *   13.1  CUpti_ActivityKernel11 = Kernel10 + `priority` (in place of Kernel10's trailing padding3)
 *   13.2  CUpti_ActivityDevice6  = Device5 + `numTpcs`, reserved0
 *         CUpti_ActivityContext4 = Context3 + `processId` (listed in the 13.2.1 API reference)
 *   13.3  CUpti_ActivityKernel12 = Kernel11 + `executionModel`
 *   13.4  CUpti_ActivityKernel13 = Kernel12 + sourceGraphId, padding6, sourceGraphNodeId
 *   unchanged through 13.4: Memcpy6, MemcpyPtoP4, Memset4, Synchronization2, API, Overhead3.
 * So every field perfscope reads (all of 13.0's but Kernel10.padding3) keeps its offset: the 13.0 struct is a
 * common prefix of the later records. tests/cupti/cupti_layout_test.c compares the offsets of the headers
 * present with the documented ones (PS_CUPTI_DOCUMENTED_OFFSETS below). A version after the last one checked
 * is refused: its layout is not known. */
#ifndef PS_CUPTI_LAYOUT_H
#define PS_CUPTI_LAYOUT_H

/* CUPTI API versions (cuptiGetVersion; CUDA 13 numbers them xxyyzz, cupti_version.h). */
#define PS_CUPTI_VERSION_FIRST 130000       /* CUDA 13.0: the structs perfscope is built with */
#define PS_CUPTI_VERSION_END 130500         /* CUDA 13.5: the first version whose layouts were not checked */
/* cuptiActivityRegisterTimestampCallback gives invalid (zero) kernel timestamps from CUDA 12.6 Update 2 until
 * this version (CUPTI release notes, "Updates in CUDA 13.1": "Fixed an issue that could cause invalid (zero)
 * kernel timestamps when using ... cuptiActivityRegisterTimestampCallback ... introduced in the CUDA 12.6
 * Update 2 release"; reproduced on 12.9, not on 13.2, pytorch/pytorch#192021). */
#define PS_CUPTI_VERSION_TIMESTAMP_CALLBACK_FIXED 130100
/* CUDA 13.0 GA (API 130000, cupti_version.h) has "a potential crash in the API cuptiActivityFlushAll" and no
 * synchronization records for cudaDeviceSynchronize() and cuCtxSynchronize_v2(), both fixed in 13.0 Update 1
 * (API 130001; NVIDIA's CUPTI 13.0 release announcement, "Updates in CUDA Toolkit 13.0 Update 1",
 * forums.developer.nvidia.com/t/341320): below this version the probe flushes only at exit and on
 * cudaDeviceReset, never periodically. */
#define PS_CUPTI_VERSION_FLUSH_FIXED 130001
/* CUDA 13 needs an R580 or newer Linux driver (580.65.06 for CUDA 13.0 GA: CUDA Toolkit 13.0 release notes, driver
 * table); the driver's major number is compared with this when CUPTI fails to start. */
#define PS_CUDA13_DRIVER_MAJOR 580

/* X(struct, field, documented byte offset on x86_64/aarch64 LP64): the fields the converter reads, with the
 * offsets that the field order and types of the published 13.0-13.4 struct pages give (hand-computed with C's
 * alignment rules; `cacheConfig` is one byte, enums are 4 bytes, pointers 8). */
#define PS_CUPTI_DOCUMENTED_OFFSETS(X) \
    X(CUpti_ActivityKernel10, kind, 0) X(CUpti_ActivityKernel10, cacheConfig, 4) \
    X(CUpti_ActivityKernel10, registersPerThread, 6) X(CUpti_ActivityKernel10, start, 16) \
    X(CUpti_ActivityKernel10, end, 24) X(CUpti_ActivityKernel10, deviceId, 40) \
    X(CUpti_ActivityKernel10, contextId, 44) X(CUpti_ActivityKernel10, streamId, 48) \
    X(CUpti_ActivityKernel10, gridX, 52) X(CUpti_ActivityKernel10, gridY, 56) X(CUpti_ActivityKernel10, gridZ, 60) \
    X(CUpti_ActivityKernel10, blockX, 64) X(CUpti_ActivityKernel10, blockY, 68) \
    X(CUpti_ActivityKernel10, blockZ, 72) X(CUpti_ActivityKernel10, staticSharedMemory, 76) \
    X(CUpti_ActivityKernel10, dynamicSharedMemory, 80) X(CUpti_ActivityKernel10, localMemoryPerThread, 84) \
    X(CUpti_ActivityKernel10, localMemoryTotal, 88) X(CUpti_ActivityKernel10, correlationId, 92) \
    X(CUpti_ActivityKernel10, gridId, 96) X(CUpti_ActivityKernel10, name, 104) \
    X(CUpti_ActivityKernel10, launchType, 136) X(CUpti_ActivityKernel10, sharedMemoryExecuted, 140) \
    X(CUpti_ActivityKernel10, graphNodeId, 144) X(CUpti_ActivityKernel10, shmemLimitConfig, 152) \
    X(CUpti_ActivityKernel10, graphId, 156) X(CUpti_ActivityKernel10, clusterX, 176) \
    X(CUpti_ActivityKernel10, clusterY, 180) X(CUpti_ActivityKernel10, clusterZ, 184) \
    X(CUpti_ActivityKernel10, clusterSchedulingPolicy, 188) X(CUpti_ActivityKernel10, localMemoryTotal_v2, 192) \
    X(CUpti_ActivityMemcpy6, kind, 0) X(CUpti_ActivityMemcpy6, copyKind, 4) X(CUpti_ActivityMemcpy6, srcKind, 5) \
    X(CUpti_ActivityMemcpy6, dstKind, 6) X(CUpti_ActivityMemcpy6, flags, 7) X(CUpti_ActivityMemcpy6, bytes, 8) \
    X(CUpti_ActivityMemcpy6, start, 16) X(CUpti_ActivityMemcpy6, end, 24) X(CUpti_ActivityMemcpy6, deviceId, 32) \
    X(CUpti_ActivityMemcpy6, contextId, 36) X(CUpti_ActivityMemcpy6, streamId, 40) \
    X(CUpti_ActivityMemcpy6, correlationId, 44) X(CUpti_ActivityMemcpy6, runtimeCorrelationId, 48) \
    X(CUpti_ActivityMemcpy6, graphNodeId, 64) X(CUpti_ActivityMemcpy6, graphId, 72) \
    X(CUpti_ActivityMemcpy6, copyCount, 88) \
    X(CUpti_ActivityMemcpyPtoP4, bytes, 8) X(CUpti_ActivityMemcpyPtoP4, start, 16) \
    X(CUpti_ActivityMemcpyPtoP4, srcDeviceId, 44) X(CUpti_ActivityMemcpyPtoP4, srcContextId, 48) \
    X(CUpti_ActivityMemcpyPtoP4, dstDeviceId, 52) X(CUpti_ActivityMemcpyPtoP4, dstContextId, 56) \
    X(CUpti_ActivityMemcpyPtoP4, correlationId, 60) X(CUpti_ActivityMemcpyPtoP4, graphNodeId, 72) \
    X(CUpti_ActivityMemcpyPtoP4, graphId, 80) \
    X(CUpti_ActivityMemset4, value, 4) X(CUpti_ActivityMemset4, bytes, 8) X(CUpti_ActivityMemset4, start, 16) \
    X(CUpti_ActivityMemset4, correlationId, 44) X(CUpti_ActivityMemset4, flags, 48) \
    X(CUpti_ActivityMemset4, memoryKind, 50) X(CUpti_ActivityMemset4, graphNodeId, 64) \
    X(CUpti_ActivityMemset4, graphId, 72) \
    X(CUpti_ActivitySynchronization2, type, 4) X(CUpti_ActivitySynchronization2, start, 8) \
    X(CUpti_ActivitySynchronization2, end, 16) X(CUpti_ActivitySynchronization2, correlationId, 24) \
    X(CUpti_ActivitySynchronization2, contextId, 28) X(CUpti_ActivitySynchronization2, streamId, 32) \
    X(CUpti_ActivitySynchronization2, cudaEventId, 36) X(CUpti_ActivitySynchronization2, cudaEventSyncId, 40) \
    X(CUpti_ActivitySynchronization2, returnValue, 48) \
    X(CUpti_ActivityAPI, cbid, 4) X(CUpti_ActivityAPI, start, 8) X(CUpti_ActivityAPI, end, 16) \
    X(CUpti_ActivityAPI, processId, 24) X(CUpti_ActivityAPI, threadId, 28) X(CUpti_ActivityAPI, correlationId, 32) \
    X(CUpti_ActivityAPI, returnValue, 36) \
    X(CUpti_ActivityDevice5, globalMemoryBandwidth, 8) X(CUpti_ActivityDevice5, globalMemorySize, 16) \
    X(CUpti_ActivityDevice5, constantMemorySize, 24) X(CUpti_ActivityDevice5, l2CacheSize, 28) \
    X(CUpti_ActivityDevice5, numThreadsPerWarp, 32) X(CUpti_ActivityDevice5, coreClockRate, 36) \
    X(CUpti_ActivityDevice5, numMemcpyEngines, 40) X(CUpti_ActivityDevice5, numMultiprocessors, 44) \
    X(CUpti_ActivityDevice5, maxIPC, 48) X(CUpti_ActivityDevice5, maxWarpsPerMultiprocessor, 52) \
    X(CUpti_ActivityDevice5, maxBlocksPerMultiprocessor, 56) \
    X(CUpti_ActivityDevice5, maxSharedMemoryPerMultiprocessor, 60) \
    X(CUpti_ActivityDevice5, maxRegistersPerMultiprocessor, 64) X(CUpti_ActivityDevice5, maxRegistersPerBlock, 68) \
    X(CUpti_ActivityDevice5, maxSharedMemoryPerBlock, 72) X(CUpti_ActivityDevice5, maxThreadsPerBlock, 76) \
    X(CUpti_ActivityDevice5, maxBlockDimX, 80) X(CUpti_ActivityDevice5, maxGridDimZ, 100) \
    X(CUpti_ActivityDevice5, computeCapabilityMajor, 104) X(CUpti_ActivityDevice5, computeCapabilityMinor, 108) \
    X(CUpti_ActivityDevice5, id, 112) X(CUpti_ActivityDevice5, uuid, 120) X(CUpti_ActivityDevice5, name, 136) \
    X(CUpti_ActivityDevice5, isCudaVisible, 144) X(CUpti_ActivityDevice5, isMigEnabled, 145) \
    X(CUpti_ActivityDevice5, gpuInstanceId, 152) X(CUpti_ActivityDevice5, computeInstanceId, 156) \
    X(CUpti_ActivityDevice5, migUuid, 160) \
    X(CUpti_ActivityContext3, contextId, 4) X(CUpti_ActivityContext3, deviceId, 8) \
    X(CUpti_ActivityContext3, nullStreamId, 14) X(CUpti_ActivityContext3, parentContextId, 16) \
    X(CUpti_ActivityContext3, isGreenContext, 20) X(CUpti_ActivityContext3, numMultiprocessors, 22) \
    X(CUpti_ActivityOverhead3, overheadKind, 4) X(CUpti_ActivityOverhead3, objectKind, 8) \
    X(CUpti_ActivityOverhead3, objectId, 12) X(CUpti_ActivityOverhead3, start, 24) \
    X(CUpti_ActivityOverhead3, end, 32) X(CUpti_ActivityOverhead3, correlationId, 40)

#endif
