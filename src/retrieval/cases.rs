//! Case memory and CARD (similar-case retrieval): each case keeps its graph, label, a report, the graph's
//! embedding and the report's embedding. A query graph is scored against every case with
//! β·graph-similarity + (1 − β)·text-similarity (its own report against the cases' reports); every candidate
//! is returned with both partial scores.

use super::graph::{ENCODER, embed_graph};
use super::text::{Bm25, MiniLm, TextIndex, dot};
use crate::llm::{ChatModel, ChatRequest, Message};
use crate::network::atlas::Atlas;
use crate::network::cohort::source::{Source, Subject};
use crate::network::connectome::{Asymmetry, Connectome};
use crate::network::describe::describe;
use crate::network::metrics::summary::{MetricsOptions, prepare, summarize_prepared};
use crate::retrieval::error::{Result, RetrievalError};
use crate::util::error::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Density at which reports describe a graph (the seed's proportional threshold).
pub const REPORT_DENSITY: f64 = 0.2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub id: String,
    pub label: String,
    /// Cases of one group (e.g. one scanning run) are left out together in evaluation.
    #[serde(default)]
    pub group: String,
    /// Graph file, relative to the memory folder unless absolute.
    pub graph: String,
    pub report: Value,
    /// The report text that is embedded (region, subgraph and graph levels: never the label).
    pub report_text: String,
    /// "template" (written from `describe`, no model) or "model:<name>".
    pub written_by: String,
    pub graph_embedding: Vec<f32>,
    /// Empty when the memory was built without the MiniLM model (BM25 is used then).
    #[serde(default)]
    pub report_embedding: Vec<f32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseMemory {
    pub task: String,
    pub encoder: String,
    pub text_model: String,
    pub atlas: Option<String>,
    pub cases: Vec<Case>,
}

/// How graphs are embedded: the deterministic baseline, or a trained GFM (`gfm:<model file>` in the memory).
pub enum GraphEncoder {
    Baseline,
    Gfm {
        model: std::sync::Arc<super::gfm::GfmModel>,
        path: PathBuf,
    },
    /// Fitted on an evaluation's training split (`retrieval::edges`); lives in that process, never saved.
    Supervised(std::sync::Arc<super::edges::EdgeEncoder>),
}

/// The name a memory with the supervised encoder records (followed by the training graphs' count).
const SUPERVISED: &str = "supervised-edges";

impl GraphEncoder {
    pub fn name(&self, memory_dir: &Path) -> String {
        match self {
            GraphEncoder::Baseline => ENCODER.to_string(),
            GraphEncoder::Gfm { path, .. } => format!("gfm:{}", pathdiff(path, memory_dir)),
            GraphEncoder::Supervised(e) => format!("{SUPERVISED} (fitted on {} training graphs)", e.samples),
        }
    }

    pub fn embed(&self, c: &Connectome, atlas: Option<&Atlas>) -> Result<Vec<f32>> {
        match self {
            GraphEncoder::Baseline => Ok(embed_graph(c, networks_of(atlas, c.n).as_deref())),
            GraphEncoder::Gfm { model, .. } => model.embed(c),
            GraphEncoder::Supervised(e) => e.embed("the graph", c),
        }
    }

    /// The encoder a memory was built with (loading its GFM, relative to the memory folder).
    pub fn of_memory(memory: &CaseMemory, memory_dir: &Path) -> Result<GraphEncoder> {
        if memory.encoder.starts_with(SUPERVISED) {
            return Err(RetrievalError::from(format!(
                "{}: its graph encoder ({}) was fitted by the evaluation that built the memory and is not saved; \
                 build a memory with `cases build` to use it on its own",
                memory_dir.display(),
                memory.encoder
            )));
        }
        match memory.encoder.strip_prefix("gfm:") {
            None => Ok(GraphEncoder::Baseline),
            Some(p) => {
                let path = if Path::new(p).is_absolute() { PathBuf::from(p) } else { memory_dir.join(p) };
                Ok(GraphEncoder::Gfm { model: std::sync::Arc::new(super::gfm::GfmModel::load(&path)?), path })
            }
        }
    }
}

/// One candidate of a CARD query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub case: String,
    pub label: String,
    pub group: String,
    pub graph_sim: f32,
    pub text_sim: f32,
    pub score: f32,
    pub chosen: bool,
}

fn networks_of(atlas: Option<&Atlas>, n: usize) -> Option<Vec<String>> {
    atlas.and_then(|a| a.networks.clone()).filter(|v| v.len() == n)
}

/// Loads a graph file for the memory (labels from the atlas when it matches).
pub fn load_graph(path: &Path, atlas: Option<&Atlas>) -> Result<Connectome> {
    with_atlas(crate::network::io::load(path, Asymmetry::Symmetrize)?, atlas, &path.display())
}

/// Subject `i` of `source`, its region labels the atlas' (whose region count must match).
pub fn source_graph(source: &Source, i: usize, atlas: Option<&Atlas>) -> Result<Connectome> {
    with_atlas(source.connectome(i)?, atlas, &source.graph_name(i))
}

/// `c` with `atlas`'s region labels; `name` names the graph when the region counts differ.
fn with_atlas(mut c: Connectome, atlas: Option<&Atlas>, name: &dyn std::fmt::Display) -> Result<Connectome> {
    if let Some(a) = atlas {
        if a.len() != c.n {
            return Err(RetrievalError::from(format!("{name}: {} regions but atlas {} has {}", c.n, a.name, a.len())));
        }
        c.labels = a.labels.clone();
    }
    Ok(c)
}

/// A report written from the graph's description alone (no model), marked as such.
pub fn template_report(c: &Connectome, atlas: Option<&Atlas>, label: Option<&str>) -> (Value, String) {
    let o = MetricsOptions { proportional: Some(REPORT_DENSITY), ..Default::default() };
    let w = prepare(c, &o);
    let m = summarize_prepared(c, &w, &o);
    let d = describe(c, &w, &m, atlas, None);
    let hubs: Vec<String> = d
        .hubs
        .iter()
        .filter(|h| h.by == "degree")
        .map(|h| match &h.network {
            Some(net) => format!("{} ({net})", h.label),
            None => h.label.clone(),
        })
        .collect();
    let region = format!("Highest-degree regions: {}.", hubs.join(", "));
    let mut pairs: Vec<(f64, String)> = Vec::new();
    for (i, a) in d.networks.iter().enumerate() {
        for (j, b) in d.networks.iter().enumerate().skip(i) {
            let v = d.network_strength[i][j];
            pairs.push((v, if i == j { format!("within {a}") } else { format!("{a}–{b}") }));
        }
    }
    pairs.sort_by(|x, y| y.0.total_cmp(&x.0));
    let strongest: Vec<String> = pairs.iter().take(3).map(|(v, s)| format!("{s} {v:.3}")).collect();
    let subgraph = format!(
        "{} modules; strongest mean coupling: {}.",
        d.modules.len(),
        if strongest.is_empty() { "no network labels".to_string() } else { strongest.join("; ") }
    );
    let g = &d.graph;
    let graph = format!(
        "At {:.0}% density: mean clustering {:.3}, global efficiency {:.3}, characteristic path length {}, modularity {:.3}.",
        g.density * 100.0,
        g.mean_clustering,
        g.global_efficiency,
        g.char_path_length.map_or("infinite".to_string(), |l| format!("{l:.3}")),
        g.modularity
    );
    let text = format!("{region} {subgraph} {graph}");
    let report = json!({
        "region_level": region, "subgraph_level": subgraph, "graph_level": graph,
        "case_level": label.map_or("Label unknown.".to_string(), |l| format!("Label given: {l}.")),
        "conclusion": "Template-written from the graph's metrics; no language model interpreted this case.",
        "if_manual": false,
    });
    (report, text)
}

fn report_schema() -> Value {
    json!({"type": "object", "properties": {
        "region_level": {"type": "string"}, "subgraph_level": {"type": "string"}, "graph_level": {"type": "string"},
        "case_level": {"type": "string"}, "conclusion": {"type": "string"}, "if_manual": {"type": "boolean"}
    }, "required": ["region_level", "subgraph_level", "graph_level", "case_level", "conclusion", "if_manual"]})
}

/// A report written by `model` given the graph's description and its label, then checked by a second pass of
/// the model against the same facts (schema-constrained JSON; the draft is kept; `if_manual` flags reports a
/// person should review).
pub fn model_report(
    model: &dyn ChatModel,
    c: &Connectome,
    atlas: Option<&Atlas>,
    label: &str,
    task: &str,
) -> Result<(Value, String)> {
    let (facts, text) = template_report(c, atlas, None);
    let request = ChatRequest {
        max_tokens: 400,
        ..ChatRequest::new(vec![
            Message::system("You write case reports for a memory of labelled brain networks. Use only the facts given."),
            Message::user(format!(
                "Task: {task}. This case's label is {label}.\nFacts: {text}\nWrite the report at region, subgraph, graph and case level, then a conclusion. Set if_manual to false."
            )),
        ])
    }
    .with_schema("case_report", report_schema());
    let draft =
        model.chat(&request)?.json.ok_or_else(|| RetrievalError::from(format!("the model returned no JSON report")))?;
    // Second pass (the seed's refiner): check the draft against the facts, rewrite unsupported claims, and set
    // if_manual when a person should look at it.
    let refine = ChatRequest {
        max_tokens: 400,
        ..ChatRequest::new(vec![
            Message::system("You check case reports of labelled brain networks against the facts they were written from."),
            Message::user(format!(
                "Facts: {text}\nLabel: {label}\nDraft report: {draft}\nReturn the report with any claim not supported by the facts removed or corrected. Set if_manual to true if the draft contradicted the facts or you are unsure, else false."
            )),
        ])
    }
    .with_schema("case_report", report_schema());
    let mut report = model
        .chat(&refine)?
        .json
        .ok_or_else(|| RetrievalError::from(format!("the refiner returned no JSON report")))?;
    report["draft"] = draft;
    report["facts"] = facts;
    let text = Case::embedded_text(&report);
    Ok((report, text))
}

impl CaseMemory {
    /// Builds a memory of `subjects` (each one of `source`'s); a case's graph is named relative to `memory_dir`.
    pub fn build(
        source: &Source,
        subjects: &[Subject],
        task: &str,
        atlas_spec: Option<&str>,
        text: Option<&MiniLm>,
        model: Option<&dyn ChatModel>,
        encoder: &GraphEncoder,
        memory_dir: &Path,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<CaseMemory> {
        let atlas = atlas_spec.map(Atlas::load).transpose()?;
        let mut cases = Vec::with_capacity(subjects.len());
        for (n, subject) in subjects.iter().enumerate() {
            progress(n, subjects.len());
            let i = source.position(&subject.id)?;
            let name = source.graph_name(i);
            let c = source_graph(source, i, atlas.as_ref())?;
            let graph_embedding = encoder.embed(&c, atlas.as_ref()).with_context(|| name.clone())?;
            if let Some(first) = cases.first().map(|x: &Case| x.graph_embedding.len()) {
                if graph_embedding.len() != first {
                    return Err(RetrievalError::from(format!(
                        "{name}: {} regions, unlike the memory's first graph",
                        c.n
                    )));
                }
            }
            let label = &subject.label;
            let (report, report_text, written_by) = match model {
                Some(m) => {
                    let (r, t) = model_report(m, &c, atlas.as_ref(), label, task).with_context(|| name.clone())?;
                    (r, t, format!("model:{}", m.name()))
                }
                None => {
                    let (r, t) = template_report(&c, atlas.as_ref(), Some(label));
                    (r, t, "template".to_string())
                }
            };
            cases.push(Case {
                id: subject.id.clone(),
                label: label.clone(),
                group: subject.group.clone(),
                graph: pathdiff(source.graph_file(i), memory_dir),
                report,
                report_text,
                written_by,
                graph_embedding,
                report_embedding: Vec::new(),
            });
        }
        if let Some(m) = text {
            let texts: Vec<String> = cases.iter().map(|c| c.report_text.clone()).collect();
            for (case, v) in cases.iter_mut().zip(super::text::cache::embeddings(m, &texts)?) {
                case.report_embedding = v;
            }
        }
        progress(subjects.len(), subjects.len());
        Ok(CaseMemory {
            task: task.to_string(),
            encoder: encoder.name(memory_dir),
            text_model: if text.is_some() { "all-MiniLM-L6-v2".into() } else { "bm25".into() },
            atlas: atlas_spec.map(String::from),
            cases,
        })
    }

    pub fn file(dir: &Path) -> PathBuf {
        if dir.extension().is_some_and(|e| e == "json") { dir.to_path_buf() } else { dir.join("memory.json") }
    }

    pub fn load(path: &Path) -> Result<CaseMemory> {
        let file = Self::file(path);
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("{}: cannot read the case memory", file.display()))?;
        let m: CaseMemory =
            serde_json::from_str(&text).with_context(|| format!("{}: not a case memory", file.display()))?;
        if m.encoder != ENCODER && !m.encoder.starts_with("gfm:") {
            return Err(RetrievalError::from(format!(
                "{}: graph encoder \"{}\" (this build has {ENCODER} and gfm:<model>)",
                file.display(),
                m.encoder
            )));
        }
        let dim = m.cases.first().map_or(0, |c| c.graph_embedding.len());
        if let Some(bad) = m.cases.iter().find(|c| c.graph_embedding.len() != dim) {
            return Err(RetrievalError::from(format!(
                "{}: case {} has a graph embedding of {} values, not {dim}",
                file.display(),
                bad.id,
                bad.graph_embedding.len()
            )));
        }
        Ok(m)
    }

    pub fn save(&self, dir: &Path) -> Result<PathBuf> {
        let file = Self::file(dir);
        if let Some(d) = file.parent() {
            std::fs::create_dir_all(d)?;
        }
        let tmp = file.with_extension("json.partial");
        std::fs::write(&tmp, serde_json::to_string_pretty(self)? + "\n")?;
        std::fs::rename(&tmp, &file)?;
        Ok(file)
    }

    /// Text similarity of a query report to every case's report: MiniLM cosine when the memory and the
    /// model have it, else BM25 scaled to [0, 1] by the best case.
    pub fn text_scores(&self, report_text: &str, model: Option<&MiniLm>) -> Result<Vec<f32>> {
        if let Some(m) = model.filter(|_| self.cases.iter().all(|c| !c.report_embedding.is_empty())) {
            let q = m.embed(&[report_text])?.remove(0);
            return Ok(self.cases.iter().map(|c| dot(&q, &c.report_embedding)).collect());
        }
        let docs: Vec<String> = self.cases.iter().map(|c| c.report_text.clone()).collect();
        let s = Bm25::new(&docs).scores(report_text)?;
        let max = s.iter().cloned().fold(0.0f32, f32::max);
        Ok(s.iter().map(|x| if max > 0.0 { x / max } else { 0.0 }).collect())
    }

    /// Every case ranked by β·graph + (1 − β)·text; the top `k` are `chosen`. Cases of `exclude_group`, and cases
    /// flagged for review and not yet reviewed ([`Case::needs_review`]), are left out.
    pub fn rank(
        &self,
        graph_embedding: &[f32],
        text: &[f32],
        beta: f32,
        k: usize,
        exclude_group: Option<&str>,
    ) -> Result<Vec<Hit>> {
        if !(0.0..=1.0).contains(&beta) {
            return Err(RetrievalError::from(format!("β = {beta}: must be between 0 and 1")));
        }
        let dim = self.cases.first().map_or(0, |c| c.graph_embedding.len());
        if dim != graph_embedding.len() {
            return Err(RetrievalError::from(format!(
                "the query graph's embedding has {} values; this memory's graphs have {dim} (different atlas or region count)",
                graph_embedding.len()
            )));
        }
        let mut hits: Vec<Hit> = self
            .cases
            .iter()
            .zip(text)
            .filter(|(c, _)| exclude_group.is_none_or(|g| c.group != g) && !c.needs_review())
            .map(|(c, &t)| {
                let g = dot(graph_embedding, &c.graph_embedding);
                Hit {
                    case: c.id.clone(),
                    label: c.label.clone(),
                    group: c.group.clone(),
                    graph_sim: g,
                    text_sim: t,
                    score: beta * g + (1.0 - beta) * t,
                    chosen: false,
                }
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.case.cmp(&b.case)));
        for h in hits.iter_mut().take(k) {
            h.chosen = true;
        }
        Ok(hits)
    }
}

/// `path` relative to `base` when it lies under it, else as given.
fn pathdiff(path: &Path, base: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (p, b) = (abs(path), abs(base));
    p.strip_prefix(&b).map(|r| r.display().to_string()).unwrap_or_else(|_| p.display().to_string())
}

/// Leave-one-group-out retrieval quality: for each case, the other groups' cases are ranked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalRow {
    pub beta: f32,
    pub precision_at_1: f64,
    pub precision_at_k: f64,
    pub hit_at_k: f64,
}

pub fn evaluate(memory: &CaseMemory, model: Option<&MiniLm>, k: usize, betas: &[f32]) -> Result<Vec<EvalRow>> {
    // A case's report is already embedded in the memory: its text similarities need no model run.
    let stored = memory.cases.iter().all(|c| !c.report_embedding.is_empty());
    let texts: Vec<Vec<f32>> = memory
        .cases
        .iter()
        .map(|c| match stored {
            true => Ok(memory.cases.iter().map(|o| dot(&c.report_embedding, &o.report_embedding)).collect()),
            false => memory.text_scores(&c.report_text, model),
        })
        .collect::<Result<_>>()?;
    betas
        .iter()
        .map(|&beta| {
            let (mut p1, mut pk, mut hk) = (0.0, 0.0, 0.0);
            for (c, t) in memory.cases.iter().zip(&texts) {
                let exclude = if c.group.is_empty() { None } else { Some(c.group.as_str()) };
                let hits: Vec<Hit> = memory
                    .rank(&c.graph_embedding, t, beta, k, exclude)?
                    .into_iter()
                    .filter(|h| h.case != c.id)
                    .collect();
                let same = |h: &Hit| (h.label == c.label) as u8 as f64;
                p1 += hits.first().map_or(0.0, same);
                let top: Vec<&Hit> = hits.iter().take(k).collect();
                pk += top.iter().map(|h| same(h)).sum::<f64>() / k as f64;
                hk += top.iter().any(|h| h.label == c.label) as u8 as f64;
            }
            let n = memory.cases.len().max(1) as f64;
            Ok(EvalRow { beta, precision_at_1: p1 / n, precision_at_k: pk / n, hit_at_k: hk / n })
        })
        .collect()
}
