"""What every recording-reader reference check compares (imported by the *_reference.py scripts).

`check(binary, label, path, ref, failures)`: `ref` holds the reference reader's view of the file — channel
names, rate, sample count, annotations (onset, duration, text) and a function giving one channel's samples
in the channel's own unit. Names, rate and count must be equal; annotation onsets and durations to 1 µs (MNE keeps
whole microseconds) and texts exactly; the samples of the first, second, middle and last channels to `rtol` relative (of the
channel's largest magnitude). Channel types (`ref["types"]`, MNE's `get_channel_types()`) are compared where
the file stores them. `extra` are options given to every brainlens call (e.g. `--cnt-format int16`).
"""
import json, subprocess

import numpy as np


def ours(binary, *args):
    return json.loads(subprocess.run([binary, *args, "--json"], check=True, capture_output=True).stdout)


def check(binary, label, path, ref, failures, rtol=1e-9, extra=()):
    extra = list(extra)
    info = ours(binary, "info", path, *extra)
    names = [c["label"] for c in info["channels"]]
    rates = {c["sample_rate"] for c in info["channels"]}
    counts = {c["samples"] for c in info["channels"]}
    problems = []
    if names != ref["names"]:
        problems.append(f"channel names differ: {names[:3]} vs {ref['names'][:3]}")
    if rates != {ref["sfreq"]}:
        problems.append(f"rate {rates} vs {ref['sfreq']}")
    if counts != {ref["n_times"]}:
        problems.append(f"samples {counts} vs {ref['n_times']}")
    if "types" in ref:
        types = [c["kind"] for c in info["channels"]]
        if types != ref["types"]:
            diff = [(n, t, w) for n, t, w in zip(names, types, ref["types"]) if t != w]
            problems.append(f"channel types differ on {len(diff)} channels: {diff[:3]} (ours, reference)")
    if "bads" in ref and info.get("bads") != ref["bads"]:
        problems.append(f"bad channels {info.get('bads')} vs {ref['bads']}")
    # Annotations (None: the reference has none to compare, e.g. MNE's epochs). A NaN duration is none.
    want = ref["annotations"]
    if want is not None:
        ann = ours(binary, "annotations", path, *extra)
        got = [(a["onset_s"], a["duration_s"] or 0.0, a["text"]) for a in ann]
        want = [(o, 0.0 if d != d else d, t) for o, d, t in want]
        # MNE crops annotations through datetime.timedelta, which keeps whole microseconds: a true onset
        # of 1.000068359375 s reads back as 1.000068 s. So times agree to 1 µs, texts exactly.
        if len(got) != len(want) or any(abs(g[0] - w[0]) > 1e-6 or abs(g[1] - w[1]) > 1e-6 or g[2] != w[2]
                                         for g, w in zip(got, want)):
            problems.append(f"annotations differ ({len(got)} vs {len(want)}): {got[:2]} vs {want[:2]}")
    n = len(ref["names"])
    worst = 0.0
    for ci in sorted({0, 1 % n, n // 2, n - 1}):
        s = ours(binary, "samples", path, "--channel", names[ci] if ci < len(names) else str(ci), *extra)
        mine = np.array(s["values"])
        want_values = np.asarray(ref["channel"](ci), dtype=float)
        if mine.shape != want_values.shape:
            problems.append(f"channel {ci}: {mine.shape} vs {want_values.shape} samples")
            continue
        err = np.abs(mine - want_values).max() / max(np.abs(want_values).max(), 1e-30)
        worst = max(worst, err)
        if err > rtol:
            problems.append(f"channel {ci}: relative difference {err:.2e} > {rtol:.0e}")
        if "units" in ref and info["channels"][ci]["physical_dimension"] != ref["units"][ci]:
            problems.append(f"channel {ci}: unit {info['channels'][ci]['physical_dimension']} vs {ref['units'][ci]}")
    print(f"{label}: {n} ch, {ref['sfreq']} Hz, {ref['n_times']} samples, {len(want or [])} annotations; "
          f"worst sample difference {worst:.1e}" + ("" if not problems else "  MISMATCH: " + "; ".join(problems)))
    failures.extend(f"{label}: {p}" for p in problems)


def from_mne(raw, unit_of, types=False):
    """The reference view of an MNE Raw; `unit_of(ch_name)` is the channel's unit as a factor of volts.
    `types`: compare channel types too (for files that store them; elsewhere MNE calls every channel EEG
    and we read the type from the label)."""
    ref = {
        "names": raw.ch_names,
        "sfreq": raw.info["sfreq"],
        "n_times": raw.n_times,
        # MNE's onsets count from the measurement start; ours from the first sample (raw.first_time).
        "annotations": [(a["onset"] - raw.first_time, a["duration"], a["description"]) for a in raw.annotations],
        "channel": lambda ci: raw.get_data(picks=[ci])[0] / unit_of(raw.ch_names[ci]),
    }
    if types:
        ref["types"] = raw.get_channel_types()
    return ref
