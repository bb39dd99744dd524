#!/usr/bin/env bash
# Build perfscope's Python wheel offline from Debian's packages, for `pip install` into a virtual environment
# (README: Install). The wheel holds the installed tree (`cmake --install`) of the data scheme, which pip maps
# onto the environment's prefix: bin/perfscope comes from the wheel's .data/scripts (as py-spy ships its binary),
# the probe and the Python hook land in <prefix>/lib/perfscope/, where record looks relative to its binary
# (collector/session.c: ps_session_find_probe). Libraries Debian ships only shared (libsimdjson) are bundled in
# lib/perfscope/libs/ behind an $ORIGIN run path (patchelf); SQLite, yajl, zlib and ncurses are linked in already.
#
#   usage: scripts/build-wheel.sh [-B BUILD_DIR] [-o OUT_DIR]
#   BUILD_DIR  a plain (not sanitizer) build to package; configured and built here if needed (default build-wheel/)
#   OUT_DIR    where the .whl is written (default dist/); its path is the last line printed
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-wheel
out=$src/dist
while getopts "B:o:h" opt; do
    case $opt in
    B) build=$OPTARG ;;
    o) out=$OPTARG ;;
    h) sed -n '9,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) sed -n '9,11s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
die() { echo "build-wheel: $*" >&2; exit 1; }
for tool in cmake patchelf strip objdump python3; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install cmake patchelf binutils python3)"
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# run LOG CMD...: CMD's output kept in LOG, shown (its end) only when CMD fails
run() {
    local log=$stage/$1
    shift
    "$@" >"$log" 2>&1 || { tail -n 20 "$log" >&2; die "$* failed"; }
}

# --- build: the binary, the probe (with the hook copied beside it) and the man page ---
if [ ! -f "$build/CMakeCache.txt" ]; then
    # the build type CI tests (RelWithDebInfo, CMakeLists.txt); the debug information is stripped below
    run configure.log cmake -S "$src" -B "$build" -G Ninja
fi
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
case $(cache PS_SANITIZE) in ON | TRUE | 1) die "$build is a sanitizer build (PS_SANITIZE=ON): package a plain one (-B)" ;; esac
case $(cache PS_NVTX_INC) in
'' | *NOTFOUND) die "$build has no probe: cmake found no NVTX headers (set PS_CUDA_ROOT)" ;;
esac
run build.log cmake --build "$build" -j "${JOBS:-$(nproc)}" --target perfscope perfscope_probe perfscope_man
version=$(cache CMAKE_PROJECT_VERSION)
[ -n "$version" ] || die "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"

# --- stage the installed tree as the wheel lays it out ---
tree=$stage/tree
run install.log cmake --install "$build" --prefix "$tree"
data=perfscope-$version.data
mkdir -p "$stage/whl/$data/scripts"
mv "$tree/bin/perfscope" "$stage/whl/$data/scripts/perfscope"
rmdir "$tree/bin"
mv "$tree" "$stage/whl/$data/data"
prefix=$stage/whl/$data/data            # what pip installs as <prefix>/
exe=$stage/whl/$data/scripts/perfscope  # ... and as <prefix>/bin/perfscope
libs=$prefix/lib/perfscope/libs
[ -f "$prefix/lib/perfscope/libperfscope_probe.so" ] || die "cmake --install put no probe in lib/perfscope/"
[ -f "$prefix/lib/perfscope/python/perfscope_hook/torch_hooks.py" ] || die "cmake --install put no Python hook"

# Libraries every glibc Linux has (the manylinux policies' list, less X11/GL which nothing here uses): linked
# from the system. Any other shared library is bundled, with its own dependencies. (The probe, preloaded into
# other programs, needs none today; one it needed would be bundled beside it, in libs/, all the same.)
system_lib() {
    case $1 in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.6 | libm.so.6 | libdl.so.2 | librt.so.1 | libpthread.so.0 | \
        libutil.so.1 | libresolv.so.2 | libstdc++.so.6 | libgcc_s.so.1) return 0 ;;
    esac
    return 1
}
# licence PATH NAME: the copyright file of the Debian package that ships PATH, beside the bundled NAME
licence() {
    local pkg
    pkg=$(dpkg-query -S "$(realpath "$1")" 2>/dev/null | head -n 1 | cut -d: -f1) || true
    [ -n "$pkg" ] && [ -f "/usr/share/doc/$pkg/copyright" ] ||
        die "no Debian copyright file for $1: a bundled library must carry its licence"
    mkdir -p "$prefix/share/doc/perfscope/bundled"
    cp "/usr/share/doc/$pkg/copyright" "$prefix/share/doc/perfscope/bundled/$2.copyright"
}
# bundle ELF RUNPATH: copy each non-system library ELF needs into libs/ and give ELF the run path RUNPATH
bundle() {
    local elf=$1 runpath=$2 name path needs=0
    while read -r name path; do
        system_lib "$name" && continue
        [ "$path" != "not" ] || die "$(basename "$elf") needs $name, which is not found"
        needs=1
        if [ ! -f "$libs/$name" ]; then
            mkdir -p "$libs"
            cp -L "$path" "$libs/$name"
            chmod 0644 "$libs/$name"
            strip --strip-unneeded "$libs/$name"
            licence "$path" "$name"
            bundle "$libs/$name" '$ORIGIN'
        fi
    done < <(ldd "$elf" | awk '$2 == "=>" {print $1, $3} $2 != "=>" && $1 !~ /^\// {print $1, "system"}')
    if [ "$needs" = 1 ]; then
        patchelf --set-rpath "$runpath" "$elf"
    elif [ -n "$(patchelf --print-rpath "$elf")" ]; then
        patchelf --remove-rpath "$elf"
    fi
}
strip "$exe"
strip --strip-unneeded "$prefix/lib/perfscope/libperfscope_probe.so"
bundle "$exe" '$ORIGIN/../lib/perfscope/libs'
bundle "$prefix/lib/perfscope/libperfscope_probe.so" '$ORIGIN/libs'
# The newest glibc symbol version any ELF file of the wheel asks for: the oldest glibc it runs on.
elfs=("$exe" "$prefix/lib/perfscope/libperfscope_probe.so")
for lib in "$libs"/*; do [ -f "$lib" ] && elfs+=("$lib"); done
glibc=$(objdump -T "${elfs[@]}" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
glibcxx=$(objdump -T "${elfs[@]}" | { grep -o 'GLIBCXX_[0-9][0-9.]*' || true; } | sed 's/GLIBCXX_//' | sort -V | tail -n 1)
[ -n "$glibc" ] || die "no GLIBC symbol version in $(basename "$exe"): objdump -T read nothing"
# linux_<machine>: the honest tag for a build not checked against a manylinux policy (auditwheel is not in Debian).
platform=linux_$(uname -m | tr -- '-.' '__')
mkdir -p "$out"
whl=$out/perfscope-$version-py3-none-$platform.whl

# --- the wheel: a zip with .dist-info/{METADATA,WHEEL,RECORD} last (PEP 427, PEP 491; binary distribution
# format in the Python packaging specifications) ---
python3 - "$stage/whl" "$whl" "$version" "$platform" "$glibc" "${glibcxx:-}" "$src/README.md" <<'EOF'
import base64, csv, hashlib, io, os, stat, sys, zipfile
root, whl, version, platform, glibc, glibcxx, readme = sys.argv[1:]
dist = f"perfscope-{version}.dist-info"
needs = f"glibc {glibc} or newer" + (f" and a libstdc++ with GLIBCXX_{glibcxx}" if glibcxx else "")
metadata = f"""Metadata-Version: 2.1
Name: perfscope
Version: {version}
Summary: where each GPU training step's time goes, and what to change (CLI, probe and PyTorch hook)
Platform: {platform}
Description-Content-Type: text/markdown

perfscope for Linux {platform.split("_", 1)[1]}: `perfscope` on PATH, its probe and Python hook in
`<prefix>/lib/perfscope/`. Needs {needs}.

{open(readme, encoding="utf-8").read()}"""
wheel = f"""Wheel-Version: 1.0
Generator: perfscope scripts/build-wheel.sh
Root-Is-Purelib: false
Tag: py3-none-{platform}
"""
# Fixed times and modes: the same tree gives the same wheel (SOURCE_DATE_EPOCH when set).
when = max(315532800, int(os.environ.get("SOURCE_DATE_EPOCH", 315532800)))
stamp = __import__("time").gmtime(when)[:6]
record = []
def add(z, name, data, mode):
    info = zipfile.ZipInfo(name, stamp)
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append((name, f"sha256={digest}", str(len(data))))
with zipfile.ZipFile(whl + ".part", "w") as z:
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names]
    for path in sorted(files):
        name = os.path.relpath(path, root)
        with open(path, "rb") as f:
            add(z, name, f.read(), 0o755 if os.stat(path).st_mode & 0o111 else 0o644)
    add(z, f"{dist}/METADATA", metadata.encode(), 0o644)
    add(z, f"{dist}/WHEEL", wheel.encode(), 0o644)
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(record + [(f"{dist}/RECORD", "", "")])
    info = zipfile.ZipInfo(f"{dist}/RECORD", stamp)
    info.external_attr = (stat.S_IFREG | 0o644) << 16
    z.writestr(info, text.getvalue(), zipfile.ZIP_DEFLATED)
os.replace(whl + ".part", whl)
EOF
echo "build-wheel: py3-none-$platform; needs glibc >= $glibc${glibcxx:+, libstdc++ GLIBCXX_$glibcxx}$(
    [ -d "$libs" ] && printf '; bundled: %s' "$(ls "$libs" | tr '\n' ' ' | sed 's/ $//')")" >&2
echo "$whl"
