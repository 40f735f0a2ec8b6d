//! The seeded, group-aware, label-stratified test split of a cohort source's subjects, its leave-site-out
//! alternative, and the fixed subset a slow method runs on.

use crate::agent::error::{AgentError, Result};
pub use crate::network::cohort::source::Subject as Row;
use crate::util::rng::splitmix64;
use std::collections::BTreeSet;

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

/// A seeded, label-stratified subset of `n` of `rows` (each label its share, rounded by largest remainder;
/// within a label a seeded shuffle chooses), in the rows' order: the fixed subset a slow method runs on.
pub fn stratified_subset(rows: &[Row], n: usize, seed: u64) -> Result<Vec<Row>> {
    if n == 0 || n > rows.len() {
        return Err(AgentError::from(format!("--subset {n}: give 1 to {} (the test samples)", rows.len())));
    }
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect::<BTreeSet<_>>().into_iter().collect();
    let count = |l: &str| rows.iter().filter(|r| r.label == l).count();
    let exact: Vec<f64> = labels.iter().map(|l| n as f64 * count(l) as f64 / rows.len() as f64).collect();
    let mut take: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    for &i in order.iter().cycle().take(n - take.iter().sum::<usize>()) {
        take[i] += 1;
    }
    let mut chosen = BTreeSet::new();
    for (l, &k) in labels.iter().zip(&take) {
        let mut idx: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].label == *l).collect();
        let mut state = seed ^ 0x5b5e7;
        for i in (1..idx.len()).rev() {
            let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
            idx.swap(i, j);
        }
        chosen.extend(idx.into_iter().take(k));
    }
    Ok(chosen.into_iter().map(|i| rows[i].clone()).collect())
}

/// Refuses rows whose label is not one of `task`'s (`of` names the source).
pub fn check_labels(of: &str, rows: &[Row], task: &super::task::Task) -> Result<()> {
    match rows.iter().find(|r| !task.labels.contains(&r.label)) {
        Some(bad) => Err(AgentError::from(format!(
            "{of}: label \"{}\" of {} is not one of task {}'s labels ({})",
            bad.label,
            bad.id,
            task.name,
            task.labels.join(", ")
        ))),
        None => Ok(()),
    }
}

/// Leave-site-out: the subjects of `site` to test, every other site's to remember; both must hold a subject,
/// and the remembered ones more than one label. `of` names the source in errors.
pub fn site_split(of: &str, rows: &[Row], site: &str) -> Result<(Vec<Row>, Vec<Row>)> {
    let (test, train): (Vec<Row>, Vec<Row>) = rows.iter().cloned().partition(|r| r.site == site);
    if test.is_empty() {
        let sites: Vec<&str> = rows.iter().map(|r| r.site.as_str()).filter(|s| !s.is_empty()).collect();
        let mut seen = Vec::new();
        sites.into_iter().for_each(|s| {
            if !seen.contains(&s) {
                seen.push(s)
            }
        });
        return Err(AgentError::from(format!("{of}: no subject of site '{site}' (sites: {})", seen.join(", "))));
    }
    if train.iter().map(|r| r.label.as_str()).collect::<BTreeSet<_>>().len() < 2 {
        return Err(AgentError::from(format!("{of}: without site '{site}' fewer than two labels remain")));
    }
    Ok((test, train))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stratified_subset_keeps_each_labels_share_and_is_seeded() {
        let rows: Vec<Row> = (0..173)
            .map(|i| Row {
                id: format!("s{i}"),
                label: if i < 80 { "ASD" } else { "HC" }.into(),
                group: format!("s{i}"),
                site: String::new(),
            })
            .collect();
        let a = stratified_subset(&rows, 60, 0).unwrap();
        // 60 × 80/173 = 27.7 → 28 ASD, 60 × 93/173 = 32.3 → 32 HC (largest remainder).
        assert_eq!((a.len(), a.iter().filter(|r| r.label == "ASD").count()), (60, 28));
        assert_eq!(a, stratified_subset(&rows, 60, 0).unwrap());
        assert_ne!(a, stratified_subset(&rows, 60, 1).unwrap());
        let order: Vec<usize> = a.iter().map(|r| r.id[1..].parse().unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "in the rows' order");
        assert!(stratified_subset(&rows, 174, 0).unwrap_err().to_string().contains("1 to 173"));
    }
}
