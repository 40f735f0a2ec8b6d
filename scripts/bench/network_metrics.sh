#!/usr/bin/env bash
# Release timing of the bctpy metric bundle; needs the reference venv made by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens --example metric_bundle
target/ref-venv/bin/python scripts/bench/network_metrics.py target/release/brainlens target/release/examples/metric_bundle "$@"
