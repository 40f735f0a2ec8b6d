#!/usr/bin/env python3
"""What the agents did in a `bench run` result file (no third-party packages): for BrainAgent (EEG), planned
steps, steps that reached the argument checks and passed them, tools that ran (ok or raising), instances with
at least one tool run; for CodeAct, rounds and instances that executed at least one block; scores per subset
and per difficulty (mean total_score). Usage: agent_steps.py RESULT.json [RESULT.json ...]
"""
import json
import sys
from collections import defaultdict


def summarise(path):
    r = json.load(open(path))
    out = {"file": path, "instances": len(r["instances"]), "report_mode": r.get("experiment", {}).get("report_mode")}
    planned = reached = passed = ran_ok = 0
    with_tool = with_block = 0
    blocks = 0
    by_subset, by_level = defaultdict(list), defaultdict(list)
    for i in r["instances"]:
        by_subset[i["bench_subset"]].append(i["total_score"])
        by_level[i["difficulty"]].append(i["total_score"])
        t = (i.get("sandbox") or {}).get("trace") or {}
        ran_here = False
        for rd in t.get("rounds", []):
            if "plan" in rd:  # BrainAgent
                planned += len(rd.get("plan") or [])
                for s in rd.get("executed", []):
                    reached += 1
                    if s["status"] != "not_executable":
                        passed += 1
                        ran_here = True
                    ran_ok += s["status"] == "ok"
            elif rd.get("code") is not None:  # CodeAct
                blocks += 1
                ran_here = True
        if ran_here:
            if t.get("paradigm") == "codeact":
                with_block += 1
            else:
                with_tool += 1
    n = max(len(r["instances"]), 1)
    out.update({
        "planned_steps": planned, "steps_reaching_checks": reached, "steps_passing_checks": passed,
        "steps_ok": ran_ok,
        "share_passing": round(passed / reached, 3) if reached else None,
        "instances_with_a_tool_run": with_tool, "share_with_a_tool_run": round(with_tool / n, 3),
        "code_blocks_executed": blocks, "instances_with_a_block": with_block,
        "share_with_a_block": round(with_block / n, 3),
        "mean_score": round(sum(i["total_score"] for i in r["instances"]) / n, 2),
        "score_by_subset": {k: round(sum(v) / len(v), 2) for k, v in sorted(by_subset.items())},
        "score_by_difficulty": {k: round(sum(v) / len(v), 2) for k, v in sorted(by_level.items())},
    })
    return out


if __name__ == "__main__":
    print(json.dumps([summarise(p) for p in sys.argv[1:]], indent=2))
