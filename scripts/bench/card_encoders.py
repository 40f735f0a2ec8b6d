#!/usr/bin/env python3
"""CARD graph encoders compared by retrieval precision@5 on a cohort file's seeded 80/20 split — how the
supervised encoder (`retrieval/edges.rs`) was chosen, on ADHD-200 (the development cohort) only.

For each test subject the five training subjects with the highest cosine similarity are retrieved; precision@5
is the share of them with the test subject's label. Encoders: the Fisher-z upper triangle as it is; standardised
by the training split's mean and SD; weighted by sqrt(F) of a one-way ANOVA of the training labels (the shipped
one); the top-m edges by F; weighted by an L2 logistic regression's |w| (C by 5-fold CV); and the same after
standardising within each site. The split is read from an `agent eval` run file's header (its `test` list).

    target/ref-venv/bin/python scripts/bench/card_encoders.py COHORT.npz RUN.jsonl
"""
import json
import sys
import warnings

import numpy as np
from cohort_stats import fisher_z
from scipy.stats import f_oneway
from sklearn.linear_model import LogisticRegressionCV

warnings.filterwarnings("ignore", category=FutureWarning)

cohort, run = sys.argv[1], sys.argv[2]
c = np.load(cohort)
X, ids, y, site = c["connectomes"], list(c["subject_ids"]), np.array(c["labels"]), np.array(c["site"])
test = set(json.loads(open(run).readline())["test"])
te = np.array([i in test for i in ids])
tr = ~te
F = fisher_z(X)


def standardised(F, by_site=False):
    Z = (F - F[tr].mean(0)) / (F[tr].std(0) + 1e-12)
    if by_site:
        for s in set(site):
            m, mt = site == s, (site == s) & tr
            if mt.sum() >= 2:
                Z[m] = (F[m] - F[mt].mean(0)) / (F[mt].std(0) + 1e-12)
    return Z


def precision_at(E, k=5):
    E = E / np.linalg.norm(E, axis=1, keepdims=True)
    top = np.argsort(-(E[te] @ E[tr].T), axis=1)[:, :k]
    return np.mean(y[tr][top] == y[te][:, None])


def anova(Z):
    f = f_oneway(*[Z[tr][y[tr] == l] for l in sorted(set(y))]).statistic
    return np.nan_to_num(f)


share = np.array([np.mean(y[tr] == l) for l in sorted(set(y))])
print(f"{cohort}: {tr.sum()} training, {te.sum()} test subjects; a random training case {np.sum(share ** 2):.3f}, "
      f"majority rate {share.max():.3f}")
def show(name, value):
    print(f"{name:<46} {value:.3f}")


show("Fisher z as it is", precision_at(F))
for by_site in (False, True):
    Z = standardised(F, by_site)
    tag = " (within site)" if by_site else ""
    f = anova(Z)
    show(f"standardised{tag}", precision_at(Z))
    show(f"standardised × sqrt(F){tag}", precision_at(Z * np.sqrt(f)))
    for m in (100, 500, 2000):
        show(f"top {m} edges by F{tag}", precision_at(Z[:, np.argsort(-f)[:m]]))
    lr = LogisticRegressionCV(Cs=10, cv=5, max_iter=5000).fit(Z[tr], y[tr])
    show(f"standardised × |w| (logistic){tag}", precision_at(Z * np.abs(lr.coef_[0])))
