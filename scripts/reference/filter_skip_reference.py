#!/usr/bin/env python3
"""`brainlens filter` against MNE 1.13.2's `raw.filter(l_freq, h_freq)` on the MNE sample EEG (60 EEG + EOG,
one 0.024-s BAD_ACQ_SKIP annotation), both with MNE's default `skip_by_annotation=("edge", "bad_acq_skip")`
and with `skip_by_annotation=[]` (`--skip-by-annotation none`).

Every channel of our EDF+ output (read back by MNE) must equal MNE's filtered data to 5e-4 relative RMS
(the output is 16-bit EDF: its rounding is ~6e-5), and the samples under the skipped annotation must be
MNE's (left unfiltered). A third run with the default on our output against MNE with [] must NOT agree, so
the check can fail.

    python scripts/reference/filter_skip_reference.py --check target/debug/brainlens
"""
import argparse, os, subprocess, sys, tempfile

import numpy as np
import mne

SAMPLE = os.path.join(os.path.dirname(__file__), "../../fixtures/eeg/mne_sample_eeg60.edf")
TOL = 5e-4


def ours(binary, skip, out):
    cmd = [binary, "filter", SAMPLE, "--l-freq", "1", "--h-freq", "40", "--out", out]
    if skip is not None:
        cmd += ["--skip-by-annotation", skip]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return mne.io.read_raw_edf(out, preload=True, verbose="error").get_data()


def worst(a, b):
    rel = np.sqrt(np.mean((a - b) ** 2, axis=1)) / np.sqrt(np.mean(b ** 2, axis=1))
    return rel.max(), int(rel.argmax())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", required=True, help="the brainlens binary")
    a = ap.parse_args()
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    skip = [x for x in raw.annotations if x["description"].upper().startswith("BAD_ACQ_SKIP")]
    assert skip, "the sample recording has its BAD_ACQ_SKIP annotation"
    mne_default = raw.copy().filter(1, 40, verbose="error").get_data()
    mne_none = raw.copy().filter(1, 40, skip_by_annotation=[], verbose="error").get_data()
    failures = []
    with tempfile.TemporaryDirectory() as d:
        got_default = ours(a.check, None, os.path.join(d, "default.edf"))
        got_none = ours(a.check, "none", os.path.join(d, "none.edf"))
    for name, got, want in [("default", got_default, mne_default), ("none", got_none, mne_none)]:
        err, ch = worst(got, want)
        print(f"filter 1-40 Hz, skip_by_annotation {name}: worst relative RMS {err:.2e} ({raw.ch_names[ch]})")
        if err > TOL:
            failures.append(f"{name}: {err:.2e} > {TOL} on {raw.ch_names[ch]}")
    # The skipped samples are MNE's unfiltered ones.
    onset = int(np.round(skip[0]["onset"] * raw.info["sfreq"]))
    end = int(np.round((skip[0]["onset"] + skip[0]["duration"]) * raw.info["sfreq"]))
    span = slice(onset, end)
    held = np.abs(got_default[:, span] - raw.get_data()[:, span]).max() / np.abs(raw.get_data()[:, span]).max()
    print(f"samples {onset}..{end} under BAD_ACQ_SKIP left unfiltered: max relative difference {held:.2e}")
    if held > TOL:
        failures.append(f"skipped samples changed by {held:.2e}")
    # The check can fail: the default output is far from MNE's straight-through filtering.
    cross, _ = worst(got_default, mne_none)
    print(f"(control) our default vs MNE skip_by_annotation=[]: {cross:.2e}, must exceed {TOL}")
    if cross <= TOL:
        failures.append("control: the two settings are indistinguishable")
    if failures:
        print("FAILED: " + "; ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
