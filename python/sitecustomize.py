# perfscope's Python start-up hook. `perfscope record` puts this folder first on PYTHONPATH when it records a
# Python program, so Python imports this file at start-up (site.py's sitecustomize step). It arms
# perfscope_hook, which waits for `import torch`, then runs the sitecustomize this one shadows (Debian's
# /etc/python3.11/sitecustomize.py, a virtualenv's), so the program starts exactly as it would without us.
import sys


def _perfscope_arm():
    try:
        import perfscope_hook
        perfscope_hook.arm()
    except Exception:                   # the hook never breaks the program it is in
        pass


def _perfscope_chain():
    """Run the next sitecustomize on sys.path after this folder, as site.py would have."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        if not d or os.path.abspath(d) == here:
            continue
        path = os.path.join(d, "sitecustomize.py")
        if os.path.isfile(path):
            # Run as a module of its own name, without importlib.util (12 ms of imports at every start-up).
            module = type(sys)("sitecustomize")
            module.__file__ = path
            sys.modules["sitecustomize"] = module
            with open(path, "rb") as f:
                code = compile(f.read(), path, "exec")
            exec(code, module.__dict__)         # its errors are reported by site.py, as without perfscope
            return


_perfscope_arm()
_perfscope_chain()
