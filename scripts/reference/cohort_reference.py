"""Cohort connectivity against nilearn 0.14.1, every kind, on real subjects: the first 20 ADHD-200 files (sorted
names; the unpacked cohort, never copied into the repository) are imported by `brainlens cohort import
--regions all --kind K` and compared with `ConnectivityMeasure(kind=K', standardize=True).fit_transform` of
`np.loadtxt` of the same files (tangent: fitted on the same 20); Pearson against `numpy.corrcoef`. Tolerance
1e-9. Usage: cohort_reference.py --check BRAINLENS_BINARY COHORTS_DIR"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
from nilearn.connectome import ConnectivityMeasure

assert sys.argv[1] == "--check"
binary, cohorts = sys.argv[2], sys.argv[3]
src = os.path.join(cohorts, "adhd200_aal")
files = sorted(glob.glob(os.path.join(src, "*_rois_aal.1D")))[:20]
series = [np.loadtxt(f) for f in files]
worst = {}
with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "adhd20")
    os.mkdir(folder)
    for f in files:
        os.symlink(f, os.path.join(folder, os.path.basename(f)))
    table = "Phenotypic_V1_0b_preprocessed1.csv"
    os.symlink(os.path.join(src, table), os.path.join(folder, table))
    for kind, theirs in [("correlation", "correlation"), ("partial", "partial correlation"), ("tangent", "tangent"),
                         ("pearson", None)]:
        out = os.path.join(tmp, f"{kind}.npz")
        subprocess.run([binary, "cohort", "import", folder, "--regions", "all", "--kind", kind, "--out", out],
                       check=True, capture_output=True)
        z = np.load(out)
        assert [f"{i}_rois_aal.1D" for i in z["subject_ids"]] == [os.path.basename(f) for f in files]
        if theirs is None:
            ref = np.array([np.corrcoef(t.T) for t in series])
        else:
            ref = ConnectivityMeasure(kind=theirs, standardize=True).fit_transform(series)
        worst[kind] = float(np.abs(z["connectomes"] - ref).max())
for kind, w in worst.items():
    print(f"cohort {kind:<12} 20 ADHD-200 subjects x 116 x 116: largest difference from the reference {w:.2e}")
bad = {k: w for k, w in worst.items() if not w <= 1e-9}
if bad:
    sys.exit(f"cohort connectivity differs from nilearn/numpy: {bad}")
