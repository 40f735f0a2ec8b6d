#!/usr/bin/env python3
"""Open a long EDF and read a 30-s page at minute 300, as whole processes, N runs each:
BrainLens (`brainlens samples --json`), pyedflib `readSignal(ch, start, n)`, MNE `read_raw_edf(preload=True)`
and MNE lazy. Every process prints the same JSON list of values. Reports median wall time, peak RSS
(os.wait4 ru_maxrss) and ratios; also times BrainLens on a small and (with --huge) a 5 GB file.

usage: open_read.py BRAINLENS_BIN BIG.edf [SMALL.edf] [HUGE.edf] [--runs N]
"""
import argparse, json, os, statistics, subprocess, sys, time

CHANNEL = "EEG 001"
START_S, DUR_S = 300 * 60, 30.0

PYEDFLIB = """
import json, sys, pyedflib
r = pyedflib.EdfReader(sys.argv[1])
ch = r.getSignalLabels().index(sys.argv[2]); fs = r.getSampleFrequency(ch)
x = r.readSignal(ch, int(float(sys.argv[3]) * fs), int(float(sys.argv[4]) * fs))
print(json.dumps(x.tolist()))
"""
MNE = """
import json, sys, mne
raw = mne.io.read_raw_edf(sys.argv[1], preload=sys.argv[5] == "preload", verbose="error")
fs = raw.info["sfreq"]; a = int(float(sys.argv[3]) * fs)
x = raw.get_data(picks=[sys.argv[2]], start=a, stop=a + int(float(sys.argv[4]) * fs))[0] * 1e6
print(json.dumps(x.tolist()))
"""


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"{cmd[0]} failed: {err.decode()[-2000:]}")
    return dt, ru.ru_maxrss / 1024.0, out


def bench(name, cmd, runs):
    times, rss, out = [], [], b""
    for _ in range(runs):
        dt, mb, out = run(cmd)
        times.append(dt)
        rss.append(mb)
    med = statistics.median(times)
    print(f"{name:<28} median {med * 1000:9.1f} ms   min {min(times) * 1000:9.1f} ms   peak RSS {max(rss):7.1f} MB")
    return med, max(rss), out


def values(out, ours):
    v = json.loads(out)
    return v["values"] if ours else v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("big")
    ap.add_argument("small", nargs="?")
    ap.add_argument("huge", nargs="?")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    py = sys.executable
    args = [a.big, CHANNEL, str(START_S), str(DUR_S)]
    print(f"file {a.big}: {os.path.getsize(a.big) / 1e6:.0f} MB; page {DUR_S} s of '{CHANNEL}' at {START_S} s")
    ours, ours_rss, o1 = bench("brainlens samples", [a.bin, "samples", a.big, "--channel", CHANNEL, "--start", str(START_S), "--duration", str(DUR_S), "--json"], a.runs)
    pyed, pyed_rss, o2 = bench("pyedflib readSignal", [py, "-c", PYEDFLIB, *args], a.runs)
    lazy, lazy_rss, o3 = bench("mne read_raw_edf lazy", [py, "-c", MNE, *args, "lazy"], max(2, a.runs // 2))
    pre, pre_rss, o4 = bench("mne read_raw_edf preload", [py, "-c", MNE, *args, "preload"], max(2, a.runs // 2))
    v1, v2, v4 = values(o1, True), values(o2, False), values(o4, False)
    assert len(v1) == len(v2) == len(v4), (len(v1), len(v2), len(v4))
    assert max(abs(x - y) for x, y in zip(v1, v2)) <= 1e-9 * max(map(abs, v2)), "values differ from pyedflib"
    assert max(abs(x - y) for x, y in zip(v1, v4)) <= 1e-6 * max(map(abs, v4)), "values differ from MNE"
    print(f"same {len(v1)} values from all three (pyedflib 1e-9, MNE 1e-6 relative)")
    print(f"speed-up: {pyed / ours:.1f}x vs pyedflib, {lazy / ours:.1f}x vs MNE lazy, {pre / ours:.1f}x vs MNE preload")
    print(f"memory: brainlens {ours_rss:.1f} MB, pyedflib {pyed_rss:.1f} MB, MNE preload {pre_rss:.0f} MB")
    for other in (a.small, a.huge):
        if other:
            t, r, _ = bench(f"brainlens {os.path.getsize(other) / 1e6:.0f} MB file",
                            [a.bin, "samples", other, "--channel", CHANNEL, "--start", str(min(START_S, 60)), "--duration", str(DUR_S), "--json"], a.runs)
            print(f"  ratio to the {os.path.getsize(a.big) / 1e6:.0f} MB file: {t / ours:.2f}")


if __name__ == "__main__":
    main()
