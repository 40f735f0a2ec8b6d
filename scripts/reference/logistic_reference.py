"""`agent eval --method logistic` against scikit-learn 1.9.1 on the same split of a real cohort: every third
subject of the ADHD-200 development cohort (194 of 582, sorted file names; the unpacked archive, never copied into
the repository) is imported at AAL-90 with nilearn's default estimator, evaluated with `--method logistic` (seed 0, 20 % test split), and the same training subjects
(every subject not in the run header's test list, in the cohort file's order) are fitted by
`LogisticRegressionCV(Cs=10, cv=5, scoring="accuracy")` on `arctanh` of the connectomes' upper triangle — the
solver told to converge tightly (lbfgs, tol 1e-8), since the problem has one minimiser. Checked: the
chosen C, every test subject's label, and P(positive) within 1e-6; the run's AUROC, Brier score and ECE
(`agent report --json`) against `roc_auc_score`, `brier_score_loss` and `calibration_curve` within 1e-6.
Usage: logistic_reference.py --check BRAINLENS_BINARY COHORTS_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.linear_model import LogisticRegressionCV
from sklearn.metrics import brier_score_loss, roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adhd_every_third import import_every_third  # noqa: E402

assert sys.argv[1] == "--check"
binary, cohorts = sys.argv[2], sys.argv[3]
with tempfile.TemporaryDirectory() as tmp:
    cohort = import_every_third(binary, cohorts, tmp)
    run = os.path.join(tmp, "logistic.jsonl")
    subprocess.run([binary, "agent", "eval", "--task", "adhd", "--cohort", cohort, "--method", "logistic",
                    "--seed", "0", "--out", run], check=True, capture_output=True)
    lines = [json.loads(l) for l in open(run) if l.strip()]
    report = json.loads(subprocess.run([binary, "agent", "report", run, "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    z = np.load(cohort)
header, records = lines[0], lines[1:]
ids = [str(i) for i in z["subject_ids"]]
test = set(header["test"])
train = [i for i, s in enumerate(ids) if s not in test]
upper = np.triu_indices(z["connectomes"].shape[1], k=1)
x = np.arctanh(np.stack([m[upper] for m in z["connectomes"]]))
y = z["labels"] == "ADHD"
clf = LogisticRegressionCV(Cs=10, cv=5, scoring="accuracy", l1_ratios=(0.0,), use_legacy_attributes=True,
                           solver="lbfgs", tol=1e-8, max_iter=20000)
clf.fit(x[train], y[train])
ours_c = float(re.search(r"C = ([0-9.e+-]+)", records[0]["trace"]["decision"]["rationale"]).group(1))
assert header["training_samples"] == len(train), (header["training_samples"], len(train))
assert abs(ours_c - clf.C_[0]) <= 1e-4 * clf.C_[0], (ours_c, clf.C_[0])
worst, labels_differ = 0.0, 0
for r in records:
    i = ids.index(r["sample"])
    theirs = clf.predict_proba(x[i : i + 1])[0, 1]
    ours = dict(r["trace"]["decision"]["label_probabilities"])["ADHD"]
    worst = max(worst, abs(ours - theirs))
    labels_differ += (r["label"] == "ADHD") != bool(clf.predict(x[i : i + 1])[0])
acc = np.mean([r["correct"] for r in records])
print(f"logistic: 194 ADHD-200 subjects, AAL-90, {len(train)} training / {len(records)} test subjects: C = {clf.C_[0]:.4g} "
      f"(ours {ours_c:.4g}), labels differing {labels_differ}, largest P difference {worst:.2e}, accuracy {acc:.3f}")
# The run's scores (agent report): AUROC, Brier and ECE (10 bins) of P(ADHD) against scikit-learn's own.
p = np.array([dict(r["trace"]["decision"]["label_probabilities"])["ADHD"] for r in records])
truth = np.array([r["truth"] == "ADHD" for r in records])
prob_true, prob_pred = calibration_curve(truth, p, n_bins=10, strategy="uniform")
counts = np.bincount(np.searchsorted(np.linspace(0, 1, 11)[1:-1], p), minlength=10)
ece = float(np.sum(counts[counts > 0] / len(p) * np.abs(prob_true - prob_pred)))
theirs = {"auroc": roc_auc_score(truth, p), "brier": brier_score_loss(truth, p), "ece": ece}
scores = report["probability"] if isinstance(report, dict) else report[0]["probability"]
score_diff = max(abs(scores[k] - v) for k, v in theirs.items())
print(f"scores of the run: AUROC {theirs['auroc']:.4f}, Brier {theirs['brier']:.4f}, ECE {ece:.4f} "
      f"(scikit-learn's; ours differ by at most {score_diff:.1e}; P from the {scores['source']})")
if labels_differ or not worst <= 1e-6 or not score_diff <= 1e-6:
    sys.exit("logistic regression differs from scikit-learn")
