#!/usr/bin/env python3
"""Reference sleep statistics and scorer agreement for tests/signal_sleep.rs, on the real SRI hypnograms
(fixtures/hypnograms/sample_data_sri.csv: 14 subjects, PSG reference vs consumer tracker, 30-s epochs, codes
0 Wake, 1 Light, 2 Deep, 3 REM; Light is read as N2 and Deep as N3 in YASA's codes):

- yasa 0.8.1 `yasa.sleep_statistics(hypno, sf_hyp=1/30)` (unrounded);
- `yasa.Hypnogram(labels, n_stages=5).sleep_statistics()` for SFI and SOL_5min (YASA rounds to 4 decimals)
  and `.transition_matrix()` counts;
- scikit-learn `cohen_kappa_score(reference, device)` and `confusion_matrix`.

    target/ref-venv/bin/python scripts/reference/sleep_reference.py > tests/expected/sleep_reference.json
"""
import csv
import json
import math
import sys
import warnings

import numpy as np
import sklearn
import yasa
from sklearn.metrics import cohen_kappa_score, confusion_matrix

warnings.filterwarnings("ignore")
SRI_TO_YASA = {0: 0, 1: 2, 2: 3, 3: 4}
NAMES = {0: "WAKE", 1: "N1", 2: "N2", 3: "N3", 4: "REM"}


def clean(d):
    return {k: (None if isinstance(v, float) and math.isnan(v) else float(v)) for k, v in d.items()}


rows = list(csv.DictReader(open("fixtures/hypnograms/sample_data_sri.csv")))
subjects = sorted({r["subject"] for r in rows})
out = {"source": f"yasa {yasa.__version__} sleep_statistics / Hypnogram, scikit-learn {sklearn.__version__} cohen_kappa_score, confusion_matrix",
       "subjects": {}}
for s in subjects:
    entry = {}
    codes = {}
    for col in ("reference", "device"):
        h = np.array([SRI_TO_YASA[int(r[col])] for r in rows if r["subject"] == s])
        codes[col] = h
        stats = clean(yasa.sleep_statistics(h, sf_hyp=1 / 30))
        hyp = yasa.Hypnogram([NAMES[c] for c in h], n_stages=5, freq="30s")
        hs = hyp.sleep_statistics()
        stats["SFI"] = None if math.isnan(hs["SFI"]) else float(hs["SFI"])
        stats["SOL_5min"] = None if math.isnan(hs["SOL_5min"]) else float(hs["SOL_5min"])
        counts, _ = hyp.transition_matrix()
        # Only the stages present, in YASA order.
        present = [n for n in ["WAKE", "N1", "N2", "N3", "REM"] if n in set(hyp.hypno)]
        stats["transition_counts"] = [[int(counts.loc[a, b]) for b in present] for a in present]
        entry[col] = stats
    labels = sorted(set(codes["reference"]) | set(codes["device"]))
    entry["kappa"] = float(cohen_kappa_score(codes["reference"], codes["device"]))
    entry["confusion"] = confusion_matrix(codes["reference"], codes["device"], labels=labels).tolist()
    out["subjects"][s] = entry
json.dump(out, sys.stdout, indent=1)
