"""What the cohort scripts in this folder share: the cohort model's features and the ECE BrainLens reports."""
import numpy as np


def fisher_z(connectomes):
    """Subjects × regions × regions → subjects × upper-triangle Fisher z, as `network::features` makes them
    (i < j, atanh of each weight)."""
    iu = np.triu_indices(connectomes.shape[1], 1)
    return np.arctanh(connectomes[:, iu[0], iu[1]])


def ece(p, y, bins=10):
    """ECE with 10 equal-width bins as scikit-learn's calibration_curve bins P (util::calibration)."""
    idx = np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], p)
    e = 0.0
    for k in range(bins):
        m = idx == k
        if m.any():
            e += m.sum() / len(p) * abs(y[m].mean() - p[m].mean())
    return e
