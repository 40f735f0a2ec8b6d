#!/usr/bin/env bash
# The system packages BrainLens needs that this machine lacks: the one check that scripts/run.sh, .ci/run,
# scripts/test.sh and `brainlens doctor` (which embeds this file) share.
#
#   scripts/system_deps.sh [--ldconfig FILE] [--bin-dir DIR] window|build|all
#
# Prints the Debian packages to install, one per line (nothing when all is there); always exits 0 unless the
# arguments are wrong (exit 2).
#   window  the window's runtime libraries (GL, EGL, X11 input), found in the loader's cache (`ldconfig -p`);
#   build   what compiling llama.cpp (llama-cpp-sys-2) loads: a libclang that bindgen's clang-sys accepts
#           (`libclang.so`, `libclang-N.so`, `libclang.so.N`, `libclang-N.so.N`; never libclang-cpp, a
#           different library that Debian ships on its own), a clang that runs, a cmake that runs and a C++
#           compiler that runs.
# --ldconfig FILE reads a saved `ldconfig -p` listing instead of this machine's; --bin-dir DIR looks for the
# commands only in DIR (the tests use both, on listings saved from a machine with and without libclang-dev).
set -uo pipefail

listing_file="" bin_dir="" what=""
while [ $# -gt 0 ]; do
    case "$1" in
        --ldconfig) listing_file="${2:-}"; shift 2 || exit 2 ;;
        --bin-dir) bin_dir="${2:-}"; shift 2 || exit 2 ;;
        window | build | all) what="$1"; shift ;;
        *) echo "usage: system_deps.sh [--ldconfig FILE] [--bin-dir DIR] window|build|all" >&2; exit 2 ;;
    esac
done
[ -n "$what" ] || { echo "usage: system_deps.sh [--ldconfig FILE] [--bin-dir DIR] window|build|all" >&2; exit 2; }

if [ -n "$listing_file" ]; then
    listing=$(cat "$listing_file") || exit 2
else
    listing=$( (ldconfig -p || /sbin/ldconfig -p) 2>/dev/null)
fi
# The library names the loader knows, one per line ("libGL.so.1 (libc6,x86-64) => /path" → "libGL.so.1").
names=$(printf '%s\n' "$listing" | sed -n 's/^[[:space:]]*\([^[:space:]]*\) (.*$/\1/p')

# A command that runs: `NAME --version` exits 0 (a dangling alternative or a broken install does not).
runs() {
    if [ -n "$bin_dir" ]; then
        [ -x "$bin_dir/$1" ] && "$bin_dir/$1" --version >/dev/null 2>&1
    else
        command -v "$1" >/dev/null 2>&1 && "$1" --version >/dev/null 2>&1
    fi
}

window() {
    local lib
    for lib in libGL.so.1:libgl1 libEGL.so.1:libegl1 libX11.so.6:libx11-6 libxkbcommon-x11.so.0:libxkbcommon-x11-0 \
        libXcursor.so.1:libxcursor1 libXi.so.6:libxi6 libXrandr.so.2:libxrandr2; do
        grep -qxF "${lib%%:*}" <<<"$names" || echo "${lib##*:}"
    done
    # The software GL driver (Mesa's llvmpipe) that a machine without a GPU, or Xvfb, renders with.
    if [ -z "$listing_file" ] && [ -z "$bin_dir" ]; then
        compgen -G "/usr/lib/*/dri/swrast_dri.so" >/dev/null || compgen -G "/usr/lib/*/dri/*_dri.so" >/dev/null \
            || compgen -G "/usr/lib/*/libgallium*.so" >/dev/null || echo libgl1-mesa-dri
    fi
}

# clang-sys (bindgen) loads the first of these names it finds; LIBCLANG_PATH, when set, is searched as well.
libclang_found() {
    grep -Eq '^libclang(-[0-9][0-9.]*)?\.so(\.[0-9][0-9.]*)?$' <<<"$names" && return 0
    if [ -z "$listing_file" ]; then
        local dir
        for dir in ${LIBCLANG_PATH:-} /usr/lib/llvm-*/lib /usr/local/lib; do
            compgen -G "$dir/libclang.so*" >/dev/null && return 0
            compgen -G "$dir/libclang-[0-9]*.so*" >/dev/null && return 0
        done
    fi
    return 1
}

build() {
    libclang_found || echo libclang-dev
    runs clang || echo clang
    runs cmake || echo cmake
    runs c++ || echo g++
}

case "$what" in
    window) window ;;
    build) build ;;
    all) window; build ;;
esac
exit 0
