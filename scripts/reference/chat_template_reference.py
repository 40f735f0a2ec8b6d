"""Hugging Face's rendering of the GGUF chat templates (transformers' apply_chat_template environment: jinja2's
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, `tojson` as json.dumps(ensure_ascii=False),
raise_exception), for a conversation with and without OpenAI-style `tools`: written to
tests/expected/chat_template_<model>.json, which tests/llm_tokenizer.rs compares BrainLens's rendering against.
Usage: python3 scripts/reference/chat_template_reference.py [MODEL_CACHE]   (needs jinja2 and llama-cpp-python's
gguf reader: run it with target/llama-venv/bin/python)
"""
import json
import os
import sys
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
import llama_cpp

ROOT = Path(__file__).resolve().parents[2]
cache = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
    os.environ.get("BRAINLENS_CACHE", Path.home() / ".cache" / "brainlens")) / "models"
MESSAGES = [
    {"role": "system", "content": "You are BrainAgent. Cite ids like [G:modularity]."},
    {"role": "user", "content": "Which regions are hubs? Über-connectivity: α band, 脑."},
    {"role": "assistant", "content": "LH_Vis_7 and LH_DorsAttn_3 [R:LH_Vis_7]."},
    {"role": "user", "content": "And the modules?"},
]
TOOLS = [{"type": "function", "function": {"name": "hubs", "description": "Top regions by a node measure.",
          "parameters": {"type": "object", "properties": {"by": {"enum": ["degree", "strength"]}, "k": {"type": "integer"}},
                         "required": ["by"]}}}]


def render(source, bos, eos, tools):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, ensure_ascii=False, indent=None, separators=None, sort_keys=False: json.dumps(
        x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(source).render(messages=MESSAGES, tools=tools, add_generation_prompt=True,
                                          bos_token=bos, eos_token=eos)


catalogue = json.loads((ROOT / "assets/models/catalogue.json").read_text())
for m in catalogue["models"]:
    path = cache / m["file"]
    if not path.is_file():
        continue
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    source = llm.metadata.get("tokenizer.chat_template")
    if not source:
        print(f"{m['name']}: no chat template")
        continue
    tok = lambda i: llm.detokenize([i], special=True).decode() if i >= 0 else ""
    bos, eos = tok(llm.token_bos()), tok(llm.token_eos())
    out = {"model": m["name"], "sha256": m["sha256"], "messages": MESSAGES, "tools": TOOLS,
           "source": f"jinja2 {jinja2.__version__} with transformers' chat-template environment",
           "without_tools": render(source, bos, eos, None), "with_tools": render(source, bos, eos, TOOLS)}
    dest = ROOT / "tests/expected" / f"chat_template_{m['name']}.json"
    dest.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"{m['name']}: → {dest.relative_to(ROOT)}")
