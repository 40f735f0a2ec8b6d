#!/usr/bin/env bash
# BrainLens against an OpenAI server that is not its own: llama.cpp's (llama-cpp-python[server], built here by
# pip) on the same SmolLM2 GGUF. One graph-agent analysis (fingerprint task, BrainAgent) and a four-instance
# `bench run` (BrainAgent, EEG) through --base-url; then checks that every model step was accepted at its first
# attempt against its schema, and that the client learned the server's `{"type": "json_object", "schema": …}`
# form once per process (one HTTP 500 naming response_format in the server's log for each of the two runs)
# and kept it for every later call.
# Usage: scripts/bench/foreign_server.sh [OUT_DIR]   (default target/foreign_server)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/llama_cpp_env.sh
OUT="${1:-target/foreign_server}"
rm -rf "$OUT" && mkdir -p "$OUT"
PORT=18085
start_llama_cpp "$PORT" "$OUT/server.log"
trap 'kill "$LLAMA_PID" 2>/dev/null || true' EXIT
URL="http://127.0.0.1:$PORT/v1"
target/release/brainlens agent analyze assets/cases/hcp_fingerprint/graphs/sub-100206_REST2_t400.npy \
    --task fingerprint --method brainagent --base-url "$URL" --model smollm2 --trace "$OUT/analysis.json" >/dev/null
target/release/brainlens bench generate --out "$OUT/suite" >/dev/null
target/release/brainlens bench run "$OUT/suite/Sleep_Assessment" --limit 4 --base-url "$URL" --model smollm2 \
    --out "$OUT/bench.json" >/dev/null
python3 - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
t = json.load(open(f"{out}/analysis.json"))
steps = [(c["step"], c["attempts"], c.get("error")) for c in t["calls"]]
bad = [s for s in steps if s[1] != 1 or s[2]]
print(f"graph agent: outcome {t['outcome']['class']}, label {t.get('decision', {}).get('label')}, "
      f"{len(steps)} calls, {len(steps) - len(bad)} accepted at the first attempt")
b = json.load(open(f"{out}/bench.json"))
calls = [c for i in b["instances"] for c in ((i.get("sandbox") or {}).get("trace") or {}).get("calls", [])]
plans = [c for c in calls if c["step"].startswith("plan") or c["step"] == "route"]
bad_b = [c["step"] for c in plans if c["attempts"] != 1 or c.get("error")]
print(f"bench run: {len(b['instances'])} instances, {len(plans)} structured calls, "
      f"{len(plans) - len(bad_b)} accepted at the first attempt")
log = open(f"{out}/server.log").read()
posts = re.findall(r'"POST /v1/chat/completions HTTP/1.1" (\d+)', log)
# Two BrainLens processes (the analysis, the bench run): each learns the form once and keeps it.
print(f"server: {len(posts)} chat requests, {posts.count('500')} answered 500 (the json_schema form, learned once "
      f"per process)")
ok = not bad and not bad_b and posts.count("500") <= 2 and t["outcome"]["class"] == "ok"
print("every step schema-valid" if ok else f"FAILED: graph {bad} bench {bad_b}")
sys.exit(0 if ok else 1)
PY
