#!/usr/bin/env python3
"""The Neuroscan CNT, GDF, EEGLAB, FIF and array readers and the BrainVision writer against their reference
readers (MNE 1.13.2, NumPy, SciPy).

Files:
- `../shared/data/formats/scan41_short.cnt` (MNE's test file; 16-bit, header says 0 samples) read with
  `mne.io.read_raw_cnt(data_format="int16")` and `--cnt-format int16`; without a width both must refuse it.
  The same file clipped here (its samples cut in the middle of its events, its whole event table after them,
  as a cut recording keeps it): the events past the last sample are left out as MNE leaves them out, with one
  notice naming how many. (MNE's own clipped test file, `test_CNT_events_mne_JWoess_clipped.cnt`, is not among
  the shared files.)
- EEGLAB: MNE's test files `test_raw_chanloc.set` (+ `.fdt`) and `test_raw_event_duration.set` (data inside),
  and the MNE sample EEG exported here with `mne.export` (eeglabio 0.1.4): continuous, with its annotations,
  and as 2-s epochs (compared with `read_epochs_eeglab`'s epochs laid end to end). Data inside a `.set`
  are compared to 1e-6 (MNE casts them to float32).
- GDF: MNE's test file `test_1ch.gdf` (GDF 2.10) and the MNE sample EEG written here as GDF 1.25 (no GDF 1
  file is in MNE's test data), each with `read_raw_gdf`.
- EDF channel types: MNE's `chtypes_edf.edf` with `read_raw_edf(infer_types=True)`.
- FIF: the MNE sample EEG saved by MNE's `raw.save` (float32, int16, cropped, with channel kinds, with acquisition skips, split
  into 10 MB parts), read with `read_raw_fif`.
- Electrode positions (EEGLAB chanlocs, FIF locations, BrainVision [Coordinates]) against MNE's montages.
- `brainlens convert` of the MNE sample EEG to BrainVision (float32, int16), read back by MNE's reader.
- Arrays written here from the MNE sample EEG (`fixtures/eeg/mne_sample_eeg60.edf`, real data, in volts):
  `.npy` float64 C order (channels × samples), float32 Fortran order and transposed (samples × channels),
  int16, 3-D epochs × channels × samples; `.npz` with an `sfreq` member; MATLAB v5 `.mat` (scipy.io.savemat)
  with `fs`; `.csv` with a `time` column and channel names. The reference is NumPy's / SciPy's loaded array
  read as the reader documents (the shorter side is the channels; epochs laid end to end).

Names, rates, sample counts, annotations, samples and (FIF, EEGLAB) channel types are compared by `recording_check.check` (1e-9
relative; 1e-6 for float32 files, float32 precision). Exits 1 on any mismatch.

    python scripts/reference/formats_reference.py --check target/debug/brainlens
"""
import argparse, collections, os, struct, subprocess, sys, tempfile

import numpy as np
import mne
import scipy.io

import recording_check

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "../../fixtures/eeg/mne_sample_eeg60.edf")
CNT = os.path.join(HERE, "../../../shared/data/formats/scan41_short.cnt")


CNT_AUTO_TYPES = {"eog": "auto", "ecg": "auto", "emg": "auto"}
# Channel types set before `raw.save` (away from the compared channels 0, 1, 30 and 59): FIF stores each
# channel's kind (and for MEG its unit), which we read as MNE's `channel_type` does.
FIF_TYPES = {"EEG 011": "eog", "EEG 012": "ecg", "EEG 013": "emg", "EEG 014": "stim", "EEG 015": "misc",
             "EEG 016": "resp", "EEG 017": "mag", "EEG 018": "grad", "EEG 019": "bio", "EEG 020": "seeg"}


def array_ref(x, sfreq, names=None):
    """The reference view of a channels × samples array."""
    x = np.asarray(x, dtype=float)
    return {"names": names or [f"Ch{i + 1}" for i in range(x.shape[0])], "sfreq": sfreq, "n_times": x.shape[1],
            "annotations": [], "channel": lambda ci: x[ci]}


def check_cnt(binary, failures):
    # MNE's own label rule for CNT (eog/ecg/emg="auto": EOG or EYE, ECG, EMG in the name) gives the types.
    raw = mne.io.read_raw_cnt(CNT, data_format="int16", preload=True, verbose="error", **CNT_AUTO_TYPES)
    ref = recording_check.from_mne(raw, lambda name: 1e-6, types=True)
    ref["bads"] = raw.info["bads"]
    recording_check.check(binary, "scan41_short.cnt (MNE test data, int16)", CNT, ref, failures,
                          extra=["--cnt-format", "int16"])
    try:
        mne.io.read_raw_cnt(CNT, verbose="error")
        failures.append("MNE now decides the width of scan41_short.cnt: update this check")
    except RuntimeError:
        pass
    r = subprocess.run([binary, "info", CNT], capture_output=True, text=True)
    if r.returncode == 0 or "sample width" not in r.stderr or "scan41_short.cnt" not in r.stderr:
        failures.append(f"scan41_short.cnt without --cnt-format: expected a refusal naming the file, got {r.returncode} {r.stderr!r}")
    else:
        print("scan41_short.cnt without a width: refused, as MNE refuses it")


def clipped_cnt(d, raw):
    """scan41_short.cnt clipped as a cut recording is: the samples end at the middle of its events, and its whole
    event table follows them, so the later events point past the last sample. Real data, clipped here."""
    b = open(CNT, "rb").read()
    n_ch = struct.unpack_from("<H", b, 370)[0]
    data_offset, event_offset = 900 + 75 * n_ch, struct.unpack_from("<i", b, 886)[0]
    onsets = sorted(a["onset"] for a in raw.annotations)
    keep = int((onsets[len(onsets) // 2 - 1] + onsets[len(onsets) // 2]) / 2 * raw.info["sfreq"])
    out = bytearray(b[:data_offset] + b[data_offset:data_offset + keep * n_ch * 2] + b[event_offset:])
    struct.pack_into("<i", out, 886, data_offset + keep * n_ch * 2)
    path = os.path.join(d, "scan41_clipped.cnt")
    with open(path, "wb") as f:
        f.write(out)
    return path


def check_cnt_clipped(binary, d, failures):
    """Events past the last sample are left out, as MNE leaves them out (with one notice)."""
    full = mne.io.read_raw_cnt(CNT, data_format="int16", preload=False, verbose="error", **CNT_AUTO_TYPES)
    path = clipped_cnt(d, full)
    raw = mne.io.read_raw_cnt(path, data_format="int16", preload=True, verbose="error", **CNT_AUTO_TYPES)
    if len(raw.annotations) >= len(full.annotations):
        failures.append(f"clipped CNT: MNE keeps {len(raw.annotations)} of {len(full.annotations)} events: clip it earlier")
    ref = recording_check.from_mne(raw, lambda name: 1e-6, types=True)
    ref["bads"] = raw.info["bads"]
    recording_check.check(binary, f"scan41_short.cnt clipped at {raw.n_times} samples (MNE: {len(raw.annotations)} "
                          f"of its {len(full.annotations)} events)", path, ref, failures, extra=["--cnt-format", "int16"])
    info = recording_check.ours(binary, "info", path, "--cnt-format", "int16")
    # Repairs read "byte N (field): what was done".
    notes = [r for r in info.get("repairs", []) if "past the last sample" in r]
    left = len(full.annotations) - len(raw.annotations)
    if len(notes) != 1 or f"): {left} event" not in notes[0]:
        failures.append(f"clipped CNT: expected one notice of {left} events left out, got {notes}")
    else:
        print(f"clipped CNT notice: {notes[0]}")


def check_eeglab(binary, d, failures):
    shared = os.path.join(HERE, "../../../shared/data/formats")
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    cont = os.path.join(d, "sample_raw.set")
    mne.export.export_raw(cont, raw, fmt="eeglab", overwrite=True, verbose="error")
    # eeglabio writes no channel types; this copy's chanlocs.type gives some (one unknown: MNE reads it as EEG).
    m = {k: v for k, v in scipy.io.loadmat(cont).items() if not k.startswith("__")}
    for i, t in [(60, "EOG"), (10, "ECG"), (11, "misc"), (12, " emg "), (13, "scalp"), (14, "Stim")]:
        m["chanlocs"][0, i]["type"] = t
    typed = os.path.join(d, "typed.set")
    scipy.io.savemat(typed, m, appendmat=False)
    # Types are compared where the file stores them (MNE's test files store empty ones: EEG for both).
    for label, path, rtol, types in [
            ("test_raw_chanloc.set + .fdt (MNE test data)", os.path.join(shared, "test_raw_chanloc.set"), 1e-9, True),
            ("test_raw_event_duration.set, data inside (MNE test data)", os.path.join(shared, "test_raw_event_duration.set"), 1e-6, True),
            ("sample EEG exported as EEGLAB (mne.export + eeglabio)", cont, 1e-6, False),
            ("the same with chanlocs.type set (scipy.io.savemat)", typed, 1e-6, True)]:
        ref = recording_check.from_mne(mne.io.read_raw_eeglab(path, preload=True, verbose="error"), lambda name: 1e-6,
                                       types=types)
        recording_check.check(binary, label, path, ref, failures, rtol)
    events = mne.make_fixed_length_events(raw, duration=2.0)
    epochs = mne.Epochs(raw, events, tmin=0, tmax=2.0 - 1 / raw.info["sfreq"], baseline=None, preload=True, verbose="error")
    ep = os.path.join(d, "sample_epo.set")
    epochs.export(ep, fmt="eeglab", overwrite=True, verbose="error")
    back = mne.read_epochs_eeglab(ep, verbose="error")
    x = np.concatenate(list(back.get_data()), axis=1) / 1e-6
    ref = {"names": back.ch_names, "sfreq": back.info["sfreq"], "n_times": x.shape[1], "annotations": None,
           "channel": lambda ci: x[ci]}
    recording_check.check(binary, f"{len(back)} epochs exported as EEGLAB, end to end", ep, ref, failures, 1e-6)


def relocate_fif(src, dst, directory):
    """Rewrites an MNE-saved FIF (every `next` 0) with the layout of a CTF recording converted by MNE: the
    measurement info block stored after the data, reached from the tag before it by a forward jump and left
    by a backward one (`next` = absolute positions), the chain ended by −1. With `directory`, a tag directory
    (FIFF_DIR, entries kind/type/size/position in chain order, closed by a kind −1 entry) follows, and the
    FIFF_DIR_POINTER (the second tag) points to it; without, the pointer is −1."""
    b = open(src, "rb").read()
    spans, pos = [], 0
    while pos + 16 <= len(b):
        kind, _, size, _ = np.frombuffer(b[pos:pos + 16], ">i4")
        spans.append((pos, 16 + int(size), int(kind), b[pos + 16:pos + 20]))
        pos += 16 + int(size)
    info = int(101).to_bytes(4, "big", signed=True)
    first = next(i for i, s in enumerate(spans) if s[2] == 104 and s[3] == info)
    last = next(i for i, s in enumerate(spans) if s[2] == 105 and s[3] == info)
    order = [i for i in range(len(spans)) if not first <= i <= last] + list(range(first, last + 1))
    at, pos = {}, 0
    for i in order:
        at[i] = pos
        pos += spans[i][1]
    dirpos = pos
    out = bytearray()
    for i in order:
        p, n = spans[i][0], spans[i][1]
        t = bytearray(b[p:p + n])
        nxt = -1 if i + 1 == len(spans) else (0 if at[i + 1] == at[i] + n else at[i + 1])
        t[12:16] = int(nxt).to_bytes(4, "big", signed=True)
        if i == 1:  # FIFF_DIR_POINTER
            assert spans[1][2] == 101
            t[16:20] = int(dirpos if directory else -1).to_bytes(4, "big", signed=True)
        out += t
    # Reached by a forward jump, left by a backward one.
    assert at[first] > at[first - 1] + spans[first - 1][1] and at[last + 1] < at[last]
    if directory:
        entries = [(spans[i][2], int(np.frombuffer(b[spans[i][0] + 4:spans[i][0] + 8], ">i4")[0]),
                    spans[i][1] - 16, at[i]) for i in range(len(spans))] + [(-1, -1, -1, -1)]
        body = np.array(entries, ">i4").tobytes()
        out += np.array([102, 32, len(body), -1], ">i4").tobytes() + body
    open(dst, "wb").write(bytes(out))


def check_fif(binary, d, failures):
    """FIF raw files written by MNE's `raw.save` from the MNE sample EEG: float32; int16 (`fmt="short"`);
    cropped (first sample 500, annotations from the measurement start); acquisition skips (BAD_ACQ_SKIP
    spans on buffer boundaries become FIFF_DATA_SKIP); split files (the sample tiled to 400 s, 10 MB parts)."""
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    files = []
    p = os.path.join(d, "float_raw.fif")
    raw.save(p, overwrite=True, verbose="error")
    files.append(("float32", p))
    p = os.path.join(d, "short_raw.fif")
    raw.save(p, fmt="short", overwrite=True, verbose="error")
    files.append(("int16 (fmt=short)", p))
    p = os.path.join(d, "cropped_raw.fif")
    raw.copy().crop(tmin=2.0).save(p, overwrite=True, verbose="error")
    files.append(("cropped (first sample 500)", p))
    skipped = raw.copy()
    skipped.set_annotations(skipped.annotations + mne.Annotations([5.0], [2.0], ["BAD_ACQ_SKIP"], orig_time=skipped.annotations.orig_time))
    typed = raw.copy()
    with mne.utils.use_log_level("error"):
        typed.set_channel_types(FIF_TYPES, on_unit_change="ignore")
    p = os.path.join(d, "typed_raw.fif")
    typed.save(p, overwrite=True, verbose="error")
    files.append(("with channel kinds " + ", ".join(sorted(set(FIF_TYPES.values()))), p))
    p = os.path.join(d, "skips_raw.fif")
    skipped.save(p, buffer_size_sec=1.0, overwrite=True, verbose="error")
    files.append(("with acquisition skips", p))
    long = mne.concatenate_raws([raw.copy() for _ in range(17)], verbose="error")
    long.set_annotations(None)
    p = os.path.join(d, "long_raw.fif")
    long.save(p, split_size="10MB", overwrite=True, verbose="error")
    parts = sorted(f for f in os.listdir(d) if f.startswith("long_raw"))
    files.append((f"split into {len(parts)} files ({', '.join(parts)})", p))
    p = os.path.join(d, "moved_raw.fif")
    relocate_fif(os.path.join(d, "float_raw.fif"), p, directory=False)
    files.append(("measurement info stored after the data (a forward and a backward `next`)", p))
    p = os.path.join(d, "moved_dir_raw.fif")
    relocate_fif(os.path.join(d, "float_raw.fif"), p, directory=True)
    files.append(("measurement info stored after the data, with a tag directory", p))
    for label, path in files:
        ref_raw = mne.io.read_raw_fif(path, preload=True, verbose="error")
        ref = recording_check.from_mne(ref_raw, lambda name: 1e-6, types=True)
        recording_check.check(binary, f"FIF {label} (mne raw.save of the MNE sample EEG)", path, ref, failures,
                              1e-6 if "int16" not in label else 1e-9)


def check_edf_types(binary, failures):
    """MNE's `chtypes_edf.edf`: EDF+ labels with type prefixes ("EEG Fp1", "ECG …"), read by MNE with
    `infer_types=True` (which also strips the prefix from the name, so only the types are compared)."""
    path = os.path.join(HERE, "../../../shared/data/formats/chtypes_edf.edf")
    raw = mne.io.read_raw_edf(path, infer_types=True, verbose="error")
    ours = [c["kind"] for c in recording_check.ours(binary, "info", path)["channels"]]
    want = raw.get_channel_types()
    diff = [(i, o, w) for i, (o, w) in enumerate(zip(ours, want)) if o != w]
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(collections.Counter(want).items()))
    print(f"chtypes_edf.edf (MNE test data, infer_types=True): {len(want)} channels ({kinds})"
          + ("" if not diff and len(ours) == len(want) else f"  MISMATCH: {diff[:3]}"))
    if diff or len(ours) != len(want):
        failures.append(f"chtypes_edf.edf: channel types differ: {diff[:3]}")


def check_gdf(binary, failures):
    """MNE's GDF 2.10 test file (one ECG channel in mV)."""
    path = os.path.join(HERE, "../../../shared/data/formats/test_1ch.gdf")
    ref = recording_check.from_mne(mne.io.read_raw_gdf(path, preload=True, verbose="error"), lambda name: 1e-3)
    ref["units"] = ["mV"]
    recording_check.check(binary, "test_1ch.gdf (MNE test data, GDF 2.10)", path, ref, failures)


def write_gdf1(path, raw, events):
    """A GDF 1.25 file as the GDF 1 specification (Schlögl 2006) lays it out, from `raw` (real data, volts):
    int16 samples over each channel's own physical range, 1-s records, labels, units "uV", and an event
    table (mode 1: 1-based positions and type codes). The reference is MNE's reader of what this writes."""
    x = raw.get_data() / 1e-6
    n_ch, n = x.shape
    fs = int(raw.info["sfreq"])
    n_rec = n // fs
    x = x[:, : n_rec * fs]
    pmin, pmax = x.min(axis=1), x.max(axis=1)
    pmax = np.where(pmax > pmin, pmax, pmin + 1.0)
    dmin, dmax = -32768, 32767
    dig = np.round((x - pmin[:, None]) / ((pmax - pmin)[:, None] / (dmax - dmin)) + dmin).astype("<i2")
    head_len = 256 * (n_ch + 1)
    fixed = bytearray(256)
    fixed[0:8] = b"GDF 1.25"
    fixed[8:88] = b"X sample EEG".ljust(80)
    fixed[88:168] = b"MNE sample EEG as GDF 1.25".ljust(80)
    fixed[168:184] = b"2002120316230000"
    fixed[184:192] = np.int64(head_len).tobytes()
    fixed[236:244] = np.int64(n_rec).tobytes()
    fixed[244:252] = np.array([1, 1], "<u4").tobytes()
    fixed[252:256] = np.uint32(n_ch).tobytes()
    text = lambda values, width: b"".join(v.encode("latin-1")[:width].ljust(width) for v in values)
    var = (text(raw.ch_names, 16) + text([""] * n_ch, 80) + text(["uV"] * n_ch, 8)
           + pmin.astype("<f8").tobytes() + pmax.astype("<f8").tobytes()
           + np.full(n_ch, dmin, "<i8").tobytes() + np.full(n_ch, dmax, "<i8").tobytes()
           + text(["HP: 0.1Hz LP: 40Hz"] * n_ch, 80) + np.full(n_ch, fs, "<i4").tobytes()
           + np.full(n_ch, 3, "<i4").tobytes() + bytes(32 * n_ch))
    assert len(fixed) + len(var) == head_len
    records = dig.reshape(n_ch, n_rec, fs).transpose(1, 0, 2).tobytes()
    pos, typ = events
    table = (bytes([1]) + int(fs).to_bytes(3, "little") + np.uint32(len(pos)).tobytes()
             + (np.asarray(pos) + 1).astype("<u4").tobytes() + np.asarray(typ).astype("<u2").tobytes())
    with open(path, "wb") as f:
        f.write(bytes(fixed) + var + records + table)


def check_gdf1(binary, d, failures):
    """GDF 1.x: the MNE sample EEG written as GDF 1.25 (`write_gdf1`) and read by `read_raw_gdf`."""
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    p = os.path.join(d, "sample_gdf1.gdf")
    rng = np.random.default_rng(7)
    pos = np.sort(rng.choice(np.arange(10, int(raw.n_times) - 10), size=12, replace=False))
    write_gdf1(p, raw, (pos, rng.choice([1, 2, 0x300, 0x7FFE], size=12)))
    ref = recording_check.from_mne(mne.io.read_raw_gdf(p, preload=True, verbose="error"), lambda name: 1e-6)
    recording_check.check(binary, "the MNE sample EEG as GDF 1.25 (written here, int16, 12 events)", p, ref, failures)


def check_brainvision_writer(binary, d, failures):
    """`brainlens convert` to BrainVision: MNE reads what we write as we read it, and the samples equal the
    source's (float32: to float32 precision; int16: to half a resolution step)."""
    src = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    for samples, tol in [("float32", 1e-7), ("int16", 0.5 / 32767 + 1e-12)]:
        out = os.path.join(d, f"converted_{samples}.vhdr")
        subprocess.run([binary, "convert", SAMPLE, "--out", out, "--samples", samples], check=True, capture_output=True)
        raw = mne.io.read_raw_brainvision(out, preload=True, verbose="error")
        recording_check.check(binary, f"convert → BrainVision {samples}, read back by MNE", out,
                              recording_check.from_mne(raw, lambda name: 1e-6), failures)
        a, b = raw.get_data(), src.get_data()
        err = (np.abs(a - b).max(axis=1) / np.abs(b).max(axis=1)).max()
        # A text without a "Type/" prefix is written as a Comment; "auditory/right" stays as it is.
        texts = [t.removeprefix("Comment/") for t in raw.annotations.description]
        if a.shape != b.shape or err > tol or texts != list(src.annotations.description):
            failures.append(f"convert {samples}: shape {a.shape} vs {b.shape}, error {err:.2e} > {tol:.1e}, or annotation texts differ")
        else:
            print(f"convert → BrainVision {samples}: samples equal the EDF's to {err:.1e} of each channel's peak; "
                  f"{len(texts)} annotation texts kept")


def check_positions(binary, d, failures):
    """Electrode positions the files give, against MNE's montage (metres, head frame), to 1e-6 m: an EEGLAB
    set's chanlocs (MNE's test file), a FIF saved by MNE with the sample EEG's positions as its montage, and a
    BrainVision header given a [Coordinates] section (radius, theta, phi in degrees) for the same positions, and
    a Neuroscan CNT header's 2-D x/y (MNE's test file), which MNE places on a unit sphere."""
    import csv
    rows = list(csv.reader(open(os.path.join(HERE, "../../fixtures/eeg/mne_sample_eeg60_positions.csv"))))
    pos = {r[0]: np.array([float(v) for v in r[1:4]]) for r in rows[1:]}
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    raw.set_montage(mne.channels.make_dig_montage(ch_pos={k: v for k, v in pos.items() if k in raw.ch_names},
                                                  coord_frame="head"), on_missing="ignore")
    fif = os.path.join(d, "montage_raw.fif")
    raw.save(fif, overwrite=True, verbose="error")
    vhdr = os.path.join(d, "coords.vhdr")
    subprocess.run([binary, "convert", SAMPLE, "--out", vhdr], check=True, capture_output=True)
    lines = ["", "[Coordinates]"]
    for i, name in enumerate(raw.ch_names):
        if name not in pos:  # the EOG channel: no position (MNE's convention: 0,0,0)
            lines.append(f"Ch{i + 1}=0,0,0")
            continue
        x, y, z = pos[name] * 1e3
        r = float(np.sqrt(x * x + y * y + z * z))
        lines.append(f"Ch{i + 1}={r!r},{float(np.degrees(np.arccos(z / r)))!r},{float(np.degrees(np.arctan2(y, x)))!r}")
    open(vhdr, "a", encoding="utf-8").write("\n".join(lines) + "\n")
    shared = os.path.join(HERE, "../../../shared/data/formats/test_raw_chanloc.set")
    cnt = lambda p, verbose: mne.io.read_raw_cnt(p, data_format="int16", verbose=verbose, **CNT_AUTO_TYPES)
    for label, path, read, extra in [
            ("EEGLAB chanlocs (test_raw_chanloc.set)", shared, mne.io.read_raw_eeglab, []),
            ("FIF channel locations (raw.save with a montage)", fif, mne.io.read_raw_fif, []),
            ("BrainVision [Coordinates]", vhdr, mne.io.read_raw_brainvision, []),
            ("Neuroscan CNT header x/y on MNE's unit sphere (scan41_short.cnt)", CNT, cnt, ["--cnt-format", "int16"])]:
        want = read(path, verbose="error").get_montage().get_positions()["ch_pos"]
        got = {n: np.array(p) for n, p in recording_check.ours(binary, "info", path, *extra)["positions"]}
        worst = max((np.abs(got[n] - want[n]).max() for n in want if n in got), default=np.inf)
        if set(got) != {n for n, p in want.items() if not np.isnan(p).any()} or worst > 1e-6:
            failures.append(f"positions, {label}: {len(got)} vs {len(want)} channels, worst {worst:.1e} m")
        print(f"positions, {label}: {len(got)} electrodes, worst difference from MNE's montage {worst:.1e} m")


def write_arrays(d):
    raw = mne.io.read_raw_edf(SAMPLE, preload=True, verbose="error")
    x, sf = raw.get_data(), raw.info["sfreq"]
    n_ch = x.shape[0]
    files = []
    p = os.path.join(d, "c64.npy")
    np.save(p, x)
    files.append(("float64 C order", p, array_ref(x, sf), 1e-9))
    p = os.path.join(d, "f32_transposed.npy")
    np.save(p, np.asfortranarray(x.T.astype(np.float32)))
    files.append(("float32 Fortran order, samples × channels", p, array_ref(x.astype(np.float32), sf), 1e-9))
    p = os.path.join(d, "i16.npy")
    xi = np.round(x / np.abs(x).max() * 30000).astype(np.int16)
    np.save(p, xi)
    files.append(("int16", p, array_ref(xi, sf), 1e-9))
    n_ep, n_s = 10, 600
    ep = x[:, : n_ep * n_s].reshape(n_ch, n_ep, n_s).transpose(1, 0, 2).copy()
    p = os.path.join(d, "epochs.npy")
    np.save(p, ep)
    files.append(("3-D epochs × channels × samples", p, array_ref(x[:, : n_ep * n_s], sf), 1e-9))
    p = os.path.join(d, "with_rate.npz")
    np.savez(p, data=x, sfreq=np.array(sf))
    files.append((".npz with sfreq", p, array_ref(x, sf), 1e-9))
    p = os.path.join(d, "with_fs.mat")
    scipy.io.savemat(p, {"data": x, "fs": sf})
    files.append((".mat (scipy.io.savemat) with fs", p, array_ref(x, sf), 1e-9))
    p = os.path.join(d, "with_time.csv")
    n = 2000
    with open(p, "w") as f:
        f.write(",".join(["time"] + raw.ch_names) + "\n")
        for i in range(n):
            f.write(",".join([repr(i / sf)] + [repr(float(v)) for v in x[:, i]]) + "\n")
    files.append((".csv with a time column and names", p, array_ref(x[:, :n], sf, raw.ch_names), 1e-9))
    return files, sf


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", required=True, help="the brainlens binary")
    a = ap.parse_args()
    failures = []
    check_cnt(a.check, failures)
    check_gdf(a.check, failures)
    check_edf_types(a.check, failures)
    with tempfile.TemporaryDirectory() as d:
        check_cnt_clipped(a.check, d, failures)
        check_eeglab(a.check, d, failures)
        check_brainvision_writer(a.check, d, failures)
        check_gdf1(a.check, d, failures)
        check_fif(a.check, d, failures)
        check_positions(a.check, d, failures)
        files, sf = write_arrays(d)
        for label, path, ref, rtol in files:
            extra = ["--rate", str(sf)] if path.endswith(".npy") else []
            recording_check.check(a.check, f"{label} (from the MNE sample EEG)", path, ref, failures, rtol, extra)
        # A .npy without --rate is refused with the reason.
        r = subprocess.run([a.check, "info", files[0][1]], capture_output=True, text=True)
        if r.returncode == 0 or "--rate" not in r.stderr:
            failures.append(f".npy without --rate: expected a refusal asking for it, got {r.returncode} {r.stderr!r}")
    if failures:
        print("FAILED")
        for f in failures:
            print("  " + f)
        sys.exit(1)


if __name__ == "__main__":
    main()
