#!/usr/bin/env bash
# Prefill and decode tokens/s of the local provider (`brainlens llm serve`: llama.cpp in process, BrainLens's own
# sampler and prefix cache) against llama-cpp-python's server (llama.cpp's OpenAI server, built from source here
# by pip into target/llama-venv) on the same GGUF ($GGUF, default Qwen2.5-Coder-1.5B Q4_K_M), 2 threads each, prompt lengths 512/2,048/4,000 tokens,
# measured one server after the other (the other not running). Prints JSON: each server's figures and the
# ratios BrainLens / llama.cpp; constrained decoding (a JSON schema) is measured beside plain decoding.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/bench/llama_cpp_env.sh
EXTRA=("$@")
measure() { # NAME PORT
    python3 scripts/bench/llm_speed.py "$1=http://127.0.0.1:$2/v1" --out "target/llm_speed_$1.json" "${EXTRA[@]}" >/dev/null
}
# One server at a time (an idle server must not share the cores with the one measured).
port_free 18081
target/release/brainlens llm serve --model "$GGUF" --port 18081 >/dev/null 2>&1 &
pid=$!
wait_for_port 18081
measure brainlens 18081
kill "$pid"; wait "$pid" 2>/dev/null || true
start_llama_cpp 18083 target/llama_cpp_server.log
measure llama_cpp 18083
kill "$LLAMA_PID"; wait "$LLAMA_PID" 2>/dev/null || true
python3 scripts/bench/llm_speed.py --ratio target/llm_speed_brainlens.json target/llm_speed_llama_cpp.json
