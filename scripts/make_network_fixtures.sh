#!/usr/bin/env bash
# Functional connectomes from the real HCP resting-state BOLD in ../shared/data/networks/hcp_schaefer100:
# full-run Pearson FC of 2 subjects × 2 runs, and three non-overlapping 400-volume windows of each run
# (connectome-fingerprinting material: the label is the subject). Written with BrainLens's own
# `network from-timeseries` into fixtures/networks/fc/.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:-../shared/data/networks/hcp_schaefer100}
cargo build --quiet --release --bin brainlens
OUT=fixtures/networks/fc
mkdir -p "$OUT"
for sub in 100206 100307; do
    for run in REST1 REST2; do
        ts="$SRC/sub-${sub}_${run}_LR_bold.npz"
        target/release/brainlens network from-timeseries "$ts" --out "$OUT/sub-${sub}_${run}_fc.npy"
        for w in 0 1 2; do
            target/release/brainlens network from-timeseries "$ts" --first $((w * 400)) --count 400 --out "$OUT/sub-${sub}_${run}_win${w}_fc.npy"
        done
    done
done
