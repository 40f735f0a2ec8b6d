"""The cohort model's calibration options on ADHD-200 (the development cohort) over 20 random stratified
80/20 splits: the test ECE (10 bins) of the regression's own P, of one sigmoid over out-of-fold scores (what
`brainlens cohort train` does; scikit-learn's `ensemble=False`), of the mean of the fold-calibrated sigmoids
(`ensemble=True`) and of isotonic regression (docs/record/2026-12-07-abide-brainagent-scores.md). Run from the
folder holding adhd.npz and adhd_model.json (`brainlens cohort import` / `cohort train`):

    target/ref-venv/bin/python scripts/bench/calibration_splits.py
"""
import json
import numpy as np
from cohort_stats import ece, fisher_z
from sklearn.linear_model import LogisticRegression
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import StratifiedShuffleSplit, StratifiedKFold
c = np.load("adhd.npz"); m = json.load(open("adhd_model.json")); C = m["c"]
X = fisher_z(c["connectomes"]); y = (c["labels"] == m["positive"]).astype(int)
res = {k: [] for k in ("raw", "sigmoid one (now)", "sigmoid ensemble", "isotonic ensemble")}
for tr, te in StratifiedShuffleSplit(n_splits=20, test_size=0.2, random_state=2).split(X, y):
    base = LogisticRegression(C=C, max_iter=2000)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    res["raw"].append(ece(base.fit(X[tr], y[tr]).predict_proba(X[te])[:, 1], y[te]))
    for name, meth, ens in (("sigmoid one (now)", "sigmoid", False), ("sigmoid ensemble", "sigmoid", True), ("isotonic ensemble", "isotonic", True)):
        cc = CalibratedClassifierCV(LogisticRegression(C=C, max_iter=2000), method=meth, cv=cv, ensemble=ens).fit(X[tr], y[tr])
        res[name].append(ece(cc.predict_proba(X[te])[:, 1], y[te]))
for k, v in res.items():
    print("%-20s test ECE over 20 splits: mean %.3f median %.3f sd %.3f" % (k, np.mean(v), np.median(v), np.std(v)))
