//! Accuracy per acquisition site of an evaluation on a cohort file: sites differ in scanner, protocol and
//! population, and a method that works at one may fail at another (the reason for leave-site-out).

use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteAccuracy {
    pub site: String,
    pub samples: usize,
    pub correct: usize,
    pub accuracy: f64,
}

/// Per site of the cohort file `graphs` (in the order of its sites' first subjects), the samples of
/// `outcomes` (sample id, whether its label was right) there; empty when `graphs` is not a cohort file or
/// records no sites. Only the file's subject ids and sites are read (not its connectomes: run metrics are
/// computed when the room loads run files).
pub fn site_accuracy(graphs: &Path, outcomes: &[(String, bool)]) -> Vec<SiteAccuracy> {
    use crate::util::arrays::npz_strings;
    let (Ok((_, ids)), Ok((_, sites))) = (npz_strings(graphs, "subject_ids"), npz_strings(graphs, "site")) else {
        return Vec::new();
    };
    let mut out: Vec<SiteAccuracy> = Vec::new();
    for (id, site) in ids.iter().zip(&sites) {
        let Some((_, right)) = outcomes.iter().find(|(s, _)| s == id) else { continue };
        let site = if site.is_empty() { "(no site)" } else { site.as_str() };
        let i = match out.iter().position(|s| s.site == site) {
            Some(i) => i,
            None => {
                out.push(SiteAccuracy { site: site.to_string(), samples: 0, correct: 0, accuracy: 0.0 });
                out.len() - 1
            }
        };
        out[i].samples += 1;
        out[i].correct += usize::from(*right);
    }
    for s in &mut out {
        s.accuracy = s.correct as f64 / s.samples as f64;
    }
    if out.iter().all(|s| s.site == "(no site)") { Vec::new() } else { out }
}
