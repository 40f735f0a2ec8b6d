//! `kb build`: the seed's knowledge construction pipeline with any `ChatModel` — documents are cut into
//! passages; a model extracts atomic facts with the regions they involve (schema-constrained JSON); a second
//! pass has the model judge each fact on accuracy, usefulness, redundancy and professionalism; near-duplicates
//! are dropped; region names are mapped to AAL-90 labels or Yeo-7 networks; survivors are written as items
//! marked `needs_review` (HARK ignores them until a person approves them in the review view).

use super::aliases::{Resolved, resolve_name};
use super::knowledge::Item;
use super::text::bm25::tokenize;
use crate::llm::{ChatModel, ChatRequest, Message};
use crate::network::atlas::Atlas;
use crate::retrieval::error::{Result, RetrievalError};
use crate::util::error::Context;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const PASSAGE_CHARS: usize = 1500;

fn extract_schema() -> Value {
    json!({"type": "object", "properties": {"facts": {"type": "array", "items": {"type": "object", "properties": {
        "text": {"type": "string"}, "regions": {"type": "array", "items": {"type": "string"}}
    }, "required": ["text", "regions"]}}}, "required": ["facts"]})
}

fn judge_schema() -> Value {
    json!({"type": "object", "properties": {
        "accurate": {"type": "boolean"}, "useful": {"type": "boolean"}, "redundant": {"type": "boolean"}, "professional": {"type": "boolean"}
    }, "required": ["accurate", "useful", "redundant", "professional"]})
}

/// What happened to every extracted fact (the build report).
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildReport {
    pub documents: usize,
    pub passages: usize,
    pub extracted: usize,
    pub rejected_by_judge: usize,
    pub duplicates: usize,
    pub kept: usize,
    pub unmapped_regions: Vec<String>,
}

/// Paragraph-aligned passages of at most ~1,500 characters.
pub fn passages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for para in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        if !cur.is_empty() && cur.len() + para.len() > PASSAGE_CHARS {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push_str("\n\n");
        }
        cur.push_str(para);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let u = a.union(b).count();
    if u == 0 { 0.0 } else { a.intersection(b).count() as f64 / u as f64 }
}

fn ask(model: &dyn ChatModel, system: &str, user: String, name: &str, schema: Value, max_tokens: u32) -> Result<Value> {
    let request = ChatRequest { max_tokens, ..ChatRequest::new(vec![Message::system(system), Message::user(user)]) }
        .with_schema(name, schema);
    model.chat(&request)?.json.ok_or_else(|| RetrievalError::from(format!("the model returned no JSON")))
}

/// Runs the pipeline over the `.txt` and `.md` files of `docs`; `existing` items count for redundancy.
pub fn build(
    model: &dyn ChatModel,
    docs: &Path,
    task: &str,
    existing: &[Item],
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<Item>, BuildReport)> {
    if !super::knowledge::TASKS.contains(&task) {
        return Err(RetrievalError::from(format!("task \"{task}\": one of {}", super::knowledge::TASKS.join(", "))));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(docs)
        .with_context(|| format!("{}: cannot read the documents folder", docs.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt" || x == "md"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(RetrievalError::from(format!("{}: no .txt or .md documents", docs.display())));
    }
    let aal = Atlas::builtin("aal90")?;
    let mut seen: Vec<BTreeSet<String>> = existing.iter().map(|i| tokenize(&i.text).into_iter().collect()).collect();
    let mut report = BuildReport { documents: files.len(), ..Default::default() };
    let mut items = Vec::new();
    let mut unmapped = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for (p, passage) in passages(&text).iter().enumerate() {
            report.passages += 1;
            progress(&format!("{name} passage {}", p + 1));
            let facts = ask(
                model,
                "You extract atomic neuroscience facts from a document. Each fact is one short self-contained statement in your own words, with the brain regions or networks it involves.",
                format!("Document passage:\n{passage}\n\nList the atomic facts."),
                "facts",
                extract_schema(),
                600,
            )
            .with_context(|| format!("{name}: extracting facts"))?;
            for fact in facts["facts"].as_array().into_iter().flatten() {
                let Some(text) = fact["text"].as_str().map(str::trim).filter(|t| !t.is_empty()) else { continue };
                report.extracted += 1;
                let verdict = ask(
                    model,
                    "You review candidate facts for a neuroscience knowledge base.",
                    format!("Candidate fact: {text}\nSource passage:\n{passage}\n\nIs it accurate to the passage, useful for analysing brain networks or recordings, redundant (a restatement of common knowledge with no content), and professionally worded?"),
                    "verdict",
                    judge_schema(),
                    60,
                )
                .with_context(|| format!("{name}: judging a fact"))?;
                let ok = verdict["accurate"] == true
                    && verdict["useful"] == true
                    && verdict["redundant"] == false
                    && verdict["professional"] == true;
                if !ok {
                    report.rejected_by_judge += 1;
                    continue;
                }
                let words: BTreeSet<String> = tokenize(text).into_iter().collect();
                if seen.iter().any(|s| jaccard(s, &words) >= 0.8) {
                    report.duplicates += 1;
                    continue;
                }
                seen.push(words);
                let (mut aal_regions, mut networks) = (BTreeSet::new(), BTreeSet::new());
                for r in fact["regions"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    match resolve_name(r, &aal) {
                        Resolved::Aal(v) => aal_regions.extend(v),
                        Resolved::Yeo7(n) => {
                            networks.insert(n);
                        }
                        Resolved::Unknown => {
                            unmapped.insert(r.to_string());
                        }
                    }
                }
                // One atlas per item: AAL regions when there are any, else Yeo-7 networks.
                let (atlas, regions): (&str, Vec<String>) = if !aal_regions.is_empty() {
                    ("aal90", aal_regions.into_iter().collect())
                } else if !networks.is_empty() {
                    ("yeo7", networks.into_iter().collect())
                } else {
                    ("", vec![])
                };
                items.push(Item {
                    id: format!("{task}-kb-{:04}", existing.len() + items.len() + 1),
                    text: text.to_string(),
                    regions,
                    atlas: atlas.to_string(),
                    task: task.to_string(),
                    source: format!("{name}, passage {} (extracted by {})", p + 1, model.name()),
                    status: Some("needs_review".into()),
                });
            }
        }
    }
    report.kept = items.len();
    report.unmapped_regions = unmapped.into_iter().collect();
    Ok((items, report))
}

/// Appends items to a JSONL file (created when missing).
pub fn append(path: &Path, items: &[Item]) -> Result<()> {
    use std::io::Write;
    let mut f =
        std::fs::OpenOptions::new().create(true).append(true).open(path).with_context(|| path.display().to_string())?;
    for i in items {
        writeln!(f, "{}", serde_json::to_string(i)?)?;
    }
    Ok(())
}
