#!/usr/bin/env python3
"""Reference per-stage band power for tests/signal_sleep.rs: yasa 0.8.1 `yasa.bandpower(data, sf,
hypno=hypno_upsampled, include=(0, 1, 2, 3, 4), bands=[(1, 4, 'Delta'), (8, 12, 'Alpha')], relative=...)` on
the real EEG of test_subsecond.edf (128 Hz, 698 s, pyedflib 0.1.42) with a SYNTHETIC 30-s hypnogram (the
stage sequence below is made up; no real PSG with a hypnogram is available).

    target/ref-venv/bin/python scripts/reference/stage_power_reference.py tests/expected/stage_power_reference.json
"""
import json
import sys
import warnings

import numpy as np
import pyedflib
import yasa

warnings.filterwarnings("ignore")
with pyedflib.EdfReader("fixtures/eeg/test_subsecond.edf") as f:
    x, sf = f.readSignal(0), f.getSampleFrequency(0)
# Synthetic hypnogram, one stage per 30-s epoch (23 full epochs + a partial one).
stages = [0, 0, 1, 2, 2, 2, 3, 3, 3, 2, 2, 4, 4, 4, 0, 1, 2, 2, 3, 3, 2, 4, 4, 0]
hyp = yasa.hypno_upsample_to_data(np.array(stages), sf_hypno=1 / 30, data=x[None, :], sf_data=sf)
out = {"source": f"yasa {yasa.__version__} bandpower with hypno (synthetic hypnogram)", "stages": stages}
for rel in (False, True):
    df = yasa.bandpower(x[None, :], sf, ch_names=["Fp1"], hypno=hyp, include=(0, 1, 2, 3, 4),
                        bands=[(1, 4, "Delta"), (8, 12, "Alpha")], relative=rel)
    out["relative" if rel else "absolute"] = {str(int(s)): [float(df.loc[(s, "Fp1"), "Delta"]), float(df.loc[(s, "Fp1"), "Alpha"])]
                                               for s in df.index.get_level_values(0).unique()}
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1)
