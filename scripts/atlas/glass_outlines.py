#!/usr/bin/env python3
"""Writes the glass-brain outlines BrainLens draws: nilearn 0.14.1's brain_schematics_{side,back,top}.json
(the files its plot_glass_brain/plot_connectome draw; BSD-3-Clause), re-serialised without whitespace.

    python3 scripts/atlas/glass_outlines.py ../shared/data/brain/glass_brain assets/glass_brain
"""
import json
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
for view in ("side", "back", "top"):
    content = json.loads((src / f"brain_schematics_{view}.json").read_text())
    (out / f"{view}.json").write_text(json.dumps(content, separators=(",", ":")) + "\n")
