#!/usr/bin/env bash
# Cohort import speed and memory on all 871 ABIDE subjects, release build, whole processes, five runs each
# (alternating; the medians are compared, so neither side pays alone for a cold binary or page cache):
# `brainlens cohort import` (reads the .1D files and the phenotype table, AAL-90, writes the .npz) against
# nilearn 0.14.1 (numpy.loadtxt of every .1D + ConnectivityMeasure, scripts/bench/cohort_speed.py), for
# `--kind correlation` (default) or the kind given. Each side writes its output to a new file (the previous
# run's is removed before the timing starts). Peak memory is each process's maximum RSS (GNU time).
# The cohorts are unpacked outside the repository (../shared/data/cohorts/unpack.sh); the reference venv is
# target/ref-venv (scripts/test.sh makes it).
#   scripts/bench/cohort_speed.sh [correlation|partial|tangent]
set -euo pipefail
cd "$(dirname "$0")/../.."
KIND="${1:-correlation}"
COHORTS="${BRAINLENS_COHORTS:-${XDG_CACHE_HOME:-$HOME/.cache}/brainlens-cohorts}"
../shared/data/cohorts/unpack.sh "$COHORTS" >/dev/null
cargo build --release --quiet --bin brainlens
OUT=target/bench/cohort
mkdir -p "$OUT"
target/ref-venv/bin/python - "$COHORTS" "$KIND" "$OUT" <<'PY'
import json, os, subprocess, sys, time
import numpy as np
cohorts, kind, out = sys.argv[1:]
src = os.path.join(cohorts, "abide_pcp_aal")
folder = os.path.join(src, "ABIDE_pcp/cpac/filt_noglobal")

def run(cmd, out):
    # Each side writes a new file: the previous run's output is removed first, outside the timing (replacing a
    # 56 MB file frees its pages inside the timed process: about 40 ms for either side here).
    if os.path.exists(out):
        os.remove(out)
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True)
    assert p.returncode == 0, (cmd, p.stderr.decode()[-2000:])
    return time.perf_counter() - t, int(p.stderr.decode().strip().splitlines()[-1]) / 1024

ours = os.path.join(out, f"abide_{kind}.npz")
theirs = os.path.join(out, f"abide_{kind}_nilearn.npz")
runs = {"rs": [], "py": []}
for _ in range(5):
    runs["rs"].append(run(["target/release/brainlens", "cohort", "import", src, "--kind", kind, "--keep-flagged",
                           "--out", ours, "--json"], ours))
    runs["py"].append(run([sys.executable, "scripts/bench/cohort_speed.py", folder, kind, theirs], theirs))
median = lambda xs: sorted(xs)[len(xs) // 2]
rs, rs_mb = median([t for t, _ in runs["rs"]]), max(m for _, m in runs["rs"])
py, py_mb = median([t for t, _ in runs["py"]]), max(m for _, m in runs["py"])
print("runs (s): brainlens " + ", ".join(f"{t:.2f}" for t, _ in runs["rs"]) + "; nilearn "
      + ", ".join(f"{t:.2f}" for t, _ in runs["py"]))
a, b = np.load(ours), np.load(theirs)
assert list(a["subject_ids"]) == list(b["subject_ids"]), "same subjects in the same order"
flagged = np.array([f != "" for f in a["flags"]])
x, y = a["connectomes"][~flagged], b["connectomes"][~flagged]
print(f"ABIDE, {len(a['subject_ids'])} subjects ({flagged.sum()} flagged, compared on the other "
      f"{(~flagged).sum()}), AAL-90, kind {kind}")
print(f"nilearn 0.14.1 (loadtxt + ConnectivityMeasure): {py:7.2f} s (median), peak {py_mb:6.1f} MB")
print(f"brainlens cohort import:                       {rs:7.2f} s (median), peak {rs_mb:6.1f} MB ({py / rs:.1f}x faster)")
print(f"largest difference: {np.abs(x - y).max():.2e}")
PY
