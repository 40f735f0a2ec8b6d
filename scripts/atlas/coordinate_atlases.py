#!/usr/bin/env python3
"""Writes the coordinate atlases BrainLens ships (label,x,y,z[,network] in MNI mm) from nilearn 0.14.1's
data files (BSD-3-Clause; coordinates from the papers): Power et al. 2011 (264 ROIs; nilearn's file has no
network column), Dosenbach et al. 2010 (160 ROIs, 6 networks), Seitzman et al. 2018 (300 ROIs, 13 networks
and 'unassigned').

    python3 scripts/atlas/coordinate_atlases.py ../shared/data/brain/coordinates assets/atlas
"""
import csv
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])


def write(name, header, rows):
    with (out / name).open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


with (src / "power_2011.csv").open() as f:
    rows = list(csv.DictReader(f))
write("power264.csv", ["label", "x", "y", "z"], [[f"Power_{r['ROI']}", r["X"], r["Y"], r["Z"]] for r in rows])

with (src / "dosenbach_2010.csv").open() as f:
    rows = list(csv.DictReader(f))
write("dosenbach160.csv", ["label", "x", "y", "z", "network"],
      [[f"{r['name'].replace(' ', '_')}_{r['number']}", r["x"], r["y"], r["z"], r["network"]] for r in rows])

lines = (src / "seitzman_2018_ROIs_300inVol_MNI_allInfo.txt").read_text().splitlines()[1:]
rows = [line.split() for line in lines if line.strip()]
write("seitzman300.csv", ["label", "x", "y", "z", "network"],
      [[f"Seitzman_{k + 1}", r[0], r[1], r[2], r[5]] for k, r in enumerate(rows)])
