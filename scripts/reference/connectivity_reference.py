#!/usr/bin/env python3
"""Reference channel connectivity for tests/signal_connectivity.rs on the real 60-channel sample (first 8
EEG channels, read with pyedflib 0.1.42):
- corr: numpy.corrcoef;
- coh: scipy 1.17.1 `scipy.signal.coherence(x, y, fs, nperseg=250)` averaged over 8 <= f <= 12 Hz;
- plv / wpli: MNE 1.13.2 `filter_data(x, fs, 8, 12)` (FIR defaults), `scipy.signal.hilbert`, then
  |mean(exp(1j*(angle(zi) - angle(zj))))| and |sum(Im(zi conj zj))| / sum(|Im(zi conj zj)|).

    target/ref-venv/bin/python scripts/reference/connectivity_reference.py > tests/expected/connectivity_reference.json
"""
import json
import sys

import mne
import numpy as np
import pyedflib
import scipy
from scipy.signal import coherence, hilbert

with pyedflib.EdfReader("fixtures/eeg/mne_sample_eeg60.edf") as f:
    labels = f.getSignalLabels()[:8]
    x = np.vstack([f.readSignal(i) for i in range(8)])
    fs = f.getSampleFrequency(0)
n = len(x)
out = {"source": f"numpy {np.__version__} corrcoef, scipy {scipy.__version__} signal.coherence/hilbert, mne {mne.__version__} filter_data",
       "channels": labels, "corr": np.corrcoef(x).tolist()}
coh = np.eye(n)
for i in range(n):
    for j in range(i + 1, n):
        f_, c = coherence(x[i], x[j], fs, nperseg=250)
        band = (f_ >= 8) & (f_ <= 12)
        coh[i, j] = coh[j, i] = c[band].mean()
out["coh"] = coh.tolist()
z = hilbert(mne.filter.filter_data(x, fs, 8.0, 12.0, verbose="error"), axis=-1)
plv, wpli = np.eye(n), np.zeros((n, n))
for i in range(n):
    for j in range(i + 1, n):
        plv[i, j] = plv[j, i] = np.abs(np.mean(np.exp(1j * (np.angle(z[i]) - np.angle(z[j])))))
        im = np.imag(z[i] * np.conj(z[j]))
        wpli[i, j] = wpli[j, i] = np.abs(im.sum()) / np.abs(im).sum()
out["plv"], out["wpli"] = plv.tolist(), wpli.tolist()
json.dump(out, sys.stdout, indent=1)
