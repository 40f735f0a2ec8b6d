//! `brainlens cohort train|predict`: a cohort model trained on a cohort's training split, and its prediction
//! (calibrated P, the edges that moved it) for one connectome.

use super::write_json;
use crate::agent::graph::Task;
use crate::agent::graph::cohort_model::{CohortModel, Prediction};
use crate::network::cohort::source::Source;
use crate::util::calibration::Method;
use crate::util::cancel::Cancel;
use anyhow::{Result, anyhow};
use std::io::Write;
use std::path::Path;

/// `cohort train`: the model written to `target` (nothing written on an error).
pub fn train(
    cohort: &Path,
    task: &str,
    target: &Path,
    (fraction, seed): (f64, u64),
    calibration: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let started = std::time::Instant::now();
    let task = Task::load(task)?;
    let method = Method::parse(calibration).map_err(|e| anyhow!(e))?;
    let source = Source::cohort_file(cohort)?;
    let cancel = Cancel::default();
    super::on_interrupt(cancel.clone());
    let model = CohortModel::train(&source, &task, fraction, seed, method, &cancel)?;
    model.save(target)?;
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let mut v = serde_json::json!({
            "out": target.display().to_string(), "task": model.task, "atlas": model.atlas,
            "cohort": model.cohort, "train": model.split.train.len(), "test": model.split.test.len(),
            "c": model.c, "cv": model.cv, "seconds": seconds,
        });
        v["calibrator"] = serde_json::to_value(&model.calibrator)?;
        return write_json(out, &v);
    }
    let cv = &model.cv;
    writeln!(out, "{}: cohort model of task {} ({} atlas)", target.display(), model.task, model.atlas)?;
    writeln!(out, "cohort: {}", model.cohort.describe())?;
    writeln!(
        out,
        "training split: {} subjects (test split of {} left unread; fraction {}, seed {})",
        model.split.train.len(),
        model.split.test.len(),
        model.split.fraction,
        model.split.seed
    )?;
    writeln!(out, "logistic regression: C = {:.4e} ({}-fold cross-validation)", model.c, cv.folds)?;
    writeln!(
        out,
        "cross-validated on the training split: accuracy {:.3}, AUROC {:.3}; {} calibration: Brier {:.3}, ECE {:.3}",
        cv.accuracy,
        cv.auroc,
        cv.calibration.as_str(),
        cv.brier,
        cv.ece
    )?;
    writeln!(out, "trained in {seconds:.1} s")?;
    Ok(())
}

/// `cohort predict`: the model's evidence for one graph.
pub fn predict(
    model_file: &Path,
    graph: &Path,
    atlas: Option<&str>,
    task: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let model = CohortModel::load(model_file)?;
    let task = task.map(Task::load).transpose()?;
    let p = model.predict_file(model_file, graph, atlas, task.as_ref())?;
    if json {
        return write_json(out, &p);
    }
    print_prediction(&p, &model, out)
}

fn print_prediction(p: &Prediction, m: &CohortModel, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "P({}) = {:.3} (calibrated, {}; score {:.3}) against the training split's rate {:.3}: {}",
        p.positive,
        p.probability,
        m.calibrator.method().as_str(),
        p.score,
        p.prior,
        p.label
    )?;
    writeln!(
        out,
        "model: task {}, trained on {} subjects of {}; cross-validated accuracy {:.3}, AUROC {:.3}",
        m.task,
        m.split.train.len(),
        m.cohort.file,
        m.cv.accuracy,
        m.cv.auroc
    )?;
    writeln!(out, "\nthe {} edges that moved the score most (Fisher z):", p.edges.len())?;
    writeln!(
        out,
        "{:<44} {:>7} {:>8} {:>8} {:>8}  supports",
        "edge",
        "value",
        format!("mean {}", m.positive),
        format!("mean {}", m.negative),
        "part"
    )?;
    for e in &p.edges {
        let nets = e.networks.as_ref().map(|n| format!(" [{}–{}]", n[0], n[1])).unwrap_or_default();
        writeln!(
            out,
            "{:<44} {:>7.3} {:>8.3} {:>8.3} {:>+8.3}  {}",
            format!("{} – {}{nets}", e.regions[0], e.regions[1]),
            e.value,
            e.mean_positive,
            e.mean_negative,
            e.contribution,
            e.supports
        )?;
    }
    Ok(())
}
