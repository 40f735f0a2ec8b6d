#!/usr/bin/env python3
"""Glass brain against nilearn 0.14.1's plot_connectome: for the same coordinates and matrix, every node's
pixel position in every panel within 2 px, the panels' data limits, which nodes each hemisphere view shows
and how many edges each panel draws.

    python scripts/reference/glass_brain_reference.py --check target/debug/brainlens [--out target/glass]

Cases: the HCP group FC (Schaefer-100, BrainLens's surface centroids), an AAL-90 matrix and the Power-264
coordinates (both with a seeded random symmetric matrix; synthetic weights, real coordinates), each in the
ortho and lzry display modes. BrainLens thresholds the matrix (density 0.2, bct.threshold_proportional) and
scales it by max |w|; the same matrix is given to nilearn. Our node pixels are mapped into nilearn's frame by
aligning the two panels' data frames (the pixels of the data limits' corners), then compared; the
frames' orientation (the left view's inverted x) and aspect must agree too.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import bct
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from nilearn import plotting  # noqa: E402
from nilearn.plotting.displays._utils import coords_3d_to_2d  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"


def prepared(w):
    w = np.where(w > 0, w, 0.0)
    np.fill_diagonal(w, 0.0)
    w = bct.threshold_proportional(w, 0.2)
    return w / np.abs(w).max()


def cases(tmp):
    fc = np.load(ROOT / "fixtures/networks/group-train706_fc.npz")
    fc = fc[fc.files[0]]
    sch = np.loadtxt(ROOT / "assets/atlas/schaefer100_conte69_centroids.csv", delimiter=",", skiprows=1)[:, 1:4]
    yield "schaefer100", ROOT / "fixtures/networks/group-train706_fc.npz", "schaefer100", fc, sch
    rng = np.random.default_rng(7)
    aal = np.loadtxt(ROOT / "assets/atlas/AAL116_centroids_mni.csv", delimiter=",", skiprows=1, usecols=(2, 3, 4))[:90]
    power = np.loadtxt(SHARED / "brain/coordinates/power_2011.csv", delimiter=",", skiprows=1)[:, 1:4]
    for name, coords in (("aal90", aal), ("power264", power)):
        n = len(coords)
        a = rng.normal(size=(n, n))
        w = (a + a.T) / 2
        path = Path(tmp) / f"{name}_random.csv"
        np.savetxt(path, w, delimiter=",")
        # The built-in atlases (BrainLens's shipped copies), against the coordinates read here from the sources.
        yield name, path, name, w, coords


def nilearn_layout(w, coords, mode, png):
    fig = plt.figure(figsize=(12, 3.2), dpi=100)
    display = plotting.plot_connectome(w, coords, edge_threshold="95%", display_mode=mode, node_size=12, figure=fig)
    fig.savefig(png, dpi=100)
    height = fig.canvas.get_width_height()[1]
    panels = []
    for d in mode if mode != "ortho" else "xyz":
        ax = display.axes[d]
        xlim, ylim = ax.ax.get_xlim(), ax.ax.get_ylim()
        lo, hi = (min(xlim), min(ylim)), (max(xlim), max(ylim))
        corners = ax.ax.transData.transform([lo, hi])
        uv = coords_3d_to_2d(coords, d)
        pix = ax.ax.transData.transform(uv)
        shown = [i for i in range(len(coords)) if d not in "lr" or (d == "l" and coords[i, 0] <= 0) or (d == "r" and coords[i, 0] >= 0)]
        panels.append({
            "limits": [lo[0], hi[0], lo[1], hi[1]],
            "frame": [[c[0], height - c[1]] for c in corners],
            "nodes": {i: (pix[i, 0], height - pix[i, 1]) for i in shown},
            "edges": len(ax.ax.lines),
        })
    plt.close(fig)
    return panels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", required=True, help="the brainlens binary")
    ap.add_argument("--out", default=str(ROOT / "target/glass"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, matrix, atlas, w, coords in cases(tmp):
            wp = prepared(w)
            for mode in ("ortho", "lzry"):
                ref = nilearn_layout(wp, coords, mode, out / f"{name}-{mode}-nilearn.png")
                run = subprocess.run(
                    [args.check, "network", "plot", str(matrix), "--view", "glass", "--atlas", atlas,
                     "--display-mode", mode, "--png", str(out / f"{name}-{mode}-brainlens.png"), "--json"],
                    capture_output=True, text=True)
                if run.returncode != 0:
                    failures.append(f"{name} {mode}: brainlens failed: {run.stderr.strip()}")
                    continue
                ours = json.loads(run.stdout)
                worst = 0.0
                for k, (rp, op) in enumerate(zip(ref, ours["panels"])):
                    if not np.allclose(rp["limits"], op["data_limits"], atol=1e-6):
                        failures.append(f"{name} {mode} panel {k}: limits {op['data_limits']} vs nilearn {rp['limits']}")
                    (rx0, ry0), (rx1, ry1) = rp["frame"]
                    (ox0, oy0), (ox1, oy1) = op["frame"]
                    if np.sign(rx1 - rx0) != np.sign(ox1 - ox0) or np.sign(ry1 - ry0) != np.sign(oy1 - oy0):
                        failures.append(f"{name} {mode} panel {k}: axis orientation differs from nilearn's (inverted x of l?)")
                    ra, oa = abs((rx1 - rx0) / (ry1 - ry0)), abs((ox1 - ox0) / (oy1 - oy0))
                    if abs(ra / oa - 1) > 0.01:
                        failures.append(f"{name} {mode} panel {k}: frame aspect {oa:.4f} vs nilearn {ra:.4f}")
                    mine = {m["node"]: (m["x"], m["y"]) for m in ours["nodes"] if m["panel"] == k}
                    if set(mine) != set(rp["nodes"]):
                        failures.append(f"{name} {mode} panel {k}: {len(mine)} nodes shown, nilearn {len(rp['nodes'])}")
                    for i, (nx, ny) in rp["nodes"].items():
                        if i not in mine:
                            continue
                        x = rx0 + (mine[i][0] - ox0) / (ox1 - ox0) * (rx1 - rx0)
                        y = ry0 + (mine[i][1] - oy0) / (oy1 - oy0) * (ry1 - ry0)
                        worst = max(worst, np.hypot(x - nx, y - ny))
                        checked += 1
                    if rp["edges"] != op["edges"]:
                        failures.append(f"{name} {mode} panel {k}: {op['edges']} edges drawn, nilearn {rp['edges']}")
                print(f"glass brain {name} {mode}: {len(ref)} panels, {ours['edges']} edges, worst node offset {worst:.3f} px")
                if worst > 2.0:
                    failures.append(f"{name} {mode}: a node is {worst:.2f} px from nilearn's")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print(f"Glass brain: {checked} node positions within 2 px of nilearn's plot_connectome; limits, hemisphere views and edge counts equal")


if __name__ == "__main__":
    main()
