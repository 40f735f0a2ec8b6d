#!/usr/bin/env python3
"""Reference resampled signals for tests/signal_resample.rs: scipy 1.17.1 `scipy.signal.resample_poly(x, up,
down)` (defaults: Kaiser β 5, constant padding) on real fixtures read with pyedflib 0.1.42; every third
output sample kept, with the full length.

    target/ref-venv/bin/python scripts/reference/resample_reference.py tests/expected/resample_reference.npz
"""
import sys

import numpy as np
import pyedflib
from scipy.signal import resample_poly

CASES = [("test_subsecond.edf", "Fp1", 25, 32), ("mne_sample_eeg60.edf", "EEG 001", 2, 5), ("mne_sample_eeg60.edf", "EEG 030", 2, 1)]
out = {}
for k, (file, ch, up, down) in enumerate(CASES):
    with pyedflib.EdfReader(f"fixtures/eeg/{file}") as f:
        x = f.readSignal(f.getSignalLabels().index(ch))
    y = resample_poly(x, up, down)
    out[f"case{k}"] = y[::3]
    out[f"case{k}_len"] = np.array([len(y)])
np.savez_compressed(sys.argv[1], **out)
