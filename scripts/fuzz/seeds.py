#!/usr/bin/env python3
"""Seed corpora for every fuzz target, made from the real files in ../shared/data (never committed: several are
"tests only"), each cut to at most 64 KB in the layout its target expects (see fuzz/fuzz_targets/*.rs).

    target/ref-venv/bin/python scripts/fuzz/seeds.py OUT_DIR     # OUT_DIR/<target>/<seed>

Needs numpy, scipy and MNE (scripts/reference/requirements.txt) for the FIF, .npy/.npz/.mat seeds.
"""
import glob, gzip, io, json, os, re, sys, tarfile, tempfile, zlib, base64

import numpy as np
import scipy.io

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
DATA = os.path.normpath(os.path.join(ROOT, "../shared/data"))
CUT = 64 << 10
SPLIT = b"\xff\xfe\xfd"


def put(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data[:CUT])


def head(path, n=CUT):
    with open(path, "rb") as f:
        return f.read(n)


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def npz_bytes(**arrays):
    b = io.BytesIO()
    np.savez_compressed(b, **arrays)
    return b.getvalue()


def mat_bytes(**arrays):
    b = io.BytesIO()
    scipy.io.savemat(b, arrays)
    return b.getvalue()


def recordings(out):
    for p in sorted(glob.glob(os.path.join(DATA, "eeg/*.[eb]df")) + glob.glob(os.path.join(DATA, "formats/*.edf"))):
        put(out, "edf_open_read", os.path.basename(p), head(p))
    put(out, "gdf_open_read", "test_1ch.gdf", head(os.path.join(DATA, "formats/test_1ch.gdf")))
    put(out, "cnt_open_read", "scan41_short.cnt", head(os.path.join(DATA, "formats/scan41_short.cnt")))
    f = os.path.join(DATA, "formats/test_NO")
    put(out, "brainvision_open_read", "test_NO",
        head(f + ".vhdr") + b"\0" + head(f + ".vmrk") + b"\0" + head(f + ".eeg", 32 << 10))
    put(out, "eeglab_open_read", "test_raw_event_duration.set",
        head(os.path.join(DATA, "formats/test_raw_event_duration.set")))
    put(out, "eeglab_open_read", "test_raw_chanloc.set+fdt",
        head(os.path.join(DATA, "formats/test_raw_chanloc.set"), 48 << 10) + SPLIT
        + head(os.path.join(DATA, "formats/test_raw_chanloc.fdt"), 16 << 10))
    # FIF: the MNE sample EEG (real data) saved by MNE, 1 s of it; and the layout with the measurement info
    # stored after the data (formats_reference.relocate_fif), with and without a tag directory.
    import mne
    sys.path.insert(0, os.path.join(ROOT, "scripts/reference"))
    from formats_reference import relocate_fif
    raw = mne.io.read_raw_edf(os.path.join(DATA, "eeg/mne_sample_eeg60.edf"), preload=True, verbose="error")
    raw.pick(raw.ch_names[:8]).crop(tmax=1.0)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "s_raw.fif")
        raw.save(p, overwrite=True, verbose="error")
        put(out, "fif_open_read", "mne_raw.fif", head(p))
        for directory in (False, True):
            q = os.path.join(d, f"moved_{directory}_raw.fif")
            relocate_fif(p, q, directory)
            put(out, "fif_open_read", f"moved_dir{int(directory)}_raw.fif", head(q))
    x = raw.get_data()[:, :200]
    for i, (ext, data) in enumerate([("npy", npy_bytes(x)), ("npz", npz_bytes(data=x, sfreq=np.array(250.0))),
                                     ("mat", mat_bytes(data=x, fs=250.0)),
                                     ("csv", "\n".join(",".join(f"{v:.6g}" for v in row) for row in x.T).encode()),
                                     ("tsv", "\n".join("\t".join(f"{v:.6g}" for v in row) for row in x.T).encode())]):
        put(out, "arrays_open_read", f"eeg.{ext}", bytes([i]) + data)


def surfaces(out):
    """Small GIFTI surfaces cut from fsaverage5's pial surface: the first 40 vertices and the triangles among
    them, in each encoding GIFTI allows (ASCII, base64, gzip-base64), plain and gzip-wrapped."""
    text = gzip.decompress(open(os.path.join(DATA, "brain/fsaverage5/pial_left.gii.gz"), "rb").read()).decode()
    arrays = re.findall(r"<Data>(.*?)</Data>", text, re.S)
    coords = np.frombuffer(zlib.decompress(base64.b64decode(arrays[0].strip())), "<f4").reshape(-1, 3)[:40]
    tri = np.frombuffer(zlib.decompress(base64.b64decode(arrays[1].strip())), "<i4").reshape(-1, 3)
    tri = tri[(tri < 40).all(axis=1)][:60]
    if len(tri) == 0:
        tri = np.array([[0, 1, 2], [1, 2, 3]], "<i4")
    for enc in ("ASCII", "Base64Binary", "GZipBase64Binary"):
        def data(a, dtype):
            a = np.ascontiguousarray(a, dtype)
            if enc == "ASCII":
                return "\n".join(" ".join(str(v) for v in row) for row in a)
            raw = a.tobytes()
            return base64.b64encode(zlib.compress(raw) if enc.startswith("GZip") else raw).decode()
        def array(intent, dtype, a, np_type):
            return (f'<DataArray Intent="{intent}" DataType="{dtype}" ArrayIndexingOrder="RowMajorOrder" '
                    f'Dimensionality="2" Dim0="{a.shape[0]}" Dim1="3" Encoding="{enc}" Endian="LittleEndian" '
                    f'ExternalFileName="" ExternalFileOffset="">'
                    f'<Data>{data(a, np_type)}</Data></DataArray>')
        doc = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE GIFTI SYSTEM "http://www.nitrc.org/frs/download.php/115/gifti.dtd">\n'
               '<GIFTI Version="1.0" NumberOfDataArrays="2">'
               + array("NIFTI_INTENT_POINTSET", "NIFTI_TYPE_FLOAT32", coords, "<f4")
               + array("NIFTI_INTENT_TRIANGLE", "NIFTI_TYPE_INT32", tri, "<i4") + "</GIFTI>").encode()
        put(out, "gifti_read", f"pial40_{enc}.gii", doc)
        put(out, "gifti_read", f"pial40_{enc}.gii.gz", gzip.compress(doc))


def networks(out):
    npz = np.load(os.path.join(DATA, "networks/hcp_schaefer100/group-train706_fc.npz"))
    fc = np.asarray(npz[npz.files[0]], float)
    fc = fc if fc.ndim == 2 else fc[0]
    w = fc[:12, :12]
    labels = [f"R{i + 1}" for i in range(12)]
    text = lambda sep: "\n".join(sep.join(f"{v:.6g}" for v in row) for row in w).encode()
    csv_labels = ("," + ",".join(labels) + "\n" + "\n".join(
        labels[i] + "," + ",".join(f"{v:.6g}" for v in row) for i, row in enumerate(w))).encode()
    for i, data in enumerate([text(","), text("\t"), text(" "), npy_bytes(w), npz_bytes(fc=w), mat_bytes(W=w)]):
        put(out, "connectome_read", f"fc12_{i}", bytes([i]) + data)
    put(out, "connectome_read", "fc12_labels", bytes([0]) + csv_labels)
    put(out, "node_edge_read", "fc12.edge", bytes([1]) + text("\t"))
    rows = open(os.path.join(DATA, "brain/coordinates/power_2011.csv")).read().splitlines()[1:40]
    node = "\n".join(" ".join(r.split(",")[1:4]) + f" {i % 7 + 1} 1 P{i}" for i, r in enumerate(rows))
    put(out, "node_edge_read", "power40.node", bytes([0]) + ("# x y z colour size label\n" + node).encode())


def timeseries(out):
    """ROI time series as cohorts deliver them: an ADHD-200 `.1D` (AAL-116, header line) from the archive,
    cut to 60 time points, and the same as CSV, .npy and .mat."""
    with tarfile.open(os.path.join(DATA, "cohorts/adhd200_aal.tar.xz")) as t:
        member = next(m for m in t if m.name.endswith(".1D"))
        lines = t.extractfile(member).read().decode().splitlines()
    one_d = "\n".join(lines[:61]).encode()
    put(out, "timeseries_connectivity", "adhd200.1D", bytes([0]) + one_d)
    x = np.loadtxt(io.StringIO("\n".join(l for l in lines[1:61])), ndmin=2)[:, :20].T
    put(out, "timeseries_connectivity", "adhd200.csv",
        bytes([1]) + "\n".join(",".join(f"{v:.6g}" for v in row) for row in x).encode())
    put(out, "timeseries_connectivity", "adhd200.npy", bytes([2]) + npy_bytes(x))
    put(out, "timeseries_connectivity", "adhd200.mat", bytes([3]) + mat_bytes(ts=x))


def cohort(out):
    """What a cohort import reads: the heads of an ABIDE `.1D` (header of AAL codes) and an ADHD-200 one (a
    line of spaces), the heads of both phenotype tables (CSV; ABIDE's also as TSV), and a 3-subject cohort
    `.npz` laid out as `brainlens cohort import` writes it (SYNTHETIC values, real member names and dtypes)."""
    heads = {}
    for name in ("abide_pcp_aal", "adhd200_aal"):
        with tarfile.open(os.path.join(DATA, f"cohorts/{name}.tar.xz")) as t:
            for m in t:
                if m.name.endswith(".1D") and "1D" not in heads.get(name, {}):
                    heads.setdefault(name, {})["1D"] = t.extractfile(m).read().decode().splitlines()[:25]
                elif m.name.endswith(".csv") and "csv" not in heads.get(name, {}):
                    heads.setdefault(name, {})["csv"] = t.extractfile(m).read().decode().splitlines()[:20]
                if len(heads.get(name, {})) == 2:
                    break
    for name, h in heads.items():
        put(out, "cohort_inputs", f"{name}.1D", bytes([0]) + "\n".join(h["1D"]).encode())
        put(out, "cohort_inputs", f"{name}.csv", bytes([1 if name.startswith("abide") else 2]) + "\n".join(h["csv"]).encode())
    abide_csv = heads["abide_pcp_aal"]["csv"]
    put(out, "cohort_inputs", "abide.tsv", bytes([3]) + "\n".join(l.replace(",", "\t") for l in abide_csv).encode())
    rng = np.random.default_rng(0)
    c = rng.uniform(-1, 1, (3, 4, 4))
    buf = io.BytesIO()
    np.savez(buf, connectomes=c, subject_ids=np.array(["a", "b", "c"]), labels=np.array(["ASD", "HC", "ASD"]),
             sex=np.array(["male", "female", ""]), age=np.array([10.0, np.nan, 30.0]), site=np.array(["NYU"] * 3),
             n_volumes=np.array([100, 120, 90]), flags=np.array(["", "", ""]), region_labels=np.array(list("wxyz")),
             region_codes=np.array(["1", "2", "3", "4"]), flagged_ids=np.array([], dtype="<U1"),
             flagged_files=np.array([], dtype="<U1"), flagged_reasons=np.array([], dtype="<U1"),
             flagged_kept=np.array([], dtype=np.int64), provenance=np.array('{"source": "synthetic seed", '
             '"layout": "folder", "phenotype": "", "task": "asd", "kind": "correlation", "method": "", '
             '"regions": "all 4", "made_by": "seeds.py"}'))
    put(out, "cohort_inputs", "synthetic_cohort.npz", bytes([4]) + buf.getvalue())


def bench(out):
    demo = os.path.join(ROOT, "fixtures/bench/demo")
    for p in sorted(glob.glob(os.path.join(demo, "cases/**/*.json"), recursive=True))[::8]:
        put(out, "bench_case_json", os.path.basename(p), head(p))
    for p in sorted(glob.glob(os.path.join(demo, "results/*.json")))[:4]:
        r = json.load(open(p))
        r["instances"] = r["instances"][:3]
        data = json.dumps(r, indent=1).encode()
        put(out, "bench_result_json", os.path.basename(p), b"\0" + data)
        put(out, "bench_result_json", os.path.basename(p) + "l",
            b"\1" + "\n".join(json.dumps(i) for i in r["instances"]).encode())


def gguf(out):
    """GGUF heads: the start of the SmolLM2 file (magic, version, counts, the first key/value pairs) — whole
    files are far too large to mutate."""
    cache = os.environ.get("BRAINLENS_CACHE", os.path.expanduser("~/.cache/brainlens"))
    p = os.path.join(cache, "models/SmolLM2-135M-Instruct.Q4_1.gguf")
    if os.path.exists(p):
        put(out, "gguf_metadata", "smollm2_head.gguf", head(p, 16 << 10))
    put(out, "gguf_metadata", "empty_v3.gguf", b"GGUF" + (3).to_bytes(4, "little") + bytes(16))


def main():
    out = sys.argv[1]
    recordings(out)
    surfaces(out)
    networks(out)
    timeseries(out)
    cohort(out)
    bench(out)
    gguf(out)
    for d in sorted(os.listdir(out)):
        files = os.listdir(os.path.join(out, d))
        print(f"{d}: {len(files)} seeds, {sum(os.path.getsize(os.path.join(out, d, f)) for f in files)} bytes")


if __name__ == "__main__":
    main()
