//! `brainlens embed`: the text representations retrieval compares.

use super::write_json;
use crate::retrieval::text::bm25::tokenize;
use crate::retrieval::text::{MiniLm, TextMethod};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `embed TEXT --model minilm|bm25`: the unit-length MiniLM vector, or BM25's bag of words.
pub fn embed(text: &str, model: &str, json: bool, out: &mut dyn Write) -> Result<()> {
    match TextMethod::parse(model).map_err(|e| anyhow!(e))? {
        TextMethod::Minilm => {
            let m = MiniLm::shared().map_err(|e| anyhow!(e))?;
            let v = m.embed(&[text]).map_err(|e| anyhow!(e))?.remove(0);
            if json {
                return write_json(out, &json!({"model": m.name, "dim": v.len(), "vector": v}));
            }
            let head: Vec<String> = v.iter().take(8).map(|x| format!("{x:.6}")).collect();
            writeln!(out, "{} ({} dimensions, unit length): {} …", m.name, v.len(), head.join(" "))?;
        }
        TextMethod::Bm25 => {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for t in tokenize(text) {
                *counts.entry(t).or_default() += 1;
            }
            if json {
                return write_json(out, &json!({"model": "bm25", "terms": counts}));
            }
            let terms: Vec<String> = counts.iter().map(|(t, n)| format!("{t}×{n}")).collect();
            writeln!(out, "bm25 terms: {}", terms.join(" "))?;
        }
        TextMethod::Hybrid => bail!("hybrid combines bm25 and minilm scores; embed one of them"),
    }
    Ok(())
}

/// `cases …`: build and evaluate case memories.
#[derive(Debug, clap::Subcommand)]
pub enum CasesCommand {
    /// Build a case memory from labelled graphs: graph embedding, report (template, or a language model's with
    /// --reports llm) and report embedding for each.
    Build {
        /// Folder the graph files in --labels are relative to.
        #[arg(long)]
        graphs: PathBuf,
        /// CSV: file,label[,group] (group = cases left out together in evaluation, e.g. a scanning run).
        #[arg(long)]
        labels: PathBuf,
        #[arg(long)]
        task: String,
        /// Atlas of the graphs (aal90, aal116, schaefer100, or a CSV).
        #[arg(long)]
        atlas: Option<String>,
        /// template (from the graph's description, no model) or llm (the configured language model).
        #[arg(long, default_value = "template")]
        reports: String,
        #[command(flatten)]
        provider: super::llm::ProviderArgs,
        /// Graph encoder: a trained GFM (`gfm train`); the deterministic baseline without it.
        #[arg(long, value_name = "MODEL.safetensors")]
        gfm: Option<PathBuf>,
        /// Output folder (memory.json is written there).
        #[arg(long)]
        out: PathBuf,
    },
    /// Leave-one-group-out retrieval quality of a memory: precision@1, precision@k and hit@k for graph only
    /// (β = 1), text only (β = 0) and mixed (β = 0.5).
    Eval {
        #[arg(long)]
        memory: PathBuf,
        #[arg(long, default_value_t = 3)]
        k: usize,
        #[arg(long)]
        json: bool,
    },
    /// Expert review of the case reports the refining pass flagged (if_manual): without verdicts, lists them;
    /// with them, approves, edits or rejects and rewrites the memory (atomically). Flagged cases are left out
    /// of CARD until reviewed.
    Review {
        #[arg(long)]
        memory: PathBuf,
        /// Approve a flagged case (repeatable).
        #[arg(long, value_name = "ID")]
        approve: Vec<String>,
        /// Reject a flagged case: it leaves the memory (repeatable).
        #[arg(long, value_name = "ID")]
        reject: Vec<String>,
        /// Replace a report field of a flagged case and approve it: ID:FIELD=TEXT, FIELD one of region_level,
        /// subgraph_level, graph_level, case_level, conclusion (repeatable).
        #[arg(long, value_name = "ID:FIELD=TEXT")]
        edit: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

/// `ID:FIELD=TEXT` edits grouped by case, in the order given.
fn parse_edits(edits: &[String]) -> Result<Vec<(String, Vec<(String, String)>)>> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for e in edits {
        let (id, rest) = e.split_once(':').ok_or_else(|| anyhow!("--edit {e:?}: expected ID:FIELD=TEXT"))?;
        let (field, text) = rest.split_once('=').ok_or_else(|| anyhow!("--edit {e:?}: expected ID:FIELD=TEXT"))?;
        match out.iter_mut().find(|(i, _)| i == id) {
            Some((_, f)) => f.push((field.to_string(), text.to_string())),
            None => out.push((id.to_string(), vec![(field.to_string(), text.to_string())])),
        }
    }
    Ok(out)
}

fn minilm_if_available() -> Option<std::sync::Arc<MiniLm>> {
    MiniLm::shared().ok()
}

pub fn cases(command: CasesCommand, out: &mut dyn Write) -> Result<()> {
    use crate::retrieval::cases::{CaseMemory, GraphEncoder, evaluate};
    use crate::retrieval::gfm::GfmModel;
    match command {
        CasesCommand::Build { graphs, labels, task, atlas, reports, provider, gfm, out: dir } => {
            let source = crate::network::cohort::source::Source::folder(&graphs, &labels)?;
            let model = match reports.as_str() {
                "template" => None,
                "llm" => {
                    Some(provider.config(crate::llm::config::Purpose::Agent)?.build().map_err(|e| anyhow!("{e}"))?)
                }
                other => bail!("--reports {other}: template or llm"),
            };
            let text = minilm_if_available();
            let encoder = match gfm {
                None => GraphEncoder::Baseline,
                Some(path) => GraphEncoder::Gfm { model: std::sync::Arc::new(GfmModel::load(&path)?), path },
            };
            let progress = super::progress::Progress::new(0, "cases");
            let memory = CaseMemory::build(
                &source,
                &source.subjects,
                &task,
                atlas.as_deref(),
                text.as_deref(),
                model.as_deref(),
                &encoder,
                &dir,
                &mut |i, n| progress.set(i, n),
            );
            progress.finish();
            let memory = memory?;
            let file = memory.save(&dir)?;
            writeln!(out, "wrote {} ({} cases, text model {})", file.display(), memory.cases.len(), memory.text_model)?;
            Ok(())
        }
        CasesCommand::Review { memory, approve, reject, edit, json } => {
            use crate::retrieval::case_review::Verdict;
            let mut m = CaseMemory::load(&memory)?;
            let mut verdicts: Vec<(String, Verdict)> = approve.into_iter().map(|id| (id, Verdict::Approve)).collect();
            verdicts.extend(parse_edits(&edit)?.into_iter().map(|(id, f)| (id, Verdict::Edit(f))));
            verdicts.extend(reject.into_iter().map(|id| (id, Verdict::Reject)));
            if verdicts.is_empty() {
                let flagged: Vec<_> = m.flagged().collect();
                if json {
                    return write_json(out, &json!({"memory": CaseMemory::file(&memory), "flagged": flagged}));
                }
                writeln!(
                    out,
                    "{} case(s) flagged for review in {}",
                    flagged.len(),
                    CaseMemory::file(&memory).display()
                )?;
                for c in flagged {
                    writeln!(out, "\n{} ({}, written by {})", c.id, c.label, c.written_by)?;
                    for f in crate::retrieval::case_review::EDITABLE {
                        writeln!(out, "  {f}: {}", c.report[f].as_str().unwrap_or(""))?;
                    }
                }
                return Ok(());
            }
            let done = m.review(&verdicts).with_context(|| CaseMemory::file(&memory).display().to_string())?;
            let file = m.save(&memory)?;
            if json {
                return write_json(
                    out,
                    &json!({"memory": file, "reviewed": done, "flagged_left": m.flagged().count()}),
                );
            }
            writeln!(
                out,
                "{}: {} approved, {} edited, {} rejected; {} still flagged",
                file.display(),
                done.approved.len(),
                done.edited.len(),
                done.rejected.len(),
                m.flagged().count()
            )?;
            Ok(())
        }
        CasesCommand::Eval { memory, k, json } => {
            let m = CaseMemory::load(&memory)?;
            let text = minilm_if_available();
            let rows = evaluate(&m, text.as_deref(), k, &[1.0, 0.0, 0.5])?;
            if json {
                return write_json(
                    out,
                    &json!({"memory": CaseMemory::file(&memory), "cases": m.cases.len(), "k": k, "encoder": m.encoder, "text_model": m.text_model, "rows": rows}),
                );
            }
            writeln!(
                out,
                "{} cases, graph encoder {}, text {}; leave one group out",
                m.cases.len(),
                m.encoder,
                m.text_model
            )?;
            writeln!(out, "{:<18} {:>8} {:>8} {:>8}", "", "P@1", format!("P@{k}"), format!("hit@{k}"))?;
            for (name, r) in ["graph only (β=1)", "text only (β=0)", "mixed (β=0.5)"].iter().zip(&rows) {
                writeln!(out, "{name:<18} {:>8.3} {:>8.3} {:>8.3}", r.precision_at_1, r.precision_at_k, r.hit_at_k)?;
            }
            Ok(())
        }
    }
}

/// `card GRAPH --memory M`: every case of the memory scored against the graph.
pub fn card(
    graph: &Path,
    memory: &Path,
    beta: f32,
    k: usize,
    exclude_group: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    use crate::retrieval::cases::{CaseMemory, load_graph, template_report};
    let m = CaseMemory::load(memory)?;
    let atlas = m.atlas.as_deref().map(crate::network::atlas::Atlas::load).transpose()?;
    let c = load_graph(graph, atlas.as_ref())?;
    let dir = CaseMemory::file(memory).parent().map(Path::to_path_buf).unwrap_or_default();
    let e = crate::retrieval::cases::GraphEncoder::of_memory(&m, &dir)?.embed(&c, atlas.as_ref())?;
    let (_, text) = template_report(&c, atlas.as_ref(), None);
    let model = minilm_if_available();
    let scores = m.text_scores(&text, model.as_deref())?;
    let hits = m.rank(&e, &scores, beta, k, exclude_group).with_context(|| graph.display().to_string())?;
    if json {
        return write_json(
            out,
            &json!({"graph": graph, "memory": CaseMemory::file(memory), "beta": beta, "k": k, "query_report": text, "candidates": hits}),
        );
    }
    writeln!(out, "{:<4} {:<28} {:<12} {:>9} {:>9} {:>9}", "", "case", "label", "graph", "text", "score")?;
    for h in &hits {
        writeln!(
            out,
            "{:<4} {:<28} {:<12} {:>9.4} {:>9.4} {:>9.4}",
            if h.chosen { "*" } else { "" },
            h.case,
            h.label,
            h.graph_sim,
            h.text_sim,
            h.score
        )?;
    }
    Ok(())
}

/// Options of `brainlens hark`.
#[derive(Debug, Clone, clap::Args)]
pub struct HarkArgs {
    pub query: String,
    /// Query regions: labels or 0-based indices of --atlas (Yeo-7 network names select all their regions).
    #[arg(long, default_value = "")]
    pub regions: String,
    /// asd, adhd, mdd, sex, eeg or sleep.
    #[arg(long)]
    pub task: String,
    #[arg(long, default_value = "aal90")]
    pub atlas: String,
    /// Coarse filter: region-set IoU at least this.
    #[arg(long, default_value_t = 0.5)]
    pub threshold: f64,
    /// Items chosen from the task set and from the general set.
    #[arg(long, default_value_t = 5)]
    pub k: usize,
    /// Text similarity: minilm, bm25 or hybrid.
    #[arg(long, default_value = "minilm")]
    pub method: String,
    /// Knowledge base folder (*.jsonl); default assets/knowledge.
    #[arg(long)]
    pub kb: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

pub fn hark(a: &HarkArgs, out: &mut dyn Write) -> Result<()> {
    use crate::retrieval::knowledge::{Hark, KnowledgeBase, default_dir, parse_regions};
    let atlas = crate::network::atlas::Atlas::load(&a.atlas)?;
    let regions = parse_regions(&a.regions, &atlas)?;
    let method = TextMethod::parse(&a.method).map_err(|e| anyhow!(e))?;
    let kb = KnowledgeBase::load(&a.kb.clone().unwrap_or_else(default_dir))?;
    let model = match method {
        TextMethod::Bm25 => None,
        _ => Some(MiniLm::shared().map_err(|e| anyhow!(e))?),
    };
    let result = Hark::new(kb, method, model)?.query(&a.query, &regions, &atlas, &a.task, a.threshold, a.k)?;
    if a.json {
        return write_json(out, &result);
    }
    writeln!(out, "{:<4} {:<12} {:>6} {:>7} {:<6}  text", "", "item", "IoU", "sim", "pass")?;
    for c in result.candidates.iter().filter(|c| c.chosen || c.passed && c.task != "general") {
        let iou = c.iou.map_or("—".to_string(), |v| format!("{v:.2}"));
        let text: String = c.text.chars().take(90).collect();
        writeln!(
            out,
            "{:<4} {:<12} {:>6} {:>7.3} {:<6}  {text}",
            if c.chosen { "*" } else { "" },
            c.id,
            iou,
            c.similarity,
            c.passed
        )?;
    }
    let shown = result.candidates.iter().filter(|c| c.chosen || c.passed && c.task != "general").count();
    writeln!(
        out,
        "({} candidates, {} shown; --json lists all with IoU and similarity)",
        result.candidates.len(),
        shown
    )?;
    Ok(())
}

/// `kb …`: build knowledge items from documents with a language model.
#[derive(Debug, clap::Subcommand)]
pub enum KbCommand {
    /// Extract atomic facts with regions from .txt/.md documents, have the model judge them, drop
    /// near-duplicates, map region names to atlas labels, and append the survivors marked needs_review.
    Build {
        /// Folder of .txt / .md documents.
        #[arg(long = "from")]
        from: PathBuf,
        /// general, asd, adhd, mdd, sex, eeg or sleep.
        #[arg(long)]
        task: String,
        /// JSONL file the new items are appended to (review them in the GUI: Networks ▸ Review knowledge…).
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        provider: super::llm::ProviderArgs,
        #[arg(long)]
        json: bool,
    },
}

pub fn kb(command: KbCommand, out: &mut dyn Write) -> Result<()> {
    use crate::retrieval::kb_build::{append, build};
    use crate::retrieval::knowledge::{KnowledgeBase, default_dir};
    match command {
        KbCommand::Build { from, task, out: file, provider, json } => {
            let model = provider.config(crate::llm::config::Purpose::Agent)?.build().map_err(|e| anyhow!("{e}"))?;
            let existing = KnowledgeBase::load(&default_dir())?.items;
            let progress = super::progress::Progress::new(0, "passages");
            let built = build(model.as_ref(), &from, &task, &existing, &mut |at| progress.note(at));
            progress.finish();
            let (items, report) = built?;
            append(&file, &items)?;
            if json {
                return write_json(out, &json!({"out": file, "report": report, "items": items}));
            }
            writeln!(
                out,
                "{} documents, {} passages: {} facts extracted, {} rejected by the judge, {} near-duplicates, {} appended to {} as needs_review",
                report.documents,
                report.passages,
                report.extracted,
                report.rejected_by_judge,
                report.duplicates,
                report.kept,
                file.display()
            )?;
            if !report.unmapped_regions.is_empty() {
                writeln!(out, "region names not mapped to an atlas: {}", report.unmapped_regions.join(", "))?;
            }
            Ok(())
        }
    }
}

/// `gfm …`: the learned graph encoder.
#[derive(Debug, clap::Subcommand)]
pub enum GfmCommand {
    /// Train the GFM self-supervised (masked nodes + InfoNCE) on the graphs of a folder (or of a labels.csv);
    /// checkpoints every 10 epochs; --resume continues from MODEL and MODEL.json.
    Train {
        /// Folder of graphs (.npy/.npz/.csv …), or a labels.csv whose first column lists them.
        #[arg(long)]
        graphs: PathBuf,
        #[arg(long, value_name = "MODEL.safetensors")]
        out: PathBuf,
        /// Start from the BrainAgent paper's settings (its Table 5: 6 layers, width 128, feed-forward 256, 8
        /// heads, dropout 0.3, mask ratio 0.7 with a learned token, 2-layer decoder, τ 1, batch 128, 500
        /// epochs); the options below override any of them.
        #[arg(long)]
        paper: bool,
        #[command(flatten)]
        settings: GfmSettings,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long)]
        resume: bool,
        #[arg(long)]
        json: bool,
    },
}

/// The GFM's settings (the paper's Table 5); each unset one comes from the defaults or `--paper`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GfmSettings {
    /// Training epochs (default 150).
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Transformer layers (default 2).
    #[arg(long)]
    pub layers: Option<usize>,
    /// Width of the node states (default 64).
    #[arg(long)]
    pub width: Option<usize>,
    /// Attention heads; the width must divide by them (default 1).
    #[arg(long)]
    pub heads: Option<usize>,
    /// Feed-forward width (default 2 × width).
    #[arg(long)]
    pub ffn: Option<usize>,
    /// Masked-node decoder depth (default 1).
    #[arg(long)]
    pub decoder_layers: Option<usize>,
    /// Dropout on attention and feed-forward outputs while training (default 0).
    #[arg(long)]
    pub dropout: Option<f64>,
    /// Share of nodes masked for reconstruction (default 0.15).
    #[arg(long)]
    pub mask_ratio: Option<f64>,
    /// Masked nodes take a learned token instead of zeros (true/false; default false).
    #[arg(long)]
    pub mask_token: Option<bool>,
    /// InfoNCE temperature τ (default 0.2).
    #[arg(long)]
    pub tau: Option<f64>,
    /// Graphs per optimiser step, shuffled each epoch; 0 = all in one step (default 0).
    #[arg(long)]
    pub batch: Option<usize>,
    /// AdamW learning rate (default 0.001).
    #[arg(long)]
    pub lr: Option<f64>,
}

impl GfmSettings {
    /// `base` with every option given here.
    pub fn apply(
        &self,
        mut o: crate::retrieval::gfm::train::TrainOptions,
    ) -> crate::retrieval::gfm::train::TrainOptions {
        let s = self;
        o.epochs = s.epochs.unwrap_or(o.epochs);
        o.layers = s.layers.unwrap_or(o.layers);
        o.dim = s.width.unwrap_or(o.dim);
        o.heads = s.heads.unwrap_or(o.heads);
        o.ffn = s.ffn.unwrap_or(o.ffn);
        o.decoder_layers = s.decoder_layers.unwrap_or(o.decoder_layers);
        o.dropout = s.dropout.unwrap_or(o.dropout);
        o.mask_fraction = s.mask_ratio.unwrap_or(o.mask_fraction);
        o.mask_token = s.mask_token.unwrap_or(o.mask_token);
        o.temperature = s.tau.unwrap_or(o.temperature);
        o.batch = s.batch.unwrap_or(o.batch);
        o.lr = s.lr.unwrap_or(o.lr);
        o
    }
}

pub fn gfm(command: GfmCommand, out: &mut dyn Write) -> Result<()> {
    use crate::retrieval::gfm::train::{TrainOptions, train};
    match command {
        GfmCommand::Train { graphs, out: model, paper, settings, seed, resume, json } => {
            let connectomes = crate::retrieval::gfm::load_graphs(&graphs)?;
            let base = if paper { TrainOptions::paper() } else { TrainOptions::default() };
            let o = TrainOptions { seed, resume, ..settings.apply(base) };
            let epochs = o.epochs;
            let cancel = crate::util::cancel::Cancel::default();
            let progress = super::progress::Progress::new(epochs, "epochs");
            let log = train(
                &connectomes,
                &model,
                &o,
                &mut |e| {
                    progress.set(e.epoch, epochs);
                    progress.status(&format!(
                        "loss {:.4} (masked {:.4}, contrastive {:.4})",
                        e.total, e.masked, e.contrastive
                    ));
                },
                &cancel,
            );
            progress.finish();
            let log = log?;
            if json {
                return write_json(out, &log);
            }
            let first = log.losses.first().map_or(f32::NAN, |e| e.total);
            let last = log.losses.last().map_or(f32::NAN, |e| e.total);
            writeln!(
                out,
                "trained on {} graphs for {} epochs: loss {first:.4} → {last:.4}; wrote {} and {}",
                log.graphs,
                log.epochs_done,
                model.display(),
                crate::retrieval::gfm::log_path(&model).display()
            )?;
            Ok(())
        }
    }
}
