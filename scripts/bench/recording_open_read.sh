#!/usr/bin/env bash
# Release-mode timing of "open a >= 500 MB BrainVision / FIF file and read its first 30-s page" against MNE
# (lazy and preload), whole processes, one run each; files TILED from real data under target/bench/bv.
# Needs the reference venv made by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens
VENV=target/ref-venv
[ -x "$VENV/bin/python" ] || { echo "run scripts/test.sh first (it creates $VENV)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time for peak memory: apt-get install -y time" >&2; exit 1; }
for fmt in vhdr fif; do
    "$VENV/bin/python" scripts/bench/recording_open_read.py target/release/brainlens target/bench/recordings "$fmt"
done
