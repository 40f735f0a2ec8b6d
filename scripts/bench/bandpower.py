#!/usr/bin/env python3
"""Band power of every channel of a long EDF, whole processes, this machine:
BrainLens `bandpower --nperseg 1000 --noverlap 500` (file streamed) vs MNE read_raw_edf(preload=True) +
scipy.signal.welch(nperseg=1000, noverlap=500) + numpy.trapezoid over 8-12 Hz; wall time and peak RSS of each.
Then Welch of one channel already in memory: BrainLens (examples/welch_one.rs) vs scipy (single-threaded
pocketfft), best of 5 each. Usage: bandpower.py BRAINLENS FILE"""
import json
import os
import subprocess
import sys
import time

brainlens, path = sys.argv[1], sys.argv[2]

PIPELINE = r"""
import sys, numpy as np, mne, scipy.signal as ss
raw = mne.io.read_raw_edf(sys.argv[1], preload=True, verbose="error")
data = raw.get_data() * 1e6
sf = raw.info["sfreq"]
f, p = ss.welch(data, sf, nperseg=1000, noverlap=500)
band = (f >= 8) & (f <= 12)
bp = np.trapezoid(p[:, band], f[band], axis=-1)
print(float(bp.mean()))
"""

ONE = r"""
import sys, time, numpy as np, mne, scipy.signal as ss
raw = mne.io.read_raw_edf(sys.argv[1], preload=False, verbose="error")
x = raw.get_data(picks=[sys.argv[2]])[0] * 1e6
best = 1e9
for _ in range(5):
    t = time.perf_counter(); f, p = ss.welch(x, raw.info["sfreq"], nperseg=1000, noverlap=500); best = min(best, time.perf_counter() - t)
print(best, len(x))
"""


def measure(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"{cmd[0]} failed: {err.decode()[-400:]}")
    return time.perf_counter() - t, ru.ru_maxrss / 1024, out.decode()


size = os.path.getsize(path) / 1e6
bt, brss, bout = measure([brainlens, "bandpower", path, "--band", "8-12", "--nperseg", "1000", "--noverlap", "500", "--json"])
pt, prss, pout = measure([sys.executable, "-c", PIPELINE, path])
bmean = json.loads(bout)["mean"]
print(f"file {size:.0f} MB; band power 8-12 Hz of every channel, nperseg 1000 / noverlap 500")
print(f"  brainlens      {bt:7.2f} s  peak RSS {brss:8.0f} MB  mean {bmean:.9g}")
print(f"  mne+scipy      {pt:7.2f} s  peak RSS {prss:8.0f} MB  mean {float(pout):.9g}")
print(f"  ratio          {pt / bt:7.1f}x faster, {prss / brss:.0f}x less memory")
w = subprocess.run(["cargo", "run", "--release", "--quiet", "--example", "welch_one", "--", path, "EEG 001", "1000", "500"],
                   stdout=subprocess.PIPE, check=True).stdout.decode()
rs = json.loads(w)
env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
st, n = subprocess.run([sys.executable, "-c", ONE, path, "EEG 001"], stdout=subprocess.PIPE, check=True, env=env).stdout.decode().split()
print(f"Welch of one channel in memory ({int(n)} samples): brainlens {rs['seconds'] * 1e3:.1f} ms, scipy {float(st) * 1e3:.1f} ms "
      f"({float(st) / rs['seconds']:.1f}x)")

SPEC = r"""
import sys, numpy as np, mne, scipy.signal as ss
raw = mne.io.read_raw_edf(sys.argv[1], preload=False, verbose="error")
x = raw.get_data(picks=[sys.argv[2]])[0] * 1e6
f, t, s = ss.spectrogram(x, raw.info["sfreq"], window="hann", nperseg=1000, noverlap=0)
print(s.shape[1])
"""
st, _, sout = measure([brainlens, "spectrogram", path, "--channel", "EEG 001", "--json"])
pt2, _, pout2 = measure([sys.executable, "-c", SPEC, path, "EEG 001"])
print(f"whole-night spectrogram of one channel (4-s Hann segments, JSON to a pipe): brainlens {st:.2f} s, "
      f"mne read + scipy.signal.spectrogram {pt2:.2f} s ({pt2 / st:.1f}x); {int(pout2)} segments")
