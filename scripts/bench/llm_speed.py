#!/usr/bin/env python3
"""Tokens per second of two OpenAI-compatible servers on the same prompts (no third-party packages).

Each server gets the same requests (temperature 0, fixed max_tokens, streamed so the decode rate can be timed
apart from the prompt): end-to-end completion tokens / wall time, and decode tokens/s = (chunks - 1) / (time
of last chunk - time of first chunk). Usage: llm_speed.py NAME=URL [NAME=URL ...] [--runs N] [--max-tokens M]
"""
import argparse
import json
import time
import urllib.request

PROMPTS = [
    "Explain what the alpha rhythm in the EEG is and when it is strongest.",
    "List the stages of human sleep and one feature of each.",
    "What does the clustering coefficient of a brain network measure?",
    "Describe the default mode network in two sentences.",
]


def stream(url, prompt, max_tokens):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}], "temperature": 0,
                       "max_tokens": max_tokens, "stream": True, "stream_options": {"include_usage": True}}).encode()
    req = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    stamps, usage = [], None
    with urllib.request.urlopen(req, timeout=600) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunk = json.loads(data)
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                if (choice.get("delta") or {}).get("content"):
                    stamps.append(time.perf_counter())
    total = time.perf_counter() - start
    tokens = usage["completion_tokens"] if usage else len(stamps)
    return tokens, total, stamps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("servers", nargs="+")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=128)
    args = ap.parse_args()
    report = {}
    for spec in args.servers:
        name, url = spec.split("=", 1)
        stream(url, "Warm up.", 8)
        tokens = wall = dec_tokens = dec_time = 0.0
        for _ in range(args.runs):
            for p in PROMPTS:
                n, t, stamps = stream(url, p, args.max_tokens)
                tokens += n
                wall += t
                if len(stamps) > 2:
                    dec_tokens += len(stamps) - 1
                    dec_time += stamps[-1] - stamps[0]
        report[name] = {"completion_tokens": tokens, "wall_s": round(wall, 3),
                        "end_to_end_tokens_per_s": round(tokens / wall, 2),
                        "decode_tokens_per_s": round(dec_tokens / dec_time, 2) if dec_time else None}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
