#!/usr/bin/env python3
"""Reference spectrograms for tests/signal_spectrum.rs: scipy 1.17.1 `scipy.signal.spectrogram(x, fs, ...)`
(mode 'psd') on test_subsecond.edf Fp1 (pyedflib 0.1.42): the defaults (Tukey 0.25, nperseg 256, noverlap 32)
and Hann / nperseg 512 / noverlap 256 / linear detrend. Sxx is stored transposed (time × freq), every 5th
segment kept.

    target/ref-venv/bin/python scripts/reference/spectrogram_reference.py tests/expected/spectrogram_reference.npz
"""
import sys

import numpy as np
import pyedflib
from scipy.signal import spectrogram

with pyedflib.EdfReader("fixtures/eeg/test_subsecond.edf") as f:
    x, fs = f.readSignal(0), f.getSampleFrequency(0)
out = {}
for k, kw in enumerate([{}, {"window": "hann", "nperseg": 512, "noverlap": 256, "detrend": "linear"}]):
    fr, t, s = spectrogram(x, fs, **kw)
    out[f"case{k}_times"] = t
    out[f"case{k}_sxx"] = s.T[::5]
np.savez_compressed(sys.argv[1], **out)
