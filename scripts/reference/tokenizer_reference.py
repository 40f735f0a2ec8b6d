"""llama.cpp's own tokenization (llama-cpp-python's `Llama.tokenize`, vocab only) of the tokenizer corpus, for
every model of the catalogue that the model cache holds: written to tests/expected/tokenizer_<name>.json, which
tests/llm_tokenizer.rs compares BrainLens's tokenizer against (0 differences allowed).

Usage: target/llama-venv/bin/python scripts/reference/tokenizer_reference.py [MODEL_CACHE]
(llama-cpp-python is pinned in scripts/reference/requirements-llama.txt; scripts/bench/llama_cpp_env.sh builds
it natively into target/llama-venv.)
"""
import json
import os
import sys
from pathlib import Path

import llama_cpp

ROOT = Path(__file__).resolve().parents[2]
cache = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
    os.environ.get("BRAINLENS_CACHE", Path.home() / ".cache" / "brainlens")) / "models"
corpus = json.loads((ROOT / "fixtures/llm/tokenizer_corpus.json").read_text())
catalogue = json.loads((ROOT / "assets/models/catalogue.json").read_text())
written = 0
for m in catalogue["models"]:
    path = cache / m["file"]
    if not path.is_file():
        print(f"{m['name']}: not in {cache}, skipped")
        continue
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    out = {
        "model": m["name"],
        "file": m["file"],
        "sha256": m["sha256"],
        "source": f"llama-cpp-python {llama_cpp.__version__}: Llama(vocab_only=True).tokenize(text, add_bos, special)",
        "cases": [],
    }
    for text in corpus:
        for add_bos in (False, True):
            for special in (False, True):
                ids = llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special)
                out["cases"].append({"text": text, "add_special": add_bos, "parse_special": special, "ids": ids})
    dest = ROOT / "tests/expected" / f"tokenizer_{m['name']}.json"
    dest.write_text(json.dumps(out, ensure_ascii=False) + "\n")
    written += 1
    print(f"{m['name']}: {len(out['cases'])} tokenizations → {dest.relative_to(ROOT)}")
if written == 0:
    sys.exit("no catalogue model in the cache")
