#!/usr/bin/env python3
"""Prefill and decode tokens/s of OpenAI-compatible servers on the same prompts (no third-party packages).

For each prompt length L (tokens, approximately: the servers report the exact count) every server gets a prompt
that starts with a number drawn fresh for each request, so no prompt cache can serve it:
- prefill: max_tokens 1, not streamed: prompt_tokens / wall time of the request;
- decode: the same kind of prompt, streamed, max_tokens M: (chunks - 1) / (time of the last chunk - time of
  the first), i.e. generation after the first token.
- constrained decode: the same, under a JSON schema (an object of free-text strings, as agents' thoughts are):
  its tokens/s against plain decode's is what constrained decoding costs per token.
Servers are measured in turn (never at the same time). Usage:
  llm_speed.py NAME=URL [NAME=URL ...] [--lengths 512,2048,4000] [--decode-tokens 200] [--runs 2] [--out F.json]
  llm_speed.py --ratio A.json B.json      (A's figures over B's)
"""
import argparse
import json
import random
import time
import urllib.request

WORDS = ("alpha theta delta beta gamma spindle cortex thalamus hippocampus occipital frontal parietal "
         "temporal electrode montage epoch artifact baseline power spectrum coherence network hub module").split()


TOKENS_PER_WORD = [1.0]


def prompt_of(tokens, rng):
    # Words scaled by the tokens per word the server reported for a probe; its usage says the exact count.
    words = max(1, int((tokens - 40) / TOKENS_PER_WORD[0]))
    body = " ".join(rng.choice(WORDS) for _ in range(words))
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


SCHEMA = {"type": "object", "properties": {"think": {"type": "string"}, "report": {"type": "string"},
                                           "notes": {"type": "string"}}, "required": ["think", "report", "notes"]}


def decode(url, prompt, max_tokens, schema=None):
    payload = {"model": "m", "messages": [{"role": "user", "content": prompt}], "temperature": 0,
               "max_tokens": max_tokens, "stream": True}
    if schema is not None:
        # llama.cpp's server takes a schema only in this form (json_schema gets HTTP 500); llm serve takes both.
        payload["response_format"] = {"type": "json_object", "schema": schema}
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


def measure(url, lengths, runs, decode_tokens, rng):
    prefill(url, "Warm up.")
    probe = " ".join(rng.choice(WORDS) for _ in range(400))
    TOKENS_PER_WORD[0] = max(prefill(url, probe)[0] - 10, 1) / 400
    rows = {}
    for n in lengths:
        tok = wall = 0.0
        dec = [0.0, 0.0]
        con = [0.0, 0.0]
        for _ in range(runs):
            t, w = prefill(url, prompt_of(n, rng))
            tok += t
            wall += w
            for acc, schema in ((dec, None), (con, SCHEMA)):
                k, d = decode(url, prompt_of(n, rng), decode_tokens, schema)
                acc[0] += max(k - 1, 0)
                acc[1] += d
        rate = lambda acc: round(acc[0] / acc[1], 1) if acc[1] else None
        rows[str(n)] = {"prompt_tokens": tok / runs, "prefill_tokens_per_s": round(tok / wall, 1),
                        "decode_tokens": dec[0] / runs, "decode_tokens_per_s": rate(dec),
                        "constrained_decode_tokens_per_s": rate(con)}
        if rate(dec) and rate(con):
            rows[str(n)]["constrained_cost_per_token"] = round(rate(dec) / rate(con) - 1, 3)
    return rows


def ratio(a, b):
    div = lambda x, y: round(x / y, 2) if x and y else None
    return {n: {"prefill": div(a[n]["prefill_tokens_per_s"], b[n]["prefill_tokens_per_s"]),
                "decode": div(a[n]["decode_tokens_per_s"], b[n]["decode_tokens_per_s"]),
                "constrained_decode": div(a[n]["constrained_decode_tokens_per_s"],
                                          b[n]["constrained_decode_tokens_per_s"])}
            for n in a if n in b}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("servers", nargs="*")
    ap.add_argument("--lengths", default="512,2048,4000")
    ap.add_argument("--decode-tokens", type=int, default=200)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--ratio", nargs=2, metavar=("A", "B"))
    args = ap.parse_args()
    if args.ratio:
        files = [json.load(open(f)) for f in args.ratio]
        report = {**files[0], **files[1]}
        a, b = (next(iter(f.values())) for f in files)
        report["ratio"] = ratio(a, b)
        print(json.dumps(report, indent=2))
        return
    lengths = [int(x) for x in args.lengths.split(",")]
    rng = random.Random(7)
    report = {}
    for spec in args.servers:
        name, url = spec.split("=", 1)
        report[name] = measure(url, lengths, args.runs, args.decode_tokens, rng)
    names = list(report)
    if len(names) >= 2:
        report["ratio"] = ratio(report[names[0]], report[names[1]])
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
