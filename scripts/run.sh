#!/usr/bin/env bash
# Launches BrainLens (release build) on the bundled sample workspace, or on the arguments given.
# Installs nothing: if a runtime library the window needs is missing, it says which apt packages to add.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for lib in libGL.so.1:libgl1 libEGL.so.1:libegl1 libX11.so.6:libx11-6 libxkbcommon-x11.so.0:libxkbcommon-x11-0 libXcursor.so.1:libxcursor1 libXi.so.6:libxi6 libXrandr.so.2:libxrandr2; do
    ldconfig -p | grep -q "${lib%%:*}" || missing+=("${lib##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "BrainLens needs these system packages to open a window:" >&2
    echo "    sudo apt-get install -y ${missing[*]} libgl1-mesa-dri" >&2
    exit 1
fi
# Building needs cmake, a C++ compiler and libclang: llama.cpp (the local model) is compiled from source.
if ! command -v cmake >/dev/null || ! command -v c++ >/dev/null || ! ldconfig -p | grep -q libclang; then
    echo "Building BrainLens compiles llama.cpp from source and needs:" >&2
    echo "    sudo apt-get install -y cmake clang libclang-dev" >&2
    exit 1
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${BRAINLENS_ALLOW_NO_DISPLAY:-}" ]; then
    echo "No display found (DISPLAY/WAYLAND_DISPLAY unset). On a headless machine: apt-get install -y xvfb, then" >&2
    echo "    xvfb-run -a scripts/run.sh" >&2
    exit 1
fi
exec cargo run --release --quiet -- "$@"
