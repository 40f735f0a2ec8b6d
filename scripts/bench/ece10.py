"""ECE with 10 equal-width bins as scikit-learn's calibration_curve bins P (the ECE BrainLens reports,
util::calibration): one home for the scripts in this folder that compute it."""
import numpy as np


def ece(p, y, bins=10):
    idx = np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], p)
    e = 0.0
    for k in range(bins):
        m = idx == k
        if m.any():
            e += m.sum() / len(p) * abs(y[m].mean() - p[m].mean())
    return e
