//! Graph metrics equal bctpy 0.6.1 on the real HCP Schaefer-100 matrices (group FC, two subjects' SC),
//! weighted at 100/30/20/10 % density and binary at 30/20/10 %, to 1e-9 relative; the Louvain partition for
//! seed 7 is identical to bctpy's. Expected values:
//! tests/expected/network_reference.json from `scripts/reference/network_reference.py` (its docstring
//! lists the exact bctpy calls).

use brainlens::network::connectome::Asymmetry;
use brainlens::network::io::load;
use brainlens::network::metrics::summary::{MetricsOptions, NodeMetrics, summarize};
use brainlens::network::threshold::Negatives;
use serde_json::Value;
use std::path::Path;

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(scale) + 1e-12
}

/// Every node metric of `case` (bctpy's arrays) equals ours to 1e-9 relative to the array's largest value;
/// local efficiency only where it was computed.
fn assert_nodes(case: &Value, nodes: &[NodeMetrics], what: &str, with_local_efficiency: bool) {
    let mut columns: Vec<(&str, fn(&NodeMetrics) -> f64)> = vec![
        ("degree", |n| n.degree),
        ("strength", |n| n.strength),
        ("clustering", |n| n.clustering),
        ("betweenness", |n| n.betweenness),
        ("module", |n| n.module as f64),
        ("participation", |n| n.participation),
        ("within_module_z", |n| n.within_module_z),
    ];
    if with_local_efficiency {
        columns.push(("local_efficiency", |n| n.local_efficiency.unwrap_or(f64::NAN)));
    }
    for (name, get) in columns {
        let want: Vec<f64> = case[name].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(want.len(), nodes.len(), "{what} {name}: node count");
        let scale = want.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        for (i, (node, w)) in nodes.iter().zip(&want).enumerate() {
            assert!(close(get(node), *w, scale), "{what} {name}[{i}]: {} vs {w}", get(node));
        }
    }
}

#[test]
fn metrics_equal_bctpy_on_hcp_matrices() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/expected/network_reference.json")).unwrap())
            .unwrap();
    let cases = expected["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 21);
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let kind = case["kind"].as_str().unwrap();
        let p = case["proportion"].as_f64().unwrap();
        let c = load(&root.join("fixtures/networks").join(file), Asymmetry::Error).unwrap();
        let o = MetricsOptions {
            negatives: Negatives::Zero,
            proportional: (p < 1.0).then_some(p),
            absolute: None,
            binary: kind == "binary",
            gamma: 1.0,
            seed: 7,
            local_efficiency: true,
            consensus_runs: 0,
        };
        let m = summarize(&c, &o);
        let what = format!("{file} {kind} {p}");
        for (name, ours) in [
            ("density", m.density),
            ("mean_clustering", m.mean_clustering),
            ("transitivity", m.transitivity),
            ("global_efficiency", m.global_efficiency),
            ("modularity", m.modularity),
            ("assortativity", m.assortativity),
        ] {
            let want = case[name].as_f64().unwrap();
            assert!(close(ours, want, 0.0), "{what} {name}: {ours} vs {want}");
        }
        let rich: Vec<Option<f64>> = case["rich_club"].as_array().unwrap().iter().map(Value::as_f64).collect();
        assert_eq!(m.rich_club.len(), rich.len(), "{what} rich-club levels");
        for (k, (a, b)) in m.rich_club.iter().zip(&rich).enumerate() {
            match (a, b) {
                (Some(a), Some(b)) => assert!(close(*a, *b, 0.0), "{what} rich club [{k}]: {a} vs {b}"),
                _ => assert_eq!(a, b, "{what} rich club [{k}]"),
            }
        }
        match (m.char_path_length, case["char_path_length"].as_f64()) {
            (Some(a), Some(b)) => assert!(close(a, b, 0.0), "{what} λ: {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{what} λ"),
        }
        assert_nodes(case, &m.nodes, &what, true);
    }
}

#[test]
fn timeseries_correlations_equal_numpy() {
    use brainlens::network::io::load_matrix;
    use brainlens::network::timeseries::{partial, pearson};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/expected/network_reference.json")).unwrap())
            .unwrap();
    let ts = &expected["timeseries"];
    let (rows, cols, x, _) = load_matrix(&root.join("fixtures/networks").join(ts["file"].as_str().unwrap())).unwrap();
    assert_eq!((rows, cols), (100, 1200));
    for (kind, ours) in [("pearson", pearson(&x, rows, cols).unwrap()), ("partial", partial(&x, rows, cols).unwrap())] {
        for (i, row) in ts[kind].as_array().unwrap().iter().enumerate() {
            for (j, v) in row.as_array().unwrap().iter().enumerate() {
                let want = v.as_f64().unwrap();
                assert!((ours[i * rows + j] - want).abs() < 1e-12, "{kind}[{i},{j}]: {} vs {want}", ours[i * rows + j]);
            }
        }
    }
}

/// Directed metrics on a real asymmetric matrix: the lag-1 cross-correlation of HCP BOLD
/// (corr(xᵢ(t), xⱼ(t + 1)), fixtures/networks/sub-100206_REST1_lag1_xcorr.npy; not effective connectivity).
#[test]
fn directed_metrics_equal_bctpy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/expected/network_reference.json")).unwrap())
            .unwrap();
    for case in expected["directed_cases"].as_array().unwrap() {
        let kind = case["kind"].as_str().unwrap();
        let p = case["proportion"].as_f64().unwrap();
        let c =
            load(&root.join("fixtures/networks").join(case["file"].as_str().unwrap()), Asymmetry::Directed).unwrap();
        assert!(c.directed);
        let o = MetricsOptions {
            proportional: (p < 1.0).then_some(p),
            binary: kind == "binary",
            seed: 7,
            ..Default::default()
        };
        let m = summarize(&c, &o);
        let what = format!("directed {kind} {p}");
        for (name, ours) in [
            ("density", m.density),
            ("transitivity", m.transitivity),
            ("global_efficiency", m.global_efficiency),
            ("modularity", m.modularity),
        ] {
            let want = case[name].as_f64().unwrap();
            assert!(close(ours, want, 0.0), "{what} {name}: {ours} vs {want}");
        }
        if let Some(r) = case["assortativity"].as_f64() {
            assert!(close(m.assortativity, r, 0.0), "{what} assortativity: {} vs {r}", m.assortativity);
        }
        match (m.char_path_length, case["char_path_length"].as_f64()) {
            (Some(a), Some(b)) => assert!(close(a, b, 0.0), "{what} λ: {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{what} λ"),
        }
        assert_nodes(case, &m.nodes, &what, false);
    }
}

/// σ and ω fall within networkx's spread: tests/expected/smallworld_reference.json holds networkx 3.6.1
/// `sigma`/`omega(G, niter=5, nrand=2, seed=s)` for s = 0, 1, 2 on the 96-region largest component of the
/// HCP group FC at 20 % (scripts/reference/smallworld_reference.py). Ours, with the same niter and nrand over
/// seeds 0–5, must average inside networkx's range widened by that range's own width.
#[test]
fn small_world_within_networkx_spread() {
    use brainlens::network::metrics::summary::small_world_of;
    use brainlens::network::smallworld::SmallWorldParams;
    use std::sync::atomic::AtomicU64;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let nx: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/expected/smallworld_reference.json")).unwrap())
            .unwrap();
    let c = load(&root.join("fixtures/networks/group-train706_fc.npz"), Asymmetry::Error).unwrap();
    let o = MetricsOptions { proportional: Some(0.2), binary: true, ..Default::default() };
    let (mut sigma, mut omega) = (0.0, 0.0);
    for seed in 0..6 {
        let p = SmallWorldParams { niter: 5, nrand: 2, seed, weighted: false };
        let r = small_world_of(&c, &o, &p, &AtomicU64::new(0), &brainlens::util::cancel::Cancel::default()).unwrap();
        assert_eq!(r.nodes_used, nx["nodes"].as_u64().unwrap() as usize);
        sigma += r.values.sigma / 6.0;
        omega += r.values.omega / 6.0;
    }
    for (name, ours) in [("sigma", sigma), ("omega", omega)] {
        let v: Vec<f64> = nx[name].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let (lo, hi) =
            (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let w = hi - lo;
        assert!(ours >= lo - w && ours <= hi + w, "{name}: ours {ours} outside networkx {lo}..{hi} ± {w}");
    }
}
