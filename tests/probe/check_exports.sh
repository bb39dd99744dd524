#!/bin/sh
# Checks what libperfscope_probe.so shows the programs it is injected into: only the injection entry points and
# the language hooks' PerfscopeHookApi
# are exported, and nothing from CUDA is linked (libcupti is dlopen'ed at run time).
# Usage: check_exports.sh LIBRARY SYMBOL...
lib=$1
shift
want=$(printf '%s\n' "$@" | sort)
got=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort)
if [ "$got" != "$want" ]; then
    echo "exported symbols of $lib:"; echo "$got"; echo "expected:"; echo "$want"
    exit 1
fi
if readelf -d "$lib" | grep NEEDED | grep -E -i 'cuda|cupti|nvidia|nvtx'; then
    echo "$lib links a CUDA library (it must be loaded at run time)"
    exit 1
fi
exit 0
