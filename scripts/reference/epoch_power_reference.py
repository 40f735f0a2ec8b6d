#!/usr/bin/env python3
"""Reference band power per 30-s epoch for tests/signal_sleep.rs: yasa 0.8.1 `yasa.bandpower(epochs, sf,
bands=[(1, 4, 'Delta'), (8, 12, 'Alpha')], relative=...)` with one row per whole 30-s epoch of the real EEG
of test_subsecond.edf (128 Hz, 698 s: 23 epochs; pyedflib 0.1.42).

    target/ref-venv/bin/python scripts/reference/epoch_power_reference.py tests/expected/epoch_power_reference.json
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
n = int(30 * sf)
epochs = x[: len(x) // n * n].reshape(-1, n)
out = {"source": f"yasa {yasa.__version__} bandpower on 30-s epochs of test_subsecond.edf channel 0", "epochs": len(epochs)}
for rel in (False, True):
    df = yasa.bandpower(epochs, sf, bands=[(1, 4, "Delta"), (8, 12, "Alpha")], relative=rel)
    out["relative" if rel else "absolute"] = df[["Delta", "Alpha"]].to_numpy().tolist()
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1)
