#!/usr/bin/env python3
"""Differential test data for BrainLens's BrainBench scorer.

An independent Python implementation of the case and validation-unit rules in ../shared/BRAINBENCH.md (written
for this test from the rules text, not from the Rust code), and a seeded generator of random cases: every unit
and mode, odd-but-usable parameters (numbers written as strings, unknown or null modes, negative tolerances,
top_k 0 or negative, weights as strings, metrics that are not objects, duplicate ids), and case files the
reference refuses (no metrics list, no instruction, not an object).

Writes one JSON object per line:
  {"case", "parsed", "report", "judge", "refused", "raw": {metric_id: raw}, "total", "max"}
`refused` is null when the reference scores the case. tests/bench_scoring.rs runs this script and requires
BrainLens to refuse exactly the refused cases and to give identical raw scores and totals for the others.

    python3 scripts/reference/bench_scoring.py --n 20000 --seed 7 --out target/bench_scoring.jsonl

Numbers go through Python's own float() and int(), as the rules say. NaN is generated only where a JSON reader
without NaN (serde_json reads the bare word as the string "NaN") must agree: as a prediction or a truth.
"""
import argparse
import json
import math
import random


# ---------------------------------------------------------------- canonical forms and coercions
def canonical(v):
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v):
            return str(int(v))
        return ("%.12g" % v).upper()
    if isinstance(v, str):
        return v.strip().upper()
    if v is None:
        return "NONE"
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).strip().upper()


def token(v):
    return canonical(v).replace(" ", "")


def tokens(v):
    if v is None:
        return []
    if isinstance(v, list):
        return [token(x) for x in v]
    if isinstance(v, str):
        out = []
        for item in v.strip("[]()").split(","):
            item = item.strip()
            if item:
                out.append(item.strip("'\"").upper().replace(" ", ""))
        return out
    return [token(v)]


def number(v):
    """Python's float(); a boolean is not a number; NaN and inf count as missing."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        return None
    try:
        f = float(v)
    except (ValueError, OverflowError):
        return None
    return f if math.isfinite(f) else None


def int_coerced(v):
    """Python's int() (a boolean is 0 or 1, a float is truncated); None when it fails."""
    if not isinstance(v, (bool, int, float, str)):
        return None
    try:
        return int(v)
    except (ValueError, OverflowError):
        return None


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def clamp01(x):
    return min(1.0, max(0.0, x)) if math.isfinite(x) else 0.0


def dedupe(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


class ScoreError(Exception):
    pass


def mode(params, default):
    """Absent → the default; a string → lower-cased; anything else is no known mode."""
    if "match_mode" not in params:
        return default
    m = params["match_mode"]
    return m.lower() if isinstance(m, str) else None


# ---------------------------------------------------------------- units
def numeric(pred, p):
    a, b = number(pred), number(p.get("gt_value"))
    tol = number(p["tolerance"]) if "tolerance" in p else 0.0
    if a is None or b is None or tol is None or tol < 0:
        return 0.0
    if tol == 0:
        return 1.0 if a == b else 0.0
    return 1.0 if abs(a - b) <= tol else 0.0


def set_match(pred, p):
    gt = p.get("gt_value")
    if not isinstance(pred, (list, str)) or not isinstance(gt, (list, str)):
        return 0.0
    pt = tokens(pred)
    k = int_coerced(p.get("top_k"))
    if k is not None and k > 0:
        pt = pt[:k]
    ps, ts = set(pt), set(tokens(gt))
    m = mode(p, "exact")
    if m == "exact":
        return 1.0 if ps == ts else 0.0
    if m == "per_hit_fraction":
        if not ts:
            return 1.0 if not ps else 0.0
        per = number(p["score_per_hit"]) if "score_per_hit" in p else 1.0 / len(ts)
        if per is None:
            raise ScoreError("score_per_hit is not a number")
        return clamp01(len(ps & ts) * per)
    raise ScoreError("unknown set match_mode")


def sequence_match(pred, p):
    gt = p.get("gt_value")
    if pred is None or gt is None:
        return 0.0
    ps, ts = tokens(pred), tokens(gt)
    m = mode(p, "weighted_partial_order")
    if m == "per_hit_fraction_order":
        if not ts:
            return 1.0 if not ps else 0.0
        return sum(1 for i, t in enumerate(ts) if i < len(ps) and ps[i] == t) / len(ts)
    if m not in ("exact_order", "weighted_partial_order"):
        raise ScoreError("unknown sequence match_mode")
    ps, ts = dedupe(ps), dedupe(ts)
    k = int_coerced(p.get("top_k"))
    k = max(1, len(ts) if k is None else k)
    ps, ts = ps[:k], ts[:k]
    if m == "exact_order":
        return 1.0 if ps == ts else 0.0
    if not ts:
        return 1.0 if not ps else 0.0
    w = p.get("position_weights")
    if isinstance(w, list) and len(w) >= len(ts) and all(is_number(x) for x in w[: len(ts)]):
        w = [float(x) for x in w[: len(ts)]]
    else:
        w = [1.0 / (i + 1) for i in range(len(ts))]
    mo = int_coerced(p.get("min_overlap"))
    mo = 1 if mo is None else mo
    slip = int_coerced(p.get("allow_order_slip"))
    slip = 0 if slip is None else slip
    overlap = [item for item in ts if item in ps]
    if len(overlap) < mo:
        return 0.0
    pos = 0.0
    for g, item in enumerate(ts):
        if item in ps:
            if slip + 1 == 0:
                raise ScoreError("allow_order_slip -1 divides by zero")
            pos += w[g] * max(0.0, 1.0 - abs(g - ps.index(item)) / (slip + 1))
    total = sum(w)
    if total == 0:
        raise ScoreError("position weights sum to zero")
    return len(overlap) / len(ts) * (pos / total)


def judge_score(ans):
    def num_or_bool(v):
        if isinstance(v, bool):
            return 1.0 if v else 0.0
        n = number(v)
        return clamp01(n) if n is not None else 0.0

    if isinstance(ans, dict):
        if "score" in ans:
            return num_or_bool(ans["score"])
        if "status" in ans:
            return 1.0 if bool(ans["status"]) else 0.0
        if "passed" in ans:
            return 1.0 if bool(ans["passed"]) else 0.0
        return 0.0
    return num_or_bool(ans)


JUDGED = ("semantic_consistency", "safety_compliance", "factual_qa_check")


def raw_score(metric, parsed, report, judge):
    """judge: None (no judge) or the judge's fixed answer, as {"answer": …}."""
    key = metric.get("target_key")
    pred = report if key == "full_text" else (parsed.get(key) if isinstance(key, str) else None)
    p = metric.get("params") if isinstance(metric.get("params"), dict) else {}
    t = metric.get("type") if isinstance(metric.get("type"), str) else ""
    try:
        if t == "numeric_check":
            r = numeric(pred, p)
        elif t == "categorical_check":
            r = 1.0 if canonical(pred) == canonical(p.get("gt_value")) else 0.0
        elif t == "set_match_check":
            r = set_match(pred, p)
        elif t == "sequence_match_check":
            r = sequence_match(pred, p)
        elif t in JUDGED:
            prompt = p.get("judge_prompt") if isinstance(p.get("judge_prompt"), str) else ""
            r = 0.0 if judge is None or not prompt.strip() else judge_score(judge["answer"])
        else:
            return 0.0
    except ScoreError:
        return 0.0
    return clamp01(r)


# ---------------------------------------------------------------- cases
def refusal(case):
    """Why the reference cannot run this case at all, or None when it scores it."""
    if not isinstance(case, dict):
        return "not a JSON object"
    for section in ("meta_info", "agent_input", "eval_config"):
        if not isinstance(case.get(section), dict):
            return section + " is not an object"
    metrics = case["eval_config"].get("metrics")
    if not isinstance(metrics, list) or not metrics:
        return "eval_config.metrics is not a non-empty list"
    if "instruction" not in case["agent_input"]:
        return "agent_input.instruction is missing"
    return None


def metric_id(m):
    v = m.get("metric_id")
    if v is None:
        return "unknown_metric"
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def weight(m):
    w = number(m.get("weight"))
    return 0.0 if w is None else w


def score_case(case, parsed, report, judge):
    """({metric_id: raw}, total, max) over the metrics that are objects (others are skipped)."""
    raws, total, top = {}, 0.0, 0.0
    for m in case["eval_config"]["metrics"]:
        if not isinstance(m, dict):
            continue
        r = raw_score(m, parsed, report, judge)
        raws[metric_id(m)] = r
        total += r * weight(m)
        top += weight(m)
    return raws, total, top


# ---------------------------------------------------------------- generator
LABELS = ["Fp1", "Fp2", "F3", "F4", "C3", "C4", "P3", "P4", "O1", "O2", "alpha", "beta", "N2", "REM", "W",
          "theta band", "Cz", "µV", "δ"]
ODD_NUMBERS = ["12.5", " 3 ", "1e2", "nan", "inf", "-Infinity", "1_000", "1__0", "_1", "1_", ".5", "5.", "+5",
               "0x10", "", "abc", "TRUE", "true", "\t7\n", "1e400"]


def rand_label(r):
    s = r.choice(LABELS)
    roll = r.random()
    if roll < 0.15:
        s = s.lower()
    elif roll < 0.25:
        s = "  " + s + " "
    elif roll < 0.3:
        s = s.upper()
    return s


def rand_scalar(r):
    roll = r.random()
    if roll < 0.15:
        return r.choice([True, False])
    if roll < 0.35:
        return r.randint(-5, 50)
    if roll < 0.55:
        return r.choice([round(r.uniform(-10, 100), r.randint(0, 6)), float(r.randint(0, 9)), 0.1 + 0.2,
                         1e-5 * r.randint(1, 9), 1.5e13, -0.0, float("nan")])
    if roll < 0.6:
        return None
    if roll < 0.72:
        return r.choice(ODD_NUMBERS)
    return rand_label(r)


def rand_list(r, pool=None):
    pool = pool or LABELS
    n = r.choice([0, 1, 2, 3, 3, 4, 5, 6])
    return [r.choice(pool) for _ in range(n)]


def perturb_list(r, truth):
    items = list(truth)
    ops = r.randint(0, 3)
    for _ in range(ops):
        op = r.random()
        if op < 0.25 and len(items) > 1:
            i, j = r.randrange(len(items)), r.randrange(len(items))
            items[i], items[j] = items[j], items[i]
        elif op < 0.45 and items:
            items.pop(r.randrange(len(items)))
        elif op < 0.65:
            items.insert(r.randint(0, len(items)), r.choice(LABELS))
        elif op < 0.8 and items:
            items.append(items[r.randrange(len(items))])  # duplicate
        else:
            items = [x.lower() if r.random() < 0.5 else x for x in items]
    return items


def as_list_value(r, items):
    roll = r.random()
    if roll < 0.55:
        return items
    if roll < 0.75:
        return ", ".join(items)
    if roll < 0.9:
        return "[" + ", ".join("'%s'" % x for x in items) + "]"
    return "(" + ",".join('"%s"' % x for x in items) + ")"


def maybe(r, p, key, gen, prob=0.3):
    if r.random() < prob:
        p[key] = gen()


INT_ODD = [0, -1, -3, 1.5, 2.0, "2", " 3 ", "2.0", "x", True, None, "1_0", 1e30]
MODE_ODD = [None, 5, "", " exact", "bogus", "position"]


def gen_metric(r, parsed, reports):
    """One metric object; sets the prediction it reads in `parsed` (or the report, for full_text)."""
    t = r.choice(["numeric_check", "categorical_check", "set_match_check", "sequence_match_check",
                  "sequence_match_check", "semantic_consistency", "safety_compliance", "factual_qa_check",
                  "unknown_check"])
    key = r.choice(["answer", "answer2", "answer3"] * 3 + ["full_text", "missing_key"])
    p = {}
    if t == "numeric_check":
        gt = r.choice([round(r.uniform(-50, 50), 3), r.randint(0, 100), "7.5", " 7.5 ", "1_5", True, None,
                       float("nan"), "inf"])
        p["gt_value"] = gt
        tol = r.choice([0, 0.0, 0.5, 1, 0.01, -1, -0.5, "0.5", " 2 ", None, "0.5%", 2.5, True, "absent", "absent"])
        if tol != "absent":
            p["tolerance"] = tol
        g = number(gt)
        if g is not None and r.random() < 0.6:
            pred = g + r.choice([0, 0, 0.25, -0.5, 0.5, 1.0, -2.6, 1e-9])
            if r.random() < 0.2:
                pred = str(pred)
        else:
            pred = rand_scalar(r)
    elif t == "categorical_check":
        gt = rand_scalar(r)
        p["gt_value"] = gt
        roll = r.random()
        if roll < 0.4:
            pred = gt
        elif roll < 0.6 and isinstance(gt, str):
            pred = r.choice([gt.lower(), " " + gt + "  ", gt.upper()])
        elif roll < 0.7 and is_number(gt) and math.isfinite(gt):
            pred = r.choice([float(gt), str(gt), int(gt)])
        elif roll < 0.75:
            pred = r.choice([[gt], {"v": 1}, ["A", 2]])
        else:
            pred = rand_scalar(r)
        if r.random() < 0.05:
            del p["gt_value"]
    elif t == "set_match_check":
        truth = rand_list(r)
        p["gt_value"] = as_list_value(r, truth) if r.random() < 0.93 else r.choice([None, 5, {"a": 1}, True])
        maybe(r, p, "match_mode", lambda: r.choice(["exact", "per_hit_fraction", "PER_HIT_FRACTION"] + MODE_ODD), 0.6)
        maybe(r, p, "top_k", lambda: r.choice([1, 2, 3, 5] + INT_ODD), 0.35)
        maybe(r, p, "score_per_hit", lambda: r.choice([0.5, 0.25, 1, "0.3", "x", True, -0.5, 2, None]), 0.2)
        pred = as_list_value(r, perturb_list(r, truth)) if r.random() < 0.8 else rand_scalar(r)
    elif t == "sequence_match_check":
        truth = rand_list(r)
        p["gt_value"] = as_list_value(r, truth) if r.random() < 0.95 else r.choice([None, 7, True])
        maybe(r, p, "match_mode", lambda: r.choice(["per_hit_fraction_order", "exact_order",
                                                    "weighted_partial_order", "Exact_Order"] + MODE_ODD), 0.75)
        maybe(r, p, "top_k", lambda: r.choice([1, 2, 3, 4, 10] + INT_ODD), 0.3)
        maybe(r, p, "position_weights", lambda: r.choice([[1, 1, 1, 1, 1, 1], [3, 2, 1], [0.5, 0.3, 0.2, 0.1, 0, 0],
                                                          [0, 0, 0, 0, 0, 0], [1, -1, 0, 0, 0, 0], "x",
                                                          [1, "2", 3, 4, 5, 6], [True, 1, 1, 1, 1, 1], None]), 0.3)
        maybe(r, p, "allow_order_slip", lambda: r.choice([0, 1, 2, 0.5, 3.7, -1, -2, "1", "x", None]), 0.35)
        maybe(r, p, "min_overlap", lambda: r.choice([0, 1, 2, 3, 5, "2", 1.5, -1, "x", None]), 0.3)
        pred = as_list_value(r, perturb_list(r, truth)) if r.random() < 0.85 else rand_scalar(r)
    elif t in JUDGED:
        maybe(r, p, "judge_prompt", lambda: r.choice(["Is the report consistent with the truth?", "", "   ", 5]), 0.85)
        pred = reports[0]
    else:
        pred = rand_scalar(r)
    if key == "full_text":
        if t not in JUDGED:
            reports[0] = pred if isinstance(pred, str) else json.dumps(pred)
    elif key != "missing_key" and r.random() > 0.05:
        parsed[key] = pred
    m = {"metric_id": "m%d" % r.randint(1, 4), "type": t, "target_key": key,
         "weight": r.choice([0, 10, 25, 50, 100, 33.3]), "params": p}
    roll = r.random()
    if roll < 0.04:
        m["weight"] = r.choice(["50", " 25 ", "x", None, True, -10, "1e1"])
    elif roll < 0.06:
        del m["weight"]
    elif roll < 0.08:
        m["metric_id"] = r.choice([None, 7, ["a"]])
    elif roll < 0.09:
        del m["metric_id"]
    elif roll < 0.1:
        m["target_key"] = r.choice([None, 3, ["answer"]])
    elif roll < 0.11:
        m["params"] = r.choice(["x", None, [1]])
    elif roll < 0.12:
        m["type"] = r.choice([None, 3])
    return m


def gen_case(r):
    parsed, reports = {}, [r.choice(["The alpha power is 12.5 %.", "", "Refused: file missing.", "REM"])]
    metrics = []
    for _ in range(r.choice([1, 1, 2, 2, 3, 4])):
        if r.random() < 0.05:
            metrics.append(r.choice(["numeric_check", 5, None, [1]]))
        else:
            metrics.append(gen_metric(r, parsed, reports))
    case = {"meta_info": {"case_id": "c%d" % r.randint(1, 999), "bench_subset": "Foundational Analysis",
                          "difficult": r.choice([1.0, 2, 3.0, 1.0, 1.0])},
            "agent_input": {"data_path": "data/core/x.edf", "instruction": "Report the answer."},
            "eval_config": {"parser_prompt": "Extract the answer.", "metrics": metrics}}
    roll = r.random()
    if roll < 0.03:
        case["meta_info"]["difficult"] = r.choice(["2", "hard", None, -1, 0, True])
    elif roll < 0.05:
        case["agent_input"]["instruction"] = r.choice([5, None, ["a"], ""])
    elif roll < 0.06:
        del case["agent_input"]["instruction"]
    elif roll < 0.07:
        case["eval_config"]["metrics"] = r.choice([[], "x", None, {"a": 1}])
    elif roll < 0.075:
        del case["eval_config"]["metrics"]
    elif roll < 0.085:
        case[r.choice(["meta_info", "agent_input", "eval_config"])] = r.choice([None, [], "x"])
    elif roll < 0.09:
        case = r.choice([[case], "case", 3])
    elif roll < 0.1:
        case["meta_info"]["extra_field"] = {"odd": True}
    judge = None
    if r.random() < 0.7:
        judge = {"answer": r.choice([{"score": 0.8}, {"score": 1.7}, {"score": "0.4"}, {"status": True},
                                     {"status": "no"}, {"status": ""}, {"passed": 0}, {"other": 1}, True, False,
                                     0.35, -2, "0.9", "yes", None, [1]])}
    report = reports[0]
    why = refusal(case)
    item = {"case": case, "parsed": parsed, "report": report, "judge": judge, "refused": why}
    if why is None:
        raws, total, top = score_case(case, parsed, report, judge)
        item.update({"raw": raws, "total": total, "max": top})
    return item


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = random.Random(a.seed)
    with open(a.out, "w", encoding="utf-8") as f:
        for _ in range(a.n):
            f.write(json.dumps(gen_case(r), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
