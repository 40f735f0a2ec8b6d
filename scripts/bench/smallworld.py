#!/usr/bin/env python3
"""σ and ω on the real HCP group FC binarised at 20 % density (largest connected component: 96 nodes, as
networkx needs a connected graph), networkx 3.6.1 against `brainlens network metrics --smallworld`.

networkx's sigma(G, niter=5, nrand=20) takes minutes (its connectivity test is a max-flow per swap), so it
runs here with nrand=NX_NRAND (default 2) and its time is scaled linearly to nrand=20 (each reference costs
the same); BrainLens runs the full nrand=20. Also prints the σ/ω values of both for comparison.
usage: smallworld.py BRAINLENS_BIN [--nx-nrand N]
"""
import argparse, json, os, subprocess, sys, time

import networkx as nx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../reference"))
from smallworld_reference import hcp_graph  # noqa: E402  (the same graph the reference values use)

ROOT = os.path.join(os.path.dirname(__file__), "../../fixtures/networks")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--nx-nrand", type=int, default=2)
    a = ap.parse_args()
    G = hcp_graph()
    print(f"graph: {G.number_of_nodes()} nodes, {G.number_of_edges()} links")
    t0 = time.perf_counter()
    s = nx.sigma(G, niter=5, nrand=a.nx_nrand, seed=0)
    t_sigma = time.perf_counter() - t0
    t0 = time.perf_counter()
    o = nx.omega(G, niter=5, nrand=a.nx_nrand, seed=0)
    t_omega = time.perf_counter() - t0
    scale = 20 / a.nx_nrand
    print(f"networkx nrand={a.nx_nrand}: sigma {s:.4f} in {t_sigma:.1f} s, omega {o:.4f} in {t_omega:.1f} s "
          f"(nrand=20 estimated: {t_sigma * scale:.0f} s and {t_omega * scale:.0f} s)")
    t0 = time.perf_counter()
    out = subprocess.run([a.bin, "network", "metrics", os.path.join(ROOT, "group-train706_fc.npz"), "--threshold-proportional",
                          "0.2", "--binary", "--smallworld", "--nrand", "20", "--niter", "5", "--json"],
                         check=True, capture_output=True, text=True).stdout
    t_ours = time.perf_counter() - t0
    sw = json.loads(out)["small_world"]
    print(f"brainlens nrand=20: sigma {sw['sigma']:.4f}, omega {sw['omega']:.4f} on {sw['nodes_used']} nodes, "
          f"{t_ours:.2f} s for both (whole process)")
    print(f"speed-up vs networkx (nrand=20, estimated): sigma+omega {(t_sigma + t_omega) * scale / t_ours:.0f}x")


if __name__ == "__main__":
    main()
