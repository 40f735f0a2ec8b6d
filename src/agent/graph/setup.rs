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
use crate::retrieval::cases::{CaseMemory, GraphEncoder, load_graph};
use crate::retrieval::edges::EdgeEncoder;
use crate::retrieval::knowledge::{Hark, KnowledgeBase, default_dir};
use crate::retrieval::text::{MiniLm, TextMethod};
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
/// graphs).
pub fn memory_from(dir: &Path, beta: f32, k: usize, leave_out: &[String]) -> Result<Arc<Memory>> {
    let mut memory = CaseMemory::load(dir)?;
    memory.cases.retain(|c| !leave_out.contains(&c.id));
    let base = CaseMemory::file(dir).parent().map(Path::to_path_buf).unwrap_or_default();
    let encoder = GraphEncoder::of_memory(&memory, &base)?;
    let text = if memory.text_model == "bm25" { None } else { text_model() };
    Ok(Arc::new(Memory { memory, encoder, text_model: text, beta, k }))
}

/// A memory of `rows` (graph files relative to `graphs`), its graphs embedded by `settings.card_encoder`: the
/// baseline encoder, or the supervised one fitted on these rows (the training split) alone.
pub fn memory_of(graphs: &Path, rows: &[Row], task: &Task, settings: &Settings) -> Result<Arc<Memory>> {
    let text = text_model();
    let labels: Vec<(String, String, String)> =
        rows.iter().map(|r| (r.file.clone(), r.label.clone(), r.group.clone())).collect();
    let encoder = match settings.card_encoder {
        CardEncoder::Baseline => GraphEncoder::Baseline,
        CardEncoder::Supervised => GraphEncoder::Supervised(Arc::new(supervised_encoder(graphs, rows, task)?)),
        CardEncoder::Gfm => gfm_encoder(graphs, rows, task, settings.gfm_epochs)?,
    };
    let memory = CaseMemory::build(
        graphs,
        &labels,
        &task.name,
        Some(&task.atlas),
        text.as_deref(),
        None,
        &encoder,
        graphs,
        &mut |_, _| {},
    )
    .map_err(|e| AgentError::from(format!("building the case memory from the training split: {e:#}")))?;
    Ok(Arc::new(Memory { memory, encoder, text_model: text, beta: settings.beta, k: settings.k }))
}

/// The supervised graph encoder fitted on the training rows' graphs and labels.
fn supervised_encoder(graphs: &Path, rows: &[Row], task: &Task) -> Result<EdgeEncoder> {
    // Region labels play no part in the edges' statistics: no atlas.
    let loaded: Vec<(String, crate::network::Connectome)> = rows
        .iter()
        .map(|r| {
            let path = graphs.join(&r.file);
            load_graph(&path, None).map(|c| (path.display().to_string(), c))
        })
        .collect::<std::result::Result<_, _>>()?;
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
/// when these graphs trained one before: `cache_dir()/gfm/<sha256 of the graphs and settings>.safetensors`
/// with its training log beside it. Shards and resumed runs of one evaluation thus share one model.
fn gfm_encoder(graphs: &Path, rows: &[Row], task: &Task, epochs: usize) -> Result<GraphEncoder> {
    use crate::retrieval::gfm::{GfmModel, train};
    let loaded: Vec<crate::network::Connectome> =
        rows.iter().map(|r| load_graph(&graphs.join(&r.file), None)).collect::<std::result::Result<_, _>>()?;
    let options = train::TrainOptions { epochs, ..train::TrainOptions::default() };
    let mut bytes = format!("{options:?}").into_bytes();
    for g in &loaded {
        bytes.extend_from_slice(&(g.n as u64).to_le_bytes());
        bytes.extend(g.w.iter().flat_map(|v| v.to_le_bytes()));
    }
    let key = crate::util::hash::sha256_hex(&bytes);
    let path = crate::util::paths::cache_dir().join("gfm").join(format!("{}.safetensors", &key[..16]));
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
        let cancel = crate::util::cancel::Cancel::default();
        train::train(&loaded, &path, &options, &mut |_| {}, &cancel).map_err(fail)?;
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
        let samples: Vec<_> = memory
            .cases
            .iter()
            .filter(|c| own.as_ref() != Some(&group(c)))
            .map(|c| (base.join(&c.graph), c.label.clone()))
            .collect();
        return assemble(settings, None, Some(Arc::new(Training::learn(settings.method, task, &samples)?)));
    }
    let memory = match memory_dir {
        Some(d) if settings.needs_card() => Some(memory_from(d, settings.beta, settings.k, &[])?),
        _ => None,
    };
    assemble(settings, memory, None)
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
    })
}
