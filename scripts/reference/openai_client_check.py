#!/usr/bin/env python3
"""The official `openai` client against `brainlens llm serve` (the real local model): plain, streamed,
json_schema, and tool-call requests (tool_choice auto / required / named / none, parallel calls, streamed
tool-call deltas, a tool result sent back), a refused tool schema, and the API key (401 without it).

Usage: openai_client_check.py BASE_URL API_KEY   (exits non-zero on the first failed check)
"""
import json
import sys

import openai

BASE, KEY = sys.argv[1], sys.argv[2]
client = openai.OpenAI(base_url=BASE, api_key=KEY, max_retries=0, timeout=300)

TOOLS = [
    {"type": "function", "function": {
        "name": "band_power", "description": "Relative power of an EEG band over a channel.",
        "parameters": {"type": "object", "properties": {
            "channel": {"enum": ["Fz", "Cz", "Pz", "O1", "O2"]},
            "band": {"enum": ["delta", "theta", "alpha", "beta"]}}, "required": ["channel", "band"]}}},
    {"type": "function", "function": {
        "name": "hubs", "description": "The k most connected regions of the network.",
        "parameters": {"type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]}}},
]
CHANNELS = {"Fz", "Cz", "Pz", "O1", "O2"}
BANDS = {"delta", "theta", "alpha", "beta"}
checks = 0


def check(cond, what):
    global checks
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)
    checks += 1


def valid_call(call):
    args = json.loads(call.function.arguments)
    if call.function.name == "band_power":
        return args.get("channel") in CHANNELS and args.get("band") in BANDS
    if call.function.name == "hubs":
        return isinstance(args.get("k"), int)
    return False


ask = [{"role": "user", "content": "What is the alpha power over O1?"}]

r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Say hello."}], max_tokens=16)
check(isinstance(r.choices[0].message.content, str) and r.usage.completion_tokens > 0, "plain reply")

parts = [c.choices[0].delta.content for c in client.chat.completions.create(
    model="m", messages=[{"role": "user", "content": "Count to five."}], max_tokens=16, stream=True)
    if c.choices and c.choices[0].delta.content]
check(len(parts) >= 2, f"streamed reply in pieces ({len(parts)})")

r = client.chat.completions.create(model="m", messages=ask, max_tokens=40, response_format={
    "type": "json_schema", "json_schema": {"name": "band", "schema": {
        "type": "object", "properties": {"band": {"enum": sorted(BANDS)}}, "required": ["band"]}}})
check(json.loads(r.choices[0].message.content)["band"] in BANDS, "json_schema reply validates")

for choice in ["required", {"type": "function", "function": {"name": "band_power"}}]:
    r = client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice=choice,
                                       parallel_tool_calls=False, max_tokens=60)
    calls = r.choices[0].message.tool_calls
    check(r.choices[0].finish_reason == "tool_calls" and calls and len(calls) == 1, f"one call for {choice}")
    check(all(valid_call(c) for c in calls), f"arguments validate for {choice}: {calls}")
    if isinstance(choice, dict):
        check(calls[0].function.name == "band_power", "the named function is called")

r = client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice="required", max_tokens=90)
calls = r.choices[0].message.tool_calls
check(calls and all(valid_call(c) for c in calls), f"parallel calls validate: {calls}")

r = client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice="auto", max_tokens=60)
m = r.choices[0].message
check((m.tool_calls and all(valid_call(c) for c in m.tool_calls)) or isinstance(m.content, str), "auto: call or text")

r = client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice="none", max_tokens=20)
check(r.choices[0].message.tool_calls is None and isinstance(r.choices[0].message.content, str), "none: text only")

deltas = {}
finish = None
for c in client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice="required",
                                        parallel_tool_calls=False, max_tokens=60, stream=True):
    for ch in c.choices:
        finish = ch.finish_reason or finish
        for d in ch.delta.tool_calls or []:
            entry = deltas.setdefault(d.index, {"name": "", "arguments": ""})
            if d.function and d.function.name:
                entry["name"] += d.function.name
            if d.function and d.function.arguments:
                entry["arguments"] += d.function.arguments
check(finish == "tool_calls" and len(deltas) == 1, f"streamed tool call ({finish}, {deltas})")
d = deltas[0]
check(d["name"] in ("band_power", "hubs") and isinstance(json.loads(d["arguments"]), dict), "streamed arguments parse")

first = client.chat.completions.create(model="m", messages=ask, tools=TOOLS, tool_choice="required",
                                       parallel_tool_calls=False, max_tokens=60).choices[0].message
follow = ask + [first.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "{\"relative_power\": 0.31}"}]
r = client.chat.completions.create(model="m", messages=follow, tools=TOOLS, tool_choice="none", max_tokens=30)
check(isinstance(r.choices[0].message.content, str), "a tool result is accepted back")

try:
    client.chat.completions.create(model="m", messages=ask, max_tokens=5, tools=[{"type": "function", "function": {
        "name": "bad", "parameters": {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}]}}}}}])
    check(False, "a tool schema outside the subset is refused")
except openai.BadRequestError as e:
    check("bad" in str(e) and "allOf" in str(e), f"the refusal names the tool and keyword: {e}")

try:
    openai.OpenAI(base_url=BASE, api_key="wrong", max_retries=0).chat.completions.create(
        model="m", messages=ask, max_tokens=4)
    check(False, "a wrong key is refused")
except openai.AuthenticationError:
    check(True, "401 without the key")

print(f"openai client {openai.__version__} against brainlens llm serve: {checks} checks passed")
