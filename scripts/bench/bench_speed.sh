#!/usr/bin/env bash
# Bench room speed targets, release build, whole processes (run on this machine; 2 cores):
#   1. rescoring one 4,000-instance result file (cases read from 4,000 case files) — BrainLens vs the same work
#      in Python with the independent rules (scripts/bench/rescore_reference.py);
#   2. loading 26 × 4,000-instance result files and computing every aggregate (`bench report --json`) — vs
#      Python's json.load of the same files alone;
#   3. the Bench room's frame time with the 26 files loaded, under Xvfb, cycling every view each frame.
# The collection is SIMULATED (scripts/bench/make_demo.py: 13 models × 2 paradigms × 1 run, 160 tasks).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens
OUT=target/bench/large
if [ ! -f "$OUT/results/simulated-model-13_codeact_run1.json" ]; then
  rm -rf "$OUT"
  python3 scripts/bench/make_demo.py --out "$OUT" --repeat-tasks 10 --per-task 25 --models 13 --runs 1
fi
FRAMES=${FRAMES:-300}
python3 - "$OUT" "$FRAMES" <<'PY'
import glob, json, os, subprocess, sys, time
out, frames = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(out, "results", "*.json")))
one = files[0]
n = len(json.load(open(one))["instances"])
def timed(cmd, repeat=3):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, r.stdout.decode()
size = sum(os.path.getsize(f) for f in files) / 1e6
print(f"collection: {len(files)} files × {n} instances, {size:.0f} MB (simulated)")
rs, o1 = timed(["target/release/brainlens", "bench", "rescore", one, "--cases", os.path.join(out, "cases"), "--json"])
py, o2 = timed([sys.executable, "scripts/bench/rescore_reference.py", one, os.path.join(out, "cases")])
a, b = json.loads(o1), json.loads(o2)
print(f"rescore {n} instances: brainlens {rs:.3f} s, python reference {py:.3f} s ({py / rs:.1f}× faster); "
      f"changed {len(a['stats']['changed'])} vs {b['changed']}; total {a['summary']['total_score']:.6f} vs {b['total_score']:.6f}")
rl, _ = timed(["target/release/brainlens", "bench", "report", os.path.join(out, "results"), "--json"])
pl, _ = timed([sys.executable, "-c", "import json,sys\nfor f in sys.argv[1:]: json.load(open(f))"] + files)
print(f"load {len(files)} files + every aggregate: brainlens {rl:.3f} s; python json.load alone {pl:.3f} s ({pl / rl:.1f}×)")
b = subprocess.run(["cargo", "run", "--release", "--quiet", "--example", "bench_load", "--", os.path.join(out, "results")],
                   stdout=subprocess.PIPE, check=True)
print("  in-process:", b.stdout.decode().strip())
p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "target/release/brainlens", "--frame-stats", frames,
                    "bench", "open", os.path.join(out, "results")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
print("Bench room, 26 files loaded, a different view every frame:", p.stdout.decode().strip() or p.stderr.decode()[-500:])
PY
