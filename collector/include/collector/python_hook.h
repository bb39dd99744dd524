/* `perfscope record`'s part of the Python hook (docs/python.md): is the recorded command a Python program, and
 * the environment that loads python/sitecustomize.py (installed next to the probe) into it and its children. */
#ifndef PS_PYTHON_HOOK_H
#define PS_PYTHON_HOOK_H

#include <stddef.h>

enum ps_pyhook_mode {
    PS_PYHOOK_AUTO,     /* default: on when CMD is a Python program (ps_pyhook_is_python) */
    PS_PYHOOK_OFF,      /* --no-python-hooks, --python-hooks=off */
    PS_PYHOOK_ON,       /* --python-hooks=on: on whatever CMD is (a shell script that starts Python) */
    PS_PYHOOK_MODULES,  /* --python-hooks=modules: on, plus the forward of top-level nn.Modules */
    PS_PYHOOK_SHAPES,   /* --python-hooks=shapes: on, plus PyTorch's per-op NVTX ranges with input sizes
                         * (torch.autograd.profiler.emit_nvtx(record_shapes=True)) in the step process */
};

/* Parse a --python-hooks value ("auto", "on", "off", "modules", "shapes"). 0, or -EINVAL. */
int ps_pyhook_parse(const char *s, enum ps_pyhook_mode *out);

/* 1 when `cmd` (argv, NULL-terminated) runs Python: its program's name is python, python3, python3.11, pypy3
 * (optionally with -dbg), or `env [VAR=x | -opt]... python...`, or it is a file (found on PATH like execvp)
 * starting with a #! line naming such an interpreter directly or through env (torchrun, accelerate, a user's
 * executable train.py). 0 otherwise. Reads at most the first 256 bytes of the file; never fails. */
int ps_pyhook_is_python(char *const *cmd);

/* Apply `mode` for `cmd` to the environment CMD will get: when the hook applies, prepend <dir of probe>/python
 * to PYTHONPATH and set PERFSCOPE_PYTHON_HOOKS ("1", "modules" or "shapes"); otherwise unset PERFSCOPE_PYTHON_HOOKS.
 * `probe` is the probe's absolute path (NULL: no probe, no hook). Writes the applied mode ("off", "default",
 * "modules", "shapes") to `applied` (`len` bytes). Returns 0, or -errno (setenv failed). A Python program whose hook is
 * missing next to the probe gets a warning (ps_diag) and no hook. */
int ps_pyhook_setenv(enum ps_pyhook_mode mode, char *const *cmd, const char *probe, char *applied, size_t len);

/* How often the hook samples the Python stacks of each process's threads when `record` is not told
 * (--python-stack-hz; docs/python.md "Stack samples" and "Cost": at this rate the sampling threads took 0.5-1.1 % of
 * the CPU of the shared PyTorch examples in bench/python/stacks_overhead.sh). python/perfscope_hook/stacks.py has the
 * same default for a hook loaded without record's variable. */
#define PS_PYHOOK_STACK_HZ_DEFAULT 20

/* Tell the hook how often to sample Python stacks: PERFSCOPE_PYTHON_STACK_HZ = `hz` (samples per second, 0: never).
 * 0, or -errno (setenv failed). */
int ps_pyhook_set_stack_hz(double hz);

#endif
