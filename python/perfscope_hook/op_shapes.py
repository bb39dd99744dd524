"""Mode "shapes": one range per PyTorch operator with its inputs' sizes, dtypes, strides and scalar values, so
that `perfscope report` can model each op's FLOPs and bytes (docs/op-perf-roofline.md "Recorded runs").

A TorchDispatchMode (torch.utils._python_dispatch) sees every ATen op below autograd, on CPU and GPU alike, with
its real arguments: the forward ops (aten::addmm, aten::convolution, aten::native_layer_norm, ...) and the backward
ones (aten::convolution_backward, aten::native_layer_norm_backward, the mm's of a linear's gradient). Each call is
wrapped in a range whose text is

  NAME, dims = [...], types = [...], strides = [...], concrete = [...]

the four lists holding one item per argument of the op's schema (defaults filled in) as the PyTorch profiler's
Kineto traces print "Input Dims", "Input type", "Input Strides" and "Concrete Inputs" (Python's str() of the list):

  aten::addmm, dims = [[32], [8, 16], [16, 32], [], []], types = ['float', 'float', 'float', 'Scalar', 'Scalar'],
  strides = [[1], [16, 1], [1, 16], [], []], concrete = ['', '', '', '1', '1']

A tensor gives its sizes, its dtype as c10 names it ('float', 'c10::BFloat16') and its strides; a number 'Scalar'
with its value; a list of numbers 'ScalarList' with its value; None and anything else [] and ''. The kernels an op
launches run inside its range, so the report links them by correlation id. Costs a Python call per op.
"""
import threading

_DTYPES = {}        # torch.dtype -> Kineto's "Input type" name (c10's ScalarType names)


def _dtype_names(torch):
    names = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
             "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
             "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>", "float8_e4m3fn": "c10::Float8_e4m3fn",
             "float8_e5m2": "c10::Float8_e5m2", "float8_e4m3fnuz": "c10::Float8_e4m3fnuz"}
    for attr, name in names.items():
        dt = getattr(torch, attr, None)
        if dt is not None:
            _DTYPES[dt] = name


def _item(torch, v):
    """(dims, type, strides, concrete) of one argument."""
    if isinstance(v, torch.Tensor):
        try:
            strides = list(v.stride())
        except Exception:           # sparse and other layouts without strides
            strides = []
        return list(v.shape), _DTYPES.get(v.dtype, str(v.dtype)), strides, ""
    if isinstance(v, bool):
        return [], "Scalar", [], str(v)
    if isinstance(v, (int, float)):
        return [], "Scalar", [], repr(v)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, (bool, int, float)) for x in v):
        return [], "ScalarList", [], str(list(v))
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, torch.Tensor) for x in v):
        return [], "TensorList", [], ""
    return [], "", [], ""


def op_text(torch, func, args, kwargs):
    """The range text of one call of `func` (an OpOverload) with args and kwargs."""
    dims, types, strides, concrete = [], [], [], []
    for i, a in enumerate(func._schema.arguments):
        if i < len(args) and not a.kwarg_only:
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        else:
            v = a.default_value if a.has_default_value() else None
        d, t, s, c = _item(torch, v)
        dims.append(d)
        types.append(t)
        strides.append(s)
        concrete.append(c)
    return "%s, dims = %s, types = %s, strides = %s, concrete = %s" % (func._schema.name, dims, types, strides,
                                                                        concrete)


def make_mode(torch, core):
    """A TorchDispatchMode that records each op through core.p (the probe); raises when torch has none."""
    from torch.utils._python_dispatch import TorchDispatchMode
    _dtype_names(torch)

    class OpShapes(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            p = core.p
            if p is None:
                return func(*args, **kwargs)
            try:
                p.push(op_text(torch, func, args, kwargs).encode("utf-8", "replace"))
            except Exception as e:
                core.off("operator shapes", e)
                return func(*args, **kwargs)
            try:
                return func(*args, **kwargs)
            finally:
                core.pop()
    return OpShapes()


_entered = threading.local()


def enter(torch, core, log):
    """Enter the mode in the calling thread (once); False when it cannot be (logged)."""
    if getattr(_entered, "mode", None) is not None:
        return True
    try:
        m = make_mode(torch, core)
        m.__enter__()
        _entered.mode = m
        log("operator shapes on (TorchDispatchMode, thread %d)" % threading.get_ident())
        return True
    except Exception as e:
        log("cannot record operator shapes (%r)" % (e,))
        return False
