#!/usr/bin/env bash
# Band power of every channel of the 616 MB, 61-channel, 5.6-h EDF+ (written by open_read.sh) vs MNE + scipy,
# whole processes, and Welch of one channel in memory vs scipy. Needs the reference venv (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens --example tile_recording --example welch_one
mkdir -p target/bench
[ -f target/bench/tiled_5.6h.edf ] || target/release/examples/tile_recording fixtures/eeg/mne_sample_eeg60.edf target/bench/tiled_5.6h.edf 5.6
target/ref-venv/bin/python scripts/bench/bandpower.py target/release/brainlens target/bench/tiled_5.6h.edf
