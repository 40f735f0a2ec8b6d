#!/usr/bin/env python3
"""Reference FIR-filtered signals for tests/signal_filter.rs: MNE 1.13.2
`mne.filter.filter_data(x, sfreq, l_freq, h_freq, method='fir', phase='zero', fir_window='hamming',
fir_design='firwin')` (all defaults) on real fixtures read with pyedflib 0.1.42, plus the filter taps of
`mne.filter.create_filter`; and scipy 1.17.1 zero-phase IIR: `sosfiltfilt(butter(order, edges, btype, fs=fs,
output='sos'), x)` and a mains notch with harmonics, `sosfiltfilt(vstack of iirnotch(k*f0, 30, fs) as SOS, x)`.
Every third filtered sample is kept (x[::3]) to keep the file small.

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
import scipy.signal as ss

IIR = [
    ("test_subsecond.edf", "Fp1", 4, [0.5, 40.0], "bandpass"),
    ("test_subsecond.edf", "Fp1", 5, [1.0], "highpass"),
    ("mne_sample_eeg60.edf", "EEG 001", 2, [30.0], "lowpass"),
    ("mne_sample_eeg60.edf", "EEG 030", 3, [8.0, 12.0], "bandpass"),
]
for k, (file, ch, order, edges, btype) in enumerate(IIR):
    with pyedflib.EdfReader(f"fixtures/eeg/{file}") as f:
        i = f.getSignalLabels().index(ch)
        x, sf = f.readSignal(i), f.getSampleFrequency(i)
    sos = ss.butter(order, edges if len(edges) == 2 else edges[0], btype, fs=sf, output="sos")
    out[f"iir{k}"] = ss.sosfiltfilt(sos, x)[::3]
with pyedflib.EdfReader("fixtures/eeg/mne_sample_eeg60.edf") as f:
    x, sf = f.readSignal(0), f.getSampleFrequency(0)
sos = np.vstack([np.hstack(ss.iirnotch(h, 30.0, sf)) for h in np.arange(50.0, sf / 2, 50.0)])
out["notch50"] = ss.sosfiltfilt(sos, x)[::3]
np.savez_compressed(sys.argv[1], **out)
