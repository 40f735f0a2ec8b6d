//! The supervised baselines an agent is measured against — not agents: `majority` (the training split's
//! most common label) and `logistic` (an L2 logistic regression on the Fisher-z upper triangle, its strength
//! chosen by stratified 5-fold cross-validation on the training split only, as scikit-learn's
//! `LogisticRegressionCV(Cs=10, cv=5)` chooses it). Both learn from the training split alone.

use super::method::Method;
use super::task::Task;
use super::trace::Decision;
use crate::agent::error::{AgentError, Result};
use crate::network::atlas::Atlas;
use crate::network::cohort::source::{Source, Subject};
use crate::network::connectome::Connectome;
use crate::network::features::fisher_z_upper;
use crate::util::logistic::{self, CvFit};

/// Folds of the cross-validation that chooses the logistic regression's strength.
pub const CV_FOLDS: usize = 5;

/// What a baseline learned from the training split.
pub struct Training {
    /// One label per training sample.
    pub labels: Vec<String>,
    pub logistic: Option<Logistic>,
}

pub struct Logistic {
    pub fit: CvFit,
    /// The label the regression's probability is of (the task's positive label) and the other one.
    pub positive: String,
    pub negative: String,
    /// Training graphs.
    pub samples: usize,
}

impl Training {
    /// Learns `method`'s baseline from `samples` (subjects of `source`).
    pub fn learn(method: Method, task: &Task, source: &Source, samples: &[Subject]) -> Result<Training> {
        let labels: Vec<String> = samples.iter().map(|s| s.label.clone()).collect();
        if !labels.iter().any(|l| task.labels.contains(l)) {
            return Err(AgentError::from("the training split has no sample with a label of this task".to_string()));
        }
        let logistic = match method {
            Method::Logistic => Some(Logistic::learn(task, source, samples)?),
            _ => None,
        };
        Ok(Training { labels, logistic })
    }

    /// The majority baseline's decision.
    pub fn majority(&self, task: &Task) -> Decision {
        let counts: Vec<(String, usize)> =
            task.labels.iter().map(|l| (l.clone(), self.labels.iter().filter(|c| *c == l).count())).collect();
        // The first of the most common (task order breaks ties).
        let (label, n) = counts.iter().fold(&counts[0], |best, c| if c.1 > best.1 { c } else { best });
        let shares = counts.iter().map(|(l, c)| format!("{l} {c}")).collect::<Vec<_>>().join(", ");
        Decision {
            label: label.clone(),
            confidence: *n as f64 / self.labels.len().max(1) as f64,
            rationale: format!(
                "Supervised baseline, not an agent: the training split's most common label ({shares} of {} samples). The graph is not read.",
                self.labels.len()
            ),
            ..Default::default()
        }
    }
}

impl Logistic {
    fn learn(task: &Task, source: &Source, samples: &[Subject]) -> Result<Logistic> {
        let [negative, positive] = binary_labels(task)?;
        let atlas = Atlas::load(&task.atlas).ok();
        let (x, p, y) = training_matrix(source, samples, atlas.as_ref(), &positive)?;
        let counts = [y.iter().filter(|v| !**v).count(), y.iter().filter(|v| **v).count()];
        if counts.iter().any(|&n| n < CV_FOLDS) {
            return Err(AgentError::from(format!(
                "logistic: the training split has {} {negative} and {} {positive} samples; {CV_FOLDS}-fold cross-validation needs at least {CV_FOLDS} of each",
                counts[0], counts[1]
            )));
        }
        let fit = logistic::fit_cv(&x, p, &y, &logistic::default_cs(), CV_FOLDS);
        Ok(Logistic { fit, positive, negative, samples: y.len() })
    }

    /// The regression's decision on one graph.
    pub fn decide(&self, name: &str, c: &Connectome) -> Result<Decision> {
        let z = features(name, c)?;
        if z.len() != self.fit.model.w.len() {
            return Err(AgentError::from(format!(
                "{name}: {} regions, but the regression was trained on {}-feature graphs",
                c.n,
                self.fit.model.w.len()
            )));
        }
        let p = self.fit.model.probability(&z);
        let (label, confidence) = if p > 0.5 { (&self.positive, p) } else { (&self.negative, 1.0 - p) };
        let best = self.fit.cs.iter().position(|&c| c == self.fit.model.c).unwrap_or(0);
        Ok(Decision {
            label: label.clone(),
            confidence,
            rationale: format!(
                "Supervised baseline, not an agent: an L2 logistic regression on the Fisher z of the {} upper-triangle connections, trained on {} labelled graphs; C = {:.4e} chosen by {}-fold cross-validation on them (accuracy {:.3}). P({}) = {p:.3}.",
                z.len(),
                self.samples,
                self.fit.model.c,
                self.fit.folds,
                self.fit.scores[best],
                self.positive
            ),
            label_probabilities: Some(vec![(self.negative.clone(), 1.0 - p), (self.positive.clone(), p)]),
            ..Default::default()
        })
    }
}

fn features(path: impl AsRef<std::path::Path>, c: &Connectome) -> Result<Vec<f64>> {
    Ok(fisher_z_upper(&path.as_ref().display().to_string(), c)?)
}

/// The Fisher z upper triangle of each of `samples` (rows of a row-major matrix, `p` columns) and whether
/// each is `positive`; every graph must have the first one's region count.
pub(super) fn training_matrix(
    source: &Source,
    samples: &[Subject],
    atlas: Option<&Atlas>,
    positive: &str,
) -> Result<(Vec<f64>, usize, Vec<bool>)> {
    let mut x = Vec::new();
    let mut y = Vec::with_capacity(samples.len());
    let mut p = None;
    for s in samples {
        let i = source.position(&s.id)?;
        let name = source.graph_name(i);
        let c = crate::retrieval::cases::source_graph(source, i, atlas)?;
        let z = features(&name, &c)?;
        if *p.get_or_insert(z.len()) != z.len() {
            return Err(AgentError::from(format!("{name}: {} regions, unlike the training split's first graph", c.n)));
        }
        x.extend(z);
        y.push(s.label == positive);
    }
    Ok((x, p.unwrap_or(0), y))
}

/// [other, positive] of a two-label task.
pub(super) fn binary_labels(task: &Task) -> Result<[String; 2]> {
    match task.labels.as_slice() {
        [a, b] => Ok(if *b == task.positive { [a.clone(), b.clone()] } else { [b.clone(), a.clone()] }),
        l => Err(AgentError::from(format!(
            "logistic is a two-label baseline; task {} has {} labels ({})",
            task.name,
            l.len(),
            l.join(", ")
        ))),
    }
}
