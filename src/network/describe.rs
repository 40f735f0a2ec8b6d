//! A multi-level description of a network for language-model agents (the BrainAgent "understanding"
//! input): link triplets, region level (hubs), subgraph level (modules; within/between-network strength)
//! and graph level (density, clustering, path length, efficiency, Q, σ, ω).

use super::Connectome;
use super::atlas::Atlas;
use super::metrics::summary::{GraphMetrics, SmallWorldReport};
use serde::Serialize;

/// One link: source label, target label, weight (of the matrix the metrics ran on).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Triplet {
    pub src: String,
    pub dst: String,
    pub val: f64,
}

/// A hub: a region ranking high on one centrality.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hub {
    pub label: String,
    pub network: Option<String>,
    pub by: &'static str,
    pub value: f64,
}

/// A module of the Louvain partition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Module {
    pub id: usize,
    pub members: Vec<String>,
}

/// The description.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Description {
    pub triplets: Vec<Triplet>,
    pub hubs: Vec<Hub>,
    pub modules: Vec<Module>,
    /// Network (or lobe) names and the mean link weight within (diagonal) and between them.
    pub networks: Vec<String>,
    pub network_strength: Vec<Vec<f64>>,
    pub graph: GraphLevel,
}

/// Graph-level numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphLevel {
    pub n_nodes: usize,
    pub density: f64,
    pub mean_clustering: f64,
    pub char_path_length: Option<f64>,
    pub global_efficiency: f64,
    pub modularity: f64,
    pub sigma: Option<f64>,
    pub omega: Option<f64>,
}

/// How many hubs per centrality.
pub const TOP_HUBS: usize = 5;

/// Members of a module listed in the text form.
pub const MODULE_MEMBERS: usize = 12;

/// Builds the description of `c` from its prepared matrix `w` and metrics `m`.
pub fn describe(
    c: &Connectome,
    w: &[f64],
    m: &GraphMetrics,
    atlas: Option<&Atlas>,
    sw: Option<&SmallWorldReport>,
) -> Description {
    let n = c.n;
    let net_of = |i: usize| atlas.and_then(|a| a.networks.as_ref()).and_then(|v| v.get(i).cloned());
    let mut links: Vec<(usize, usize)> =
        (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).filter(|&(i, j)| w[i * n + j] != 0.0).collect();
    // Sorted by the source's degree (descending), then weight (descending).
    links.sort_by(|&(a, b), &(c2, d)| {
        m.nodes[c2]
            .degree
            .total_cmp(&m.nodes[a].degree)
            .then(w[c2 * n + d].total_cmp(&w[a * n + b]))
            .then((a, b).cmp(&(c2, d)))
    });
    let triplets = links
        .iter()
        .map(|&(i, j)| Triplet { src: c.labels[i].clone(), dst: c.labels[j].clone(), val: w[i * n + j] })
        .collect();
    let mut hubs = Vec::new();
    for (by, get) in [
        ("degree", (|x: &super::metrics::summary::NodeMetrics| x.degree) as fn(&_) -> f64),
        ("strength", |x| x.strength),
        ("betweenness", |x| x.betweenness),
    ] {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| get(&m.nodes[b]).total_cmp(&get(&m.nodes[a])).then(a.cmp(&b)));
        for &i in idx.iter().take(TOP_HUBS) {
            hubs.push(Hub { label: c.labels[i].clone(), network: net_of(i), by, value: get(&m.nodes[i]) });
        }
    }
    let modules = (1..=m.n_modules)
        .map(|id| Module {
            id,
            members: (0..n).filter(|&i| m.nodes[i].module == id).map(|i| c.labels[i].clone()).collect(),
        })
        .collect();
    let mut networks: Vec<String> = (0..n).filter_map(net_of).collect();
    networks.sort();
    networks.dedup();
    let k = networks.len();
    let mut sum = vec![vec![0.0; k]; k];
    let mut count = vec![vec![0usize; k]; k];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            if let (Some(a), Some(b)) = (net_of(i), net_of(j)) {
                let (a, b) = (networks.binary_search(&a).unwrap_or(0), networks.binary_search(&b).unwrap_or(0));
                sum[a][b] += w[i * n + j];
                count[a][b] += 1;
            }
        }
    }
    let network_strength = (0..k)
        .map(|a| (0..k).map(|b| if count[a][b] > 0 { sum[a][b] / count[a][b] as f64 } else { 0.0 }).collect())
        .collect();
    Description {
        triplets,
        hubs,
        modules,
        networks,
        network_strength,
        graph: GraphLevel {
            n_nodes: n,
            density: m.density,
            mean_clustering: m.mean_clustering,
            char_path_length: m.char_path_length,
            global_efficiency: m.global_efficiency,
            modularity: m.modularity,
            sigma: sw.map(|s| s.values.sigma),
            omega: sw.map(|s| s.values.omega),
        },
    }
}

impl Description {
    /// Compact text: graph level, hubs, modules (up to MODULE_MEMBERS members each), network strengths, then the
    /// first `max_triplets` links.
    pub fn to_text(&self, max_triplets: usize) -> String {
        let g = &self.graph;
        let f = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.3}"));
        let mut s = format!(
            "Graph: {} regions, density {:.3}, mean clustering {:.3}, path length {}, global efficiency {:.3}, modularity {:.3}, sigma {}, omega {}\n",
            g.n_nodes,
            g.density,
            g.mean_clustering,
            f(g.char_path_length),
            g.global_efficiency,
            g.modularity,
            f(g.sigma),
            f(g.omega)
        );
        for by in ["degree", "strength", "betweenness"] {
            let list: Vec<String> = self
                .hubs
                .iter()
                .filter(|h| h.by == by)
                .map(|h| match &h.network {
                    Some(net) => format!("{} ({net}, {:.3})", h.label, h.value),
                    None => format!("{} ({:.3})", h.label, h.value),
                })
                .collect();
            s.push_str(&format!("Hubs by {by}: {}\n", list.join(", ")));
        }
        // Members of large modules are cut to the first MODULE_MEMBERS (the JSON form has them all).
        for m in &self.modules {
            let shown: Vec<&str> = m.members.iter().take(MODULE_MEMBERS).map(String::as_str).collect();
            let more = m.members.len() - shown.len();
            let tail = if more > 0 { format!(", … (+{more} more)") } else { String::new() };
            s.push_str(&format!("Module {} ({} regions): {}{tail}\n", m.id, m.members.len(), shown.join(", ")));
        }
        s.push_str(&self.networks_text());
        s.push_str(&self.links_text(max_triplets));
        s
    }

    /// Mean link weight within and between functional networks, one row per network (empty without networks).
    pub fn networks_text(&self) -> String {
        let mut s = String::new();
        if !self.networks.is_empty() {
            s.push_str("Mean link weight within/between networks:\n");
            for (a, row) in self.networks.iter().zip(&self.network_strength) {
                let cells: Vec<String> = self.networks.iter().zip(row).map(|(b, v)| format!("{b} {v:.3}")).collect();
                s.push_str(&format!("  {a}: {}\n", cells.join(", ")));
            }
        }
        s
    }

    /// The `k` strongest couplings between two different functional networks (mean link weight), one line.
    pub fn coupling_text(&self, k: usize) -> String {
        let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
        for (a, row) in self.network_strength.iter().enumerate() {
            for (b, &v) in row.iter().enumerate().skip(a + 1) {
                pairs.push((a, b, v));
            }
        }
        pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1))));
        if pairs.is_empty() || k == 0 {
            return String::new();
        }
        let shown: Vec<String> = pairs
            .iter()
            .take(k)
            .map(|&(a, b, v)| format!("{}–{} {v:.3}", self.networks[a], self.networks[b]))
            .collect();
        format!("Strongest coupling between networks (mean link weight): {}\n", shown.join(", "))
    }

    /// The strongest `max_triplets` links as (source, target, weight) lines.
    pub fn links_text(&self, max_triplets: usize) -> String {
        let mut s = format!(
            "Links (source, target, weight), {} of {}:\n",
            max_triplets.min(self.triplets.len()),
            self.triplets.len()
        );
        for t in self.triplets.iter().take(max_triplets) {
            s.push_str(&format!("({}, {}, {:.3})\n", t.src, t.dst, t.val));
        }
        s
    }
}
