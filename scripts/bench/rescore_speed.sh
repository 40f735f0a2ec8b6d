#!/usr/bin/env bash
# `bench rescore` speed and memory at the issue's scale, release build, whole processes, one run each:
# a 20,000-instance result file with its 20,000 case files (SIMULATED by scripts/bench/make_demo.py: 1 model,
# 800 tasks × 25 instances), against a Python loop that loads every case and applies the independent rules
# (scripts/bench/rescore_reference.py). Peak memory is each process's own maximum RSS (GNU time: apt-get install
# time).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens
OUT=target/bench/rescore20k
if [ ! -f "$OUT/results/simulated-model-01_brainagent_run1.json" ]; then
  rm -rf "$OUT"
  python3 scripts/bench/make_demo.py --out "$OUT" --repeat-tasks 50 --per-task 25 --models 1 --runs 1
fi
python3 - "$OUT" <<'PY'
import glob, json, os, subprocess, sys, time
out = sys.argv[1]
result = os.path.join(out, "results", "simulated-model-01_brainagent_run1.json")
cases = os.path.join(out, "cases")
n = len(json.load(open(result))["instances"])
n_cases = len(glob.glob(os.path.join(cases, "**", "case*_*.json"), recursive=True))

def run(cmd):
    # Peak RSS from GNU time: a child started from this (large) Python process would inherit its peak at exec.
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True)
    assert p.returncode == 0, (cmd, p.stderr.decode()[-2000:])
    return time.perf_counter() - t, int(p.stderr.decode().strip().splitlines()[-1]) / 1024, p.stdout.decode()

print(f"result file: {n} instances, {os.path.getsize(result) / 1e6:.1f} MB; {n_cases} case files (SIMULATED)")
py, py_mb, o2 = run([sys.executable, "scripts/bench/rescore_reference.py", result, cases])
rs, rs_mb, o1 = run(["target/release/brainlens", "bench", "rescore", result, "--cases", cases, "--json"])
rw, rw_mb, _ = run(["target/release/brainlens", "bench", "rescore", result, "--cases", cases, "--json",
                    "--out", os.path.join(out, "rescored.json")])
a, b = json.loads(o1), json.loads(o2)
print(f"python reference loop:          {py:6.2f} s, peak {py_mb:6.1f} MB")
print(f"brainlens bench rescore:        {rs:6.2f} s, peak {rs_mb:6.1f} MB ({py / rs:.1f}x faster)")
print(f"  ... and writing the new file: {rw:6.2f} s, peak {rw_mb:6.1f} MB ({py / rw:.1f}x faster)")
print(f"changed {len(a['stats']['changed'])} vs {b['changed']}; "
      f"total score {a['summary']['total_score']:.9f} vs {b['total_score']:.9f}")
assert abs(a["summary"]["total_score"] - b["total_score"]) < 1e-9 and len(a["stats"]["changed"]) == b["changed"]
PY
