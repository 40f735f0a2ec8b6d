//! In-process timing of the bctpy benchmark bundle (weighted clustering, global efficiency, betweenness,
//! Louvain) on the 20 %-density normalised matrix of each `.npy` given; prints "n_nodes milliseconds" per
//! file (median of 20 runs). Used by scripts/bench/network_metrics.py to compare like with like.

use brainlens::network::connectome::Asymmetry;
use brainlens::network::metrics::summary::{MetricsOptions, prepare};
use brainlens::network::metrics::{betweenness, clustering, paths};
use brainlens::network::{community, io, threshold};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    for path in std::env::args().skip(1) {
        let c = io::load(std::path::Path::new(&path), Asymmetry::Error)?;
        let w = prepare(&c, &MetricsOptions { proportional: Some(0.2), ..Default::default() });
        let n = c.n;
        let mut times = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            let _c = clustering::clustering_coef_wu(&w, n);
            // Betweenness and the distances behind global efficiency come from one Dijkstra per source.
            let (_b, d) = betweenness::betweenness_and_distance(&threshold::lengths(&w), n);
            let _e = paths::efficiency_from_distance(&d, n);
            let _q = community::community_louvain(&w, n, 1.0, 0);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!("{n} {:.3}", times[times.len() / 2]);
    }
    Ok(())
}
