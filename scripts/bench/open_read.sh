#!/usr/bin/env bash
# Release-mode timing of "open a long EDF and read a 30-s page at minute 300" against pyedflib and MNE,
# as whole processes. Writes the tiled test files under target/bench (5.6 h ≈ 600 MB; 0.5 h ≈ 50 MB;
# with HUGE=1 also 47 h ≈ 5 GB). Needs the reference venv made by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens --example tile_recording
mkdir -p target/bench
SRC=fixtures/eeg/mne_sample_eeg60.edf
[ -f target/bench/tiled_5.6h.edf ] || target/release/examples/tile_recording "$SRC" target/bench/tiled_5.6h.edf 5.6
[ -f target/bench/tiled_0.5h.edf ] || target/release/examples/tile_recording "$SRC" target/bench/tiled_0.5h.edf 0.5
HUGE_FILE=""
if [ "${HUGE:-0}" = 1 ]; then
    [ -f target/bench/tiled_47h.edf ] || target/release/examples/tile_recording "$SRC" target/bench/tiled_47h.edf 47
    HUGE_FILE=target/bench/tiled_47h.edf
fi
VENV=target/ref-venv
[ -x "$VENV/bin/python" ] || { echo "run scripts/test.sh first (it creates $VENV)" >&2; exit 1; }
"$VENV/bin/python" scripts/bench/open_read.py target/release/brainlens target/bench/tiled_5.6h.edf target/bench/tiled_0.5h.edf $HUGE_FILE --runs "${RUNS:-7}"
