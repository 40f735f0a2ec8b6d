#!/usr/bin/env python3
"""Prompt states on disk (issue 62), whole processes, one after the other (run on an idle machine):

  cold  a fingerprint analysis of graph A with an empty prompt-state cache;
  warm  graph B (another subject) in a new process, the state A's run saved on disk;
  off   graph B again with the cache off (BRAINLENS_PROMPT_CACHE_MB=0).

Prints JSON: each run's wall seconds, prompt tokens computed (not from any cache), tokens from disk, tokens
generated, label; and whether every reply of the warm run is the same text as the cache-off run's.

The states go to a temporary cache (its `models` a link to the real model cache), so the user's saved states
are neither used nor cleared.

    scripts/bench/prompt_cache.py [--model qwen2.5-coder-1.5b] [--bin target/release/brainlens]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

GRAPHS = "assets/cases/hcp_fingerprint/graphs"


def run(binary, graph, model, env):
    t0 = time.monotonic()
    p = subprocess.run(
        [binary, "agent", "analyze", graph, "--task", "fingerprint", "--provider", "local", "--model", model, "--json"],
        env=env, capture_output=True, text=True,
    )
    seconds = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"prompt_cache: agent analyze {graph} failed:\n{p.stderr}")
    trace = json.loads(p.stdout)["trace"]
    calls = trace["calls"]
    summary = {
        "graph": os.path.basename(graph),
        "seconds": round(seconds, 1),
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "computed_tokens": sum(c["prompt_tokens"] - c.get("cached_tokens", 0) for c in calls),
        "disk_tokens": sum(c.get("disk_tokens", 0) for c in calls),
        "generated_tokens": sum(c["completion_tokens"] for c in calls),
        "label": trace["decision"].get("label"),
    }
    return summary, [c["raw"] for c in calls]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--bin", default="target/release/brainlens")
    ap.add_argument("--a", default=f"{GRAPHS}/sub-100307_REST2_t400.npy")
    ap.add_argument("--b", default=f"{GRAPHS}/sub-100206_REST1_t200.npy")
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    real = os.environ.get("BRAINLENS_CACHE") or os.path.expanduser("~/.cache/brainlens")
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.join(real, "models"), os.path.join(tmp, "models"))
        env = dict(os.environ, BRAINLENS_CACHE=tmp)
        env.pop("BRAINLENS_PROMPT_CACHE_MB", None)
        cold, _ = run(args.bin, args.a, args.model, env)
        warm, warm_text = run(args.bin, args.b, args.model, env)
        off, off_text = run(args.bin, args.b, args.model, dict(env, BRAINLENS_PROMPT_CACHE_MB="0"))
    print(json.dumps({
        "model": args.model,
        "cold": cold,
        "warm": warm,
        "off": off,
        "warm_text_equals_off": warm_text == off_text,
        "warm_over_off_seconds": round(warm["seconds"] / off["seconds"], 3),
    }, indent=2))


if __name__ == "__main__":
    main()
