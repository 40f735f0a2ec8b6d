#!/usr/bin/env bash
# Bench runner throughput (issue 9's target: N = 8 at least 6× faster than N = 1), release build, whole
# processes: the generated local suite replayed from a scripted transcript with every model call delayed by
# 1 s (BRAINLENS_REPLAY_DELAY_MS=1000), i.e. a model of known latency; the agent's tools and the scoring run
# for real. LIMIT instances (default 24; 5 model calls each). The transcript is recorded by the ignored test
# bench_runner::record_for_benchmark (debug build: the requests are the same in any profile).
set -euo pipefail
cd "$(dirname "$0")/../.."
LIMIT=${LIMIT:-24}
DIR=target/runner-bench
BRAINLENS_BENCH_DIR="$PWD/$DIR" cargo test --quiet --test bench_runner record_for_benchmark -- --ignored >/dev/null
cargo build --release --quiet --bin brainlens
run() {
  rm -f "$DIR/n$1.json"; rm -rf "$DIR/n$1.json.workspaces"
  local t0=$(date +%s.%N)
  BRAINLENS_REPLAY_DELAY_MS=1000 target/release/brainlens bench run "$DIR/suite" --provider replay \
    --transcript "$DIR/transcript.jsonl" --concurrency "$1" --limit "$LIMIT" --out "$DIR/n$1.json" >/dev/null 2>&1
  python3 -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" "$(date +%s.%N)" "$t0"
}
T1=$(run 1)
T8=$(run 8)
python3 - "$T1" "$T8" "$LIMIT" <<'PY'
import sys
t1, t8, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"bench run, {n} instances, 1 s per model call: N=1 {t1:.1f} s, N=8 {t8:.1f} s, speed-up {t1 / t8:.2f}x (target >= 6x)")
sys.exit(0 if t1 / t8 >= 6 else 1)
PY
