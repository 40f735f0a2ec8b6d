#!/usr/bin/env python3
"""The layer check: every `crate::` / `super::` / `self::` path and `use` in src/ must point at the same top module
or a layer below it (docs/architecture.md, "Layers"), and no files may import each other in a cycle. A module
file and its own submodules (a `mod.rs` and the files under it, reaching each other through `super::`) are one
unit for the cycle check; any other loop of files is reported.

Usage: scripts/layers.py [SRC_DIR]   (prints each violation and exits 1 if there is any)
"""
import os
import re
import sys

# Bottom to top: a top module may import itself and the layers below, never a sibling or a layer above.
# `retrieval` sits on `llm`: building a knowledge base and writing case reports ask a model.
LAYERS = [["util", "build_info"], ["signal", "network"], ["llm", "sandbox"], ["retrieval"], ["agent"], ["bench"],
          ["harness"], ["cli", "ui"]]
RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        # Drop line comments (not inside strings; good enough for use paths, which never hold "//").
        i = line.find("//")
        out.append(line if i < 0 else line[:i])
    return "\n".join(out)


def expand(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^([^{]*)\{(.*)\}$", tree)
    if not m:
        return [re.sub(r"as\w+$", "", tree)] if tree else []
    prefix, body = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [prefix + p2 for p in parts if p for p2 in expand(p)]


def module_of(path, src):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return [] if rel in (["lib"], ["main"]) else rel


def references(text, here):
    """Absolute module paths (lists of names) this file refers to."""
    text = strip_comments(text)
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        paths += expand(m.group(1))
    paths += re.findall(r"(?<![\w:])((?:crate|super)(?:::\w+)+)", text)
    out = []
    for p in paths:
        names = [n for n in p.split("::") if n]
        if not names:
            continue
        if names[0] == "crate":
            out.append(names[1:])
        elif names[0] == "super":
            base = here[:]
            while names and names[0] == "super":
                base = base[:-1]
                names = names[1:]
            out.append(base + names)
        elif names[0] == "self":
            out.append(here + names[1:])
    return [p for p in out if p]


def resolve(names, files):
    """The longest prefix of `names` that is a file module."""
    for n in range(len(names), 0, -1):
        if tuple(names[:n]) in files:
            return tuple(names[:n])
    return None


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    files = {}
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(root, name)
                files[tuple(module_of(path, src))] = path
    bad = []
    edges = {f: set() for f in files}
    for mod, path in sorted(files.items()):
        if not mod:
            continue
        text = open(path, encoding="utf-8").read()
        for ref in references(text, list(mod)):
            top, here_top = ref[0], mod[0]
            if top not in RANK:
                continue
            if top != here_top and RANK[top] >= RANK[here_top]:
                target = resolve(ref, files) or tuple(ref[:1])
                bad.append(f"{os.path.relpath(path, src)}: imports crate::{'::'.join(target)} "
                           f"({here_top} is layer {RANK[here_top]}, {top} is layer {RANK[top]})")
            target = resolve(ref, files)
            # A file's own children and ancestors (mod.rs declaring them) are not import edges.
            if target and target != mod and target[:len(mod)] != mod and mod[:len(target)] != target:
                edges[mod].add(target)
    # File-level cycles: strongly connected components of the import graph (Tarjan).
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for comp in comps:
        bad.append("cycle: " + " <-> ".join(sorted(os.path.relpath(files[c], src) for c in comp)))
    bad = sorted(set(bad))
    for line in bad:
        print(line)
    print(f"layers: {len(files)} files, {sum(len(e) for e in edges.values())} import edges, "
          f"{len(bad)} violation(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
