//! A labelled cohort of graphs (labels.csv rows with their groups) and its seeded, group-aware,
//! label-stratified test split.

use crate::agent::error::{AgentError, Result};
use crate::util::rng::splitmix64;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

/// One labelled graph: file (relative to the graphs folder), label, group (same-group graphs split together).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub file: String,
    pub label: String,
    pub group: String,
}

pub fn sample_id(file: &str) -> String {
    Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| file.to_string())
}

/// Test rows and memory rows: per label, `fraction` of its groups (rounded, at least one, never all) chosen
/// by a seeded shuffle go to the test set with all their graphs.
pub fn split(rows: &[Row], fraction: f64, seed: u64) -> Result<(Vec<Row>, Vec<Row>)> {
    if !(0.0 < fraction && fraction < 1.0) {
        return Err(AgentError::from(format!("--split {fraction}: the test fraction must be between 0 and 1")));
    }
    let mut test_groups = BTreeSet::new();
    let labels: BTreeSet<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    for label in labels {
        let mut groups: Vec<&str> = rows
            .iter()
            .filter(|r| r.label == label)
            .map(|r| r.group.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if groups.len() < 2 {
            return Err(AgentError::from(format!(
                "label \"{label}\" has {} group(s): a split needs at least two per label (one to test, one to remember)",
                groups.len()
            )));
        }
        let mut state = seed ^ 0x5eed;
        for i in (1..groups.len()).rev() {
            let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
            groups.swap(i, j);
        }
        let n = ((groups.len() as f64 * fraction).round() as usize).clamp(1, groups.len() - 1);
        test_groups.extend(groups.into_iter().take(n).map(|g| (label.to_string(), g.to_string())));
    }
    let (test, train): (Vec<Row>, Vec<Row>) =
        rows.iter().cloned().partition(|r| test_groups.contains(&(r.label.clone(), r.group.clone())));
    Ok((test, train))
}

/// The rows of a cohort file (`brainlens cohort import`): its subjects, each its own group, with their labels.
pub fn cohort_rows(path: &Path) -> Result<Vec<Row>> {
    let c = crate::network::cohort::file::cached(path).map_err(|e| AgentError::from(e.to_string()))?;
    if let Some(i) = c.labels.iter().position(String::is_empty) {
        return Err(AgentError::from(format!("{}: subject {} has no label", path.display(), c.ids[i])));
    }
    Ok(c.ids
        .iter()
        .zip(&c.labels)
        .map(|(id, l)| Row { file: id.clone(), label: l.clone(), group: id.clone() })
        .collect())
}

/// Leave-site-out: the subjects of `site` (a cohort file's) to test, every other site's to remember; both
/// must hold a subject, and the remembered ones more than one label.
pub fn site_split(path: &Path, rows: &[Row], site: &str) -> Result<(Vec<Row>, Vec<Row>)> {
    let c = crate::network::cohort::file::cached(path).map_err(|e| AgentError::from(e.to_string()))?;
    let site_of = |r: &Row| c.ids.iter().position(|id| *id == r.file).map(|i| c.site[i].as_str());
    let (test, train): (Vec<Row>, Vec<Row>) = rows.iter().cloned().partition(|r| site_of(r) == Some(site));
    if test.is_empty() {
        let sites = c.site_counts().into_iter().map(|(s, _)| s).collect::<Vec<_>>().join(", ");
        return Err(AgentError::from(format!("{}: no subject of site '{site}' (sites: {sites})", path.display())));
    }
    if train.iter().map(|r| r.label.as_str()).collect::<BTreeSet<_>>().len() < 2 {
        return Err(AgentError::from(format!(
            "{}: without site '{site}' fewer than two labels remain",
            path.display()
        )));
    }
    Ok((test, train))
}

/// The labelled rows of `labels`: a labels CSV (file,label[,group]) or a cohort file.
pub fn read_rows(labels: &Path) -> Result<Vec<Row>> {
    if crate::network::cohort::file::is_cohort(labels) {
        return cohort_rows(labels);
    }
    Ok(crate::retrieval::labels::read_labels(labels)?
        .into_iter()
        .map(|(file, label, group)| Row { group: if group.is_empty() { file.clone() } else { group }, file, label })
        .collect())
}
