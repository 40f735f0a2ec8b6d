"""`cohort train` / `cohort predict` against scikit-learn 1.9.1 on a real cohort: every third subject of the
ADHD-200 development cohort (194 of 582, sorted file names; the unpacked archive, never copied into the
repository) imported at AAL-90, a cohort model trained with each calibration, and scikit-learn's
`CalibratedClassifierCV(LogisticRegressionCV(Cs=10, cv=5), method=M, cv=StratifiedKFold(5), ensemble=False)`
fitted on the same training subjects (the model file's split) on `arctanh` of the upper triangle — the inner
solver told to converge tightly (lbfgs, tol 1e-8), as the problem has one minimiser. Checked: the split equals
`agent eval`'s, the chosen C, the cross-validated accuracy and AUROC of the out-of-fold decision scores
(`cross_val_predict(method="decision_function")`), Brier and ECE (10 bins as `calibration_curve(strategy="uniform")` makes them) of calibrators fitted on
the other folds' scores, and each test subject's calibrated P from `cohort predict` (its matrix saved as .npy).
Tolerances: P within 1e-5 (scikit-learn's Platt fit stops at L-BFGS-B gtol 1e-6), C within 1e-4 relative,
the cross-validated figures within 5e-6 (the inner solvers' tolerance shows at 1e-7 … 1e-6).
Usage: cohort_model_reference.py --check BRAINLENS_BINARY COHORTS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegressionCV
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adhd_every_third import import_every_third  # noqa: E402

assert sys.argv[1] == "--check"
binary, cohorts = sys.argv[2], sys.argv[3]


def base():
    return LogisticRegressionCV(Cs=10, cv=5, scoring="accuracy", l1_ratios=(0.0,), use_legacy_attributes=True,
                                solver="lbfgs", tol=1e-8, max_iter=20000)


def platt(s, y):
    """scikit-learn's own sigmoid calibrator, fitted on (s, y)."""
    from sklearn.calibration import _SigmoidCalibration
    return _SigmoidCalibration().fit(s, y)


def ece(p, y, bins=10):
    edges = np.linspace(0, 1, bins + 1)
    which = np.searchsorted(edges[1:-1], p)  # as calibration_curve(strategy="uniform")
    total = 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            total += m.sum() / len(p) * abs(y[m].mean() - p[m].mean())
    return total


failed = []
with tempfile.TemporaryDirectory() as tmp:
    cohort = import_every_third(binary, cohorts, tmp)
    run = os.path.join(tmp, "majority.jsonl")
    subprocess.run([binary, "agent", "eval", "--task", "adhd", "--cohort", cohort, "--method", "majority",
                    "--seed", "0", "--out", run], check=True, capture_output=True)
    eval_test = json.loads(open(run).readline())["test"]
    z = np.load(cohort)
    ids = [str(i) for i in z["subject_ids"]]
    upper = np.triu_indices(z["connectomes"].shape[1], k=1)
    x = np.arctanh(np.stack([m[upper] for m in z["connectomes"]]))
    y = (z["labels"] == "ADHD").astype(int)
    for method in ["sigmoid", "isotonic"]:
        model_file = os.path.join(tmp, f"model-{method}.json")
        subprocess.run([binary, "cohort", "train", cohort, "--task", "adhd", "--calibration", method, "--out",
                        model_file], check=True, capture_output=True)
        m = json.load(open(model_file))
        if sorted(m["split"]["test"]) != sorted(eval_test):
            failed.append(f"{method}: the model's test split is not agent eval's")
        train = [ids.index(s) for s in m["split"]["train"]]
        xt, yt = x[train], y[train]
        cv = StratifiedKFold(5)
        oof = cross_val_predict(base(), xt, yt, cv=cv, method="decision_function")
        acc, auc = float(np.mean((oof > 0) == yt)), float(roc_auc_score(yt, oof))
        p_cv = np.zeros(len(yt))
        for rest, fold in cv.split(xt, yt):
            if method == "sigmoid":
                p_cv[fold] = platt(oof[rest], yt[rest]).predict(oof[fold])
            else:
                p_cv[fold] = IsotonicRegression(out_of_bounds="clip").fit(oof[rest], yt[rest]).predict(oof[fold])
        brier, e = float(np.mean((p_cv - yt) ** 2)), ece(p_cv, yt)
        clf = CalibratedClassifierCV(base(), method=method, cv=StratifiedKFold(5), ensemble=False).fit(xt, yt)
        c_theirs = clf.calibrated_classifiers_[0].estimator.C_[0]
        worst = 0.0
        for s in m["split"]["test"]:
            i = ids.index(s)
            graph = os.path.join(tmp, f"{s}.npy")
            np.save(graph, z["connectomes"][i])
            out = subprocess.run([binary, "cohort", "predict", model_file, graph, "--json"], check=True,
                                 capture_output=True, text=True).stdout
            ours = json.loads(out)["probability"]
            worst = max(worst, abs(ours - clf.predict_proba(x[i: i + 1])[0, 1]))
        ours_cv = m["cv"]
        diffs = {"accuracy": abs(ours_cv["accuracy"] - acc), "auroc": abs(ours_cv["auroc"] - auc),
                 "brier": abs(ours_cv["brier"] - brier), "ece": abs(ours_cv["ece"] - e)}
        print(f"cohort model ({method}): 194 ADHD-200 subjects, {len(train)} training / {len(eval_test)} test: "
              f"C = {c_theirs:.4g} (ours {m['c']:.4g}); cross-validated accuracy {acc:.3f}, AUROC {auc:.3f}, "
              f"Brier {brier:.3f}, ECE {e:.3f} (largest difference {max(diffs.values()):.1e}); "
              f"largest P difference {worst:.1e} over the test subjects")
        if abs(m["c"] - c_theirs) > 1e-4 * c_theirs or worst > 1e-5 or max(diffs.values()) > 5e-6:
            failed.append(f"{method}: C {m['c']} vs {c_theirs}, P {worst:.2e}, cv {diffs}")
if failed:
    sys.exit("cohort model differs from scikit-learn: " + "; ".join(failed))
