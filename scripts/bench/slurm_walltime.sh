#!/usr/bin/env bash
# Wall time of the 54-instance local suite on the real one-node Slurm (scripts/slurm/local-cluster.sh) as 1
# and as 4 array tasks, each task a `bench run --concurrency 2` (its own workers) on 1 CPU, against the same
# run unsharded in one process. The suite is replayed from the scripted transcript with every model call
# delayed DELAY_MS (default 200 ms: a model of known latency; the tools and the scoring run for real). Wall
# time = from `bench slurm --submit` until `--status` reports the merge COMPLETED (polled every 0.5 s).
# The merged files are checked to hold the unsharded run's instances with the same scores.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=target/slurm-bench
DELAY=${DELAY_MS:-200}
BRAINLENS_BENCH_DIR="$PWD/$DIR" cargo test --quiet --test bench_runner record_for_benchmark -- --ignored >/dev/null
cargo build --release --quiet --bin brainlens
scripts/slurm/local-cluster.sh start >/dev/null
eval "$(scripts/slurm/local-cluster.sh env)"
B="$PWD/target/release/brainlens"
T="$PWD/$DIR/transcript.jsonl"
secs() { python3 -c "import time; print(time.time())"; }
t0=$(secs)
BRAINLENS_REPLAY_DELAY_MS=$DELAY "$B" bench run "$DIR/suite" --provider replay --transcript "$T" --concurrency 2 \
    --out "$DIR/unsharded.json" >/dev/null 2>&1
t_un=$(python3 -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" "$(secs)" "$t0")
for n in 1 4; do
    rm -rf "$DIR/s$n"
    t0=$(secs)
    BRAINLENS_REPLAY_DELAY_MS=$DELAY "$B" bench slurm "$DIR/suite" --shards "$n" --out-dir "$DIR/s$n" --submit \
        --cpus 1 --mem 2G --time 00:30:00 -- --provider replay --transcript "$T" --concurrency 2 >/dev/null
    python3 - "$B" "$DIR/s$n" <<'PY'
import json, subprocess, sys, time
b, d = sys.argv[1], sys.argv[2]
while True:
    s = json.loads(subprocess.run([b, "bench", "slurm", "--status", d, "--json"], capture_output=True, check=True).stdout)
    if s["merge_state"] == "COMPLETED" and s["result"]:
        break
    if s["merge_state"] in ("FAILED", "CANCELLED", "TIMEOUT"):
        sys.exit(f"{d}: merge {s['merge_state']}")
    time.sleep(0.5)
PY
    eval "t_$n=$(python3 -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" "$(secs)" "$t0")"
done
python3 - "$DIR" "$t_un" "$t_1" "$t_4" "$DELAY" <<'PY'
import json, sys
d, un, t1, t4, delay = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
def key(p):
    f = json.load(open(p))
    return [(i["instance_id"], i.get("total_score")) for i in f["instances"]]
ref = key(f"{d}/unsharded.json")
for n in (1, 4):
    assert key(f"{d}/s{n}/result.json") == ref, f"s{n}/result.json differs from the unsharded run"
print(f"54 instances, {delay} ms per model call, 2 workers per task: unsharded {un:.1f} s; "
      f"Slurm 1 task {t1:.1f} s; Slurm 4 tasks {t4:.1f} s ({t1 / t4:.2f}x faster than 1 task, "
      f"{un / t4:.2f}x the unsharded run); merged files equal the unsharded run")
PY
