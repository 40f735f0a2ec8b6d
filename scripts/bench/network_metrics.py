#!/usr/bin/env python3
"""The metric bundle {weighted clustering, global efficiency, betweenness, Louvain} at 20 % density:
bctpy 0.6.1 (in-process, after import) against BrainLens in-process (examples/metric_bundle.rs, the same
four functions) and as a whole process (`brainlens network metrics --json`, which also loads the file and
computes density, transitivity, path length, strength, participation and z-scores).

Graphs: the real HCP group FC (100 nodes) and two SYNTHETIC graphs of 200 and 400 nodes (a random
symmetric matrix with block structure, seeded) — synthetic because no larger real connectome is shipped.
usage: network_metrics.py BRAINLENS_BIN BUNDLE_BIN [--runs N]
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

import numpy as np
import bct

ROOT = os.path.join(os.path.dirname(__file__), "../../fixtures/networks")


def synthetic(n, seed):
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 8, n)
    w = rng.random((n, n)) * 0.5 + 0.5 * (blocks[:, None] == blocks[None, :])
    w = (w + w.T) / 2
    np.fill_diagonal(w, 0)
    return w


def bundle(W):
    W = W.copy()
    np.fill_diagonal(W, 0)
    W[W < 0] = 0
    W = bct.weight_conversion(bct.threshold_proportional(W, 0.2), "normalize")
    L = bct.weight_conversion(W, "lengths")
    bct.clustering_coef_wu(W)
    bct.efficiency_wei(W)
    bct.betweenness_wei(L)
    bct.community_louvain(W, seed=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("bundle")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    graphs = [("HCP group FC (real)", np.load(os.path.join(ROOT, "group-train706_fc.npz"))["arr_0"]),
              ("synthetic 200", synthetic(200, 1)), ("synthetic 400", synthetic(400, 2))]
    with tempfile.TemporaryDirectory() as d:
        for name, W in graphs:
            path = os.path.join(d, f"{len(W)}.npy")
            np.save(path, W)
            t_py = []
            for _ in range(1 if len(W) > 200 else a.runs):
                t0 = time.perf_counter()
                bundle(W)
                t_py.append(time.perf_counter() - t0)
            t_rs = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                subprocess.run([a.bin, "network", "metrics", path, "--threshold-proportional", "0.2", "--json"],
                               check=True, stdout=subprocess.DEVNULL)
                t_rs.append(time.perf_counter() - t0)
            py, rs = statistics.median(t_py), statistics.median(t_rs)
            inproc = float(subprocess.run([a.bundle, path], check=True, capture_output=True, text=True).stdout.split()[1]) / 1000
            print(f"{name:<22} n={len(W):<4} bctpy bundle {py * 1000:9.1f} ms | brainlens bundle in-process {inproc * 1000:7.2f} ms "
                  f"({py / inproc:6.0f}x) | whole process, all metrics {rs * 1000:7.1f} ms ({py / rs:5.0f}x)")


if __name__ == "__main__":
    main()
