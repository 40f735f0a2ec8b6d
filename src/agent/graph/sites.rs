//! Accuracy per acquisition site of an evaluation on a cohort file: sites differ in scanner, protocol and
//! population, and a method that works at one may fail at another (the reason for leave-site-out).

use super::runfile::Header;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteAccuracy {
    pub site: String,
    pub samples: usize,
    pub correct: usize,
    pub accuracy: f64,
}

/// Per site (in the order of the test samples' sites), the samples of `outcomes` (sample id, whether its label
/// was right) there, from the sites the run header records; empty when it records none.
pub fn site_accuracy(header: &Header, outcomes: &[(String, bool)]) -> Vec<SiteAccuracy> {
    let sites = match &header.source {
        Some(_) => header.sites.clone(),
        None => legacy_sites(header),
    };
    let mut out: Vec<SiteAccuracy> = Vec::new();
    for (id, site) in header.test.iter().zip(&sites) {
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

/// The test samples' sites of a run file written before headers recorded them: read from the cohort file its
/// `graphs` names, when it still is one (empty otherwise).
fn legacy_sites(header: &Header) -> Vec<String> {
    use crate::util::arrays::npz_strings;
    let path = std::path::Path::new(&header.graphs);
    let (Ok((_, ids)), Ok((_, sites))) = (npz_strings(path, "subject_ids"), npz_strings(path, "site")) else {
        return Vec::new();
    };
    let site_of: std::collections::HashMap<&str, &str> =
        ids.iter().map(String::as_str).zip(sites.iter().map(String::as_str)).collect();
    header.test.iter().map(|id| site_of.get(id.as_str()).unwrap_or(&"").to_string()).collect()
}
