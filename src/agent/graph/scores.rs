//! How well a run's per-subject probability ranks and is calibrated: each tested subject's P(positive label),
//! the mean over its runs with a decision — the label probability the decision records (the local decoder's
//! likelihood of each label, a regression's P) or, where none was recorded, the stated confidence turned into
//! P(positive) and marked as such — against the truth: AUROC, Brier score and ECE over ten bins
//! (`util::calibration`) beside the ECE a calibrated P would show on the same subjects, and the reliability
//! diagram.

use super::runfile::{Record, RunFile};
use super::task::Task;
use crate::util::calibration::{self, Bin};
use crate::util::chart::scene::{Anchor, Item, Rgba, Scene};
use serde::Serialize;

/// Bins of the ECE and the reliability diagram.
pub const BINS: usize = 10;

/// Draws of the ECE a calibrated P would show on the same subjects (`calibration::ece_if_calibrated`, seed 0).
pub const CALIBRATED_DRAWS: usize = 2000;

/// Where a run's P(positive) comes from.
pub const FROM_PROBABILITY: &str = "label probability";
pub const FROM_CONFIDENCE: &str = "stated confidence (a decision's confidence, not a probability it computed)";

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ProbabilityScores {
    /// The label P is of.
    pub positive: String,
    /// `FROM_PROBABILITY`, `FROM_CONFIDENCE`, or both joined when runs differ.
    pub source: String,
    /// Subjects with a P (those whose runs all failed have none).
    pub samples: usize,
    pub auroc: Option<f64>,
    pub brier: Option<f64>,
    pub ece: Option<f64>,
    /// The ECE a perfectly calibrated P would show on these subjects (outcomes drawn from the P itself).
    pub ece_if_calibrated: Option<calibration::EceIfCalibrated>,
    pub reliability: Vec<Bin>,
}

/// `source` in a table cell: probability, stated confidence or mixed.
pub fn short_source(source: &str) -> &'static str {
    match source {
        FROM_PROBABILITY => "probability",
        FROM_CONFIDENCE => "stated confidence",
        _ => "mixed",
    }
}

/// P(positive) of one run with a decision, and whether it is a probability (not a stated confidence).
fn p_positive(r: &Record, positive: &str) -> Option<(f64, bool)> {
    let d = r.trace.decision.as_ref()?;
    if let Some(p) = d.label_probabilities.as_ref().and_then(|v| v.iter().find(|(l, _)| l == positive)) {
        return Some((p.1, true));
    }
    let c = d.confidence.clamp(0.0, 1.0);
    Some((if d.label == positive { c } else { 1.0 - c }, false))
}

/// The scores of a run file's tested subjects; None when no subject has a P.
pub fn of(run: &RunFile, task: &Task) -> Option<ProbabilityScores> {
    let (mut p, mut y) = (Vec::new(), Vec::new());
    let (mut probability, mut confidence) = (false, false);
    for sample in &run.header.test {
        let recs: Vec<&Record> = run.records.iter().filter(|r| &r.sample == sample).collect();
        let Some(truth) = recs.first().map(|r| r.truth == task.positive) else { continue };
        let ps: Vec<(f64, bool)> = recs.iter().filter_map(|r| p_positive(r, &task.positive)).collect();
        if ps.is_empty() {
            continue;
        }
        probability |= ps.iter().any(|x| x.1);
        confidence |= ps.iter().any(|x| !x.1);
        p.push(ps.iter().map(|x| x.0).sum::<f64>() / ps.len() as f64);
        y.push(truth);
    }
    if p.is_empty() {
        return None;
    }
    let source = match (probability, confidence) {
        (true, true) => format!("{FROM_PROBABILITY}; {FROM_CONFIDENCE} where none was recorded"),
        (true, false) => FROM_PROBABILITY.to_string(),
        _ => FROM_CONFIDENCE.to_string(),
    };
    let ece = calibration::ece(&p, &y, BINS);
    Some(ProbabilityScores {
        positive: task.positive.clone(),
        source,
        samples: p.len(),
        auroc: calibration::auroc(&p, &y),
        brier: calibration::brier(&p, &y),
        ece,
        ece_if_calibrated: ece.and_then(|e| calibration::ece_if_calibrated(&p, e, BINS, CALIBRATED_DRAWS, 0)),
        reliability: calibration::reliability(&p, &y, BINS),
    })
}

impl ProbabilityScores {
    /// One line: the source, then AUROC, Brier and ECE.
    pub fn line(&self) -> String {
        let f = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.3}"));
        format!(
            "P({}) from the {} ({} subjects): AUROC {}, Brier {}, ECE ({BINS} bins) {}{}",
            self.positive,
            self.source,
            self.samples,
            f(self.auroc),
            f(self.brier),
            f(self.ece),
            self.ece_reference().map_or(String::new(), |r| format!("; {r}"))
        )
    }

    /// What a calibrated P would show on these subjects, in words: "a calibrated P on these 60 subjects
    /// shows ECE 0.118 in the median of 2000 draws, ≤ 0.169 in 90 %, at least this one in 57 %".
    pub fn ece_reference(&self) -> Option<String> {
        let r = self.ece_if_calibrated?;
        Some(format!(
            "a calibrated P on these {} subjects shows ECE {:.3} in the median of {} draws, ≤ {:.3} in 90 %, at least this one in {:.0} %",
            self.samples,
            r.median,
            r.draws,
            r.p90,
            100.0 * r.at_least_observed
        ))
    }
}

/// The reliability diagram of `s`: mean predicted P(positive) against the observed share of positives per
/// bin (a dot sized by its subjects), the diagonal of perfect calibration, titled `title`.
pub fn reliability_scene(s: &ProbabilityScores, title: &str) -> Scene {
    let (w, h, m) = (420.0f32, 420.0f32, 50.0f32);
    let side = w - 2.0 * m;
    let at = |x: f64, y: f64| [m + side * x as f32, h - m - side * y as f32];
    let grey = Rgba::rgb([170, 170, 170]);
    let ink = Rgba::rgb([40, 40, 40]);
    let mut sc = Scene::new(w, h);
    sc.text([w / 2.0, 20.0], title, 13.0, ink, Anchor::Middle);
    for t in 0..=5 {
        let v = t as f64 / 5.0;
        sc.push(Item::Line { a: at(v, 0.0), b: at(v, 1.0), width: 0.5, color: Rgba::rgb([225, 225, 225]) });
        sc.push(Item::Line { a: at(0.0, v), b: at(1.0, v), width: 0.5, color: Rgba::rgb([225, 225, 225]) });
        sc.text([at(v, 0.0)[0], h - m + 16.0], format!("{v:.1}"), 11.0, ink, Anchor::Middle);
        sc.text([m - 6.0, at(0.0, v)[1] + 4.0], format!("{v:.1}"), 11.0, ink, Anchor::End);
    }
    sc.push(Item::Line { a: at(0.0, 0.0), b: at(1.0, 1.0), width: 1.0, color: grey });
    sc.text([w / 2.0, h - 12.0], format!("mean predicted P({})", s.positive), 12.0, ink, Anchor::Middle);
    sc.text([14.0, 44.0], "observed share", 12.0, ink, Anchor::Start);
    let blue = Rgba::rgb([31, 119, 180]);
    let pts: Vec<[f32; 2]> = s.reliability.iter().map(|b| at(b.mean_predicted, b.observed)).collect();
    if pts.len() > 1 {
        sc.push(Item::Polyline { pts: pts.clone(), width: 1.5, color: blue });
    }
    let most = s.reliability.iter().map(|b| b.samples).max().unwrap_or(1) as f32;
    for (b, c) in s.reliability.iter().zip(pts) {
        let r = 3.0 + 6.0 * (b.samples as f32 / most).sqrt();
        sc.push(Item::Circle { c, r, fill: blue, stroke: None });
    }
    sc
}
