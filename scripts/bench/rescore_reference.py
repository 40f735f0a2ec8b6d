#!/usr/bin/env python3
"""Reference timing for `brainlens bench rescore`: the same work in Python with the independent rules of
scripts/reference/bench_scoring.py — load every case, load the result file, re-score each stored
parser_output (judged and file units keep their stored scores, as the CLI does without --judge/--workspace),
recompute the difficulty-weighted total. Prints the number of instances whose total changed and the total."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import bench_scoring as rules  # noqa: E402

result_path, cases_root = sys.argv[1], sys.argv[2]
cases = {}
for p in glob.glob(os.path.join(cases_root, "**", "case*", "case*_*.json"), recursive=True):
    with open(p, encoding="utf-8") as f:
        c = json.load(f)
    sub = c["meta_info"]["bench_subset"]
    cases[(sub, os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p))] = c
with open(result_path, encoding="utf-8") as f:
    result = json.load(f)
changed, ws, wm = 0, 0.0, 0.0
for inst in result["instances"]:
    src = inst.get("source_json") or ""
    key = (inst.get("bench_subset"), "/".join(src.replace("\\", "/").split("/")[-2:]))
    case = cases.get(key)
    if case is not None and (inst.get("vrr", 0) > 0 or inst.get("metric_details")):
        total = 0.0
        for m in case["eval_config"]["metrics"]:
            if not isinstance(m, dict):
                continue
            stored = inst["metric_details"].get(rules.metric_id(m), {})
            if m.get("type") in rules.JUDGED + ("file_status_check",) and stored:
                total += stored.get("weighted_score", 0.0)
            else:
                total += rules.raw_score(m, inst["parser_output"], inst.get("agent_output") or "", None) * rules.weight(m)
        if abs(total - inst["total_score"]) > 1e-9:
            changed += 1
        inst["total_score"] = total
    d = inst.get("difficulty") or 1.0
    ws += inst["total_score"] * d
    wm += (inst.get("max_score") or 100.0) * d
print(json.dumps({"instances": len(result["instances"]), "changed": changed, "total_score": 100 * ws / wm if wm else 0}))
