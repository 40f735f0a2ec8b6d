#!/usr/bin/env python3
"""Reference channel statistics for tests/signal_stats.rs (files read with pyedflib 0.1.42): numpy.var,
RMS, scipy 1.17.1 `scipy.stats.kurtosis` (Fisher, bias=True), line-noise ratio = numpy.trapezoid of
`scipy.signal.welch(x, fs, nperseg=2*fs)` over 49-51 Hz / over 1 Hz-Nyquist, and the IQR rule on the
variances with numpy.percentile (linear): flat < Q1 - 1.5 IQR, noisy > Q3 + 1.5 IQR.

    target/ref-venv/bin/python scripts/reference/stats_reference.py > tests/expected/stats_reference.json
"""
import json
import sys

import numpy as np
import pyedflib
import scipy
from scipy.signal import welch
from scipy.stats import kurtosis

out = {"source": f"numpy {np.__version__}, scipy {scipy.__version__}", "files": {}}
for file in ["mne_sample_eeg60.edf", "test_generator.edf"]:
    with pyedflib.EdfReader(f"fixtures/eeg/{file}") as f:
        chans = []
        for i in range(f.signals_in_file):
            x, fs = f.readSignal(i), f.getSampleFrequency(i)
            fr, p = welch(x, fs, nperseg=int(2 * fs))
            line = (fr >= 49) & (fr <= 51)
            total = (fr >= 1) & (fr <= fs / 2)
            chans.append({"label": f.getSignalLabels()[i], "variance": float(np.var(x)), "rms": float(np.sqrt(np.mean(x ** 2))),
                          "kurtosis": float(kurtosis(x)),
                          "line_noise_ratio": float(np.trapezoid(p[line], fr[line]) / np.trapezoid(p[total], fr[total]))})
    v = np.array([c["variance"] for c in chans])
    q1, q3 = np.percentile(v, [25, 75])
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    for c in chans:
        c["status"] = "flat" if c["variance"] < lo else "noisy" if c["variance"] > hi else "ok"
    out["files"][file] = {"lower": float(lo), "upper": float(hi), "channels": chans}
json.dump(out, sys.stdout, indent=1)
