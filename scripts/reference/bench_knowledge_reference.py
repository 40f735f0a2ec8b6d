"""Checks the reference answers of the suite's four knowledge questions (FA-11, NA-05, PI-06, SA-08) claim by
claim with the reference tools, on real recordings from ../shared/data.

A knowledge question is judged semantically against a reference text (the metric's `judge_prompt`), so there
is no number to recompute. What can be measured is each factual claim of that text: every claim below is
looked up in the suite's judge prompt (so the check follows the text the suite really ships) and then
measured with MNE 1.13, scipy, YASA 0.8 or neurokit2 0.3. Claims that no tool or data here can measure are
printed as such and not counted as checked.

- FA-11: on the real Fp1 EEG of test_subsecond.edf (11 × 60 s pieces), the variance across pieces of log10
  power (5-30 Hz) is lower for Welch (`scipy.signal.welch`, 2-s segments) and for multitaper
  (`mne.time_frequency.psd_array_multitaper`) than for the periodogram (`scipy.signal.periodogram`); Welch's
  bin spacing (1/2 s) is coarser than the periodogram's (1/60 s); a multitaper spectrum with full bandwidth
  2W spreads the 8 Hz sine of test_generator.edf (a generated test signal) over 2W (half-maximum width).
- NA-05: MNE `Epochs` of the real auditory trials of MNE's sample EEG (1-30 Hz, -0.1..0.4 s, baseline to 0):
  the global field power peaks 80-120 ms after the tone. The P300 needs an oddball recording (none here).
- PI-06: neurokit2's `hrv_time` RMSSD of the real 5-min ECG equals the root mean square of successive RR
  differences of the same peaks. The vagal reading and the 5-min convention are physiology, not computable.
- SA-08: YASA scores 30-s epochs (`Hypnogram(freq="30s")`), and its slow-wave detector's lower
  peak-to-peak amplitude is 75 uV (`sw_detect(amp_ptp=(75, ...))`). Spindles/K-complexes defining N2 and the
  20 % rule are scoring rules, not computable without a scored PSG (none here).

Usage: python bench_knowledge_reference.py SUITE DATA   (exit 1 when a claim disagrees with its tool)
"""
import inspect, json, pathlib, sys
import numpy as np
import scipy.signal as ss
import mne, yasa, neurokit2 as nk

suite, data = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
mne.set_log_level("ERROR")


def judge_prompts():
    """template id -> the reference text of its (first) case."""
    out = {}
    for f in sorted(suite.glob("*/cases/case*/case*_*.json")):
        case = json.loads(f.read_text())
        tid = case["meta_info"].get("template_id")
        if tid in ("FA-11", "NA-05", "PI-06", "SA-08") and tid not in out:
            out[tid] = case["eval_config"]["metrics"][0]["params"]["judge_prompt"]
    return out


def fa11():
    raw = mne.io.read_raw_edf(data / "eeg/test_subsecond.edf", preload=True)
    x, fs = raw.get_data()[0], raw.info["sfreq"]
    n = int(60 * fs)
    pieces = [x[k * n:(k + 1) * n] for k in range(len(x) // n)]

    def spread(estimate):
        spectra = [estimate(p) for p in pieces]
        f = spectra[0][0]
        band = (f >= 5) & (f <= 30)
        return float(np.mean(np.var(np.log10(np.array([s for _, s in spectra])[:, band]), axis=0))), f[1] - f[0]

    per, df_per = spread(lambda p: ss.periodogram(p, fs))
    wel, df_wel = spread(lambda p: ss.welch(p, fs, nperseg=int(2 * fs)))
    mt, _ = spread(lambda p: mne.time_frequency.psd_array_multitaper(p, fs, bandwidth=2.0)[::-1])
    g = mne.io.read_raw_edf(data / "eeg/test_generator.edf", preload=True)
    fs2 = g.info["sfreq"]
    sine = g.get_data()[g.ch_names.index("sine 8 Hz")][: int(10 * fs2)]
    widths = {}
    for bw in (2.0, 4.0):
        p, f = mne.time_frequency.psd_array_multitaper(sine, fs2, bandwidth=bw)
        above = f[p >= p.max() / 2]
        widths[bw] = float(above.max() - above.min())
    return [
        ("overlapping", f"Welch log-power variance {wel:.4f} < periodogram {per:.4f}", wel < per),
        ("coarser frequency resolution", f"Welch bin {df_wel:.3f} Hz > periodogram bin {df_per:.4f} Hz", df_wel > df_per),
        ("DPSS", f"multitaper log-power variance {mt:.4f} < periodogram {per:.4f}", mt < per),
        ("2W", "sine peak half-maximum width " + ", ".join(f"{w:.2f} Hz at 2W = {bw:g} Hz" for bw, w in widths.items()),
         all(abs(w - bw) <= 0.5 for bw, w in widths.items())),
    ], []


def na05():
    raw = mne.io.read_raw_edf(data / "eeg/mne_sample_eeg60.edf", preload=True).filter(1, 30)
    events, ids = mne.events_from_annotations(raw)
    auditory = {k: v for k, v in ids.items() if k.startswith("auditory")}
    epochs = mne.Epochs(raw, events, auditory, tmin=-0.1, tmax=0.4, baseline=(None, 0), picks="eeg", preload=True)
    evoked = epochs.average()
    gfp, t = evoked.data.std(axis=0), evoked.times
    window = (t >= 0.05) & (t <= 0.2)
    peak = float(t[window][np.argmax(gfp[window])])
    return [("80-120 ms", f"auditory GFP peak at {peak * 1000:.0f} ms over {len(epochs)} real trials",
             0.080 <= peak <= 0.120)], ["P300 latency (needs an oddball recording)", "what each component reflects"]


def pi06():
    ecg = np.load(data / "physio/ecg_360hz.npz")["ecg"]
    fs = 360
    _, info = nk.ecg_peaks(nk.ecg_clean(ecg, sampling_rate=fs), sampling_rate=fs)
    peaks = info["ECG_R_Peaks"]
    rmssd = float(nk.hrv_time(peaks, sampling_rate=fs)["HRV_RMSSD"].iloc[0])
    rr = np.diff(peaks) / fs * 1000
    own = float(np.sqrt(np.mean(np.diff(rr) ** 2)))
    return [("root mean square of successive differences",
             f"neurokit2 RMSSD {rmssd:.3f} ms = RMS of successive RR differences {own:.3f} ms ({len(peaks)} beats, {len(ecg) / fs / 60:.0f} min)",
             abs(rmssd - own) <= 1e-6 * own)], ["vagal (parasympathetic) reading", "5-minute convention (Task Force 1996)"]


def sa08():
    freq = inspect.signature(yasa.Hypnogram).parameters["freq"].default
    amp = inspect.signature(yasa.sw_detect).parameters["amp_ptp"].default
    return [
        ("30 s", f"yasa.Hypnogram epoch {freq}", freq == "30s"),
        ("75 uV", f"yasa.sw_detect lower peak-to-peak amplitude {amp[0]} uV", amp[0] == 75),
    ], ["spindles / K-complexes define N2", "0.5-2 Hz and the 20 % rule for N3"]


prompts = judge_prompts()
checked, failed = 0, 0
for tid, check in (("FA-11", fa11), ("NA-05", na05), ("PI-06", pi06), ("SA-08", sa08)):
    if tid not in prompts:
        print(f"MISSING {tid}: no case of this knowledge question in {suite}")
        failed += 1
        continue
    claims, not_computable = check()
    for phrase, measured, ok in claims:
        present = phrase in prompts[tid]
        checked += 1
        if not (present and ok):
            failed += 1
        state = "ok" if present and ok else ("NOT IN REFERENCE TEXT" if not present else "DISAGREES")
        print(f"{tid} '{phrase}': {measured}: {state}")
    for claim in not_computable:
        print(f"{tid} not computable here: {claim}")
print(f"knowledge reference: {checked} claims of {len(prompts)} knowledge questions checked, {failed} disagree")
sys.exit(1 if failed or len(prompts) < 4 else 0)
