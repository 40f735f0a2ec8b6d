#!/usr/bin/env bash
# Builds the shipped CARD case memory assets/cases/hcp_fingerprint from the real HCP resting-state BOLD
# fixtures: 2 subjects × 2 runs, sliding windows of 400 volumes every 200 (5 per run) → 20 Pearson functional
# connectomes (Schaefer-100). Label = subject (connectome fingerprinting), group = subject_run (evaluation
# leaves the query's own run out). Reports are template-written (no model); report embeddings use MiniLM.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin brainlens
BL=target/release/brainlens
OUT=assets/cases/hcp_fingerprint
rm -rf "$OUT" && mkdir -p "$OUT/graphs"
echo "file,label,group" > "$OUT/labels.csv"
for sub in 100206 100307; do
    for run in REST1 REST2; do
        for first in 0 200 400 600 800; do
            name="sub-${sub}_${run}_t${first}.npy"
            $BL network from-timeseries "fixtures/networks/sub-${sub}_${run}_LR_bold.npz" --out "$OUT/graphs/$name" \
                --first "$first" --count 400 >/dev/null
            echo "$name,sub-$sub,sub-${sub}_$run" >> "$OUT/labels.csv"
        done
    done
done
$BL cases build --graphs "$OUT/graphs" --labels "$OUT/labels.csv" --task fingerprint --atlas schaefer100 --out "$OUT"
$BL cases eval --memory "$OUT"

# The learned encoder for comparison (not shipped: the baseline retrieves better on this memory). Trained
# self-supervised on the same 20 graphs (labels unused), then the same leave-one-run-out evaluation.
$BL gfm train --graphs "$OUT/labels.csv" --out target/gfm/model.safetensors --epochs 150 --seed 0
$BL cases build --graphs "$OUT/graphs" --labels "$OUT/labels.csv" --task fingerprint --atlas schaefer100 \
    --gfm target/gfm/model.safetensors --out target/gfm
$BL cases eval --memory target/gfm
