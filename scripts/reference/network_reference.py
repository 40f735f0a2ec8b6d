#!/usr/bin/env python3
"""Expected graph metrics from bctpy 0.6.1 for tests/network_reference.rs.

For each real HCP matrix in fixtures/networks and each setting (weighted at 100/30/20/10 % density,
binary at 30/20/10 %), the same pipeline `brainlens network metrics` runs:
  W = np.load(f)['arr_0']; W[W < 0] = 0                       (--negatives zero)
  W = bct.threshold_proportional(W, p)                        (when p < 1; see threshold() for ties)
  weighted: Wn = bct.weight_conversion(W, 'normalize'); L = bct.weight_conversion(Wn, 'lengths')
            clustering_coef_wu(Wn), transitivity_wu(Wn), efficiency_wei(Wn),
            charpath(distance_wei(L)[0])[0], betweenness_wei(L), strengths_und(Wn), degrees_und(Wn)
  binary:   A = bct.weight_conversion(W, 'binarize')
            clustering_coef_bu(A), transitivity_bu(A), efficiency_bin(A),
            charpath(distance_bin(A))[0], betweenness_bin(A), strengths_und(A), degrees_und(A)
  density_und(.)[0] and mean(clustering) in both; on the same matrix M (Wn or A):
  ci, Q = community_louvain(M, gamma=1, seed=7); participation_coef(M, ci); module_degree_zscore(M, ci);
  weighted: efficiency_wei(Wn, local=True), assortativity_wei(Wn, 0), rich_club_wu(Wn);
  binary:   efficiency_bin(A, local=True), assortativity_bin(A, 0), rich_club_bu(A)[0].
usage: network_reference.py OUT.json
"""
import json, os, sys

import numpy as np
import bct

ROOT = os.path.join(os.path.dirname(__file__), "../../fixtures/networks")
FILES = ["group-train706_fc.npz", "sub-100206_sc-strength.npz", "sub-100307_sc-strength.npz"]
SETTINGS = [("weighted", 1.0), ("weighted", 0.3), ("weighted", 0.2), ("weighted", 0.1),
            ("binary", 0.3), ("binary", 0.2), ("binary", 0.1)]


def threshold(W, p):
    """bct.threshold_proportional with a defined order for tied weights.

    bctpy ranks links with np.argsort's default (unstable) sort, so which of several links of exactly the
    cut weight survive depends on numpy's sort implementation (integer streamline counts in the SC matrices
    tie often). BrainLens breaks ties like np.argsort(kind='stable')[::-1]. This function does the same and
    asserts that the result differs from bctpy's only in links whose weight equals the cut weight.
    """
    ours = W.copy()
    n = len(ours)
    np.fill_diagonal(ours, 0)
    ours[np.tril_indices(n)] = 0
    ind = np.where(ours)
    order = np.argsort(ours[ind], kind="stable")[::-1]
    en = int(bct.utils.miscellaneous_utilities.teachers_round((n * n - n) * p / 2))
    cut = ours[ind][order][en - 1] if en > 0 else np.inf
    ours[(ind[0][order][en:], ind[1][order][en:])] = 0
    ours = ours + ours.T
    theirs = bct.threshold_proportional(W, p)
    differ = ours != theirs
    assert np.all(W[differ] == cut), "differs from bctpy beyond tied links"
    return ours


def modules(M):
    ci, q = bct.community_louvain(M, gamma=1, seed=7)
    return dict(modularity=float(q), module=np.asarray(ci, dtype=float), participation=bct.participation_coef(M, ci),
                within_module_z=bct.module_degree_zscore(M, ci))


def metrics(W, kind, p):
    W = W.copy()
    np.fill_diagonal(W, 0)
    W[W < 0] = 0
    assert np.allclose(W, W.T)
    if p < 1:
        W = threshold(W, p)
    if kind == "binary":
        A = bct.weight_conversion(W, "binarize")
        mods = modules(A)
        C = bct.clustering_coef_bu(A)
        lam = bct.charpath(bct.distance_bin(A))[0]
        return dict(density=bct.density_und(A)[0], mean_clustering=float(np.mean(C)), transitivity=bct.transitivity_bu(A),
                    char_path_length=None if np.isinf(lam) else float(lam), global_efficiency=float(bct.efficiency_bin(A)),
                    degree=bct.degrees_und(A), strength=bct.strengths_und(A), clustering=C, betweenness=bct.betweenness_bin(A),
                    local_efficiency=bct.efficiency_bin(A, local=True), assortativity=float(bct.assortativity_bin(A, 0)),
                    rich_club=bct.rich_club_bu(A)[0], **mods)
    Wn = bct.weight_conversion(W, "normalize")
    L = bct.weight_conversion(Wn, "lengths")
    C = bct.clustering_coef_wu(Wn)
    mods = modules(Wn)
    lam = bct.charpath(bct.distance_wei(L)[0])[0]
    return dict(density=bct.density_und(Wn)[0], mean_clustering=float(np.mean(C)), transitivity=float(bct.transitivity_wu(Wn)),
                char_path_length=None if np.isinf(lam) else float(lam), global_efficiency=float(bct.efficiency_wei(Wn)),
                degree=bct.degrees_und(Wn), strength=bct.strengths_und(Wn), clustering=C, betweenness=bct.betweenness_wei(L),
                local_efficiency=bct.efficiency_wei(Wn, local=True), assortativity=float(bct.assortativity_wei(Wn, 0)),
                rich_club=bct.rich_club_wu(Wn), **mods)


def directed_metrics(W, kind, p):
    """Directed: negative weights zeroed, bct.threshold_proportional (asymmetric: all n² − n links ranked),
    then weighted on Wn (normalize) / binary on A: degrees_dir[2], strengths_dir (in + out),
    clustering_coef_wd/bd, transitivity_wd/bd, efficiency_wei/bin, charpath(distance_wei(L) / distance_bin),
    betweenness_wei(L)/bin, density_dir, assortativity_bin(M, 1) (binary only), community_louvain(M, seed=7),
    participation_coef(M, ci), module_degree_zscore(M, ci)."""
    W = W.copy()
    np.fill_diagonal(W, 0)
    W[W < 0] = 0
    if p < 1:
        W = bct.threshold_proportional(W, p)
    if kind == "binary":
        M = bct.weight_conversion(W, "binarize")
        C = bct.clustering_coef_bd(M)
        T = bct.transitivity_bd(M)
        E = bct.efficiency_bin(M)
        lam = bct.charpath(bct.distance_bin(M))[0]
        BC = bct.betweenness_bin(M)
        r = bct.assortativity_bin(M, 1)
    else:
        M = bct.weight_conversion(W, "normalize")
        L = bct.weight_conversion(M, "lengths")
        C = bct.clustering_coef_wd(M)
        T = bct.transitivity_wd(M)
        E = bct.efficiency_wei(M)
        lam = bct.charpath(bct.distance_wei(L)[0])[0]
        BC = bct.betweenness_wei(L)
        r = None  # bct.assortativity_wei(M, 1) raises in bctpy 0.6.1 (it unpacks strengths_dir's single array)
    strength = bct.strengths_dir(M)
    ci, q = bct.community_louvain(M, gamma=1, seed=7)
    return dict(density=bct.density_dir(M)[0], transitivity=T, global_efficiency=E,
                char_path_length=None if np.isinf(lam) else lam,
                assortativity=r, modularity=q, degree=bct.degrees_dir(M)[2], strength=strength, clustering=C,
                betweenness=BC, module=np.asarray(ci, dtype=float), participation=bct.participation_coef(M, ci),
                within_module_z=bct.module_degree_zscore(M, ci))


def main(out):
    result = {"source": "bctpy 0.6.1 (see the docstring of scripts/reference/network_reference.py)", "cases": []}
    for f in FILES:
        W = np.load(os.path.join(ROOT, f))["arr_0"].astype(float)
        for kind, p in SETTINGS:
            m = metrics(W, kind, p)
            result["cases"].append({"file": f, "kind": kind, "proportion": p,
                                    **{k: (np.where(np.isnan(v), None, v).tolist() if isinstance(v, np.ndarray) else (None if v is None else float(v))) for k, v in m.items()}})
    result["directed_cases"] = []
    D = np.load(os.path.join(ROOT, "sub-100206_REST1_lag1_xcorr.npy"))
    for kind, p in [("weighted", 1.0), ("weighted", 0.2), ("binary", 0.2)]:
        m = directed_metrics(D, kind, p)
        result["directed_cases"].append({"file": "sub-100206_REST1_lag1_xcorr.npy", "kind": kind, "proportion": p,
                                         **{k: (v.tolist() if isinstance(v, np.ndarray) else (None if v is None else float(v))) for k, v in m.items()}})
    x = np.load(os.path.join(ROOT, "sub-100206_REST1_LR_bold.npz"))["arr_0"]
    r = np.corrcoef(x)
    P = np.linalg.inv(np.cov(x))
    d = np.sqrt(np.diag(P))
    pc = -P / np.outer(d, d)
    np.fill_diagonal(pc, 1.0)  # as nilearn does for partial correlation
    result["timeseries"] = {"file": "sub-100206_REST1_LR_bold.npz",
                            "source": "np.corrcoef(x); partial = -inv(np.cov(x))[i,j] / sqrt(P[i,i] P[j,j]) with diagonal 1; rows 0-19",
                            "pearson": r[:20].tolist(), "partial": pc[:20].tolist()}
    with open(out, "w") as fh:
        json.dump(result, fh, indent=0)


if __name__ == "__main__":
    main(sys.argv[1])
