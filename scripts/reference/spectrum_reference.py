#!/usr/bin/env python3
"""Reference spectra for tests/signal_spectrum.rs, from the real fixtures read with pyedflib 0.1.42:

- scipy 1.17.1 `scipy.signal.welch` with several window/segment/detrend/scaling/average settings on
  test_subsecond.edf (Fp1, 128 Hz) and on three channels of mne_sample_eeg60.edf (250 Hz);
- band power of every channel of mne_sample_eeg60.edf: `numpy.trapezoid(psd[idx], freqs[idx])` and
  `scipy.integrate.simpson(psd[idx], dx=res)` over bins lo <= f <= hi of welch(nperseg=500), absolute and
  relative to 1-40 Hz; and yasa 0.8.1 `yasa.bandpower(data, sf, win_sec=4, relative=...)` (YASA's own
  convention: Hamming window, median averaging, Simpson, total = the bands' range);
- peak frequency 7-13 Hz (argmax of the PSD bins), spectral edge 95 % over 1-40 Hz (first bin whose running
  sum reaches 95 % of the sum), antropy 0.2.3 `spectral_entropy(x, sf, method='welch', normalize=True)`.

    target/ref-venv/bin/python scripts/reference/spectrum_reference.py > tests/expected/spectrum_reference.json
"""
import json
import sys

import antropy
import numpy as np
import pyedflib
import scipy
import yasa
from scipy.integrate import simpson
from scipy.signal import welch


def read(path):
    with pyedflib.EdfReader(path) as f:
        labels = f.getSignalLabels()
        fs = [f.getSampleFrequency(i) for i in range(f.signals_in_file)]
        return labels, fs, [f.readSignal(i) for i in range(f.signals_in_file)]


WELCH_CASES = [
    {},
    {"nperseg": 512, "noverlap": 100, "nfft": 1024, "window": "hamming", "detrend": "linear", "scaling": "spectrum", "average": "median"},
    {"nperseg": 128, "window": "blackman", "detrend": False},
    {"nperseg": 200, "noverlap": 50, "window": "boxcar"},
    {"nperseg": 256, "window": "flattop", "average": "median"},
    {"nperseg": 300, "nfft": 512, "window": "bartlett", "scaling": "spectrum"},
]


def main():
    out = {"source": f"scipy {scipy.__version__} signal.welch, numpy {np.__version__} trapezoid, scipy.integrate.simpson, "
                     f"yasa {yasa.__version__} bandpower, antropy {antropy.__version__} spectral_entropy; data read with pyedflib {pyedflib.__version__}",
           "welch": [], "bandpower": {}}
    labels, fs, sig = read("fixtures/eeg/test_subsecond.edf")
    for case in WELCH_CASES:
        f, p = welch(sig[0], fs[0], **case)
        out["welch"].append({"file": "test_subsecond.edf", "channel": labels[0], "params": case, "n_freqs": len(f), "psd": p.tolist()})
    labels, fs, sig = read("fixtures/eeg/mne_sample_eeg60.edf")
    for ch in ["EEG 001", "EEG 030", "EOG 061"]:
        i = labels.index(ch)
        for case in (WELCH_CASES[0] | {"nperseg": 500}, WELCH_CASES[1]):
            f, p = welch(sig[i], fs[i], **case)
            out["welch"].append({"file": "mne_sample_eeg60.edf", "channel": ch, "params": case, "n_freqs": len(f), "psd": p.tolist()})
    sf = fs[0]
    bp = {"trapezoid_abs": {}, "trapezoid_rel": {}, "simpson_abs": {}, "simpson_rel": {}, "peak_7_13": {}, "sef95_1_40": {},
          "entropy_norm": {}}
    for ch, x in zip(labels, sig):
        f, p = welch(x, sf, nperseg=500)
        band = (f >= 8) & (f <= 12)
        total = (f >= 1) & (f <= 40)
        res = f[1] - f[0]
        bp["trapezoid_abs"][ch] = float(np.trapezoid(p[band], f[band]))
        bp["trapezoid_rel"][ch] = float(np.trapezoid(p[band], f[band]) / np.trapezoid(p[total], f[total]))
        bp["simpson_abs"][ch] = float(simpson(p[band], dx=res))
        bp["simpson_rel"][ch] = float(simpson(p[band], dx=res) / simpson(p[total], dx=res))
        a = (f >= 7) & (f <= 13)
        bp["peak_7_13"][ch] = float(f[a][np.argmax(p[a])])
        cs = np.cumsum(p[total])
        bp["sef95_1_40"][ch] = float(f[total][np.argmax(cs >= 0.95 * cs[-1])])
        bp["entropy_norm"][ch] = float(antropy.spectral_entropy(x, sf, method="welch", normalize=True))
    bands = [(1, 4, "Delta"), (4, 8, "Theta"), (8, 12, "Alpha"), (12, 30, "Beta")]
    data = np.vstack(sig)
    for rel in (False, True):
        df = yasa.bandpower(data, sf, ch_names=labels, win_sec=4, bands=bands, relative=rel)
        bp[f"yasa_alpha_{'rel' if rel else 'abs'}"] = {ch: float(df.loc[ch, "Alpha"]) for ch in labels}
    out["bandpower"] = bp
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
