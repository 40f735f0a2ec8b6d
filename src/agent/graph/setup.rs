//! Building what an agent retrieves from: HARK over the shipped knowledge base, and a case memory — a
//! prebuilt one (the task's default or a folder) or one built from the training split of a cohort
//! (template-written reports, MiniLM report embeddings when the model is present, BM25 otherwise).

use super::cohort::Row;
use super::method::Settings;
use super::task::Task;
use super::tools::Memory;
use super::tools::Resources;
use crate::agent::error::{AgentError, Result};
use crate::retrieval::cases::{CaseMemory, GraphEncoder};
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

/// A memory of `rows` (graph files relative to `graphs`).
pub fn memory_of(graphs: &Path, rows: &[Row], task: &Task, beta: f32, k: usize) -> Result<Arc<Memory>> {
    let text = text_model();
    let labels: Vec<(String, String, String)> =
        rows.iter().map(|r| (r.file.clone(), r.label.clone(), r.group.clone())).collect();
    let memory = CaseMemory::build(
        graphs,
        &labels,
        &task.name,
        Some(&task.atlas),
        text.as_deref(),
        None,
        &GraphEncoder::Baseline,
        graphs,
        &mut |_, _| {},
    )
    .map_err(|e| AgentError::from(format!("building the case memory from the training split: {e:#}")))?;
    Ok(Arc::new(Memory { memory, encoder: GraphEncoder::Baseline, text_model: text, beta, k }))
}

/// What `settings` retrieves from: HARK when it uses knowledge, the memory at `memory_dir` when it uses cases.
pub fn resources(settings: &Settings, memory_dir: Option<&Path>) -> Result<Resources> {
    let memory = match memory_dir {
        Some(d) if settings.needs_card() => Some(memory_from(d, settings.beta, settings.k, &[])?),
        _ => None,
    };
    with_memory(settings, memory)
}

/// HARK when `settings` uses knowledge, and `memory` when it uses cases.
pub fn with_memory(settings: &Settings, memory: Option<Arc<Memory>>) -> Result<Resources> {
    Ok(Resources {
        hark: if settings.needs_hark() { Some(hark()?) } else { None },
        memory: memory.filter(|_| settings.needs_card()),
    })
}
