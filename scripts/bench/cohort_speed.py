"""nilearn's side of the cohort import benchmark (scripts/bench/cohort_speed.sh): load every `.1D` file of a
folder with numpy.loadtxt (as nilearn's ABIDE examples do), keep AAL-90 (the first 90 columns), and run
`ConnectivityMeasure(kind=KIND, standardize=True).fit_transform` on all subjects; writes the stacked
connectomes and the ids to OUT (.npz) so the two sides can be compared."""
import glob
import os
import sys

import numpy as np
from nilearn.connectome import ConnectivityMeasure

folder, kind, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(glob.glob(os.path.join(folder, "*_rois_*.1D")))
ids = [os.path.basename(f).split("_rois_")[0] for f in files]
series = [np.loadtxt(f)[:, :90] for f in files]
kind = {"partial": "partial correlation"}.get(kind, kind)
mats = ConnectivityMeasure(kind=kind, standardize=True).fit_transform(series)
np.savez(out, connectomes=mats, subject_ids=np.array(ids))
