#!/usr/bin/env bash
# Network figures. The Networks room's 3-D view in release under Xvfb (Mesa llvmpipe): the bundled HCP group FC (100 regions)
# at 21 % density with its 1,000 strongest edges inside the fsaverage5 pial surface (20,484 vertices), the
# camera turned 5° and the frame rendered anew every measured frame; then `network plot --view 3d --gif` of
# 72 frames, timed as a whole process.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens
FRAMES=${FRAMES:-300}
xvfb-run -a -s "-screen 0 1280x800x24" target/release/brainlens --room networks --frame-stats "$FRAMES"
mkdir -p target/bench
start=$(date +%s.%N)
target/release/brainlens network plot fixtures/networks/group-train706_fc.npz --view 3d --threshold-proportional 0.21 \
    --edge-threshold 79.798% --gif target/bench/network_3d.gif --frames 72 --json >target/bench/network_3d.json
end=$(date +%s.%N)
python3 -c "import json,sys; v=json.load(open('target/bench/network_3d.json')); print(f\"GIF: 72 frames of {v['width']:.0f} x {v['height']:.0f}, {v['edges']} edges, written in {float(sys.argv[2]) - float(sys.argv[1]):.2f} s (whole process)\")" "$start" "$end"
# The glass brain PNG, whole processes: BrainLens vs nilearn's plot_connectome + savefig (reference venv).
VENV=target/ref-venv
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import nilearn" 2>/dev/null; then
    t0=$(date +%s.%N)
    target/release/brainlens network plot fixtures/networks/group-train706_fc.npz --view glass --png target/bench/glass.png 2>/dev/null >/dev/null
    t1=$(date +%s.%N)
    "$VENV/bin/python" - <<'PY'
import numpy as np, bct, matplotlib
matplotlib.use("Agg")
from nilearn import plotting
w = np.load("fixtures/networks/group-train706_fc.npz")["arr_0"]
w = np.where(w > 0, w, 0.0); np.fill_diagonal(w, 0); w = bct.threshold_proportional(w, 0.2); w = w / w.max()
c = np.loadtxt("assets/atlas/schaefer100_conte69_centroids.csv", delimiter=",", skiprows=1)[:, 1:4]
plotting.plot_connectome(w, c, edge_threshold="95%").savefig("target/bench/glass-nilearn.png", dpi=200)
PY
    t2=$(date +%s.%N)
    python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print(f'glass brain PNG, whole processes: BrainLens {b-a:.2f} s, nilearn plot_connectome {c-b:.2f} s ({(c-b)/(b-a):.0f}x)')" "$t0" "$t1" "$t2"
fi
