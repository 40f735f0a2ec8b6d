//! Graph metrics over a cohort: every subject's connectome through the one metric set the Networks room and
//! `network metrics` use (`metrics::summary`), with the same options, on every core.

use super::Cohort;
use crate::network::Connectome;
use crate::network::connectome::Asymmetry;
use crate::network::metrics::summary::{MetricsOptions, summarize};

/// One subject's global metrics, or why it has none.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SubjectMetrics {
    pub id: String,
    pub label: String,
    pub site: String,
    pub density: Option<f64>,
    pub mean_clustering: Option<f64>,
    pub transitivity: Option<f64>,
    /// None when the graph is disconnected (or the subject has no metrics).
    pub char_path_length: Option<f64>,
    pub global_efficiency: Option<f64>,
    pub assortativity: Option<f64>,
    pub modularity: Option<f64>,
    pub n_modules: Option<usize>,
    /// Why there are no metrics (a flagged subject with undefined entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The global metrics of every subject of `c`, in cohort order.
pub fn of_cohort(c: &Cohort, o: &MetricsOptions) -> Vec<SubjectMetrics> {
    crate::util::parallel::map_collect(c.len(), crate::util::parallel::threads(), 8, |i| {
        let mut s = SubjectMetrics {
            id: c.ids[i].clone(),
            label: c.labels[i].clone(),
            site: c.site[i].clone(),
            density: None,
            mean_clustering: None,
            transitivity: None,
            char_path_length: None,
            global_efficiency: None,
            assortativity: None,
            modularity: None,
            n_modules: None,
            skipped: None,
        };
        if c.matrix(i).iter().any(|v| v.is_nan()) {
            s.skipped = Some(format!("undefined entries ({})", c.flags[i]));
            return s;
        }
        let g = Connectome::from_matrix(
            &c.ids[i],
            c.r,
            c.r,
            c.matrix(i).to_vec(),
            Some(c.region_labels.clone()),
            Asymmetry::Symmetrize,
        );
        match g {
            Ok(g) => {
                let m = summarize(&g, o);
                s.density = Some(m.density);
                s.mean_clustering = Some(m.mean_clustering);
                s.transitivity = Some(m.transitivity);
                s.char_path_length = m.char_path_length;
                s.global_efficiency = Some(m.global_efficiency);
                s.assortativity = Some(m.assortativity);
                s.modularity = Some(m.modularity);
                s.n_modules = Some(m.n_modules);
            }
            Err(e) => s.skipped = Some(e.to_string()),
        }
        s
    })
}
