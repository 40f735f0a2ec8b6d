#!/usr/bin/env python3
"""Reference values for the EDF reader, from pyedflib 0.1.42 (EDFlib) and MNE 1.13.2.

--write OUT.json   write the expected summaries that tests/edf_reference.rs checks without Python
--check BIN        run `BIN info/samples/annotations --json` on every fixture and compare the full
                   sample arrays with pyedflib (1e-9 relative) and with MNE (1e-9 relative, after MNE's
                   unit scaling is undone); exits 1 on any mismatch.
"""
import argparse, glob, json, os, subprocess, sys

import numpy as np
import pyedflib
import mne

FIXTURES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "../../fixtures/eeg/*.[eb]df")))
# pyedflib filetypes: 0 EDF, 1 EDF+, 2 BDF, 3 BDF+; continuity comes from the reserved header field.
FORMATS = {0: "EDF", 1: "EDF+", 2: "BDF", 3: "BDF+"}


def file_format(path, filetype):
    name = FORMATS[filetype]
    if name.endswith("+"):
        with open(path, "rb") as fh:
            reserved = fh.read(236)[192:197]
        name += "D" if reserved[4:5] == b"D" else "C"
    return name
# Plain EDF with an "EDF Annotations" signal: EDFlib ignores it, MNE and edfio read it; we follow MNE.
MNE_ANNOTATIONS = {"test_legacy.edf"}


def pyedflib_facts(path):
    r = pyedflib.EdfReader(path)
    try:
        n = r.signals_in_file
        start = r.getStartdatetime()
        sub = r.starttime_subsecond / 1e7 if hasattr(r, "starttime_subsecond") else 0.0
        channels = []
        for i in range(n):
            if r.getLabel(i) in ("EDF Annotations", "BDF Annotations"):
                continue  # plain EDF: EDFlib shows the annotation signal as a channel; MNE and we read it as TALs
            x = r.readSignal(i, digital=False)
            channels.append({
                "label": r.getLabel(i),
                "sample_rate": float(r.getSampleFrequency(i)),
                "physical_dimension": r.getPhysicalDimension(i),
                "physical_min": float(r.getPhysicalMinimum(i)),
                "physical_max": float(r.getPhysicalMaximum(i)),
                "digital_min": int(r.getDigitalMinimum(i)),
                "digital_max": int(r.getDigitalMaximum(i)),
                "prefilter": r.getPrefilter(i),
                "transducer": r.getTransducer(i),
                "samples": int(r.getNSamples()[i]),
                "values": x,
            })
        onsets, durations, texts = r.readAnnotations()
        ann = [{"onset_s": float(o), "duration_s": None if d < 0 else float(d), "text": str(t)}
               for o, d, t in zip(onsets, durations, texts)]
        return {
            "format": file_format(path, r.filetype),
            "start": start.strftime("%Y-%m-%dT%H:%M:%S"),
            "subsecond": sub,
            "record_count": int(r.datarecords_in_file),
            "record_duration_s": float(r.datarecord_duration),
            "channels": channels,
            "annotations": ann,
        }
    finally:
        r.close()


def mne_raw(path, preload=False):
    read = mne.io.read_raw_bdf if path.endswith(".bdf") else mne.io.read_raw_edf
    return read(path, preload=preload, verbose="error")


def mne_annotations(path):
    raw = mne_raw(path)
    return [{"onset_s": float(o), "duration_s": None if d == 0 else float(d), "text": str(t)}
            for o, d, t in zip(raw.annotations.onset, raw.annotations.duration, raw.annotations.description)]


def summary(values):
    """Summary of a sample array that pins it down: edges, a strided sample, sums."""
    n = len(values)
    idx = sorted(set(list(range(min(n, 40))) + list(range(max(0, n - 40), n)) + list(range(0, n, max(1, n // 200)))))
    return {"n": n, "index": idx, "values": [float(values[i]) for i in idx],
            "sum": float(np.sum(values)), "sum_sq": float(np.sum(np.asarray(values) ** 2))}


def write(out):
    result = {"source": "pyedflib 0.1.42 EdfReader (header, readSignal, readAnnotations); "
                        "MNE 1.13.2 read_raw_edf annotations for " + ", ".join(sorted(MNE_ANNOTATIONS)),
              "files": {}}
    for path in FIXTURES:
        name = os.path.basename(path)
        f = pyedflib_facts(path)
        if name in MNE_ANNOTATIONS:
            f["annotations"] = mne_annotations(path)
        for c in f["channels"]:
            c["summary"] = summary(c.pop("values"))
        result["files"][name] = f
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)


def run_json(bin_, *args):
    out = subprocess.run([bin_, *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def close(a, b, rel=1e-9):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and np.all(np.abs(a - b) <= rel * np.maximum(np.abs(b), 1e-300) + 1e-12)


def check(bin_):
    failures = 0
    for path in FIXTURES:
        name = os.path.basename(path)
        ref = pyedflib_facts(path)
        info = run_json(bin_, "info", path)
        problems = []
        if info["format"] != ref["format"]:
            problems.append(f"format {info['format']} != {ref['format']}")
        if not info["start"].startswith(ref["start"]):
            problems.append(f"start {info['start']} != {ref['start']}")
        if info["record_count"] != ref["record_count"]:
            problems.append("record_count")
        raw = mne_raw(path, preload=True)
        for c, rc in zip(info["channels"], ref["channels"]):
            for k in ("label", "sample_rate", "physical_dimension", "physical_min", "physical_max",
                      "digital_min", "digital_max", "prefilter", "transducer", "samples"):
                same = (abs(c[k] - rc[k]) <= 1e-12 * abs(rc[k]) if isinstance(rc[k], float) else c[k] == rc[k])
                if not same:
                    problems.append(f"{c['label']}.{k}: {c[k]!r} != {rc[k]!r}")
            ours = np.asarray(run_json(bin_, "samples", path, "--channel", c["label"])["values"])
            if not close(ours, rc["values"]):
                problems.append(f"{c['label']}: samples differ from pyedflib (max abs diff "
                                f"{np.max(np.abs(ours - rc['values'])) if ours.shape == rc['values'].shape else 'shape'})")
            # MNE returns SI units: volts for µV/mV channels; undo that scaling before comparing.
            ch = raw.ch_names.index(c["label"]) if c["label"] in raw.ch_names else None
            if ch is not None:
                scale = {"uV": 1e-6, "µV": 1e-6, "mV": 1e-3}.get(c["physical_dimension"], 1.0)
                mne_vals = raw.get_data(picks=[ch])[0] / scale
                n = min(len(mne_vals), len(ours))
                if raw.info["sfreq"] == c["sample_rate"] and not close(ours[:n], mne_vals[:n]):
                    problems.append(f"{c['label']}: samples differ from MNE")
        ann = run_json(bin_, "annotations", path)
        ref_ann = mne_annotations(path) if name in MNE_ANNOTATIONS else ref["annotations"]
        if len(ann) != len(ref_ann) or any(
                a["text"] != b["text"] or abs(a["onset_s"] - b["onset_s"]) > 1e-6 for a, b in zip(ann, ref_ann)):
            problems.append(f"annotations: {len(ann)} vs {len(ref_ann)} expected")
        print(f"{'ok  ' if not problems else 'FAIL'} {name}: {len(info['channels'])} channels, {len(ann)} annotations")
        for p in problems:
            print("     ", p)
        failures += bool(problems)
    print(f"{len(FIXTURES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--write")
    ap.add_argument("--check")
    a = ap.parse_args()
    if a.write:
        write(a.write)
    if a.check:
        sys.exit(check(a.check))
