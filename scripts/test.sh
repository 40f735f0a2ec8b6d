#!/usr/bin/env bash
# Runs every test: the Rust unit, integration and GUI (egui_kittest) tests, then the reference checks
# against pyedflib and MNE in a Python venv (created on first use under target/ref-venv).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --all-targets

VENV=target/ref-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import pyedflib, mne" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r scripts/reference/requirements.txt
fi
cargo build --quiet --bin brainlens
"$VENV/bin/python" scripts/reference/edf_reference.py --check target/debug/brainlens
