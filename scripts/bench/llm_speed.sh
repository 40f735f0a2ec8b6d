#!/usr/bin/env bash
# Tokens/s of the local provider (`brainlens llm serve`, candle, the SmolLM2 GGUF re-quantised to Q8_0) against
# llama-cpp-python's server on the same machine, same prompts, 2 threads each: on the shipped Q4_1 file and on
# the Q8_0 copy BrainLens runs. llama-cpp-python is built from source by pip into target/llama-venv (minutes).
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
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "llama-cpp-python[server]"
fi
export RAYON_NUM_THREADS=2
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
target/release/brainlens llm serve --model "$Q41" --port 18081 >/dev/null & pids+=($!)
[ -f "$Q80" ] || target/release/brainlens llm chat --model-path "$Q41" --max-tokens 1 hi >/dev/null 2>&1
"$VENV/bin/python" -m llama_cpp.server --model "$Q41" --port 18082 --n_threads 2 --n_ctx 2048 >/dev/null 2>&1 & pids+=($!)
"$VENV/bin/python" -m llama_cpp.server --model "$Q80" --port 18083 --n_threads 2 --n_ctx 2048 >/dev/null 2>&1 & pids+=($!)
for port in 18081 18082 18083; do
    for _ in $(seq 120); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.5; done
done
python3 scripts/bench/llm_speed.py brainlens=http://127.0.0.1:18081/v1 llama_cpp_q4_1=http://127.0.0.1:18082/v1 \
    llama_cpp_q8_0=http://127.0.0.1:18083/v1 "$@"
