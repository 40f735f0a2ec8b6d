#!/usr/bin/env python3
"""The BrainVision reader against MNE 1.13.2's `read_raw_brainvision`.

Files: MNE's own test file `../shared/data/formats/test_NO.vhdr` (65 ch, 5 kHz, IEEE_FLOAT_32, multiplexed),
and files written here from the MNE sample EEG (`fixtures/eeg/mne_sample_eeg60.edf`, real data) with pybv
0.8.1 — IEEE_FLOAT_32 and INT_16 with a resolution, the stimulus annotations as markers with durations — plus
two derived from the INT_16 file by rewriting its data and header: VECTORIZED INT_32, and one channel given
in mV with its own resolution.

For each: channel names, rate, sample count, annotation onsets (1e-9 s) and texts equal MNE's; every sample
of five channels (first, middle, last, and the mV one) equals MNE's to 1e-9 relative, in the channel's own
unit (MNE's volts divided by the unit). Exits 1 on any mismatch.

    python scripts/reference/brainvision_reference.py --check target/debug/brainlens
"""
import argparse, os, sys, tempfile

import numpy as np
import mne
import pybv

import recording_check
from recording_check import from_mne

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "../../fixtures/eeg/mne_sample_eeg60.edf")
SHARED = os.path.join(HERE, "../../../shared/data/formats/test_NO.vhdr")
UNIT = {"V": 1.0, "mV": 1e-3, "µV": 1e-6, "uV": 1e-6, "nV": 1e-9}


def write_files(d):
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    data, sf = raw.get_data(), raw.info["sfreq"]
    stim = [a for a in raw.annotations if a["description"] != "BAD_ACQ_SKIP"]
    codes = {d: i + 1 for i, d in enumerate(sorted({a["description"] for a in stim}))}
    events = [{"onset": int(round(a["onset"] * sf)), "duration": 1 + i % 3, "description": codes[a["description"]],
               "type": "Stimulus"} for i, a in enumerate(stim)]
    events.append({"onset": 100, "duration": 5, "description": "blink left", "type": "Comment"})
    files = {}
    for name, fmt, res in [("float32", "binary_float32", 0.1), ("int16", "binary_int16", 0.5)]:
        pybv.write_brainvision(data=data, sfreq=sf, ch_names=raw.ch_names, fname_base=name, folder_out=d,
                               events=events, resolution=res, unit="µV", fmt=fmt, overwrite=True)
        files[name] = os.path.join(d, name + ".vhdr")
    # VECTORIZED INT_32: the INT_16 samples channel after channel, widened.
    n_ch = len(raw.ch_names)
    x = np.fromfile(os.path.join(d, "int16.eeg"), dtype="<i2").reshape(-1, n_ch)
    x.T.astype("<i4").tofile(os.path.join(d, "vec32.eeg"))
    hdr = open(files["int16"], encoding="utf-8").read()
    hdr = hdr.replace("DataFile=int16.eeg", "DataFile=vec32.eeg").replace("MarkerFile=int16.vmrk", "MarkerFile=int16.vmrk")
    hdr = hdr.replace("DataOrientation=MULTIPLEXED", "DataOrientation=VECTORIZED").replace("BinaryFormat=INT_16", "BinaryFormat=INT_32")
    files["vec32"] = os.path.join(d, "vec32.vhdr")
    open(files["vec32"], "w", encoding="utf-8").write(hdr)
    # Channel 1 in mV with its own resolution (the same stored numbers: 0.5 µV = 0.0005 mV).
    lines = open(files["int16"], encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Ch1="):
            parts = line.split(",")
            parts[2], parts[3] = "0.0005", "mV"
            lines[i] = ",".join(parts)
    files["mV"] = os.path.join(d, "mV.vhdr")
    open(files["mV"], "w", encoding="utf-8").write("\n".join(lines))
    return files


def check(binary, label, path, failures):
    raw = mne.io.read_raw_brainvision(path, preload=True, verbose="error")
    units = raw._orig_units
    ref = from_mne(raw, lambda name: UNIT[units[name]])
    ref["units"] = [units[n] for n in raw.ch_names]
    recording_check.check(binary, label, path, ref, failures)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", required=True, help="the brainlens binary")
    a = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as d:
        files = {"test_NO (MNE test data)": SHARED}
        files.update({f"{k} (pybv, from the MNE sample EEG)": v for k, v in write_files(d).items()})
        for label, path in files.items():
            check(a.check, label, path, failures)
    if failures:
        print("FAILED")
        sys.exit(1)


if __name__ == "__main__":
    main()
