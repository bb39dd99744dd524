"""ctypes binding of libperfscope_probe.so's PerfscopeHookApi table (probe/hook_api.h, version 1).

The functions are called as PYFUNCTYPE: they keep the GIL (each returns in well under a microsecond and never
blocks), which makes a call cheaper than a GIL round trip. The hot ones (now, push, pop, mark) are declared
without argtypes: ctypes then passes a bytes object as its char* directly instead of calling a from_param per
argument (several times cheaper per call); their callers pass bytes only. Strings are bytes; the probe caches them by address, so callers pass the same
bytes object for the same name.
"""
import ctypes
import os

_VERSION = 1


class _Api(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("now", ctypes.c_void_p), ("push", ctypes.c_void_p), ("push_attr", ctypes.c_void_p),
                ("pop", ctypes.c_void_p),
                ("range", ctypes.c_void_p), ("mark", ctypes.c_void_p), ("name_category", ctypes.c_void_p)]


class Probe:
    """The probe the recording injected (NVTX_INJECTION64_PATH, set by perfscope record); raises OSError when
    it cannot be loaded or cannot record (not under perfscope record)."""

    def __init__(self, path=None):
        path = path or os.environ.get("NVTX_INJECTION64_PATH")
        if not path:
            raise OSError("NVTX_INJECTION64_PATH is not set (not under perfscope record)")
        self._lib = ctypes.CDLL(path)
        get = self._lib.PerfscopeHookApi
        get.restype = ctypes.POINTER(_Api)
        get.argtypes = [ctypes.c_uint32]
        table = get(_VERSION)
        if not table:
            raise OSError("the probe cannot record here (see PERFSCOPE_LOG)")
        a = table.contents
        if a.version != _VERSION or a.size < ctypes.sizeof(_Api):
            raise OSError("the probe's hook table is version %d, size %d" % (a.version, a.size))
        F = ctypes.PYFUNCTYPE
        u64, c_str = ctypes.c_uint64, ctypes.c_char_p
        self.now = F(u64)(a.now)
        self.push = F(ctypes.c_int)(a.push)                     # push(bytes): no argtypes, see above
        self.push_attr = F(ctypes.c_int, c_str, ctypes.c_uint32, ctypes.c_int64)(a.push_attr)
        self.pop = F(ctypes.c_int)(a.pop)
        self.range = F(None, c_str, u64, u64)(a.range)
        self.mark = F(None)(a.mark)                             # mark(bytes, bytes): no argtypes, see above
        self.name_category = F(None, ctypes.c_uint32, c_str)(a.name_category)
