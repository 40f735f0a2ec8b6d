"""How separable is a random stratified 80/20 split of a cohort for the cohort model's regression? Test AUROC
over 50 stratified splits (scikit-learn's StratifiedShuffleSplit, random_state 1), C fixed at each saved cohort
model's C, features as `agent eval --method logistic` uses them (Fisher z of the upper triangle); and the
5-fold cross-validated AUROC inside the first 10 training splits. Compare with the seeded split's figures
(docs/record/2026-12-07-abide-brainagent-scores.md). Run from the folder holding the files:

    target/ref-venv/bin/python scripts/bench/split_spread.py   # abide.npz, abide_model.json, adhd.npz, adhd_model.json
"""
import json
import numpy as np
from cohort_stats import fisher_z
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit, cross_val_predict, StratifiedKFold
from sklearn.metrics import roc_auc_score
for cf, mf in [("abide.npz", "abide_model.json"), ("adhd.npz", "adhd_model.json")]:
    c = np.load(cf); m = json.load(open(mf)); C = m["c"]
    X = fisher_z(c["connectomes"]); y = (c["labels"] == m["positive"]).astype(int)
    aucs, cvs = [], []
    for tr, te in StratifiedShuffleSplit(n_splits=50, test_size=0.2, random_state=1).split(X, y):
        lr = LogisticRegression(C=C, max_iter=2000).fit(X[tr], y[tr])
        aucs.append(roc_auc_score(y[te], lr.decision_function(X[te])))
        if len(cvs) < 10:
            s = cross_val_predict(LogisticRegression(C=C, max_iter=2000), X[tr], y[tr], cv=StratifiedKFold(5, shuffle=True, random_state=0), method="decision_function")
            cvs.append(roc_auc_score(y[tr], s))
    a = np.array(aucs)
    print(cf, "C", C, "n", len(y), "test AUROC over 50 random 80/20 splits: mean %.3f sd %.3f min %.3f max %.3f; share >= 0.80: %.2f" % (a.mean(), a.std(), a.min(), a.max(), (a >= 0.80).mean()),
          "| training-split 5-fold CV AUROC (10 splits): mean %.3f" % np.mean(cvs))
