#!/usr/bin/env python3
"""Reference multitaper PSDs for tests/signal_spectrum.rs: MNE 1.13.2
`mne.time_frequency.psd_array_multitaper(x, sfreq, bandwidth, adaptive=False, low_bias=True,
normalization='length')` on real fixtures (pyedflib 0.1.42), and scipy's DPSS tapers/ratios for one case.

    target/ref-venv/bin/python scripts/reference/multitaper_reference.py tests/expected/multitaper_reference.npz
"""
import sys

import numpy as np
import pyedflib
from mne.time_frequency import psd_array_multitaper
from scipy.signal.windows import dpss

CASES = [("test_subsecond.edf", "Fp1", 0.0, 10.0, None), ("test_subsecond.edf", "Fp1", 100.0, 30.0, 1.0),
         ("mne_sample_eeg60.edf", "EEG 001", 0.0, 24.0, 2.0)]
out = {}
for k, (file, ch, start, dur, bw) in enumerate(CASES):
    with pyedflib.EdfReader(f"fixtures/eeg/{file}") as f:
        i = f.getSignalLabels().index(ch)
        x, fs = f.readSignal(i), f.getSampleFrequency(i)
    seg = x[int(start * fs):int((start + dur) * fs)]
    psd, freqs = psd_array_multitaper(seg, fs, bandwidth=bw, adaptive=False, low_bias=True, normalization="length", verbose="error")
    out[f"case{k}"] = psd
tapers, ratios = dpss(1280, 4.0, 8, sym=False, return_ratios=True)
out["dpss_tapers"], out["dpss_ratios"] = tapers, ratios
np.savez_compressed(sys.argv[1], **out)
