#!/usr/bin/env python3
"""Reference FIR-filtered signals for tests/signal_filter.rs: MNE 1.13.2
`mne.filter.filter_data(x, sfreq, l_freq, h_freq, method='fir', phase='zero', fir_window='hamming',
fir_design='firwin')` (all defaults) on real fixtures read with pyedflib 0.1.42, plus the filter taps of
`mne.filter.create_filter`. Every third filtered sample is kept (x[::3]) to keep the file small.

    target/ref-venv/bin/python scripts/reference/filter_reference.py tests/expected/filter_reference.npz
"""
import sys

import mne
import numpy as np
import pyedflib

CASES = [
    ("test_subsecond.edf", "Fp1", 0.5, 40.0),
    ("test_subsecond.edf", "Fp1", 1.0, None),
    ("test_subsecond.edf", "Fp1", None, 30.0),
    ("mne_sample_eeg60.edf", "EEG 001", 0.5, 40.0),
    ("mne_sample_eeg60.edf", "EEG 030", 1.0, 30.0),
    ("mne_sample_eeg60.edf", "EOG 061", 0.1, None),
]
out = {}
for k, (file, ch, lo, hi) in enumerate(CASES):
    with pyedflib.EdfReader(f"fixtures/eeg/{file}") as f:
        i = f.getSignalLabels().index(ch)
        x, sf = f.readSignal(i), f.getSampleFrequency(i)
    y = mne.filter.filter_data(x[None, :], sf, lo, hi, method="fir", phase="zero", verbose="error")[0]
    out[f"case{k}"] = y[::3]
    out[f"case{k}_rms"] = np.array([np.sqrt(np.mean(y ** 2))])
    out[f"case{k}_taps"] = mne.filter.create_filter(x[None, :], sf, lo, hi, verbose="error")
np.savez_compressed(sys.argv[1], **out)
