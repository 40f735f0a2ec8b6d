#!/usr/bin/env python3
"""Writes assets/montages/standard_1020.csv (channel, x_m, y_m, z_m; head frame) from MNE 1.13.2's
`make_standard_montage('standard_1020')` (BSD-3-Clause), the positions BrainLens uses for 10-20 labels when a
recording brings none of its own."""
import mne

m = mne.channels.make_standard_montage("standard_1020")
pos = m.get_positions()["ch_pos"]
with open("assets/montages/standard_1020.csv", "w") as f:
    f.write("channel,x_m,y_m,z_m\n")
    for name, xyz in pos.items():
        f.write(f"{name},{xyz[0]:.6f},{xyz[1]:.6f},{xyz[2]:.6f}\n")
