#!/usr/bin/env bash
# Prefill and decode tokens/s of the local provider (`brainlens llm serve`: llama.cpp in process, BrainLens's own
# sampler and prefix cache) against llama-cpp-python's server (llama.cpp's OpenAI server, built from source here
# by pip into target/llama-venv) on the same Q8_0 GGUF, 2 threads each, prompt lengths 512/2,048/4,000 tokens,
# measured one server after the other (the other not running). Prints JSON: each server's figures and the
# ratios BrainLens / llama.cpp; constrained decoding (a JSON schema) is measured beside plain decoding.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/setup_models.sh >/dev/null
cargo build --release --quiet --bin brainlens
MODELS="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models"
Q41="$MODELS/SmolLM2-135M-Instruct.Q4_1.gguf"
Q80="$MODELS/SmolLM2-135M-Instruct.Q4_1.q8_0.gguf"
VENV=target/llama-venv
if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "llama-cpp-python[server]==0.3.36"
fi
export RAYON_NUM_THREADS=2
# The Q8_0 copy is made on first load.
[ -f "$Q80" ] || target/release/brainlens llm chat --model-path "$Q41" --max-tokens 1 hi >/dev/null 2>&1
# One server at a time (an idle server must not share the cores with the one measured).
serve_and_measure() { # NAME PORT COMMAND…
    local name=$1 port=$2; shift 2
    "$@" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 240); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.5; done
    python3 scripts/bench/llm_speed.py "$name=http://127.0.0.1:$port/v1" --out "target/llm_speed_$name.json" "${EXTRA[@]}"
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
EXTRA=("$@")
serve_and_measure brainlens 18081 target/release/brainlens llm serve --model "$Q80" --port 18081
serve_and_measure llama_cpp 18083 "$VENV/bin/python" -m llama_cpp.server --model "$Q80" --port 18083 --n_threads 2 \
    --n_threads_batch 2 --n_ctx 8192 --n_batch 512
python3 scripts/bench/llm_speed.py --ratio target/llm_speed_brainlens.json target/llm_speed_llama_cpp.json
