"""Recomputes the reference answers of a generated BrainBench suite (`brainlens bench generate`) with the
reference tools, independently of BrainLens, and checks every case's gt_value within its tolerance.

- EEG read with MNE 1.13 (`mne.io.read_raw_edf`, volts; relative measures and rankings are unit-free);
  FIR band-pass `raw.filter(l, h)` (firwin, Hamming, zero-phase); Welch `scipy.signal.welch(nperseg=2 s)`;
  band power `numpy.trapezoid` over bins lo <= f <= hi.
- Variance `numpy.var`; IQR bounds `numpy.percentile` (linear).
- Sleep statistics `yasa.sleep_statistics(hypno, sf_hyp=1/30)` with SRI codes mapped to YASA's
  (0 W, 1 Light -> 2 N2, 2 Deep -> 3 N3, 3 REM -> 4); kappa `sklearn.metrics.cohen_kappa_score`.
- Events from `raw.annotations` (MNE's onsets); HRV from neurokit2 0.3.0 (`ecg_clean` + `ecg_peaks`,
  `hrv_time`) on the ECG as MNE reads it from the suite's EDF; Pearson `numpy.corrcoef`.

Usage: python bench_suite_reference.py SUITE   (exit 1 when any checked answer disagrees)
"""
import json, sys, pathlib
import numpy as np
import scipy.signal as ss
import mne, yasa, neurokit2 as nk, pandas as pd
from sklearn.metrics import cohen_kappa_score

suite = pathlib.Path(sys.argv[1])
mne.set_log_level("ERROR")


def raw_of(path):
    return mne.io.read_raw_edf(suite / path, preload=True)


def eeg(raw):
    return raw.copy().pick([c for c in raw.ch_names if "EOG" not in c and "ECG" not in c])


def welch2(x, fs):
    return ss.welch(x, fs, nperseg=int(round(2 * fs)))


def bandpower(f, p, lo, hi):
    i = (f >= lo) & (f <= hi)
    return np.trapezoid(p[..., i], f[i])


def rel_powers(raw, P):
    r = raw.copy().filter(P["l_freq"], P["h_freq"])
    f, p = welch2(r.get_data(), r.info["sfreq"])
    return 100 * bandpower(f, p, P["band_lo"], P["band_hi"]) / bandpower(f, p, P["total_lo"], P["total_hi"])


def sri(path, col):
    df = pd.read_csv(suite / path)
    return df[col].map({0: 0, 1: 2, 2: 3, 3: 4}).to_numpy()


def hrv(path):
    raw = raw_of(path)
    fs = raw.info["sfreq"]
    clean = nk.ecg_clean(raw.get_data()[0] * 1e3, sampling_rate=fs, method="neurokit")
    _, info = nk.ecg_peaks(clean, sampling_rate=fs, method="neurokit", correct_artifacts=False)
    peaks = info["ECG_R_Peaks"]
    rr = np.diff(peaks) / fs * 1000
    return {"hr_bpm": 60000 / rr.mean(), "rmssd_ms": float(nk.hrv_time(peaks, sampling_rate=fs)["HRV_RMSSD"].iloc[0]),
            "beats": len(peaks)}


def compute(tid, P, data):
    if tid == "FA-01":
        return {"band_rel_pct": rel_powers(eeg(raw_of(data)), P).mean()}
    if tid == "FA-03":
        raw = raw_of(data).pick([P["channel"]])
        f, p = welch2(raw.get_data()[0], raw.info["sfreq"])
        i = np.where((f >= P["lo"]) & (f <= P["hi"]))[0]
        return {"peak_hz": f[i[np.argmax(p[i])]]}
    if tid in ("FA-04", "FA-10"):
        raw = eeg(raw_of(data))
        v = raw.get_data().var(axis=1)
        if tid == "FA-04":
            order = np.argsort(-v, kind="stable")[: P["top_k"]]
            return {"top_channels": [raw.ch_names[i] for i in order]}
        q1, q3 = np.percentile(v, [25, 75])
        return {"outlier_count": int(((v < q1 - 1.5 * (q3 - q1)) | (v > q3 + 1.5 * (q3 - q1))).sum())}
    if tid == "FA-05":
        raw = eeg(raw_of(data))
        v = raw.get_data().var(axis=1)
        q1, q3 = np.percentile(v, [25, 75])
        keep = [c for c, x in zip(raw.ch_names, v) if q1 - 1.5 * (q3 - q1) <= x <= q3 + 1.5 * (q3 - q1)]
        rel = rel_powers(raw.copy().pick(keep), P)
        return {"alpha_channels": [c for c, r in zip(keep, rel) if r > rel.mean()]}
    if tid in ("SA-01", "SA-02", "SA-03", "SA-04", "SA-06"):
        h = sri(data, "reference")
        s = yasa.sleep_statistics(h, sf_hyp=1 / 30)
        if tid == "SA-01":
            return {"tst_min": s["TST"]}
        if tid == "SA-02":
            return {"se_pct": s["SE"]}
        if tid == "SA-03":
            return {"rem_latency_min": s["Lat_REM"] - s["SOL"]}
        if tid == "SA-04":
            return {"deep_pct": s["%N3"], "rem_pct": s["%REM"]}
        sleep = h > 0
        awakenings = int(np.sum(sleep[:-1] & ~sleep[1:]))
        return {"waso_min": s["WASO"], "awakenings": awakenings}
    if tid == "SA-05":
        a, b = sri(data, "reference"), sri(data, "device")
        return {"kappa": cohen_kappa_score(a, b), "agreement_pct": 100 * np.mean(a == b)}
    if tid == "NA-01":
        return {"event_count": int(np.sum(raw_of(data).annotations.description == P["condition"]))}
    if tid == "NA-04":
        ann = raw_of(data).annotations
        on = np.sort([o for o, d in zip(ann.onset, ann.description) if d.startswith(("auditory/", "visual/"))])
        return {"isi_ms": 1000 * np.diff(on).mean()}
    if tid in ("PI-01", "PI-02"):
        return hrv(data)
    if tid == "PI-04":
        raw = raw_of(data)
        x = raw.get_data()
        eog = x[raw.ch_names.index([c for c in raw.ch_names if "EOG" in c][0])]
        names = [c for c in raw.ch_names if "EOG" not in c]
        r = [abs(np.corrcoef(x[raw.ch_names.index(c)], eog)[0, 1]) for c in names]
        return {"eog_channel": names[int(np.argmax(r))], "abs_r": max(r)}
    if tid == "PI-03":
        raw = raw_of(data)
        x = raw.get_data(picks=[c for c in raw.ch_names if "EOG" in c])[0]
        n = int(round(P["segment_s"] * raw.info["sfreq"]))
        sds = [x[k * n:(k + 1) * n].std() for k in range(len(x) // n)]
        return {"eog_ranking": [f"S{i + 1}" for i in np.argsort(-np.array(sds), kind="stable")]}
    return None


def agrees(metric, value):
    gt = metric["params"]["gt_value"]
    kind = metric["type"]
    if kind == "numeric_check":
        return abs(float(value) - float(gt)) <= float(metric["params"]["tolerance"])
    if kind == "set_match_check":
        return sorted(value) == sorted(gt)
    if kind in ("categorical_check",):
        return str(value).strip().upper() == str(gt).strip().upper()
    return list(value) == list(gt)


checked, failed, templates = 0, 0, set()
for case_file in sorted(suite.glob("*/cases/case*/case*_*.json")):
    case = json.loads(case_file.read_text())
    meta = case["meta_info"]
    got = compute(meta["template_id"], meta["params"], case["agent_input"].get("data_path"))
    if got is None:
        continue
    for m in case["eval_config"]["metrics"]:
        if m["target_key"] not in got:
            continue
        ok = agrees(m, got[m["target_key"]])
        checked += 1
        templates.add(meta["template_id"])
        if not ok:
            failed += 1
            print(f"MISMATCH {meta['case_id']} {m['metric_id']}: BrainLens {m['params']['gt_value']!r}, reference {got[m['target_key']]!r}")
print(f"bench suite reference: {checked} answers of {len(templates)} templates checked "
      f"({', '.join(sorted(templates))}), {failed} disagree")
sys.exit(1 if failed or len(templates) < 10 else 0)
