# Sourced by the scripts that measure BrainLens against llama.cpp's own OpenAI server: the release binary, the
# model files, the GGUF both sides load ($GGUF: by default the capable model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M;
# GGUF=path/to/SmolLM2…q8_0.gguf for the small one), and llama-cpp-python[server] built here by pip into
# target/llama-venv (llama.cpp compiled from source: ~10 min on 2 cores the first time).
scripts/setup_models.sh >/dev/null
cargo build --release --quiet --bin brainlens
MODELS="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models"
GGUF="${GGUF:-$MODELS/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}"
VENV=target/llama-venv
if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
    python3 -m venv "$VENV"
    # Native build as BrainLens's (.cargo/config.toml), without the AMX kernels (SIGILL in this VM).
    AMX="-U__AMX_INT8__ -U__AMX_TILE__ -U__AMX_BF16__"
    CMAKE_ARGS="-DGGML_NATIVE=ON -DCMAKE_C_FLAGS='$AMX' -DCMAKE_CXX_FLAGS='$AMX'" \
        "$VENV/bin/pip" install --quiet --disable-pip-version-check -r scripts/reference/requirements-llama.txt
fi
export RAYON_NUM_THREADS=2

# start_llama_cpp PORT LOG: llama.cpp's server on $GGUF, 2 threads; waits until it answers; sets LLAMA_PID.
start_llama_cpp() {
    port_free "$1"
    "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --port "$1" --n_threads 2 --n_threads_batch 2 \
        --n_ctx 8192 --n_batch 512 >"$2" 2>&1 &
    LLAMA_PID=$!
    wait_for_port "$1"
}

# A server already on the port would be measured instead of the one started (refuse).
port_free() {
    if curl -sf "http://127.0.0.1:$1/v1/models" >/dev/null 2>&1; then
        echo "port $1 is already serving; stop that server first" >&2
        return 1
    fi
}

wait_for_port() {
    for _ in $(seq 240); do curl -sf "http://127.0.0.1:$1/v1/models" >/dev/null && return 0; sleep 0.5; done
    echo "nothing answers on port $1" >&2
    return 1
}
