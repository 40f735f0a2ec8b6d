#!/usr/bin/env python3
"""Differential test data for BrainLens's BrainBench scorer.

An independent Python implementation of the validation-unit rules in ../shared/BRAINBENCH.md (written for this
test from the rules text, not from the Rust code), and a seeded generator of random metrics x predictions that
covers every unit, mode and edge (booleans, NaN, empty lists, string lists, ties, slips, top_k, missing fields).
Writes one JSON object per line: {"metric", "parsed", "report", "judge", "raw"}; the Rust test
tests/bench_scoring.rs scores each with our scorer and requires the identical raw score.

    python3 scripts/reference/bench_scoring.py --n 12000 --seed 7 --out tests/expected/bench_scoring.jsonl
"""
import argparse
import json
import math
import random


# ---------------------------------------------------------------- canonical forms
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
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str):
        s = v.strip()
        if not s or "_" in s:
            return None
        try:
            f = float(s)
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


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


def top_k(params):
    k = params.get("top_k")
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, float)) or k < 0 or (isinstance(k, float) and k != int(k)):
        raise ScoreError("bad top_k")
    return int(k)


def mode(params, default):
    m = params.get("match_mode")
    if isinstance(m, str) and m.strip():
        return m.strip().lower()
    return default


# ---------------------------------------------------------------- units
def numeric(pred, p):
    a, b, tol = number(pred), number(p.get("gt_value")), number(p.get("tolerance"))
    if a is None or b is None or tol is None or tol < 0:
        return 0.0
    if tol == 0:
        return 1.0 if a == b else 0.0
    return 1.0 if abs(a - b) <= tol else 0.0


def set_match(pred, p):
    pt = tokens(pred)
    k = top_k(p)
    if k is not None:
        pt = pt[:k]
    ps, ts = set(pt), set(tokens(p.get("gt_value")))
    if not ts:
        return 1.0 if not ps else 0.0
    m = mode(p, "exact")
    if m == "exact":
        return 1.0 if ps == ts else 0.0
    if m == "per_hit_fraction":
        per = p.get("score_per_hit")
        if per is None:
            per = 1.0 / len(ts)
        else:
            per = number(per)
            if per is None:
                raise ScoreError("bad score_per_hit")
        return clamp01(len(ps & ts) * per)
    raise ScoreError("bad mode")


def sequence_match(pred, p):
    ps, ts = tokens(pred), tokens(p.get("gt_value"))
    if not ts:
        return 1.0 if not ps else 0.0
    m = mode(p, "weighted_partial_order")
    if m == "per_hit_fraction_order":
        return sum(1 for i, t in enumerate(ts) if i < len(ps) and ps[i] == t) / len(ts)
    if m == "exact_order":
        ps, ts = dedupe(ps), dedupe(ts)
        k = top_k(p)
        k = len(ts) if k is None else k
        return 1.0 if ps[:k] == ts[:k] else 0.0
    if m != "weighted_partial_order":
        raise ScoreError("bad mode")
    ps, ts = dedupe(ps), dedupe(ts)
    k = top_k(p)
    k = len(ts) if k is None else k
    ps, ts = ps[:k], ts[:k]
    if not ts:
        return 1.0 if not ps else 0.0
    w = p.get("position_weights")
    if w is None:
        w = [1.0 / (i + 1) for i in range(len(ts))]
    else:
        if not isinstance(w, list) or len(w) < len(ts):
            raise ScoreError("bad weights")
        w = [number(x) for x in w[: len(ts)]]
        if any(x is None for x in w):
            raise ScoreError("bad weights")
    slip = p.get("allow_order_slip")
    slip = 0.0 if slip is None else number(slip)
    if slip is None or slip < 0:
        raise ScoreError("bad slip")
    mo = p.get("min_overlap")
    mo = 1.0 if mo is None else number(mo)
    if mo is None:
        raise ScoreError("bad min_overlap")
    overlap, pos = 0, 0.0
    for g, item in enumerate(ts):
        if item in ps:
            j = ps.index(item)
            overlap += 1
            pos += w[g] * max(0.0, 1.0 - abs(g - j) / (slip + 1.0))
    if overlap < mo:
        return 0.0
    total = sum(w)
    if total <= 0:
        return 0.0
    return overlap / len(ts) * (pos / total)


def truthy(v):
    return bool(v)


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
            return 1.0 if truthy(ans["status"]) else 0.0
        if "passed" in ans:
            return 1.0 if truthy(ans["passed"]) else 0.0
        return 0.0
    return num_or_bool(ans)


def raw_score(metric, parsed, report, judge):
    """judge: None (no judge) or the judge's fixed answer."""
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
        elif t in ("semantic_consistency", "safety_compliance", "factual_qa_check"):
            prompt = p.get("judge_prompt") if isinstance(p.get("judge_prompt"), str) else ""
            r = 0.0 if judge is None or not prompt.strip() else judge_score(judge["answer"])
        else:
            return 0.0
    except ScoreError:
        return 0.0
    return clamp01(r)


# ---------------------------------------------------------------- generator
LABELS = ["Fp1", "Fp2", "F3", "F4", "C3", "C4", "P3", "P4", "O1", "O2", "alpha", "beta", "N2", "REM", "W",
          "theta band", "Cz", "µV", "δ"]


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
    if roll < 0.7:
        return r.choice(["12.5", " 3 ", "1e2", "nan", "inf", "1_000", "", "abc", "TRUE", "true"])
    return rand_label(r)


def rand_list(r, pool=None):
    pool = pool or LABELS
    n = r.choice([0, 1, 2, 3, 3, 4, 5, 6])
    items = [r.choice(pool) for _ in range(n)]
    return items


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


def gen_item(r):
    t = r.choice(["numeric_check", "categorical_check", "set_match_check", "sequence_match_check",
                  "sequence_match_check", "semantic_consistency", "safety_compliance", "factual_qa_check",
                  "unknown_check"])
    weight = r.choice([0, 10, 25, 50, 100, 33.3])
    key = r.choice(["answer"] * 8 + ["full_text", "missing_key"])
    p = {}
    report = r.choice(["The alpha power is 12.5 %.", "", "Refused: file missing.", "REM"])
    if t == "numeric_check":
        gt = r.choice([round(r.uniform(-50, 50), 3), r.randint(0, 100), "7.5", True, None, float("nan")])
        p["gt_value"] = gt
        tol = r.choice([0, 0.0, 0.5, 1, 0.01, -1, "0.5", None, "0.5%", 2.5])
        if tol is not None:
            p["tolerance"] = tol
        g = number(gt) if not isinstance(gt, bool) else None
        roll = r.random()
        if g is not None and roll < 0.6:
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
        elif roll < 0.7 and isinstance(gt, (int, float)) and not isinstance(gt, bool) and math.isfinite(gt):
            pred = r.choice([float(gt), str(gt), int(gt)])
        elif roll < 0.75:
            pred = r.choice([[gt], {"v": 1}, ["A", 2]])
        else:
            pred = rand_scalar(r)
        if r.random() < 0.05:
            del p["gt_value"]
    elif t == "set_match_check":
        truth = rand_list(r)
        p["gt_value"] = as_list_value(r, truth)
        maybe(r, p, "match_mode", lambda: r.choice(["exact", "per_hit_fraction", "PER_HIT_FRACTION", "bogus", ""]), 0.6)
        maybe(r, p, "top_k", lambda: r.choice([0, 1, 2, 3, 5, 2.0, -1, 1.5, "2"]), 0.3)
        maybe(r, p, "score_per_hit", lambda: r.choice([0.5, 0.25, 1, "0.3", "x"]), 0.15)
        pred = as_list_value(r, perturb_list(r, truth)) if r.random() < 0.8 else rand_scalar(r)
    elif t == "sequence_match_check":
        truth = rand_list(r)
        p["gt_value"] = as_list_value(r, truth)
        maybe(r, p, "match_mode", lambda: r.choice(["per_hit_fraction_order", "exact_order",
                                                    "weighted_partial_order", "Exact_Order", "position"]), 0.75)
        maybe(r, p, "top_k", lambda: r.choice([0, 1, 2, 3, 4, 10, -1, "3"]), 0.3)
        maybe(r, p, "position_weights", lambda: r.choice([[1, 1, 1, 1, 1, 1], [3, 2, 1], [0.5, 0.3, 0.2, 0.1, 0, 0],
                                                          [0, 0, 0, 0, 0, 0], "x"]), 0.25)
        maybe(r, p, "allow_order_slip", lambda: r.choice([0, 1, 2, 0.5, -1, "1"]), 0.35)
        maybe(r, p, "min_overlap", lambda: r.choice([0, 1, 2, 3, 5]), 0.25)
        pred = as_list_value(r, perturb_list(r, truth)) if r.random() < 0.85 else rand_scalar(r)
    elif t in ("semantic_consistency", "safety_compliance", "factual_qa_check"):
        maybe(r, p, "judge_prompt", lambda: r.choice(["Is the report consistent with the truth?", "", "   "]), 0.85)
        pred = report
    else:
        pred = rand_scalar(r)
    parsed = {}
    if key != "missing_key" and key != "full_text" and r.random() > 0.05:
        parsed[key] = pred
    if key == "full_text" and t not in ("semantic_consistency", "safety_compliance", "factual_qa_check"):
        report = pred if isinstance(pred, str) else json.dumps(pred)
    judge = None
    if r.random() < 0.7:
        judge = {"answer": r.choice([{"score": 0.8}, {"score": 1.7}, {"score": "0.4"}, {"status": True},
                                     {"status": "no"}, {"status": ""}, {"passed": 0}, {"other": 1}, True, False,
                                     0.35, -2, "0.9", "yes", None, [1]])}
    metric = {"metric_id": "m", "type": t, "target_key": key, "weight": weight, "params": p}
    return {"metric": metric, "parsed": parsed, "report": report, "judge": judge,
            "raw": raw_score(metric, parsed, report, judge)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = random.Random(a.seed)
    with open(a.out, "w", encoding="utf-8") as f:
        for _ in range(a.n):
            f.write(json.dumps(gen_item(r), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
