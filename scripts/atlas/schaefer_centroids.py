#!/usr/bin/env python3
"""Schaefer-2018 (7 networks) region centroids on the conte69 surface, as BrainLens ships them.

Reads brainspace 0.3.0's conte69 midthickness surfaces (GIFTI, 32,492 vertices a hemisphere) and its
parcellations (the parcel of every vertex, left then right; 0 = medial wall) from ../shared/data/brain/conte69/,
and writes for each parcel k the mean of its vertices' coordinates (a *surface* centroid: good for drawing
regions, not a volume centroid) as `label,x,y,z` rows in parcel order. Standard library only.

    python3 scripts/atlas/schaefer_centroids.py SHARED_CONTE69_DIR OUT_DIR
"""
import base64, os, struct, sys, zlib
import xml.etree.ElementTree as ET


def gifti_points(path):
    """The NIFTI_INTENT_POINTSET array of a GIFTI surface (GZipBase64Binary, little-endian float32)."""
    root = ET.parse(path).getroot()
    for da in root.iter("DataArray"):
        if da.get("Intent") == "NIFTI_INTENT_POINTSET":
            assert da.get("DataType") == "NIFTI_TYPE_FLOAT32" and da.get("Encoding") == "GZipBase64Binary"
            n, d = int(da.get("Dim0")), int(da.get("Dim1"))
            raw = zlib.decompress(base64.b64decode(da.find("Data").text))
            vals = struct.unpack("<%df" % (n * d), raw)
            return [vals[i * d:(i + 1) * d] for i in range(n)]
    raise SystemExit(f"{path}: no NIFTI_INTENT_POINTSET array")


def main(src, out):
    pts = gifti_points(os.path.join(src, "conte69_32k_lh.gii")) + gifti_points(os.path.join(src, "conte69_32k_rh.gii"))
    for n in (100, 200, 400):
        with open(os.path.join(src, f"schaefer_{n}_conte69.csv")) as f:
            parcel = [int(float(x)) for x in f.read().split()]
        assert len(parcel) == len(pts), (len(parcel), len(pts))
        sums = [[0.0, 0.0, 0.0, 0] for _ in range(n + 1)]
        for p, xyz in zip(parcel, pts):
            s = sums[p]
            s[0] += xyz[0]; s[1] += xyz[1]; s[2] += xyz[2]; s[3] += 1
        rows = ["region,x,y,z"]
        for k in range(1, n + 1):
            x, y, z, c = sums[k]
            assert c > 0, f"parcel {k} of Schaefer-{n} has no vertex"
            rows.append(f"{k},{x / c:.2f},{y / c:.2f},{z / c:.2f}")
        with open(os.path.join(out, f"schaefer{n}_conte69_centroids.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
