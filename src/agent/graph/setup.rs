//! Building what an agent retrieves from: HARK over the shipped knowledge base, and a case memory — a
//! prebuilt one (the task's default or a folder) or one built from the training split of a cohort
//! (template-written reports, MiniLM report embeddings when the model is present, BM25 otherwise); what a
//! supervised baseline learns.

use super::baseline::Training;
use super::cohort::Row;
use super::method::{CardEncoder, Settings};
use super::task::Task;
use super::tools::Memory;
use super::tools::Resources;
use crate::agent::error::{AgentError, Result};
use crate::network::cohort::source::{Origin, Source};
use crate::retrieval::cases::{CaseMemory, GraphEncoder};
use crate::retrieval::edges::EdgeEncoder;
use crate::retrieval::knowledge::{Hark, KnowledgeBase, default_dir};
use crate::retrieval::text::{MiniLm, TextMethod};
use crate::util::error::Context;
use std::path::Path;
use std::sync::Arc;

/// MiniLM when its files are in the cache.
pub fn text_model() -> Option<Arc<MiniLm>> {
    MiniLm::shared().ok()
}

/// HARK over `assets/knowledge` (MiniLM similarity when available, else BM25).
pub fn hark() -> Result<Arc<Hark>> {
    let model = text_model();
    let method = if model.is_some() { TextMethod::Minilm } else { TextMethod::Bm25 };
    Ok(Arc::new(Hark::new(KnowledgeBase::load(&default_dir())?, method, model)?))
}

/// A saved case memory (folder or memory.json) without the cases named in `leave_out` (an evaluation's test
/// graphs), queried as `settings` say (β, k, the text query).
pub fn memory_from(dir: &Path, settings: &Settings, leave_out: &[String]) -> Result<Arc<Memory>> {
    let mut memory = CaseMemory::load(dir)?;
    memory.cases.retain(|c| !leave_out.contains(&c.id));
    let base = CaseMemory::file(dir).parent().map(Path::to_path_buf).unwrap_or_default();
    let encoder = GraphEncoder::of_memory(&memory, &base)?;
    let text = if memory.text_model == "bm25" { None } else { text_model() };
    Ok(Arc::new(Memory::new(memory, encoder, text, settings)))
}

/// A memory of `rows` (subjects of `source`), its graphs embedded by `settings.card_encoder`: the baseline
/// encoder, or the supervised one fitted on these rows (the training split) alone.
pub fn memory_of(
    source: &Source,
    rows: &[Row],
    task: &Task,
    settings: &Settings,
    cancel: &crate::util::cancel::Cancel,
) -> Result<Arc<Memory>> {
    let text = text_model();
    let encoder = match settings.card_encoder {
        CardEncoder::Baseline => GraphEncoder::Baseline,
        CardEncoder::Supervised => GraphEncoder::Supervised(Arc::new(supervised_encoder(source, rows, task)?)),
        CardEncoder::Gfm => {
            let dir = crate::util::paths::cache_dir().join("gfm");
            gfm_encoder(source, rows, task, settings.gfm_epochs, &dir, cancel)?
        }
    };
    // Case graphs are named relative to the folder of the source's graph files (a cohort file's folder).
    let base = match &source.origin.graphs {
        Some(g) => Path::new(g).to_path_buf(),
        None => Path::new(&source.origin.file).parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let memory = CaseMemory::build(
        source,
        rows,
        &task.name,
        Some(&task.atlas),
        text.as_deref(),
        None,
        &encoder,
        &base,
        &mut |_, _| {},
    )
    .map_err(|e| AgentError::from(format!("building the case memory from the training split: {e:#}")))?;
    Ok(Arc::new(Memory::new(memory, encoder, text, settings)))
}

/// The supervised graph encoder fitted on the training rows' graphs and labels.
fn supervised_encoder(source: &Source, rows: &[Row], task: &Task) -> Result<EdgeEncoder> {
    // Region labels play no part in the edges' statistics: no atlas.
    let loaded: Vec<(String, crate::network::Connectome)> = rows
        .iter()
        .map(|r| {
            let i = source.position(&r.id)?;
            Ok((source.graph_name(i), source.connectome(i)?))
        })
        .collect::<Result<_>>()?;
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    EdgeEncoder::fit(&loaded, &labels).map_err(|e| {
        AgentError::from(format!(
            "fitting CARD's supervised graph encoder on the training split of task {}: {e} (the baseline CARD \
             encoder takes graphs that are not correlation matrices)",
            task.name
        ))
    })
}

/// The GFM trained (default settings, `epochs`, seed 0, labels unused) on the training rows' graphs, from the cache
/// when these graphs trained one before: `dir/<sha256 of the graphs and settings>.safetensors` (`dir` is
/// `cache_dir()/gfm`) with its training log beside it. Shards and resumed runs of one evaluation thus share one model.
fn gfm_encoder(
    source: &Source,
    rows: &[Row],
    task: &Task,
    epochs: usize,
    dir: &Path,
    cancel: &crate::util::cancel::Cancel,
) -> Result<GraphEncoder> {
    use crate::retrieval::gfm::{GfmModel, train};
    let loaded: Vec<crate::network::Connectome> =
        rows.iter().map(|r| source.connectome_of(&r.id)).collect::<std::result::Result<_, _>>()?;
    let options = train::TrainOptions { epochs, ..train::TrainOptions::default() };
    let mut hash = crate::util::hash::Sha256Hex::new();
    hash.update(format!("{options:?}").as_bytes());
    for g in &loaded {
        hash.update(&(g.n as u64).to_le_bytes());
        g.w.iter().for_each(|v| hash.update(&v.to_le_bytes()));
    }
    let key = hash.hex();
    let path = dir.join(format!("{}.safetensors", &key[..16]));
    let fail = |e: crate::retrieval::error::RetrievalError| {
        AgentError::from(format!(
            "training CARD's GFM on the training split of task {} ({}): {e}",
            task.name,
            path.display()
        ))
    };
    // A model whose training was stopped resumes from its last checkpoint.
    let log: Option<train::TrainLog> = std::fs::read_to_string(crate::retrieval::gfm::log_path(&path))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let done = log.as_ref().map_or(0, |l| l.epochs_done);
    if !(path.is_file() && done >= options.epochs) {
        let options = train::TrainOptions { resume: done > 0, ..options };
        let log = train::train(&loaded, &path, &options, &mut |_| {}, cancel).map_err(fail)?;
        if log.epochs_done < options.epochs {
            // Stopped: the checkpoint stays for the next evaluation; no memory on a half-trained encoder.
            return Err(AgentError::from(format!(
                "training CARD's GFM on the training split of task {} was stopped after {} of {} epochs ({}); \
                 the next evaluation resumes it",
                task.name,
                log.epochs_done,
                options.epochs,
                path.display()
            )));
        }
    }
    let model = GfmModel::load(&path).map_err(fail)?;
    Ok(GraphEncoder::Gfm { model: Arc::new(model), path })
}

/// What `settings` retrieves from: HARK when it uses knowledge, the memory at `memory_dir` when it uses cases;
/// a supervised baseline learns from that memory's cases (their graphs and labels) instead.
/// `analysed` names the graph to be analysed (its file stem): a baseline leaves its group out of what it
/// learns from, as CARD leaves it out of what it retrieves.
pub fn resources(
    task: &Task,
    settings: &Settings,
    memory_dir: Option<&Path>,
    analysed: Option<&str>,
) -> Result<Resources> {
    if settings.method.is_baseline() {
        let dir = memory_dir.ok_or_else(|| {
            AgentError::from(format!(
                "{} is a supervised baseline: it learns from a case memory's labelled graphs (--memory DIR), and task {} has none",
                settings.method.as_str(),
                task.name
            ))
        })?;
        let memory = CaseMemory::load(dir)?;
        let base = CaseMemory::file(dir).parent().map(Path::to_path_buf).unwrap_or_default();
        let group = |c: &crate::retrieval::cases::Case| if c.group.is_empty() { c.id.clone() } else { c.group.clone() };
        let own = memory.cases.iter().find(|c| Some(c.id.as_str()) == analysed).map(group);
        let file = CaseMemory::file(dir);
        let origin = Origin {
            kind: "case memory".into(),
            file: file.display().to_string(),
            graphs: Some(base.display().to_string()),
            sha256: std::fs::File::open(&file)
                .and_then(crate::util::hash::sha256_reader)
                .with_context(|| file.display().to_string())?,
        };
        let cases = memory.cases.iter().filter(|c| own.as_ref() != Some(&group(c)));
        let subjects = cases
            .map(|c| {
                let s = Row { id: c.id.clone(), label: c.label.clone(), group: group(c), site: String::new() };
                (s, base.join(&c.graph))
            })
            .collect();
        let source = Source::files(origin, subjects)?;
        let training = Training::learn(settings.method, task, &source, &source.subjects)?;
        return assemble(settings, None, Some(Arc::new(training)));
    }
    let memory = match memory_dir {
        Some(d) if settings.needs_card() => Some(memory_from(d, settings, &[])?),
        _ => None,
    };
    assemble(settings, memory, None)
}

/// brainagent-hybrid's cohort model for a single analysis: the saved model at `file`, of `task`.
pub fn cohort_model(
    task: &Task,
    file: Option<&Path>,
) -> Result<Arc<(std::path::PathBuf, super::cohort_model::CohortModel)>> {
    let file = file.ok_or_else(|| {
        AgentError::from(format!(
            "brainagent-hybrid weighs a cohort model of task {}: train one with `brainlens cohort train COHORT.npz              --task {} --out MODEL` and give it (--cohort-model MODEL)",
            task.name, task.name
        ))
    })?;
    let m = super::cohort_model::CohortModel::load(file)?;
    m.check(task, file)?;
    Ok(Arc::new((file.to_path_buf(), m)))
}

/// HARK when `settings` uses knowledge, `memory` when it uses cases, `training` when it is a baseline.
pub fn assemble(
    settings: &Settings,
    memory: Option<Arc<Memory>>,
    training: Option<Arc<Training>>,
) -> Result<Resources> {
    Ok(Resources {
        hark: if settings.needs_hark() { Some(hark()?) } else { None },
        memory: memory.filter(|_| settings.needs_card()),
        training: training.filter(|_| settings.method.is_baseline()),
        cohort_model: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GFM training stopped by the evaluation's cancel is an error (no memory on a half-trained encoder),
    /// and its checkpoint is what the next evaluation resumes.
    #[test]
    fn a_stopped_gfm_training_builds_no_memory() {
        let d = tempfile::tempdir().unwrap();
        let mut labels = String::from("file,label\n");
        for i in 0..4 {
            let n = 6;
            let w: Vec<f64> = (0..n * n)
                .map(|k| if k % (n + 1) == 0 { 0.0 } else { 0.1 + ((k * (i + 3)) % 7) as f64 / 10.0 })
                .collect();
            let w: Vec<f64> = (0..n * n).map(|k| (w[k] + w[(k % n) * n + k / n]) / 2.0).collect();
            let c = crate::network::Connectome::from_matrix(
                "g",
                n,
                n,
                w,
                None,
                crate::network::connectome::Asymmetry::Error,
            )
            .unwrap();
            let file = format!("g{i}.csv");
            crate::network::io::write_csv(&d.path().join(&file), &c).unwrap();
            labels.push_str(&format!("{file},{}\n", if i % 2 == 0 { "HC" } else { "ADHD" }));
        }
        std::fs::write(d.path().join("labels.csv"), labels).unwrap();
        let source = Source::folder(d.path(), &d.path().join("labels.csv")).unwrap();
        let rows = source.subjects.clone();
        let task = Task::load("adhd").unwrap();
        let cancel = crate::util::cancel::Cancel::default();
        cancel.cancel();
        let models = d.path().join("gfm");
        let e = gfm_encoder(&source, &rows, &task, 5, &models, &cancel).err().expect("stopped");
        assert!(e.to_string().contains("was stopped after 0 of 5 epochs"), "{e}");
        let ok = gfm_encoder(&source, &rows, &task, 5, &models, &crate::util::cancel::Cancel::default());
        assert!(ok.is_ok(), "{:?}", ok.err());
    }
}
