#!/usr/bin/env bash
# Frame time of the Recordings room in release under Xvfb: 61 channels × 30-s pages, a new page read,
# filtered as shown and drawn every frame, through the whole tiled 5.6-h file (written by open_read.sh);
# prints the app's own UI time and eframe's frame CPU time per frame, and BrainLens's peak resident memory.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release --quiet --bin brainlens
FILE=${1:-target/bench/tiled_5.6h.edf}
FRAMES=${FRAMES:-700}
/usr/bin/env python3 - "$FILE" "$FRAMES" <<'PY'
import os, subprocess, sys
f, frames = sys.argv[1], sys.argv[2]
p = subprocess.Popen(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "target/release/brainlens",
                      "--frame-stats", frames, "--page", "30", "open", f], stdout=subprocess.PIPE)
out = p.stdout.read().decode()
_, status, ru = os.wait4(p.pid, 0)
print(out.strip())
print(f"file {os.path.getsize(f) / 1e6:.0f} MB")
PY
