"""How large is the ECE (10 bins, sklearn's calibration_curve binning) of a perfectly calibrated P on the same
subjects? Each subject's outcome drawn from its own P (y ~ Bernoulli(P)), the ECE of each of 2000 draws of
numpy's RandomState(0) — the draws `util::calibration::ece_if_calibrated` makes — for a cohort model's P
(the consistency resampling of Bröcker & Smith 2007). Used for brainagent-hybrid, whose P is the cohort
model's, when its run file is not at hand (docs/record/2026-12-07-llm-rows.md).

    target/ref-venv/bin/python scripts/bench/ece_consistency.py MODEL.json COHORT.npz RUN.jsonl

MODEL.json from `brainlens cohort train`; RUN.jsonl any `agent eval` run of the same split (its test subjects
and their truths).
"""
import json, sys
import numpy as np
from cohort_stats import ece, fisher_z
model = json.load(open(sys.argv[1])); c = np.load(sys.argv[2])
lines = open(sys.argv[3]).read().splitlines()
test = json.loads(lines[0])["test"]
recs = {json.loads(l)["sample"]: json.loads(l) for l in lines[1:]}
row = {s: i for i, s in enumerate(c["subject_ids"])}; X = fisher_z(c["connectomes"])
w = np.array(model["weights"]); b = model["intercept"]; cal = model["calibrator"]
def p_of(sid):
    s = X[row[sid]] @ w + b
    if cal["method"] == "sigmoid":
        return 1 / (1 + np.exp(cal["a"] * s + cal["b"]))
    raise SystemExit(f"calibrator {cal}")
P = np.array([p_of(s) for s in test]); y = np.array([recs[s]["truth"] == model["positive"] for s in test])
u = np.random.RandomState(0).random_sample((2000, len(P)))  # BrainLens's draws (util::calibration)
sims = np.array([ece(P, u[d] < P) for d in range(2000)])
print(f"n={len(P)}  observed ECE {ece(P, y):.3f}  (accuracy at the prior {model['prior']:.3f}: {np.mean((P > model['prior']) == y):.3f})")
print(f"a calibrated P on these subjects: ECE median {np.median(sims):.3f}, mean {sims.mean():.3f}, 90th pct {np.percentile(sims, 90):.3f}, 95th {np.percentile(sims, 95):.3f}; P(ECE >= observed) = {np.mean(sims >= ece(P, y)):.3f}")
