#!/usr/bin/env python3
"""Open a large BrainVision or FIF file and read its first 30-s page (every channel), as whole processes, one
run each: BrainLens (`brainlens page FILE --duration 30 --json`, what the Recordings room draws first) against
MNE 1.13.2 `read_raw_brainvision` / `read_raw_fif` (preload=True and lazy), each printing the same page as
JSON. Peak RSS from GNU time (Debian package `time`). The files are TILED from real data (the MNE sample EEG
written by pybv as IEEE_FLOAT_32, its data repeated; for FIF, the sample concatenated and saved by MNE's
raw.save), and labelled so: ~50 MB and >= 500 MB, to show BrainLens's memory does not grow with the file.

usage: recording_open_read.py BRAINLENS_BIN OUT_DIR vhdr|fif
"""
import json, os, subprocess, sys, time

import mne
import pybv

MNE = """
import json, sys, mne
read = mne.io.read_raw_fif if sys.argv[1].endswith(".fif") else mne.io.read_raw_brainvision
raw = read(sys.argv[1], preload=sys.argv[2] == "preload", verbose="error")
x = raw.get_data(start=0, stop=int(30 * raw.info["sfreq"]))
print(json.dumps([(c * 1e6).tolist() for c in x]))
"""


def tiled_fif(out_dir, target_mb):
    path = os.path.join(out_dir, f"tiled_{target_mb}MB_raw.fif")
    if not os.path.exists(path):
        raw = mne.io.read_raw_edf("fixtures/eeg/mne_sample_eeg60.edf", preload=True, verbose="error")
        raw.set_annotations(None)
        per = raw.get_data().size * 4
        big = mne.concatenate_raws([raw.copy() for _ in range(target_mb * 1_000_000 // per + 1)], verbose="error")
        big.save(path, split_size="2GB", overwrite=True, verbose="error")
    return path


def tiled(out_dir, target_mb):
    base = os.path.join(out_dir, "sample")
    if not os.path.exists(base + ".eeg"):
        raw = mne.io.read_raw_edf("fixtures/eeg/mne_sample_eeg60.edf", preload=True, verbose="error")
        pybv.write_brainvision(data=raw.get_data(), sfreq=raw.info["sfreq"], ch_names=raw.ch_names,
                               fname_base="sample", folder_out=out_dir, fmt="binary_float32", overwrite=True)
    name = f"tiled_{target_mb}MB"
    path = os.path.join(out_dir, name + ".vhdr")
    if not os.path.exists(path):
        block = open(base + ".eeg", "rb").read()
        with open(os.path.join(out_dir, name + ".eeg"), "wb") as f:
            for _ in range(max(1, target_mb * 1_000_000 // len(block) + 1)):
                f.write(block)
        hdr = open(base + ".vhdr", encoding="utf-8").read().replace("sample.eeg", name + ".eeg")
        hdr = hdr.replace("sample.vmrk", name + ".vmrk")
        open(path, "w", encoding="utf-8").write(hdr)
        mrk = open(base + ".vmrk", encoding="utf-8").read().replace("sample.eeg", name + ".eeg")
        open(os.path.join(out_dir, name + ".vmrk"), "w", encoding="utf-8").write(mrk)
    return path


def run(cmd):
    """Wall time, peak RSS (MB) and stdout of `cmd`. The peak comes from GNU time (`/usr/bin/time -f %M`): a
    child started from this Python process would inherit its peak at exec (Linux carries the old image's
    high-water mark into the new one)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd[:3]} failed: {p.stderr.decode()[-2000:]}")
    return dt, int(p.stderr.decode().strip().splitlines()[-1]) / 1024.0, p.stdout


def drop_caches():
    """Empties the page cache (root only): every reader then starts from the disk."""
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def main():
    binary, out_dir, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    rows = {}
    for mb in (50, 500):
        path = tiled_fif(out_dir, mb) if fmt == "fif" else tiled(out_dir, mb)
        size = os.path.getsize(path if fmt == "fif" else path[:-5] + ".eeg") / 1e6
        # Warm: the file read once beforehand, so every reader finds it in the page cache.
        subprocess.run(["cat", path if fmt == "fif" else path[:-5] + ".eeg"], stdout=subprocess.DEVNULL, check=True)
        ours, ours_mb, o1 = run([binary, "page", path, "--duration", "30", "--json"])
        mine = [r["values"] for t in json.loads(o1)["traces"] for r in t["runs"]]
        print(f"{fmt}: TILED real data, {size:.0f} MB, page cache warm: brainlens page {ours:.3f} s, peak {ours_mb:.1f} MB",
              flush=True)
        rows[mb] = (ours, ours_mb)
        if mb == 500:
            lazy, lazy_mb, o2 = run([sys.executable, "-c", MNE, path, "lazy"])
            pre, pre_mb, o3 = run([sys.executable, "-c", MNE, path, "preload"])
            ref = json.loads(o3)
            worst = max(abs(a - b) for x, y in zip(mine, ref) for a, b in zip(x, y))
            assert len(mine) == len(ref) and all(len(x) == len(y) for x, y in zip(mine, ref)) and worst < 1e-3, worst
            print(f"  MNE lazy      {lazy:.3f} s, peak {lazy_mb:.1f} MB  ({lazy / ours:.1f}x slower than brainlens)")
            print(f"  MNE preload   {pre:.3f} s, peak {pre_mb:.1f} MB  ({pre / ours:.1f}x slower than brainlens)")
            print(f"  same page ({len(mine)} channels x {len(mine[0])} samples), worst difference {worst:.1e} µV "
                  f"(the page is drawn as float32)")
            # Cold: the page cache emptied before each reader (root only).
            if os.geteuid() == 0:
                times = []
                for cmd in ([binary, "page", path, "--duration", "30", "--json"], [sys.executable, "-c", MNE, path, "lazy"],
                            [sys.executable, "-c", MNE, path, "preload"]):
                    drop_caches()
                    times.append(run(cmd)[0])
                print(f"  page cache cold: brainlens {times[0]:.3f} s, MNE lazy {times[1]:.3f} s "
                      f"({times[1] / times[0]:.1f}x), preload {times[2]:.3f} s ({times[2] / times[0]:.1f}x)")
            else:
                print("  page cache cold: not measured (emptying the cache needs root)")
    print(f"brainlens peak memory: {rows[50][1]:.1f} MB at 50 MB, {rows[500][1]:.1f} MB at 500 MB")


if __name__ == "__main__":
    main()
