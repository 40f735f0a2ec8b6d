#!/usr/bin/env bash
# Runs every test: fetches the model files into the model cache (scripts/setup_models.sh), the Rust unit,
# integration and GUI (egui_kittest) tests — the language-model tests run the real SmolLM2 in process and
# behind `brainlens llm serve` on loopback — then the reference checks against pyedflib and MNE in a Python
# venv (created on first use under target/ref-venv).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cmake >/dev/null || ! ldconfig -p | grep -q libclang; then
    echo "The build compiles llama.cpp from source: apt-get install -y cmake clang libclang-dev (.ci/run does)" >&2
    exit 1
fi
# The model files (SmolLM2 GGUF, MiniLM) go to the model cache, not the repo; the LLM tests then require them.
scripts/setup_models.sh >/dev/null
# The CodeAct Python environment (pinned: assets/python/codeact.lock) in the cache.
scripts/setup_python.sh >/dev/null
export BRAINLENS_REQUIRE_MODELS=1
# The sandbox escape tests must run (bubblewrap is installed by .ci/run), not skip.
if command -v bwrap >/dev/null; then export BRAINLENS_REQUIRE_SANDBOX=1; fi
cargo test --all-targets

# bench slurm on a real one-node Slurm (munged, slurmdbd, slurmctld, slurmd from Debian's packages, installed
# by the script when missing): a 4-task array, sacct, a cancelled task resubmitted. Skipped, with the reason,
# only where the daemons cannot start here (local-cluster.sh exits with 2).
export BRAINLENS_SLURM_DIR="$PWD/target/slurm-cluster"
slurm_rc=0
scripts/slurm/local-cluster.sh start >target/slurm-start.log 2>&1 || slurm_rc=$?
if [ "$slurm_rc" = 0 ]; then
    trap 'scripts/slurm/local-cluster.sh stop >/dev/null 2>&1 || true' EXIT
    SLURM_CONF="$BRAINLENS_SLURM_DIR/etc/slurm.conf" cargo test --test bench_slurm -- --ignored --test-threads 1
    scripts/slurm/local-cluster.sh stop >/dev/null
    trap - EXIT
elif [ "$slurm_rc" = 2 ]; then
    echo "Slurm test SKIPPED: $(grep 'cannot start Slurm' target/slurm-start.log | tail -n 1)"
else
    cat target/slurm-start.log >&2
    exit 1
fi

VENV=target/ref-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import pyedflib, mne, bct, networkx, yasa, antropy, sklearn, neurokit2, tokenizers, safetensors, openai, nilearn" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r scripts/reference/requirements.txt
fi
cargo build --quiet --bin brainlens

# The committed Bench test data must be what its scripts make (no third-party packages needed).
python3 scripts/reference/bench_scoring.py --n 12000 --seed 7 --out target/bench_scoring.jsonl
cmp target/bench_scoring.jsonl tests/expected/bench_scoring.jsonl
rm -rf target/bench-demo && python3 scripts/bench/make_demo.py --out target/bench-demo
diff -r target/bench-demo fixtures/bench/demo
echo "Bench: differential test data and the simulated demo collection are reproduced by their scripts"
# The shipped Schaefer centroids are what their script computes from brainspace's conte69 files.
mkdir -p target/atlas && python3 scripts/atlas/schaefer_centroids.py ../shared/data/brain/conte69 target/atlas
for n in 100 200 400; do cmp "target/atlas/schaefer${n}_conte69_centroids.csv" "assets/atlas/schaefer${n}_conte69_centroids.csv"; done
echo "Atlas: the Schaefer-100/200/400 surface centroids are reproduced by scripts/atlas/schaefer_centroids.py"
python3 scripts/atlas/coordinate_atlases.py ../shared/data/brain/coordinates target/atlas
for a in power264 dosenbach160 seitzman300; do cmp "target/atlas/$a.csv" "assets/atlas/$a.csv"; done
echo "Atlas: Power-264, Dosenbach-160 and Seitzman-300 are nilearn's coordinate files (scripts/atlas/coordinate_atlases.py)"
for n in 100 200 400; do zcat "assets/atlas/schaefer_${n}_conte69.csv.gz" | cmp - "../shared/data/brain/conte69/schaefer_${n}_conte69.csv"; done
for f in pial_left pial_right infl_left infl_right; do cmp "assets/surfaces/$f.gii.gz" "../shared/data/brain/fsaverage5/$f.gii.gz"; done
for h in lh rh; do cmp "assets/surfaces/conte69_32k_$h.gii" "../shared/data/brain/conte69/conte69_32k_$h.gii"; done
echo "Surfaces: fsaverage5 (nilearn), conte69 and its Schaefer parcellations (brainspace) are the shipped files"
rm -rf target/glass-outlines && python3 scripts/atlas/glass_outlines.py ../shared/data/brain/glass_brain target/glass-outlines
diff -r target/glass-outlines assets/glass_brain
echo "Glass brain: the shipped outlines are nilearn's, as scripts/atlas/glass_outlines.py writes them"

# A real window under Xvfb (Mesa llvmpipe): the sample workspace renders and is written as a PNG.
if command -v xvfb-run >/dev/null; then
    rm -f target/smoke.png
    timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" target/debug/brainlens --screenshot target/smoke.png
    [ "$(stat -c %s target/smoke.png)" -gt 20000 ] || { echo "GUI smoke test: screenshot missing or empty" >&2; exit 1; }
    echo "GUI smoke test: sample workspace rendered to target/smoke.png"
else
    echo "GUI smoke test skipped: xvfb-run not installed (apt-get install -y xvfb)"
fi
"$VENV/bin/python" scripts/reference/edf_reference.py --check target/debug/brainlens
# Glass-brain node positions, limits, hemisphere views and edge counts against nilearn's plot_connectome.
"$VENV/bin/python" scripts/reference/glass_brain_reference.py --check target/debug/brainlens
# The generated local BrainBench suite's reference answers, recomputed with MNE/scipy/YASA/neurokit2.
rm -rf target/bench-suite && target/debug/brainlens bench generate --out target/bench-suite >/dev/null
"$VENV/bin/python" -W ignore::FutureWarning scripts/reference/bench_suite_reference.py target/bench-suite
# The committed MiniLM reference vectors are what an independent numpy forward pass gives.
"$VENV/bin/python" scripts/reference/minilm_reference.py "${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models/all-MiniLM-L6-v2" target/minilm_vectors.json
cmp target/minilm_vectors.json tests/expected/minilm_vectors.json
# The official `openai` Python client against `brainlens llm serve` (the real SmolLM2, on loopback, with a key):
# plain, streamed, json_schema and tool-call requests, a refused tool schema, and 401 without the key.
PORT=$("$VENV/bin/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
KEY="test-$RANDOM$RANDOM"
BRAINLENS_SERVE_KEY="$KEY" target/debug/brainlens llm serve --port "$PORT" >target/llm-serve.log 2>&1 &
SERVE_PID=$!
trap 'kill $SERVE_PID 2>/dev/null || true' EXIT
for _ in $(seq 120); do
    "$VENV/bin/python" -c "import sys, urllib.request as u; u.urlopen(u.Request(sys.argv[1], headers={'Authorization': 'Bearer ' + sys.argv[2]}), timeout=2)" \
        "http://127.0.0.1:$PORT/health" "$KEY" 2>/dev/null && break
    kill -0 $SERVE_PID 2>/dev/null || { cat target/llm-serve.log >&2; exit 1; }
    sleep 1
done
"$VENV/bin/python" scripts/reference/openai_client_check.py "http://127.0.0.1:$PORT/v1" "$KEY"
kill $SERVE_PID && wait $SERVE_PID 2>/dev/null || true
trap - EXIT
