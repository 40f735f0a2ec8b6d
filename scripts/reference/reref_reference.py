#!/usr/bin/env python3
"""Reference re-referenced signals for tests/signal_reref.rs: MNE 1.13.2 on the real 60-channel sample
(read_raw_edf, 'EOG 061' typed as eog so that it stays out of the average, as BrainLens does by label):
`set_eeg_reference('average', projection=False)`, `set_eeg_reference(['EEG 030'])` and
`set_bipolar_reference('EEG 001', 'EEG 002')`; every third sample of EEG 001 / EOG 061 kept.

    target/ref-venv/bin/python scripts/reference/reref_reference.py tests/expected/reref_reference.npz
"""
import sys

import mne
import numpy as np

raw = mne.io.read_raw_edf("fixtures/eeg/mne_sample_eeg60.edf", preload=True, verbose="error")
raw.set_channel_types({"EOG 061": "eog"}, verbose="error")
out = {}
avg = raw.copy().set_eeg_reference("average", projection=False, verbose="error")
out["avg_eeg001"] = avg.get_data(picks=["EEG 001"])[0][::3] * 1e6
out["avg_eog061"] = avg.get_data(picks=["EOG 061"])[0][::3] * 1e6
single = raw.copy().set_eeg_reference(["EEG 030"], verbose="error")
out["ref30_eeg001"] = single.get_data(picks=["EEG 001"])[0][::3] * 1e6
bip = mne.set_bipolar_reference(raw.copy(), "EEG 001", "EEG 002", verbose="error")
out["bip_001_002"] = bip.get_data(picks=["EEG 001-EEG 002"])[0][::3] * 1e6
np.savez_compressed(sys.argv[1], **out)
