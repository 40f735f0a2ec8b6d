#!/usr/bin/env python3
"""The Bench room's demo collection: SIMULATED results, clearly labelled as such.

Writes a small BrainBench-format case suite (4 subsets x 4 tasks x 5 instances, with the real case structure of
../shared/BRAINBENCH.md) and, for three simulated models x two paradigms x two repeats, a result file whose
instances come from a seeded simulation: each answer is right with a probability that depends on the model, the
paradigm, the validation unit and the difficulty. Scores are computed with the independent Python rules in
scripts/reference/bench_scoring.py, so `brainlens bench rescore` must reproduce every stored score.
No language model is run. Every experiment block says "simulated": true.

    python3 scripts/bench/make_demo.py --out fixtures/bench/demo --seed 20261130
"""
import argparse
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import bench_scoring as rules  # noqa: E402

SUBSETS = {
    "Foundational Analysis": "foundational_analysis",
    "Sleep Assessment": "sleep_assessment",
    "Neurocognitive Assessment": "neurocognitive_assessment",
    "Physiological Integration": "physiological_integration",
}
CHANNELS = ["Fp1", "Fp2", "F3", "F4", "C3", "C4", "P3", "P4", "O1", "O2", "F7", "F8", "T3", "T4", "Cz", "Pz"]
BANDS = ["delta", "theta", "alpha", "beta", "gamma"]
STAGES = ["W", "N1", "N2", "N3", "REM"]


def task_specs(subset, r):
    """Four task templates per subset: (instruction, metrics builder)."""
    def numeric(key, gt, tol, w):
        return {"metric_id": key, "type": "numeric_check", "target_key": key, "weight": w,
                "params": {"gt_value": gt, "tolerance": tol}}

    def cat(key, gt, w):
        return {"metric_id": key, "type": "categorical_check", "target_key": key, "weight": w, "params": {"gt_value": gt}}

    def setm(key, gt, w, mode="exact"):
        return {"metric_id": key, "type": "set_match_check", "target_key": key, "weight": w,
                "params": {"gt_value": gt, "match_mode": mode}}

    def seq(key, gt, w, mode="weighted_partial_order", slip=1):
        return {"metric_id": key, "type": "sequence_match_check", "target_key": key, "weight": w,
                "params": {"gt_value": gt, "match_mode": mode, "allow_order_slip": slip}}

    def sem(key, w):
        return {"metric_id": key, "type": "semantic_consistency", "target_key": "full_text", "weight": w,
                "params": {"judge_prompt": "Does the report state the method and the result consistently?"}}

    def art(key, w):
        return {"metric_id": key, "type": "file_status_check", "target_key": key, "weight": w,
                "params": {"match_mode": "eeg_file_match", "validator_config": {
                    "channel_count": {"value": 19, "weight": 1}, "bandpass_hz": {"value": [0.5, 40], "weight": 1}}}}

    if subset == "Foundational Analysis":
        return [
            ("Band-pass 0.5-40 Hz (FIR), compute each channel's relative alpha power and report the mean in %.",
             lambda: [numeric("alpha_rel_mean", round(r.uniform(8, 35), 2), 1.0, 80), sem("method_consistency", 20)]),
            ("Exclude channels whose variance is an IQR outlier; list the channels whose alpha power is above the mean.",
             lambda: [setm("alpha_channels", r.sample(CHANNELS, r.randint(3, 6)), 100, "per_hit_fraction")]),
            ("Rank the five channels with the highest variance, highest first.",
             lambda: [seq("variance_rank", r.sample(CHANNELS, 5), 100)]),
            ("Re-reference to the average, band-pass 0.5-40 Hz and save the result as EDF; report the path.",
             lambda: [art("filtered_edf", 70), cat("reference", "average", 30)]),
        ]
    if subset == "Sleep Assessment":
        return [
            ("From the hypnogram, report total sleep time in minutes.",
             lambda: [numeric("tst_min", round(r.uniform(300, 480), 1), 5.0, 100)]),
            ("Report sleep efficiency in % and REM latency in minutes.",
             lambda: [numeric("se_pct", round(r.uniform(70, 97), 1), 1.0, 50), numeric("rem_latency_min", round(r.uniform(60, 140), 1), 5.0, 50)]),
            ("Which stage occupies most of the night?", lambda: [cat("dominant_stage", r.choice(["N2", "N2", "N3", "REM"]), 100)]),
            ("Order the stages by time spent, longest first.", lambda: [seq("stage_order", r.sample(STAGES, 5), 100, "exact_order", 0)]),
        ]
    if subset == "Neurocognitive Assessment":
        return [
            ("Count the auditory and visual trials.",
             lambda: [numeric("auditory_trials", r.randint(50, 80), 0, 50), numeric("visual_trials", r.randint(50, 80), 0, 50)]),
            ("Report the N100 latency at Cz in ms.", lambda: [numeric("n100_ms", round(r.uniform(85, 130), 1), 8.0, 100)]),
            ("Does alpha power drop more after visual than after auditory stimuli? Explain.",
             lambda: [cat("visual_larger_drop", r.choice([True, False]), 60), sem("explanation", 40)]),
            ("Which band shows the strongest phase locking between frontal and occipital channels?",
             lambda: [cat("plv_band", r.choice(BANDS), 100)]),
        ]
    return [
        ("Detect R peaks in the ECG and report mean heart rate (bpm) and RMSSD (ms).",
         lambda: [numeric("hr_bpm", round(r.uniform(52, 85), 1), 2.0, 50), numeric("rmssd_ms", round(r.uniform(15, 70), 1), 5.0, 50)]),
        ("Rank the four 30-s segments by EOG activity, most active first.",
         lambda: [seq("eog_rank", [str(x) for x in r.sample(range(1, 5), 4)], 100, "per_hit_fraction_order")]),
        ("Which EEG channels correlate with the EOG above 0.5?", lambda: [setm("eog_corr_channels", r.sample(["Fp1", "Fp2", "F7", "F8", "F3", "F4"], r.randint(1, 3)), 100)]),
        ("Is the requested respiration file present? If not, refuse.", lambda: [{"metric_id": "refusal", "type": "safety_compliance",
         "target_key": "full_text", "weight": 100, "params": {"judge_prompt": "Did the agent refuse because the file is missing?"}}]),
    ]


def write_cases(out, r, repeat=1, per_task=5):
    cases = []
    for subset, folder in SUBSETS.items():
        specs = [spec for _ in range(repeat) for spec in task_specs(subset, r)]
        for t, (instruction, build) in enumerate(specs, start=1):
            for k in range(1, per_task + 1):
                difficulty = [1.0, 2.0, 3.0][(t + k) % 3]
                case = {
                    "meta_info": {"case_id": "%s_%02d_%d" % (folder, t, k), "bench_subset": subset,
                                  "difficult": difficulty, "original_dataset": "SIMULATED",
                                  "expected_missing_data_path": subset == "Physiological Integration" and t == 4},
                    "agent_input": {"data_path": "data/%s/rec_%02d.edf" % (folder, k), "instruction": instruction},
                    "eval_config": {"parser_prompt": "Extract the requested fields as JSON.", "metrics": build()},
                }
                path = os.path.join(out, "cases", folder, "cases", "case%d" % t, "case%d_%d.json" % (t, k))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(case, f, indent=2)
                cases.append((os.path.relpath(path, out), case))
    return cases


def answer(metric, skill, r):
    """A simulated parsed value: the truth with probability `skill`, else a plausible wrong value."""
    p, t = metric["params"], metric["type"]
    right = r.random() < skill
    if t == "numeric_check":
        gt, tol = p["gt_value"], p["tolerance"]
        return gt + (r.uniform(-0.8, 0.8) * tol if right else r.choice([-1, 1]) * (tol + abs(gt) * r.uniform(0.05, 0.4) + 1))
    if t == "categorical_check":
        if right:
            return p["gt_value"] if not isinstance(p["gt_value"], str) else r.choice([p["gt_value"], p["gt_value"].lower()])
        pool = [x for x in (BANDS + STAGES + ["average", "Cz", True, False]) if x != p["gt_value"]]
        return r.choice(pool)
    if t in ("set_match_check", "sequence_match_check"):
        gt = list(p["gt_value"])
        if right:
            return ", ".join(gt) if r.random() < 0.3 else gt
        items = rules.perturb_list(r, gt)
        return items if items else [r.choice(CHANNELS)]
    if t == "file_status_check":
        return "/workspace/file_check/filtered.edf" if right else r.choice(["../outside.edf", "/tmp/x.edf", ""])
    return None


UNIT_BIAS = {"numeric_check": 0.0, "categorical_check": 0.05, "set_match_check": -0.05, "sequence_match_check": -0.1,
             "semantic_consistency": 0.05, "safety_compliance": 0.0, "file_status_check": -0.15}
MODELS = {"simulated-large": 0.78, "simulated-medium": 0.62, "simulated-small": 0.45}


def set_models(n):
    """n simulated models with skills spread over 0.35-0.85 (the default three when n == 3)."""
    if n != 3:
        MODELS.clear()
        for i in range(n):
            MODELS["simulated-model-%02d" % (i + 1)] = 0.35 + 0.5 * i / max(1, n - 1)


def simulate_instance(rel, case, model, paradigm, run, r):
    base = MODELS[model]
    d = case["meta_info"]["difficult"]
    # BrainAgent's tools help more as tasks get harder (the effect the DAI measures); CodeAct is steadier on easy.
    paradigm_bonus = {"brainagent": 0.04 * (d - 1.0), "codeact": 0.03 * (2.0 - d)}[paradigm]
    start_iso = "2026-11-%02dT%02d:%02d:00+00:00" % (20 + run, 8 + r.randint(0, 3), r.randint(0, 59))
    errors, parsed = [], {}
    tokens = {"target": r.randint(900, 4000) * (2 if paradigm == "codeact" else 1), "parser": r.randint(200, 600),
              "semantic": 0, "vlm": 0}
    if r.random() < 0.02:
        errors.append("api_infrastructure_error: simulated timeout after 120 s")
        report, vrr = "", 0.0
    else:
        vrr = 1.0
        for m in case["eval_config"]["metrics"]:
            skill = min(0.97, max(0.03, base + paradigm_bonus + UNIT_BIAS.get(m["type"], 0) - 0.08 * (d - 1)))
            if m["type"] not in ("semantic_consistency", "safety_compliance"):
                parsed[m["target_key"]] = answer(m, skill, r)
        report = "## Result\n\n" + "\n".join("- **%s**: %s" % (k, json.dumps(v)) for k, v in parsed.items())
        report += "\n\n_Simulated report: no model was run._"
        if r.random() < 0.03:
            errors.append("parser_error: simulated malformed JSON from the parser")
            parsed = {}
    details, total, max_score = {}, 0.0, 0.0
    for m in case["eval_config"]["metrics"]:
        max_score += float(m["weight"])
        if vrr == 0.0:
            continue
        if m["type"] in ("semantic_consistency", "safety_compliance"):
            skill = min(0.97, max(0.03, base + paradigm_bonus - 0.05 * (d - 1)))
            raw = round(r.random() * 0.3 + 0.7, 2) if r.random() < skill else round(r.random() * 0.4, 2)
            tokens["semantic"] += r.randint(150, 400)
            evidence = {"judge": "simulated"}
        elif m["type"] == "file_status_check":
            reported = parsed.get(m["target_key"], "")
            raw = 1.0 if reported.startswith("/workspace/") else 0.0
            evidence = {"simulated": True}
            if reported and not reported.startswith("/workspace/"):
                errors.append("artifact_path_violation: artifact path escapes workspace: %s" % reported)
        else:
            raw = rules.raw_score(m, parsed, report, None)
            evidence = None
        detail = {"raw_score": raw, "weighted_score": raw * m["weight"]}
        if evidence:
            detail["evidence"] = evidence
        detail.update({"metric_type": m["type"], "target_key": m["target_key"], "weight": m["weight"]})
        details[m["metric_id"]] = detail
        total += raw * m["weight"]
    tokens["total"] = sum(tokens.values())
    t_target = round(r.uniform(20, 200) * (1.6 if paradigm == "codeact" else 1.0), 3)
    timing = {"target": t_target, "parser": round(r.uniform(1, 4), 3), "judge": round(r.uniform(0, 3), 3), "vlm": 0.0}
    timing["model_total"] = round(sum(timing.values()), 6)
    timing["scoring"] = 0.002
    timing["total"] = round(timing["model_total"] + 0.002, 6)
    sandbox = None
    if paradigm == "codeact" and vrr:
        sandbox = {"backend": "simulated", "rounds": [
            {"round": 1, "code": "import mne\nraw = mne.io.read_raw_edf('/input/rec.edf', preload=True)", "observation": "Execution succeeded (no output)."},
            {"round": 2, "code": "print(raw.info['sfreq'])", "observation": "256.0"}]}
    folder = os.path.basename(os.path.dirname(rel))
    subset = case["meta_info"]["bench_subset"]
    return {
        "instance_id": "%s-%s-%s" % (subset, folder, os.path.splitext(os.path.basename(rel))[0]),
        "recording_id": case["meta_info"]["case_id"],
        "case_id": case["meta_info"]["case_id"],
        "bench_subset": subset,
        "difficulty": d,
        "source_json": rel,
        "total_score": total,
        "max_score": max_score,
        "vrr": vrr,
        "metric_details": details,
        "agent_output": report,
        "parser_output": parsed,
        "artifact_manifest": [],
        "sandbox": sandbox,
        "token_usage": tokens,
        "timing_sec": timing,
        "started_at": start_iso,
        "finished_at": start_iso,
        "errors": errors,
    }


def summarize(instances):
    """The reference summary (BRAINBENCH.md): difficulty-weighted total score and friends."""
    n = len(instances)
    ws = sum(i["total_score"] * (i["difficulty"] or 1.0) for i in instances)
    wm = sum((i["max_score"] or 100.0) * (i["difficulty"] or 1.0) for i in instances)
    total = 100.0 * ws / wm if wm > 0 else 0.0
    failures = {}
    for i in instances:
        for e in i["errors"]:
            c = e.split(":", 1)[0]
            failures[c] = failures.get(c, 0) + 1
    tokens = {role: sum(int(i["token_usage"].get(role, 0)) for i in instances) for role in ("target", "parser", "semantic", "vlm")}
    tokens["total"] = sum(tokens.values())
    return {"instance_count": n, "successful_instance_count": sum(1 for i in instances if i["vrr"] > 0),
            "total_score": total, "mean_score": total, "difficulty_weighted_score_sum": ws,
            "difficulty_weighted_max_score_sum": wm, "vrr_mean": sum(i["vrr"] for i in instances) / n if n else 0.0,
            "failure_summary": failures, "token_usage": tokens, "planned_instance_count": n, "completed_instance_count": n}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--repeat-tasks", type=int, default=1, help="task templates per subset = 4 x this")
    ap.add_argument("--per-task", type=int, default=5, help="instances per task")
    ap.add_argument("--models", type=int, default=3)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    r = random.Random(a.seed)
    set_models(a.models)
    cases = write_cases(a.out, r, a.repeat_tasks, a.per_task)
    for model in MODELS:
        for paradigm in ("brainagent", "codeact"):
            for run in range(1, a.runs + 1):
                rr = random.Random("%s-%s-%d-%d" % (model, paradigm, run, a.seed))
                instances = [simulate_instance(rel, case, model, paradigm, run, rr) for rel, case in cases]
                result = {
                    "experiment": {"subset": "all", "subset_root": "cases", "started_at": "2026-11-%02dT08:00:00+00:00" % (20 + run),
                                   "finished_at": "2026-11-%02dT12:00:00+00:00" % (20 + run),
                                   "models": {"target": {"role": "target", "model": model, "endpoint_mode": "simulated"},
                                              "parser": {"role": "parser", "model": "simulated-parser", "endpoint_mode": "simulated"},
                                              "semantic": {"role": "semantic", "model": "simulated-judge", "endpoint_mode": "simulated"},
                                              "vlm": {"role": "vlm", "model": None, "endpoint_mode": "unknown"}},
                                   "max_workers": 1, "evaluation_mode": paradigm, "rerun": False, "run": run,
                                   "simulated": True,
                                   "note": "SIMULATED RESULTS generated by scripts/bench/make_demo.py; no model was run."},
                    "instances": instances,
                    "summary": summarize(instances),
                }
                path = os.path.join(a.out, "results", "%s_%s_run%d.json" % (model, paradigm, run))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(result, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
