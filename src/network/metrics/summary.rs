//! The standard metric set of one network, computed the way bctpy users do: threshold, then weighted
//! metrics on the matrix scaled to [0, 1] by its maximum (`weight_conversion(W, 'normalize')`) with path
//! lengths 1/w, or binary metrics on the binarised matrix.

use super::{betweenness, clustering, degree, local, paths, richclub};
use crate::network::Connectome;
use crate::network::community;
use crate::network::threshold::{self, Negatives};
use serde::Serialize;

/// How the matrix is prepared before the metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricsOptions {
    pub negatives: Negatives,
    /// Keep the strongest fraction of links (0..=1), as `bct.threshold_proportional`.
    pub proportional: Option<f64>,
    /// Zero weights below this value, as `bct.threshold_absolute`.
    pub absolute: Option<f64>,
    /// Binary metrics on the binarised matrix.
    pub binary: bool,
    /// Louvain resolution γ and seed (numpy `RandomState` seed, as bctpy's `seed=`).
    pub gamma: f64,
    pub seed: u32,
    /// Also compute local efficiency (O(n·k³); off by default like bctpy's `local=False`).
    pub local_efficiency: bool,
    /// Report the consensus of this many seeded Louvain runs instead of one run (0 or 1: one run).
    pub consensus_runs: usize,
}

impl Default for MetricsOptions {
    fn default() -> Self {
        Self {
            negatives: Negatives::default(),
            proportional: None,
            absolute: None,
            binary: false,
            gamma: 1.0,
            seed: 0,
            local_efficiency: false,
            consensus_runs: 0,
        }
    }
}

/// Metrics of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeMetrics {
    pub label: String,
    pub degree: f64,
    pub strength: f64,
    pub clustering: f64,
    pub betweenness: f64,
    /// Louvain module (1-based, as bctpy).
    pub module: usize,
    pub participation: f64,
    pub within_module_z: f64,
    /// With `MetricsOptions::local_efficiency`.
    pub local_efficiency: Option<f64>,
}

/// Metrics of the network; `None` stands for an infinite value (a disconnected graph's path length).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphMetrics {
    pub n_nodes: usize,
    pub binary: bool,
    pub directed: bool,
    pub density: f64,
    pub mean_clustering: f64,
    pub transitivity: f64,
    pub char_path_length: Option<f64>,
    pub global_efficiency: f64,
    /// Degree (binary) or strength (weighted) assortativity.
    pub assortativity: f64,
    /// Rich-club coefficient per degree level (bctpy `rich_club_bu` / `rich_club_wu`); `None` for NaN levels.
    pub rich_club: Vec<Option<f64>>,
    /// Q of the reported `module` partition.
    pub modularity: f64,
    pub n_modules: usize,
    /// σ and ω (networkx definitions) on the binarised graph's largest connected component, when asked.
    pub small_world: Option<SmallWorldReport>,
    pub nodes: Vec<NodeMetrics>,
}

/// σ and ω with the component they were computed on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmallWorldReport {
    #[serde(flatten)]
    pub values: crate::network::smallworld::SmallWorld,
    /// Nodes of the largest connected component (σ and ω need a connected graph).
    pub nodes_used: usize,
    pub nrand: usize,
    pub niter: usize,
    pub seed: u32,
    pub weighted: bool,
}

/// σ and ω of the prepared matrix's graph, binary or weighted (largest connected component).
pub fn small_world_of(
    c: &Connectome,
    o: &MetricsOptions,
    p: &crate::network::smallworld::SmallWorldParams,
    progress: &std::sync::atomic::AtomicU64,
    cancel: &crate::util::cancel::Cancel,
) -> Result<SmallWorldReport, crate::network::error::NetworkError> {
    use crate::network::smallworld::{Graph, small_world};
    if c.directed {
        return Err(crate::network::error::NetworkError::Invalid(
            "σ and ω are defined for undirected graphs (as networkx's); this network is directed".into(),
        ));
    }
    let w = prepare(c, o);
    let w = if p.weighted { w } else { crate::network::threshold::binarize(&w) };
    let (g, keep) = Graph::from_matrix(&w, c.n).largest_component();
    let values = small_world(&g, p, progress, cancel)?;
    Ok(SmallWorldReport {
        values,
        nodes_used: keep.len(),
        nrand: p.nrand,
        niter: p.niter,
        seed: p.seed,
        weighted: p.weighted,
    })
}

/// The matrix the metrics run on: negatives treated, thresholded, then binarised or normalised.
pub fn prepare(c: &Connectome, o: &MetricsOptions) -> Vec<f64> {
    let n = c.n;
    let mut w = threshold::apply_negatives(&c.w, o.negatives);
    if let Some(t) = o.absolute {
        w = threshold::absolute(&w, n, t);
    }
    if let Some(p) = o.proportional {
        w = threshold::proportional(&w, n, p);
    }
    if o.binary { threshold::binarize(&w) } else { threshold::normalize(&w) }
}

/// Computes the metric set of `c`.
pub fn summarize(c: &Connectome, o: &MetricsOptions) -> GraphMetrics {
    summarize_prepared(c, &prepare(c, o), o)
}

/// The metric set of `c` from its already [`prepare`]d matrix `w` (callers that also show `w`).
pub fn summarize_prepared(c: &Connectome, w: &[f64], o: &MetricsOptions) -> GraphMetrics {
    let n = c.n;
    let lens = if o.binary { betweenness::unit_lengths(&w) } else { threshold::lengths(&w) };
    let (bc, dist) = betweenness::betweenness_and_distance(&lens, n);
    let eff = paths::efficiency_from_distance(&dist, n);
    let (cl, transitivity, eloc, assortativity, rich) = match (c.directed, o.binary) {
        (false, true) => (
            clustering::clustering_coef_bu(w, n),
            clustering::transitivity_bu(w, n),
            if o.local_efficiency { local::local_efficiency_bin(w, n) } else { Vec::new() },
            richclub::assortativity_bin(w, n),
            richclub::rich_club_bu(w, n),
        ),
        (false, false) => {
            let (cl, t) = clustering::clustering_transitivity_wu(w, n);
            (
                cl,
                t,
                if o.local_efficiency { local::local_efficiency_wei(w, n) } else { Vec::new() },
                richclub::assortativity_wei(w, n),
                richclub::rich_club_wu(w, n),
            )
        }
        // Directed: Fagiolo clustering, out→in assortativity; no rich club (bctpy's directed variants differ).
        (true, true) => (
            clustering::clustering_coef_bd(w, n),
            clustering::transitivity_bd(w, n),
            if o.local_efficiency { local::local_efficiency_bin(w, n) } else { Vec::new() },
            richclub::assortativity_dir(w, n, false),
            Vec::new(),
        ),
        (true, false) => (
            clustering::clustering_coef_wd(w, n),
            clustering::transitivity_wd(w, n),
            if o.local_efficiency { local::local_efficiency_wei(w, n) } else { Vec::new() },
            richclub::assortativity_dir(w, n, true),
            Vec::new(),
        ),
    };
    let (lambda, _) = paths::charpath(&dist, n);
    let (modules, modularity) = if o.consensus_runs > 1 {
        let ci = community::consensus_modules(w, n, o.gamma, o.consensus_runs, o.seed);
        let q = community::modularity(w, n, &ci, o.gamma);
        (ci, q)
    } else {
        community::community_louvain(w, n, o.gamma, o.seed)
    };
    let participation = community::participation_coef(w, n, &modules);
    let z = community::module_degree_zscore(w, n, &modules);
    let (deg, strength, density) = if c.directed {
        (degree::degrees_dir(w, n), degree::strengths_dir(w, n), degree::density_dir(w, n))
    } else {
        (degree::degrees_und(w, n), degree::strengths_und(w, n), degree::density_und(w, n))
    };
    GraphMetrics {
        n_nodes: n,
        binary: o.binary,
        directed: c.directed,
        density,
        mean_clustering: cl.iter().sum::<f64>() / n as f64,
        transitivity,
        char_path_length: lambda.is_finite().then_some(lambda),
        global_efficiency: eff,
        assortativity,
        rich_club: rich.iter().map(|r| r.is_finite().then_some(*r)).collect(),
        modularity,
        n_modules: modules.iter().copied().max().unwrap_or(0),
        small_world: None,
        nodes: (0..n)
            .map(|i| NodeMetrics {
                label: c.labels[i].clone(),
                degree: deg[i],
                strength: strength[i],
                clustering: cl[i],
                betweenness: bc[i],
                module: modules[i],
                participation: participation[i],
                within_module_z: z[i],
                local_efficiency: eloc.get(i).copied(),
            })
            .collect(),
    }
}
