#!/usr/bin/env bash
# Sets up and launches BrainLens (release build) on the bundled sample workspace, or on the arguments given.
# On a fresh Debian machine it installs what the window and the build need with apt (as root, or with sudo
# when it needs no password; it says what it installs) — otherwise it prints the exact apt-get line — and
# fetches the model files into the model cache when they are missing (scripts/setup_models.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() { # packages...
    if [ "$(id -u)" = 0 ]; then
        echo "Installing with apt-get: $*"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        echo "Installing with sudo apt-get: $*"
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    else
        echo "BrainLens needs these system packages; install them and run this again:" >&2
        echo "    sudo apt-get install -y $*" >&2
        exit 1
    fi
}

# The window's runtime libraries (GL, EGL, X11 input) and what the build loads: llama.cpp, the local model's
# engine, is compiled from source (cmake, a C++ compiler, clang, and a libclang that bindgen accepts). One check,
# shared with .ci/run and `brainlens doctor`: scripts/system_deps.sh.
mapfile -t missing < <(scripts/system_deps.sh all)
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
    mapfile -t still < <(scripts/system_deps.sh all)
    if [ ${#still[@]} -gt 0 ]; then
        echo "Still missing after the install: ${still[*]}" >&2
        exit 1
    fi
fi
# The models the agents and retrieval run offline (SmolLM2 GGUF, MiniLM), once, into the cache.
scripts/setup_models.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${BRAINLENS_ALLOW_NO_DISPLAY:-}" ]; then
    echo "No display found (DISPLAY/WAYLAND_DISPLAY unset). On a headless machine: apt-get install -y xvfb, then" >&2
    echo "    xvfb-run -a scripts/run.sh" >&2
    exit 1
fi
exec cargo run --release --quiet -- "$@"
