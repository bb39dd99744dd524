"""ctypes binding of libperfscope_probe.so's PerfscopeHookApi table (probe/hook_api.h, version 2; a probe of
version 1 gives the same table without the stack-sample calls: py_frame, py_sample and sleep_until are then
None).

The functions are called as PYFUNCTYPE: they keep the GIL (each returns in well under a microsecond and never
blocks), which makes a call cheaper than a GIL round trip. The hot ones (now, push, pop, mark) are declared
without argtypes: ctypes then passes a bytes object as its char* directly instead of calling a from_param per
argument (several times cheaper per call); their callers pass bytes only. Strings are bytes; the probe caches them by address, so callers pass the same
bytes object for the same name.
"""
import ctypes
import os

_VERSION = 2


class _Api1(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("now", ctypes.c_void_p), ("push", ctypes.c_void_p), ("push_attr", ctypes.c_void_p),
                ("pop", ctypes.c_void_p),
                ("range", ctypes.c_void_p), ("mark", ctypes.c_void_p), ("name_category", ctypes.c_void_p)]


class _Api(ctypes.Structure):
    _fields_ = _Api1._fields_ + [("py_frame", ctypes.c_void_p), ("py_sample", ctypes.c_void_p),
                                 ("sleep_until", ctypes.c_void_p)]


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
        table = get(_VERSION) or get(1)     # a probe of version 1 refuses 2
        if not table:
            raise OSError("the probe cannot record here (see PERFSCOPE_LOG)")
        a = table.contents
        if a.version < 1 or a.size < ctypes.sizeof(_Api1):
            raise OSError("the probe's hook table is version %d, size %d" % (a.version, a.size))
        full = a.version >= 2 and a.size >= ctypes.sizeof(_Api)
        F = ctypes.PYFUNCTYPE
        u64, c_str = ctypes.c_uint64, ctypes.c_char_p
        self.now = F(u64)(a.now)
        self.push = F(ctypes.c_int)(a.push)                     # push(bytes): no argtypes, see above
        self.push_attr = F(ctypes.c_int, c_str, ctypes.c_uint32, ctypes.c_int64)(a.push_attr)
        self.pop = F(ctypes.c_int)(a.pop)
        self.range = F(None, c_str, u64, u64)(a.range)
        self.mark = F(None)(a.mark)                             # mark(bytes, bytes): no argtypes, see above
        self.name_category = F(None, ctypes.c_uint32, c_str)(a.name_category)
        u32 = ctypes.c_uint32
        # Stack samples (stacks.py), a few calls per sample: argtypes are worth their cost here.
        self.py_frame = F(ctypes.c_int, u32, c_str, u32, c_str)(a.py_frame) if full else None
        self.py_sample = F(ctypes.c_int, u64, u32, c_str, u32, u32)(a.py_sample) if full else None
        # CFUNCTYPE: the GIL is let go while it sleeps.
        self.sleep_until = (ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_ulong)(a.sleep_until)
                            if full else None)
