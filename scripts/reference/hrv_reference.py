#!/usr/bin/env python3
"""Reference R-peaks and time-domain HRV for tests/signal_physio.rs on the real ECG
(fixtures/physio/ecg_360hz.npz, key 'ecg', 360 Hz, 5 min): neurokit2 0.3.0 `ecg_clean(method='neurokit')`,
`ecg_peaks(method='neurokit', correct_artifacts=False)`, `hrv_time(peaks, 360)` (MeanNN, SDNN, RMSSD, pNN50)
and the mean heart rate 60000 / MeanNN.

    target/ref-venv/bin/python scripts/reference/hrv_reference.py > tests/expected/hrv_reference.json
"""
import json
import sys
import warnings

import neurokit2 as nk
import numpy as np

warnings.filterwarnings("ignore")
ecg = np.load("fixtures/physio/ecg_360hz.npz")["ecg"]
fs = 360
clean = nk.ecg_clean(ecg, sampling_rate=fs, method="neurokit")
_, info = nk.ecg_peaks(clean, sampling_rate=fs, method="neurokit", correct_artifacts=False)
peaks = np.asarray(info["ECG_R_Peaks"], dtype=int)
h = nk.hrv_time(peaks, sampling_rate=fs)
out = {"source": f"neurokit2 {nk.__version__} ecg_clean/ecg_peaks (neurokit method)/hrv_time", "sampling_rate": fs,
       "peaks": peaks.tolist(),
       "MeanNN": float(h["HRV_MeanNN"].iloc[0]), "SDNN": float(h["HRV_SDNN"].iloc[0]),
       "RMSSD": float(h["HRV_RMSSD"].iloc[0]), "pNN50": float(h["HRV_pNN50"].iloc[0])}
out["HR"] = 60000.0 / out["MeanNN"]
json.dump(out, sys.stdout, indent=1)
