//! The cohort model: validated evidence for one subject's label. From a cohort source's training split (the
//! seeded split `agent eval` makes), the logistic baseline's regression (an L2 logistic regression on the
//! Fisher z of the upper triangle, its C chosen by stratified 5-fold cross-validation, as scikit-learn's
//! `LogisticRegressionCV(Cs=10, cv=5)`), its probability calibrated on out-of-fold decision scores of the
//! training split alone (`CalibratedClassifierCV(cv=5, ensemble=False)`: sigmoid or isotonic), saved with
//! the cohort's hash, the split, the atlas, the classes' mean edges and its own cross-validated accuracy,
//! AUROC, Brier score and ECE. A saved model predicts for any connectome of its atlas and names the edges
//! that moved its score most.

use super::baseline::{CV_FOLDS, binary_labels, training_matrix};
use super::cohort::split;
use super::task::Task;
use crate::agent::error::{AgentError, Result};
use crate::network::Connectome;
use crate::network::atlas::Atlas;
use crate::network::cohort::source::{Origin, Source, Subject};
use crate::network::features::{fisher_z_upper, upper_len};
use crate::util::calibration::{self, Calibrator, Method};
use crate::util::cancel::Cancel;
use crate::util::logistic;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the file says it is.
pub const FORMAT: &str = "brainlens cohort model";
const VERSION: u32 = 1;
/// Bins of the expected calibration error.
pub const ECE_BINS: usize = 10;
/// The calibration `cohort train` fits unless told otherwise (chosen on ADHD-200: docs/networks.md).
pub const DEFAULT_CALIBRATION: Method = Method::Sigmoid;
/// Edges an explanation names.
pub const TOP_EDGES: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CohortModel {
    pub format: String,
    pub version: u32,
    pub task: String,
    /// The label P is of, and the other.
    pub positive: String,
    pub negative: String,
    /// The task's atlas and its regions, in the order of the features.
    pub atlas: String,
    pub regions: Vec<String>,
    /// The cohort it was trained on (kind, file, SHA-256).
    pub cohort: Origin,
    pub split: SplitRecord,
    /// The regression: `score = x·w + b` on the Fisher z upper triangle `x`, C chosen by cross-validation.
    pub c: f64,
    pub weights: Vec<f64>,
    pub intercept: f64,
    pub calibrator: Calibrator,
    /// The training split's share of the positive label: a prediction favours the positive label when its
    /// calibrated P exceeds it (the likelihood ratio of the subject's evidence is above 1; chosen on ADHD-200).
    pub prior: f64,
    /// Mean Fisher z of each edge over the training split's subjects of each label, and of all of them.
    pub mean_positive: Vec<f64>,
    pub mean_negative: Vec<f64>,
    pub mean_all: Vec<f64>,
    pub cv: CvReport,
    pub made_by: String,
}

/// The split the model was trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitRecord {
    /// The test fraction and seed of `agent eval`'s split.
    pub fraction: f64,
    pub seed: u64,
    pub train: Vec<String>,
    pub test: Vec<String>,
}

/// The model's own cross-validation on its training split (the test split is never read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CvReport {
    pub folds: usize,
    /// Accuracy (score > 0) and AUROC of the out-of-fold decision scores: each subject scored by the
    /// regression (C chosen again) fitted on the other folds.
    pub accuracy: f64,
    pub auroc: f64,
    /// Brier score and ECE of the calibrated out-of-fold probabilities, the calibrator itself fitted on the
    /// other folds' scores (so neither sees the subject it is measured on).
    pub brier: f64,
    pub ece: f64,
    pub calibration: Method,
}

/// One edge's part in a prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeEvidence {
    pub regions: [String; 2],
    /// The regions' networks (or lobes), when the atlas has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub networks: Option<[String; 2]>,
    /// The subject's Fisher z, and the training means of each label.
    pub value: f64,
    pub mean_positive: f64,
    pub mean_negative: f64,
    /// `w · (value − training mean)`: what this edge adds to the score against an average subject.
    pub contribution: f64,
    /// The label a positive or negative contribution pushes toward.
    pub supports: String,
}

/// A saved model's prediction for one connectome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub positive: String,
    /// Calibrated P(positive), and the regression's raw score.
    pub probability: f64,
    pub score: f64,
    /// The training split's positive share the label is decided against (see `CohortModel::prior`).
    pub prior: f64,
    pub label: String,
    pub edges: Vec<EdgeEvidence>,
}

impl CohortModel {
    /// Trains on the training split of `source` for `task` (`fraction`, `seed`: `agent eval`'s split).
    pub fn train(
        source: &Source,
        task: &Task,
        fraction: f64,
        seed: u64,
        method: Method,
        cancel: &Cancel,
    ) -> Result<CohortModel> {
        let of = &source.origin.file;
        super::cohort::check_labels(of, &source.subjects, task)?;
        let (test, train) =
            split(&source.subjects, fraction, seed).map_err(|e| AgentError::from(format!("{of}: {e}")))?;
        Self::train_on(source, task, &train, &test, (fraction, seed), method, cancel)
    }

    /// Trains on the subjects `train` of `source` (an evaluation's training split; `test` and `(fraction,
    /// seed)` are recorded, never read).
    pub fn train_on(
        source: &Source,
        task: &Task,
        train: &[Subject],
        test: &[Subject],
        (fraction, seed): (f64, u64),
        method: Method,
        cancel: &Cancel,
    ) -> Result<CohortModel> {
        let of = &source.origin.file;
        let [negative, positive] = binary_labels(task)?;
        for label in [&negative, &positive] {
            let n = train.iter().filter(|s| &s.label == label).count();
            if n < CV_FOLDS {
                return Err(AgentError::from(format!(
                    "{of}: the training split holds {n} {label} subject(s): a cohort model of task {} needs at least \
                     {CV_FOLDS} of each of its labels ({}, {})",
                    task.name, positive, negative
                )));
            }
        }
        let atlas = Atlas::load(&task.atlas)?;
        let (x, p, y) = training_matrix(source, train, Some(&atlas), &positive)?;
        let n = y.len();
        if cancel.is_cancelled() {
            return Err(AgentError::from("cancelled".to_string()));
        }
        let cs = logistic::default_cs();
        let fit = logistic::fit_cv(&x, p, &y, &cs, CV_FOLDS);
        // Out-of-fold scores: each fold scored by a regression (its C chosen again) fitted on the others.
        let fold = logistic::stratified_folds(&y, CV_FOLDS);
        let mut oof = vec![0.0; n];
        for f in 0..CV_FOLDS {
            if cancel.is_cancelled() {
                return Err(AgentError::from("cancelled".to_string()));
            }
            let rest: Vec<usize> = (0..n).filter(|&i| fold[i] != f).collect();
            let xr: Vec<f64> = rest.iter().flat_map(|&i| x[i * p..(i + 1) * p].iter().copied()).collect();
            let yr: Vec<bool> = rest.iter().map(|&i| y[i]).collect();
            let inner = logistic::fit_cv(&xr, p, &yr, &cs, CV_FOLDS);
            for i in (0..n).filter(|&i| fold[i] == f) {
                oof[i] = inner.model.decision(&x[i * p..(i + 1) * p]);
            }
        }
        let calibrator = Calibrator::fit(method, &oof, &y).map_err(|e| AgentError::from(format!("{of}: {e}")))?;
        let cv = cv_report(&oof, &y, &fold, method).map_err(|e| AgentError::from(format!("{of}: {e}")))?;
        let mean = |keep: &dyn Fn(bool) -> bool| -> Vec<f64> {
            let rows: Vec<usize> = (0..n).filter(|&i| keep(y[i])).collect();
            (0..p).map(|j| rows.iter().map(|&i| x[i * p + j]).sum::<f64>() / rows.len() as f64).collect()
        };
        Ok(CohortModel {
            format: FORMAT.into(),
            version: VERSION,
            task: task.name.clone(),
            positive,
            negative,
            atlas: task.atlas.clone(),
            regions: atlas.labels.clone(),
            cohort: source.origin.clone(),
            split: SplitRecord {
                fraction,
                seed,
                train: train.iter().map(|s| s.id.clone()).collect(),
                test: test.iter().map(|s| s.id.clone()).collect(),
            },
            c: fit.model.c,
            weights: fit.model.w.clone(),
            intercept: fit.model.b,
            calibrator,
            prior: y.iter().filter(|v| **v).count() as f64 / n as f64,
            mean_positive: mean(&|v| v),
            mean_negative: mean(&|v| !v),
            mean_all: mean(&|_| true),
            cv,
            made_by: format!("brainlens {}", env!("CARGO_PKG_VERSION")),
        })
    }

    /// Writes the model to `path` whole or not at all (a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string(self).map_err(|e| AgentError::from(format!("{}: {e}", path.display())))?;
        if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d).map_err(|e| AgentError::from(format!("{}: {e}", d.display())))?;
        }
        let part = path.with_extension("part");
        std::fs::write(&part, text).and_then(|_| std::fs::rename(&part, path)).map_err(|e| {
            let _ = std::fs::remove_file(&part);
            AgentError::from(format!("{}: cannot write the cohort model: {e}", path.display()))
        })
    }

    /// Reads a saved model; a file that is not one, or whose numbers do not fit together, is refused by name.
    pub fn load(path: &Path) -> Result<CohortModel> {
        let name = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| AgentError::from(format!("{name}: cannot read the cohort model: {e}")))?;
        let m: CohortModel = serde_json::from_str(&text)
            .map_err(|e| AgentError::from(format!("{name}: not a cohort model (brainlens cohort train): {e}")))?;
        let bad = |what: String| Err(AgentError::from(format!("{name}: a damaged cohort model: {what}")));
        if m.format != FORMAT || m.version != VERSION {
            return bad(format!("format \"{}\" version {} (expected \"{FORMAT}\" {VERSION})", m.format, m.version));
        }
        let p = upper_len(m.regions.len());
        for (what, len) in [
            ("weights", m.weights.len()),
            ("mean_positive", m.mean_positive.len()),
            ("mean_negative", m.mean_negative.len()),
            ("mean_all", m.mean_all.len()),
        ] {
            if len != p {
                return bad(format!("{what} has {len} entries; {} regions have {p} edges", m.regions.len()));
            }
        }
        let numbers = m.weights.iter().chain(&m.mean_positive).chain(&m.mean_negative).chain(&m.mean_all);
        if !numbers.chain([&m.intercept, &m.c, &m.prior]).all(|v| v.is_finite())
            || !m.calibrator.is_valid()
            || m.prior <= 0.0
            || m.prior >= 1.0
        {
            return bad(
                "a number that is not finite, a calibration that is not increasing or a rate outside (0, 1)".into()
            );
        }
        Ok(m)
    }

    /// Refuses use for another task or a connectome of another atlas, naming both.
    pub fn check(&self, task: &Task, model_file: &Path) -> Result<()> {
        if task.name != self.task || task.atlas != self.atlas {
            return Err(AgentError::from(format!(
                "{}: a cohort model of task {} (atlas {}), not of task {} (atlas {})",
                model_file.display(),
                self.task,
                self.atlas,
                task.name,
                task.atlas
            )));
        }
        Ok(())
    }

    /// The label calibrated P(positive) `p` favours: the positive one when `p` exceeds the training split's
    /// positive share (the evidence's likelihood ratio above 1), else the other.
    pub fn favoured(&self, p: f64) -> &str {
        if p > self.prior { &self.positive } else { &self.negative }
    }

    /// Refuses a connectome whose atlas (`atlas`, or none) is not the model's, naming both.
    pub fn check_atlas(&self, graph: &str, n: usize, atlas: Option<&Atlas>, model_file: &Path) -> Result<()> {
        if atlas.is_some_and(|a| a.labels == self.regions) {
            return Ok(());
        }
        let theirs = match atlas {
            Some(a) => format!("atlas {} ({} regions)", a.name, a.labels.len()),
            None => format!("{n} regions of no known atlas"),
        };
        Err(AgentError::from(format!(
            "{graph}: {theirs}, but the cohort model {} is of atlas {} ({} regions)",
            model_file.display(),
            self.atlas,
            self.regions.len()
        )))
    }

    /// The model's prediction for the graph file at `graph`, whose atlas is `atlas_spec` or the one beside it
    /// or assumed from its region count (`network::atlas::infer`); `task` (when given) must be the model's.
    pub fn predict_file(
        &self,
        model_file: &Path,
        graph: &Path,
        atlas_spec: Option<&str>,
        task: Option<&Task>,
    ) -> Result<Prediction> {
        if let Some(t) = task {
            self.check(t, model_file)?;
        }
        let c = crate::network::io::load(graph, crate::network::connectome::Asymmetry::Symmetrize)?;
        let atlas = match atlas_spec {
            Some(a) => Some(Atlas::load(a)?),
            None => crate::network::atlas::infer(graph, c.n).0,
        };
        let name = graph.display().to_string();
        self.check_atlas(&name, c.n, atlas.as_ref(), model_file)?;
        self.predict(&name, &c, atlas.as_ref())
    }

    /// The model's prediction for connectome `c` (`name` names it in errors), with the `TOP_EDGES` edges whose
    /// difference from the training mean moved the score most; `atlas` gives their networks.
    pub fn predict(&self, name: &str, c: &Connectome, atlas: Option<&Atlas>) -> Result<Prediction> {
        if c.n != self.regions.len() {
            return Err(AgentError::from(format!(
                "{name}: {} regions, but the cohort model ({} atlas) has {}",
                c.n,
                self.atlas,
                self.regions.len()
            )));
        }
        let z = fisher_z_upper(name, c)?;
        let score = z.iter().zip(&self.weights).map(|(a, b)| a * b).sum::<f64>() + self.intercept;
        let probability = self.calibrator.apply(score);
        let label = self.favoured(probability).to_string();
        let pairs: Vec<(usize, usize)> = (0..c.n).flat_map(|i| (i + 1..c.n).map(move |j| (i, j))).collect();
        let mut order: Vec<usize> = (0..z.len()).collect();
        let part = |k: usize| self.weights[k] * (z[k] - self.mean_all[k]);
        order.sort_by(|&a, &b| part(b).abs().total_cmp(&part(a).abs()));
        let networks = atlas.and_then(|a| a.networks.clone()).filter(|v| v.len() == c.n);
        let edges = order
            .into_iter()
            .take(TOP_EDGES)
            .map(|k| {
                let (i, j) = pairs[k];
                EdgeEvidence {
                    regions: [self.regions[i].clone(), self.regions[j].clone()],
                    networks: networks.as_ref().map(|n| [n[i].clone(), n[j].clone()]),
                    value: z[k],
                    mean_positive: self.mean_positive[k],
                    mean_negative: self.mean_negative[k],
                    contribution: part(k),
                    supports: if part(k) > 0.0 { &self.positive } else { &self.negative }.clone(),
                }
            })
            .collect();
        Ok(Prediction { positive: self.positive.clone(), probability, score, prior: self.prior, label, edges })
    }
}

/// The cross-validated report of out-of-fold scores `s` (folds `fold`): accuracy and AUROC of the scores, and
/// Brier and ECE of calibrated probabilities whose calibrator was fitted on the other folds.
fn cv_report(s: &[f64], y: &[bool], fold: &[usize], method: Method) -> std::result::Result<CvReport, String> {
    let n = y.len();
    let accuracy = (0..n).filter(|&i| (s[i] > 0.0) == y[i]).count() as f64 / n as f64;
    let auroc = calibration::auroc(s, y).ok_or("the training split holds one label")?;
    let mut p = vec![0.0; n];
    for f in 0..CV_FOLDS {
        let rest: Vec<usize> = (0..n).filter(|&i| fold[i] != f).collect();
        let cal = Calibrator::fit(
            method,
            &rest.iter().map(|&i| s[i]).collect::<Vec<_>>(),
            &rest.iter().map(|&i| y[i]).collect::<Vec<_>>(),
        )?;
        for i in (0..n).filter(|&i| fold[i] == f) {
            p[i] = cal.apply(s[i]);
        }
    }
    Ok(CvReport {
        folds: CV_FOLDS,
        accuracy,
        auroc,
        brier: calibration::brier(&p, y).unwrap_or(f64::NAN),
        ece: calibration::ece(&p, y, ECE_BINS).unwrap_or(f64::NAN),
        calibration: method,
    })
}
