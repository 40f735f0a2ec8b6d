#!/usr/bin/env python3
"""Prefill and decode tokens/s of OpenAI-compatible servers on the same prompts (no third-party packages).

For each prompt length L (tokens, approximately: the servers report the exact count) every server gets a prompt
that starts with a number drawn fresh for each request, so no prompt cache can serve it:
- prefill: max_tokens 1, not streamed: prompt_tokens / wall time of the request;
- decode: the same kind of prompt, streamed, max_tokens M: (chunks - 1) / (time of the last chunk - time of
  the first), i.e. generation after the first token.
Servers are measured in turn (never at the same time). Usage:
  llm_speed.py NAME=URL [NAME=URL ...] [--lengths 512,2048,4000] [--decode-tokens 200] [--runs 2]
"""
import argparse
import json
import random
import time
import urllib.request

WORDS = ("alpha theta delta beta gamma spindle cortex thalamus hippocampus occipital frontal parietal "
         "temporal electrode montage epoch artifact baseline power spectrum coherence network hub module").split()


def prompt_of(tokens, rng):
    # About one token per word for these words; the servers' usage says how many it really was.
    body = " ".join(rng.choice(WORDS) for _ in range(max(1, tokens - 40)))
    return f"Request {rng.randrange(10**9)}. Summarise these keywords in one sentence: {body}"


def post(url, payload, stream):
    req = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=900)


def prefill(url, prompt):
    payload = {"model": "m", "messages": [{"role": "user", "content": prompt}], "temperature": 0, "max_tokens": 1}
    start = time.perf_counter()
    with post(url, payload, False) as resp:
        body = json.loads(resp.read())
    wall = time.perf_counter() - start
    return body["usage"]["prompt_tokens"], wall


def decode(url, prompt, max_tokens):
    payload = {"model": "m", "messages": [{"role": "user", "content": prompt}], "temperature": 0,
               "max_tokens": max_tokens, "stream": True}
    stamps = []
    with post(url, payload, True) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunk = json.loads(data)
            for choice in chunk.get("choices") or []:
                if (choice.get("delta") or {}).get("content"):
                    stamps.append(time.perf_counter())
    return len(stamps), (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("servers", nargs="+")
    ap.add_argument("--lengths", default="512,2048,4000")
    ap.add_argument("--decode-tokens", type=int, default=200)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    rng = random.Random(7)
    report = {}
    for spec in args.servers:
        name, url = spec.split("=", 1)
        prefill(url, "Warm up.")
        rows = {}
        for n in lengths:
            tok = wall = 0.0
            dec_n = dec_t = 0.0
            for _ in range(args.runs):
                t, w = prefill(url, prompt_of(n, rng))
                tok += t
                wall += w
                k, d = decode(url, prompt_of(n, rng), args.decode_tokens)
                dec_n += max(k - 1, 0)
                dec_t += d
            rows[str(n)] = {"prompt_tokens": tok / args.runs, "prefill_tokens_per_s": round(tok / wall, 1),
                            "decode_tokens": dec_n / args.runs,
                            "decode_tokens_per_s": round(dec_n / dec_t, 1) if dec_t else None}
        report[name] = rows
    names = list(report)
    if len(names) >= 2:
        a, b = report[names[0]], report[names[1]]
        report["ratio"] = {n: {"prefill": round(a[n]["prefill_tokens_per_s"] / b[n]["prefill_tokens_per_s"], 2),
                               "decode": round(a[n]["decode_tokens_per_s"] / b[n]["decode_tokens_per_s"], 2)
                               if a[n]["decode_tokens_per_s"] and b[n]["decode_tokens_per_s"] else None}
                           for n in a}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
