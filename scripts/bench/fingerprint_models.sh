#!/usr/bin/env bash
# The BrainAgent fingerprint analysis of one HCP graph with each local model (release build, 2 threads, one run
# each, one after the other): wall time and peak RSS from /usr/bin/time, the per-call tokens and seconds from the
# trace, the label, confidence and rationale. Then `agent eval --task fingerprint` (the task's split) with each
# model beside evidence-knn. Usage: scripts/bench/fingerprint_models.sh [--no-eval]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/setup_models.sh smollm2-135m qwen2.5-coder-1.5b >/dev/null
cargo build --release --quiet --bin brainlens
export RAYON_NUM_THREADS=2
MODELS="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models"
CASES=assets/cases/hcp_fingerprint
GRAPH=$CASES/graphs/sub-100206_REST2_t400.npy
OUT=target/bench-fingerprint
mkdir -p "$OUT"
for m in SmolLM2-135M-Instruct.Q4_1 qwen2.5-coder-1.5b-instruct-q4_k_m; do
    /usr/bin/time -f "%e %M" -o "$OUT/$m.time" target/release/brainlens agent analyze "$GRAPH" --task fingerprint \
        --method brainagent --model-path "$MODELS/$m.gguf" --trace "$OUT/$m.trace.json" >/dev/null
    python3 - "$OUT/$m.trace.json" "$OUT/$m.time" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); wall, rss = open(sys.argv[2]).read().split()
print(f"== {t['model']}: wall {float(wall):.1f} s, peak RSS {int(rss) / 1e6:.2f} GB; sampling: {t.get('sampling', '')}")
for c in t["calls"]:
    print(f"  {c['step']:<13} prompt {c['prompt_tokens']:5} (cached {c['cached_tokens']:5}) + {c['completion_tokens']:4} tokens  {c['ms'] / 1000:6.1f} s")
d = t.get("decision") or {}
print(f"  label {d.get('label')} confidence {d.get('confidence')}\n  rationale: {d.get('rationale')}")
print(f"  claims: {[(c['text'], c['evidence']) for c in d.get('claims', [])]}")
PY
done
[ "${1:-}" = "--no-eval" ] && exit 0
for m in SmolLM2-135M-Instruct.Q4_1 qwen2.5-coder-1.5b-instruct-q4_k_m; do
    rm -f "$OUT/eval-$m.jsonl"
    target/release/brainlens agent eval --task fingerprint --graphs "$CASES/graphs" --labels "$CASES/labels.csv" \
        --method brainagent --model-path "$MODELS/$m.gguf" --out "$OUT/eval-$m.jsonl" --json >"$OUT/eval-$m.stdout" 2>"$OUT/eval-$m.stderr" || cat "$OUT/eval-$m.stderr"
done
rm -f "$OUT/eval-knn.jsonl"
target/release/brainlens agent eval --task fingerprint --graphs "$CASES/graphs" --labels "$CASES/labels.csv" \
    --method evidence-knn --out "$OUT/eval-knn.jsonl" --json >"$OUT/eval-knn.stdout" 2>/dev/null
python3 - "$OUT" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/eval-*.stdout")):
    try:
        r = json.load(open(f))
    except Exception as e:
        print(f, "unreadable:", e); continue
    print(f"{r['method']:<13} {r['model']:<48} samples {r['samples']}  accuracy {r['accuracy']:.2f}  "
          f"confidence Brier {r['calibration']['confidence_brier']:.3f}  interpretability {r['interpretability']['overall']:.3f}  "
          f"{r['seconds_per_sample']:.1f} s/sample")
PY
