//! One graph under analysis: the connectome with its atlas, the thresholded matrix and metrics the agent's
//! analysis functions read, its `describe` output, and the evidence table a rationale cites (`G:` graph-level
//! values, `R:` hub regions, `M:` modules, `N:` functional networks; `K:` knowledge and `C:` cases are added
//! as they are retrieved).

use crate::agent::error::Result;
use crate::network::Connectome;
use crate::network::atlas::Atlas;
use crate::network::cohort::source::Source;
use crate::network::describe::{Description, describe};
use crate::network::error::NetworkError;
use crate::network::metrics::summary::{
    GraphMetrics, MetricsOptions, SmallWorldReport, prepare, small_world_of, summarize_prepared,
};
use crate::network::smallworld::SmallWorldParams;
use crate::util::cancel::Cancel;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Density the agent's graph is thresholded at (the seed's proportional threshold, as case reports use).
pub const AGENT_DENSITY: f64 = crate::retrieval::cases::REPORT_DENSITY;

/// Members named in a module's evidence line (the rest are counted).
const MODULE_MEMBERS: usize = 5;

/// One citable fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub id: String,
    pub text: String,
}

pub struct GraphContext {
    pub name: String,
    pub path: PathBuf,
    pub connectome: Connectome,
    pub atlas: Option<Atlas>,
    pub options: MetricsOptions,
    pub prepared: Vec<f64>,
    pub metrics: GraphMetrics,
    pub description: Description,
    small_world: OnceLock<Result<SmallWorldReport, NetworkError>>,
}

impl GraphContext {
    /// Loads a graph file (symmetrised; labels from `atlas` when the region counts match).
    pub fn load(path: &Path, atlas: Option<&Atlas>) -> Result<GraphContext> {
        let c = crate::retrieval::cases::load_graph(path, atlas)?;
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Self::new(name, path.to_path_buf(), c, atlas.cloned()))
    }

    /// Subject `id` of a cohort source (`path`: the file its graph is in; `name`: the subject's id).
    pub fn of_subject(source: &Source, id: &str, atlas: Option<&Atlas>) -> Result<GraphContext> {
        let i = source.position(id)?;
        let c = crate::retrieval::cases::source_graph(source, i, atlas)?;
        Ok(Self::new(id.to_string(), source.graph_file(i).to_path_buf(), c, atlas.cloned()))
    }

    pub fn new(name: String, path: PathBuf, connectome: Connectome, atlas: Option<Atlas>) -> GraphContext {
        let options = MetricsOptions { proportional: Some(AGENT_DENSITY), ..Default::default() };
        let prepared = prepare(&connectome, &options);
        let metrics = summarize_prepared(&connectome, &prepared, &options);
        let description = describe(&connectome, &prepared, &metrics, atlas.as_ref(), None);
        GraphContext {
            name,
            path,
            connectome,
            atlas,
            options,
            prepared,
            metrics,
            description,
            small_world: OnceLock::new(),
        }
    }

    pub fn n(&self) -> usize {
        self.connectome.n
    }

    pub fn labels(&self) -> &[String] {
        &self.connectome.labels
    }

    /// Region index of a label (case-insensitive), or of a 0-based index written as text.
    pub fn region(&self, name: &str) -> Option<usize> {
        let t = name.trim();
        self.labels()
            .iter()
            .position(|l| l.eq_ignore_ascii_case(t))
            .or_else(|| t.parse::<usize>().ok().filter(|&i| i < self.n()))
    }

    pub fn network_of(&self, i: usize) -> Option<&str> {
        self.atlas.as_ref()?.networks.as_ref()?.get(i).map(String::as_str)
    }

    /// σ and ω (networkx definitions, binary graph, 5 references, seed 0), computed once on first use.
    pub fn small_world(&self) -> &Result<SmallWorldReport, NetworkError> {
        self.small_world.get_or_init(|| {
            let p = SmallWorldParams { niter: 5, nrand: 5, seed: 0, weighted: false };
            small_world_of(
                &self.connectome,
                &self.options,
                &p,
                &std::sync::atomic::AtomicU64::new(0),
                &Cancel::default(),
            )
        })
    }

    /// σ and ω when a tool already computed them (scoring never starts the computation).
    pub fn small_world_if_computed(&self) -> Option<&Result<SmallWorldReport, NetworkError>> {
        self.small_world.get()
    }

    /// Top hubs of this graph (by degree, strength and betweenness), distinct region indices.
    pub fn hub_regions(&self) -> Vec<usize> {
        let mut v: Vec<usize> = Vec::new();
        for h in &self.description.hubs {
            if let Some(i) = self.labels().iter().position(|l| *l == h.label)
                && !v.contains(&i)
            {
                v.push(i);
            }
        }
        v
    }

    /// Functional networks by their mean within-network link weight, strongest first.
    pub fn networks_by_cohesion(&self) -> Vec<(String, f64)> {
        let d = &self.description;
        let mut v: Vec<(String, f64)> =
            d.networks.iter().enumerate().map(|(i, n)| (n.clone(), d.network_strength[i][i])).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    /// The graph-level values a rationale may quote: (evidence key, words that name it, value).
    pub fn global_values(&self) -> Vec<(&'static str, &'static [&'static str], f64)> {
        let m = &self.metrics;
        let mut v: Vec<(&'static str, &'static [&'static str], f64)> = vec![
            ("density", &["density"], m.density),
            ("clustering", &["clustering"], m.mean_clustering),
            ("transitivity", &["transitivity"], m.transitivity),
            ("efficiency", &["efficiency"], m.global_efficiency),
            ("modularity", &["modularity"], m.modularity),
        ];
        if let Some(l) = m.char_path_length {
            v.push(("path_length", &["path length", "characteristic path"], l));
        }
        let mean_degree = m.nodes.iter().map(|x| x.degree).sum::<f64>() / self.n().max(1) as f64;
        v.push(("mean_degree", &["average degree", "mean degree"], mean_degree));
        v
    }

    /// The evidence table of the graph itself.
    pub fn evidence(&self) -> Vec<Evidence> {
        let mut out: Vec<Evidence> = self
            .global_values()
            .into_iter()
            .map(|(k, names, v)| Evidence { id: format!("G:{k}"), text: format!("{} = {v:.4}", names[0]) })
            .collect();
        out.push(Evidence { id: "G:modules".into(), text: format!("{} Louvain modules", self.metrics.n_modules) });
        for i in self.hub_regions() {
            let x = &self.metrics.nodes[i];
            let net = self.network_of(i).map(|n| format!(", {n} network")).unwrap_or_default();
            // The id names the region; its text does not repeat it (every prompt carries this table).
            out.push(Evidence {
                id: format!("R:{}", self.labels()[i]),
                text: format!(
                    "hub{net}: degree {:.0}, strength {:.3}, betweenness {:.1}, module {}",
                    x.degree, x.strength, x.betweenness, x.module
                ),
            });
        }
        // Modules of one region say nothing a hub or network line does not.
        for m in self.description.modules.iter().filter(|m| m.members.len() > 1) {
            let shown: Vec<&str> = m.members.iter().take(MODULE_MEMBERS).map(String::as_str).collect();
            out.push(Evidence {
                id: format!("M:{}", m.id),
                text: format!(
                    "module of {} regions: {}{}",
                    m.members.len(),
                    shown.join(", "),
                    if m.members.len() > shown.len() { ", …" } else { "" }
                ),
            });
        }
        for (name, v) in self.networks_by_cohesion() {
            out.push(Evidence {
                id: format!("N:{name}"),
                text: format!("{name} network: mean within-network weight {v:.3}"),
            });
        }
        out
    }
}
