#!/usr/bin/env python3
"""What the graph agent did in `agent eval` run or shard files (no third-party packages): accuracy, recall,
precision and positive rate (the task's positive label, read from assets/tasks/TASK.toml) beside the true rate;
how many subjects called each tool; for the subjects whose agent retrieved cases (CARD), the retrieved cases'
majority label, how often the analysis's label and the final one are that majority, and how often it is right,
and whose text the retrieval queried with (the model's or the template report, `--card-query`);
what reflection revised and flipped (to the right or the wrong label, and how many to the positive one), and the labels before reflection scored
as a run (at temperature 0 they are what `--no-reflection` gives: every step before the analysis is the same);
median seconds and tokens per subject.
Usage: cohort_agent_steps.py RUN.jsonl [RUN.jsonl ...] (several files of one run, e.g. its shards, are joined
when given as A.jsonl+B.jsonl).
"""
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def positive_label(task):
    text = (ROOT / "assets" / "tasks" / f"{task}.toml").read_text()
    return re.search(r'^positive\s*=\s*"([^"]+)"', text, re.M).group(1)


def records(spec):
    header, recs = None, []
    for path in spec.split("+"):
        lines = Path(path).read_text().splitlines()
        header = header or json.loads(lines[0])
        recs += [json.loads(l) for l in lines[1:] if l.strip()]
    return header, [r for r in recs if r.get("kind", "sample") != "run"]


def summarise(spec):
    header, recs = records(spec)
    pos = positive_label(header["task"])
    n = len(recs)
    if n == 0:
        return f"{spec}: no subjects yet"
    right = sum(r["correct"] for r in recs)
    tp = sum(r["label"] == pos and r["truth"] == pos for r in recs)
    pred_pos = sum(r["label"] == pos for r in recs)
    true_pos = sum(r["truth"] == pos for r in recs)
    tools = Counter()
    card_subjects = card_follows = analysis_follows = card_majority_right = 0
    majority_labels = Counter()
    query_sources = Counter()
    revised = flipped = flipped_right = flipped_wrong = flipped_to_positive = 0
    before_right = before_pos = 0
    for r in recs:
        t = r["trace"]
        called = {rd["tool"] for rd in t.get("rounds", []) if rd.get("tool")}
        tools.update(called)
        for rd in t.get("rounds", []):
            if rd.get("tool") == "retrieve_case" and (rd.get("data") or {}).get("hits"):
                # Runs before --card-query recorded no source: the model's query was the only one.
                query_sources[rd["data"].get("query_source", "model")] += 1
                votes = Counter(h["label"] for h in rd["data"]["hits"] if h.get("chosen"))
                top = votes.most_common()
                if len(top) > 1 and top[0][1] == top[1][1]:
                    continue  # a tie names no majority
                card_subjects += 1
                majority_labels[top[0][0]] += 1
                card_follows += r["label"] == top[0][0]
                analysis_follows += (t.get("analysis") or {}).get("label") == top[0][0]
                card_majority_right += r["truth"] == top[0][0]
                break
        analysed = (t.get("analysis") or {}).get("label")
        before_right += analysed == r["truth"]
        before_pos += analysed == pos
        ref = t.get("reflection")
        if ref and ref.get("revised"):
            revised += 1
            before, after = ref["before"]["label"], ref["after"]["label"]
            if before != after:
                flipped += 1
                flipped_right += after == r["truth"]
                flipped_wrong += before == r["truth"]
                flipped_to_positive += after == pos
    secs = statistics.median(r["seconds"] for r in recs)
    tokens = statistics.median(r["prompt_tokens"] + r["completion_tokens"] for r in recs)
    out = [
        f"== {spec}: {header['method']} on {header['task']}, {header.get('model')}, {n} subjects",
        f"accuracy {right / n:.3f} ({right}/{n}); recall {tp / max(true_pos, 1):.3f}; "
        f"precision {tp / max(pred_pos, 1):.3f}; positive rate {pred_pos / n:.3f} (true {true_pos / n:.3f})",
        "subjects calling each tool: " + ", ".join(f"{k} {v}" for k, v in tools.most_common()),
        f"CARD: {card_subjects} subjects with a case majority ("
        + ", ".join(f"{k} {v}" for k, v in majority_labels.most_common())
        + f"); the analysis's label = that majority in {analysis_follows}, the final label in {card_follows}; "
        f"the majority right in {card_majority_right}; text query: "
        + (", ".join(f"{k} {v}" for k, v in query_sources.most_common()) or "none"),
        f"reflection: revised {revised}, flipped {flipped} ({flipped_right} to the right label, "
        f"{flipped_wrong} to the wrong one; {flipped_to_positive} to {pos}); before reflection: accuracy {before_right / n:.3f}, "
        f"positive rate {before_pos / n:.3f}",
        f"median {secs:.0f} s and {tokens:.0f} tokens a subject",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for spec in sys.argv[1:]:
        print(summarise(spec))
