#!/usr/bin/env python3
"""`brainlens llm serve` under load and under abuse, on loopback; bounded, it stops by itself.

1. Load: WORKERS threads of the official `openai` client × REQUESTS mixed requests each (plain, streamed,
   json_schema, tool call) — every one must succeed (they queue on the one model).
2. Malformed: MALFORMED raw requests (truncated and mistyped JSON, a 20 MB body, a half-sent body, a head
   cut short, an unknown schema keyword, a bad method, a bad chunked body, garbage) — each must get a 4xx or
   a clean close, never a 5xx, a hang or a reset; then the same greedy request answers the same text as
   before them.
   Invalid parameters (through the official client, as a user sends them): a max_tokens of -5 or "many", a
   temperature of "hot" or -3, a tool_choice naming a function not in tools, a stop of 5 — each must get 400
   with OpenAI's error body (type invalid_request_error, the param named, a message); a normal request still
   gets 200.
3. Queue limit: a second server with --max-waiting 2, 8 requests at once: one runs, two wait, the rest get
   429 with Retry-After.
4. Slow clients: a head sent a byte at a time and a body sent slowly get 408 at their deadline, while a
   normal request is answered meanwhile.
5. Shutdown: SIGTERM with one request running and one waiting: the running one completes (200), the waiting
   one gets 503, the process exits 0 and the port is closed.

    python scripts/serve_check.py BRAINLENS_BINARY MODEL.gguf [--workers 8] [--requests 25] [--malformed 200]

Needs the `openai` package (scripts/reference/requirements.txt). Exits 1 on any failure.
"""
import argparse, json, os, select, signal, socket, statistics, subprocess, sys, threading, time

import openai

SCHEMA = {"type": "object", "properties": {"band": {"type": "string"}, "low_hz": {"type": "number"}},
          "required": ["band", "low_hz"]}
TOOLS = [{"type": "function", "function": {
    "name": "band_power", "description": "Band power of a channel",
    "parameters": {"type": "object", "properties": {"channel": {"type": "string"}, "band": {"type": "string"}},
                   "required": ["channel", "band"]}}}]


class Server:
    def __init__(self, binary, model, *extra):
        self.proc = subprocess.Popen([binary, "llm", "serve", "--port", "0", "--model", model, *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        url = next((w for w in line.split() if w.startswith("http://")), None)
        if not url:
            raise SystemExit(f"no URL from llm serve: {line!r} {self.proc.stderr.read()}")
        self.url = url
        host, port = url[len("http://"):].split("/")[0].rsplit(":", 1)
        self.addr = (host, int(port))
        self.client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=600)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def raw(addr, data, read_timeout=30.0, chunks=None, gap=0.0):
    """Sends `data` (or `chunks` with `gap` seconds between them); returns (status or None, what happened)."""
    s = socket.create_connection(addr, timeout=read_timeout)
    try:
        for piece in (chunks if chunks is not None else [data]):
            # A slow sender stops once the server has answered (it reads the answer at once).
            if chunks is not None and select.select([s], [], [], 0)[0]:
                break
            try:
                s.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            if gap:
                time.sleep(gap)
        reply = b""
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                reply += b
        except ConnectionResetError:
            return None, "reset"
        except socket.timeout:
            return None, "hang"
        if not reply:
            return None, "closed"
        status = int(reply.split(b" ", 2)[1])
        return status, reply
    finally:
        s.close()


def post(body, extra_headers=b""):
    return (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + extra_headers + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def one(client, kind, i):
    msg = [{"role": "user", "content": f"Name EEG frequency band number {i % 5 + 1}."}]
    if kind == "plain":
        r = client.chat.completions.create(model="m", messages=msg, max_tokens=24)
        assert r.choices[0].message.content is not None
    elif kind == "stream":
        text = "".join(c.choices[0].delta.content or "" for c in
                       client.chat.completions.create(model="m", messages=msg, max_tokens=24, stream=True)
                       if c.choices)
        assert isinstance(text, str)
    elif kind == "schema":
        r = client.chat.completions.create(model="m", messages=msg, max_tokens=48, response_format={
            "type": "json_schema", "json_schema": {"name": "band", "schema": SCHEMA}})
        json.loads(r.choices[0].message.content)
    else:
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Alpha power of Cz?"}],
                                           tools=TOOLS, tool_choice="required", max_tokens=48)
        json.loads(r.choices[0].message.tool_calls[0].function.arguments)


def load(server, workers, requests, failures):
    kinds = ["plain", "stream", "schema", "tool"]
    times, errors = [], []

    def worker(w):
        for i in range(requests):
            t = time.time()
            try:
                one(server.client, kinds[(w + i) % 4], i)
                times.append(time.time() - t)
            except Exception as e:  # noqa: BLE001 - every failure is counted and shown
                errors.append(f"{kinds[(w + i) % 4]}: {type(e).__name__}: {e}")

    t0 = time.time()
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(workers)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    q = statistics.quantiles(times, n=20) if len(times) >= 2 else [0] * 19
    print(f"load: {workers} workers x {requests} requests: {len(times)} ok, {len(errors)} failed, "
          f"p50 {statistics.median(times) if times else 0:.1f} s, p95 {q[18]:.1f} s, {time.time() - t0:.0f} s in all")
    failures += [f"load: {e}" for e in errors[:5]]


def greedy(server):
    r = server.client.chat.completions.create(model="m", temperature=0, max_tokens=24, messages=[
        {"role": "user", "content": "In one sentence: what is the alpha rhythm?"}])
    return r.choices[0].message.content


def malformed(server, n, failures):
    good = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}).encode()
    cases = [
        ("truncated JSON", post(good[: len(good) // 2])),
        ("messages not a list", post(b'{"messages": "hi"}')),
        ("role a number", post(b'{"messages": [{"role": 7, "content": "hi"}]}')),
        ("content a number", post(b'{"messages": [{"role": "user", "content": 3}]}')),
        ("unknown schema keyword", post(json.dumps({"messages": [{"role": "user", "content": "hi"}],
                                                    "response_format": {"type": "json_schema", "json_schema": {
                                                        "name": "x", "schema": {"type": "object", "allOf": []}}}}).encode())),
        ("unknown response_format", post(b'{"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "xml"}}')),
        ("20 MB body", post(b'{"messages": "' + b"a" * (20 << 20) + b'"}')),
        ("Content-Length not a number", b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: lots\r\n\r\n{}"),
        ("bad chunked body", b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http at all\r\n\r\n"),
        ("bad method", b"DELETE /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("unknown route", b"GET /v2/everything HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("empty messages", post(b'{"messages": []}')),
        ("tools not a list", post(b'{"messages": [{"role": "user", "content": "hi"}], "tools": 5}')),
    ]
    half = ("half-sent body (client leaves)", None)
    counts = {}
    bad = []
    for i in range(n):
        label, data = (cases + [half])[i % (len(cases) + 1)]
        if data is None:
            s = socket.create_connection(server.addr, timeout=10)
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"messages\": [")
            s.close()
            outcome = "client left"
        else:
            status, reply = raw(server.addr, data)
            outcome = str(status) if status else reply
            if status is None and reply != "closed" or status is not None and not 400 <= status < 500:
                bad.append(f"{label}: {outcome}")
        counts[outcome] = counts.get(outcome, 0) + 1
    print(f"malformed: {n} requests: " + ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
          + f"; {len(bad)} not a 4xx or a clean close")
    failures += [f"malformed: {b}" for b in bad[:5]]


def invalid_params(server, failures):
    msg = [{"role": "user", "content": "hi"}]
    nope = {"type": "function", "function": {"name": "not_a_tool"}}
    cases = [("max_tokens", {"max_tokens": -5}), ("max_tokens", {"max_tokens": "many"}),
             ("temperature", {"temperature": "hot"}), ("temperature", {"temperature": -3}),
             ("tool_choice", {"tools": TOOLS, "tool_choice": nope}), ("stop", {"stop": 5})]
    for param, extra in cases:
        try:
            server.client.chat.completions.create(model="m", messages=msg, **extra)
            failures.append(f"invalid {param} {extra}: answered 200")
            print(f"invalid {extra}: 200 (WRONG)")
        except openai.BadRequestError as e:
            ok = e.status_code == 400 and e.param == param and e.type == "invalid_request_error" and e.message
            print(f"invalid {json.dumps(extra)[:70]}: {e.status_code} param={e.param} type={e.type}: "
                  f"{(e.body or {}).get('message', '')}")
            if not ok:
                failures.append(f"invalid {param} {extra}: {e.status_code} param={e.param!r} type={e.type!r}")
    r = server.client.chat.completions.with_raw_response.create(model="m", messages=msg, max_tokens=8, temperature=0,
                                                                 stop=["\n\n"], seed=1)
    print(f"a normal request: {r.http_response.status_code}")
    if r.http_response.status_code != 200:
        failures.append(f"a normal request: {r.http_response.status_code}")


def queue_limit(binary, model, failures):
    s = Server(binary, model, "--max-waiting", "2")
    try:
        results = []

        def call():
            body = json.dumps({"messages": [{"role": "user", "content": "Describe EEG in detail."}],
                               "max_tokens": 96, "temperature": 0}).encode()
            status, reply = raw(s.addr, post(body), read_timeout=300)
            retry = None
            if status == 429:
                head = reply.split(b"\r\n\r\n")[0].decode().lower()
                retry = next((l.split(":", 1)[1].strip() for l in head.split("\r\n") if l.startswith("retry-after")), None)
            results.append((status, retry))

        threads = [threading.Thread(target=call) for _ in range(8)]
        for t in threads:
            t.start()
            time.sleep(0.05)
        [t.join() for t in threads]
        ok = sum(1 for r in results if r[0] == 200)
        limited = [r for r in results if r[0] == 429]
        print(f"queue limit (--max-waiting 2), 8 at once: {ok} answered 200, {len(limited)} refused 429 "
              f"(Retry-After {sorted(set(r[1] for r in limited))} s)")
        if ok != 3 or len(limited) != 5 or any(r[1] is None or not r[1].isdigit() for r in limited):
            failures.append(f"queue limit: {results}")
    finally:
        s.stop()


def slow_clients(binary, model, failures):
    s = Server(binary, model, "--head-timeout", "2", "--body-timeout", "2")
    try:
        out = {}

        def slow_head():
            head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
            t = time.time()
            out["head"] = raw(s.addr, None, chunks=[bytes([b]) for b in head], gap=0.3)[0], time.time() - t

        def slow_body():
            body = b'{"messages": [{"role": "user", "content": "hi"}]}'
            t = time.time()
            chunks = [post(body)[: -len(body)]] + [bytes([b]) for b in body]
            out["body"] = raw(s.addr, None, chunks=chunks, gap=0.3)[0], time.time() - t

        threads = [threading.Thread(target=slow_head), threading.Thread(target=slow_body)]
        [t.start() for t in threads]
        t = time.time()
        text = greedy(s)
        normal = time.time() - t
        [t.join() for t in threads]
        print(f"slow clients (2 s deadlines): head a byte per 0.3 s -> {out['head'][0]} after {out['head'][1]:.1f} s, "
              f"body a byte per 0.3 s -> {out['body'][0]} after {out['body'][1]:.1f} s; "
              f"a normal request meanwhile answered in {normal:.1f} s ({len(text)} chars)")
        if out["head"][0] != 408 or out["body"][0] != 408:
            failures.append(f"slow clients: {out}")
    finally:
        s.stop()


def shutdown(binary, model, failures):
    s = Server(binary, model)
    results = {}

    def call(name, tokens):
        body = json.dumps({"messages": [{"role": "user", "content": "Explain EEG alpha rhythms at length."}],
                           "max_tokens": tokens, "temperature": 0}).encode()
        results[name] = raw(s.addr, post(body), read_timeout=300)[0]

    running = threading.Thread(target=call, args=("running", 128))
    running.start()
    for _ in range(200):
        st, reply = raw(s.addr, b"GET /health HTTP/1.1\r\n\r\n")
        if st == 200 and json.loads(reply.split(b"\r\n\r\n", 1)[1])["running"] == 1:
            break
        time.sleep(0.05)
    waiting = threading.Thread(target=call, args=("waiting", 8))
    waiting.start()
    time.sleep(0.5)
    t = time.time()
    s.proc.send_signal(signal.SIGTERM)
    running.join()
    waiting.join()
    code = s.proc.wait(timeout=60)
    try:
        socket.create_connection(s.addr, timeout=2).close()
        port = "still open"
    except OSError:
        port = "closed"
    print(f"shutdown (SIGTERM): running request -> {results.get('running')}, waiting request -> "
          f"{results.get('waiting')}, exit {code} after {time.time() - t:.1f} s, port {port}")
    if results.get("running") != 200 or results.get("waiting") != 503 or code != 0 or port != "closed":
        failures.append(f"shutdown: {results}, exit {code}, port {port}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("model")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--requests", type=int, default=25)
    ap.add_argument("--malformed", type=int, default=200)
    a = ap.parse_args()
    failures = []
    s = Server(a.binary, a.model)
    try:
        before = greedy(s)
        load(s, a.workers, a.requests, failures)
        malformed(s, a.malformed, failures)
        invalid_params(s, failures)
        after = greedy(s)
        print("after the malformed requests: " + ("the same text" if after == before else f"DIFFERENT: {before!r} vs {after!r}"))
        if after != before:
            failures.append("the greedy answer changed")
        if s.proc.poll() is not None:
            failures.append(f"the server died: {s.proc.stderr.read()[-2000:]}")
    finally:
        s.stop()
    queue_limit(a.binary, a.model, failures)
    slow_clients(a.binary, a.model, failures)
    shutdown(a.binary, a.model, failures)
    if failures:
        print("FAILED")
        for f in failures:
            print("  " + f)
        sys.exit(1)


if __name__ == "__main__":
    main()
