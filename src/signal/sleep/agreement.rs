//! Agreement of two scorings of the same epochs: Cohen's kappa and the confusion matrix, as
//! `sklearn.metrics.cohen_kappa_score` and `confusion_matrix` compute them (labels = stages present in
//! either scoring, sorted by YASA code).

use super::hypnogram::{Hypnogram, Stage};
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    pub epochs: usize,
    /// Share of epochs given the same stage.
    pub accuracy: f64,
    pub kappa: f64,
    pub labels: Vec<&'static str>,
    /// confusion[i][j]: epochs scored labels[i] by the first scoring and labels[j] by the second.
    pub confusion: Vec<Vec<usize>>,
}

pub fn agreement(a: &Hypnogram, b: &Hypnogram) -> Result<Agreement, SignalError> {
    if a.stages.len() != b.stages.len() {
        return Err(invalid!("the scorings differ in length ({} vs {} epochs)", a.stages.len(), b.stages.len()));
    }
    let n = a.stages.len();
    if n == 0 {
        return Err("no epochs".into());
    }
    let labels: Vec<Stage> =
        Stage::ALL.iter().copied().filter(|s| a.stages.contains(s) || b.stages.contains(s)).collect();
    let k = labels.len();
    let idx = |s: Stage| labels.iter().position(|&x| x == s).expect("present");
    let mut m = vec![vec![0usize; k]; k];
    for (x, y) in a.stages.iter().zip(&b.stages) {
        m[idx(*x)][idx(*y)] += 1;
    }
    let agree: usize = (0..k).map(|i| m[i][i]).sum();
    let po = agree as f64 / n as f64;
    let pe: f64 = (0..k)
        .map(|i| {
            let row: usize = m[i].iter().sum();
            let col: usize = m.iter().map(|r| r[i]).sum();
            row as f64 * col as f64
        })
        .sum::<f64>()
        / (n as f64 * n as f64);
    Ok(Agreement {
        epochs: n,
        accuracy: po,
        kappa: if pe < 1.0 { (po - pe) / (1.0 - pe) } else { f64::NAN },
        labels: labels.iter().map(|s| s.label()).collect(),
        confusion: m,
    })
}
