#!/usr/bin/env bash
# The carried build of the GPU check: the files tests/gpu/run.sh runs, copied from a build of this tree into DEST in
# the build's own layout (perfscope finds its probe and the Python hook beside it: probe/, probe/python/), debug info
# stripped. The GPU host needs only glibc, libstdc++ and libgcc_s: SQLite, yajl, zlib and ncurses are linked in
# statically (checked here with ldd), the CUDA runtime of train and cuda_kernels too; simdjson, which Debian ships
# only as a shared library, is carried in DEST/lib (run.sh puts it on LD_LIBRARY_PATH); libcupti and NVML come from
# the GPU host (its driver, its CUDA toolkit or its PyTorch wheel). The rest run.sh needs is in the source tree
# (tests/gpu, tests/cupti/cuda_program_test.sh, workloads/pytorch/train_loader.py), which travels with it.
# Usage: tests/gpu/pack.sh [BUILD_DIR [DEST]]   (defaults: build, build-gpu; DEST is under .gitignore's /build*/)
set -eu
BUILD=${1:-build}
DEST=${2:-build-gpu}
die() { echo "pack.sh: $*" >&2; exit 1; }
[ -f "$BUILD/CMakeCache.txt" ] || die "$BUILD is not a build directory (cmake -S . -B $BUILD -G Ninja && ninja -C $BUILD)"
grep -q '^PS_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" && die "$BUILD is a sanitizer build: carry a plain one"
files=(cli/perfscope probe/libperfscope_probe.so workloads/train tests/cupti/cuda_kernels probe/python/sitecustomize.py)
for f in "$BUILD"/probe/python/perfscope_hook/*.py; do files+=("${f#"$BUILD"/}"); done
missing=()
for f in "${files[@]}"; do [ -e "$BUILD/$f" ] || missing+=("$f"); done
# cuda_kernels exists only where nvcc built it; the rest is required
for f in "${missing[@]}"; do [ "$f" = tests/cupti/cuda_kernels ] || die "$BUILD/$f missing (build the whole tree first)"; done
[ ${#missing[@]} -eq 0 ] || echo "pack.sh: warning: $BUILD/tests/cupti/cuda_kernels missing (no nvcc here): run.sh's cupti_known_work_rows will fail" >&2
grep -q cudaGetDeviceCount "$BUILD/workloads/train" ||
    echo "pack.sh: warning: train has no CUDA backend (built without nvcc): it will run on the GPU host's CPU" >&2

rm -rf "$DEST"
mkdir -p "$DEST"
total=0
{
    echo "perfscope $(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo unknown), packed $(date -u +%Y-%m-%dT%H:%MZ) from $BUILD"
    for f in "${files[@]}"; do
        [ -e "$BUILD/$f" ] || continue
        mkdir -p "$DEST/$(dirname "$f")"
        cp "$BUILD/$f" "$DEST/$f"
        if [ "$(head -c 4 "$DEST/$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
            strip --strip-debug "$DEST/$f"
            unresolved=$(ldd "$DEST/$f" 2>&1 | grep -E 'not found' || true)
            [ -z "$unresolved" ] || die "$f: $unresolved"
            needs=$(ldd "$DEST/$f" | awk '/=>/{print $1}' | grep -vE '^(libc|libm|libstdc\+\+|libgcc_s|libdl|libpthread|librt)\.so' || true)
            for lib in $needs; do   # the carried shared libraries: copied once, into DEST/lib
                case $lib in libsimdjson.so.*) ;; *) die "$f needs $lib, which a GPU host may not have (link it statically)" ;; esac
                [ -e "$DEST/lib/$lib" ] && continue
                mkdir -p "$DEST/lib"
                cp -L "$(ldd "$DEST/$f" | awk -v l="$lib" '$1 == l {print $3}')" "$DEST/lib/$lib"
                echo "$(stat -c %s "$DEST/lib/$lib") lib/$lib"
                total=$((total + $(stat -c %s "$DEST/lib/$lib")))
            done
        fi
        size=$(stat -c %s "$DEST/$f")
        total=$((total + size))
        echo "$size $f"
    done
    echo "$total bytes in all"
} >"$DEST/MANIFEST.txt"
n=$(( $(wc -l <"$DEST/MANIFEST.txt") - 2 ))
echo "pack.sh: $DEST: $n files, $total bytes ($(( (total + 524288) >> 20 )) MiB); carry it and run there:"
echo "    tests/gpu/run.sh $DEST"
