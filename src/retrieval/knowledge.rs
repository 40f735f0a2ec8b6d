//! The knowledge base (`assets/knowledge/*.jsonl`) and HARK, hierarchical knowledge retrieval: task items whose
//! region set overlaps the query's (IoU ≥ threshold) ranked by text similarity, plus the general items ranked by
//! text similarity alone. Every candidate is returned with its IoU, similarity and whether it passed.

use super::text::{MiniLm, TextIndex, TextMethod, build_index};
use crate::network::atlas::{Atlas, YEO7};
use crate::retrieval::error::{Result, RetrievalError};
use crate::util::error::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const TASKS: &[&str] = &["general", "asd", "adhd", "mdd", "sex", "eeg", "sleep"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: String,
    pub text: String,
    /// Region names in `atlas`: AAL labels (aal90) or Yeo-7 network names (yeo7); empty for facts without regions.
    #[serde(default)]
    pub regions: Vec<String>,
    #[serde(default)]
    pub atlas: String,
    pub task: String,
    pub source: String,
    /// "needs_review" for items written by `kb build` and not yet approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

pub struct KnowledgeBase {
    pub items: Vec<Item>,
}

pub fn default_dir() -> PathBuf {
    crate::util::paths::bundled("assets/knowledge")
}

impl KnowledgeBase {
    /// Every `*.jsonl` file of `dir`, validated (unknown task, unknown region, duplicate id → error naming file
    /// and line).
    pub fn load(dir: &Path) -> Result<KnowledgeBase> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("{}: cannot read the knowledge base", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        let aal = Atlas::builtin("aal90")?;
        let mut items = Vec::new();
        let mut ids = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).with_context(|| file.display().to_string())?;
            for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let at = || format!("{} line {}", file.display(), n + 1);
                let item: Item = serde_json::from_str(line).with_context(at)?;
                if !TASKS.contains(&item.task.as_str()) {
                    return Err(RetrievalError::from(format!(
                        "{}: task \"{}\" is not one of {}",
                        at(),
                        item.task,
                        TASKS.join(", ")
                    )));
                }
                let known = |r: &String| match item.atlas.as_str() {
                    "aal90" => aal.labels.contains(r),
                    "yeo7" => YEO7.contains(&r.as_str()),
                    _ => false,
                };
                if let Some(bad) = item.regions.iter().find(|r| !known(r)) {
                    return Err(RetrievalError::from(format!(
                        "{}: region \"{bad}\" is not in atlas \"{}\"",
                        at(),
                        item.atlas
                    )));
                }
                if !ids.insert(item.id.clone()) {
                    return Err(RetrievalError::from(format!("{}: duplicate id {}", at(), item.id)));
                }
                items.push(item);
            }
        }
        Ok(KnowledgeBase { items })
    }
}

/// Region names of an item resolved to indices of `atlas` (the query's atlas): AAL labels by name when the
/// atlas is AAL; Yeo-7 networks to every region of that network when the atlas has Yeo-7 networks
/// (Schaefer-100). None when the item's regions are in another atlas family.
pub fn resolve(item: &Item, atlas: &Atlas) -> Option<BTreeSet<usize>> {
    match item.atlas.as_str() {
        "aal90" if atlas.name.starts_with("AAL") => {
            Some(item.regions.iter().filter_map(|r| atlas.labels.iter().position(|l| l == r)).collect())
        }
        "yeo7" => {
            let nets = atlas.networks.as_ref().filter(|n| n.iter().all(|x| YEO7.contains(&x.as_str())))?;
            Some((0..nets.len()).filter(|&i| item.regions.contains(&nets[i])).collect())
        }
        _ => None,
    }
}

pub fn iou(a: &BTreeSet<usize>, b: &BTreeSet<usize>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 0.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub id: String,
    pub task: String,
    pub text: String,
    pub source: String,
    pub regions: Vec<String>,
    /// None for general items and for items whose regions are in another atlas family.
    pub iou: Option<f64>,
    pub similarity: f32,
    /// Passed the coarse region filter (general items always pass).
    pub passed: bool,
    pub chosen: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HarkResult {
    pub task: String,
    pub threshold: f64,
    pub k: usize,
    pub method: TextMethod,
    /// Task items first (ranked: passed by similarity, then the rest), then general items by similarity.
    pub candidates: Vec<Candidate>,
}

/// HARK over a knowledge base with one text index built once (items' embeddings cached on disk).
pub struct Hark {
    pub kb: KnowledgeBase,
    index: Box<dyn TextIndex>,
    pub method: TextMethod,
}

impl Hark {
    pub fn new(kb: KnowledgeBase, method: TextMethod, model: Option<Arc<MiniLm>>) -> Result<Hark> {
        let texts: Vec<String> = kb.items.iter().map(|i| i.text.clone()).collect();
        let index = build_index(method, &texts, model)?;
        Ok(Hark { kb, index, method })
    }

    /// Query text + region indices of `atlas`. With no query regions the coarse filter is skipped (text only).
    /// Task "general" queries the general items only (for tasks without a knowledge set of their own).
    pub fn query(
        &self,
        text: &str,
        regions: &BTreeSet<usize>,
        atlas: &Atlas,
        task: &str,
        threshold: f64,
        k: usize,
    ) -> Result<HarkResult> {
        if !TASKS.contains(&task) {
            return Err(RetrievalError::from(format!("task \"{task}\": one of {}", TASKS.join(", "))));
        }
        let sims = self.index.scores(text)?;
        let mut task_items = Vec::new();
        let mut general = Vec::new();
        for (item, &similarity) in self.kb.items.iter().zip(&sims) {
            if item.status.as_deref() == Some("needs_review") {
                continue;
            }
            let cand = |iou: Option<f64>, passed: bool| Candidate {
                id: item.id.clone(),
                task: item.task.clone(),
                text: item.text.clone(),
                source: item.source.clone(),
                regions: item.regions.clone(),
                iou,
                similarity,
                passed,
                chosen: false,
            };
            if item.task == task && task != "general" {
                let iou = resolve(item, atlas).map(|set| iou(&set, regions));
                let passed = regions.is_empty() || iou.is_some_and(|v| v >= threshold);
                task_items.push(cand(iou, passed));
            } else if item.task == "general" {
                general.push(cand(None, true));
            }
        }
        let order = |a: &Candidate, b: &Candidate| {
            b.passed.cmp(&a.passed).then(b.similarity.total_cmp(&a.similarity)).then(a.id.cmp(&b.id))
        };
        task_items.sort_by(order);
        general.sort_by(order);
        for c in task_items.iter_mut().filter(|c| c.passed).take(k).chain(general.iter_mut().take(k)) {
            c.chosen = true;
        }
        task_items.extend(general);
        Ok(HarkResult { task: task.to_string(), threshold, k, method: self.method, candidates: task_items })
    }
}

/// Region names or 0-based indices of `atlas` → index set (unknown names are an error naming them).
pub fn parse_regions(spec: &str, atlas: &Atlas) -> Result<BTreeSet<usize>> {
    let mut out = BTreeSet::new();
    for r in spec.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        if let Ok(i) = r.parse::<usize>() {
            if i >= atlas.len() {
                return Err(RetrievalError::from(format!(
                    "region index {i}: atlas {} has {} regions",
                    atlas.name,
                    atlas.len()
                )));
            }
            out.insert(i);
        } else if let Some(i) = atlas.labels.iter().position(|l| l == r) {
            out.insert(i);
        } else if let Some(nets) = atlas.networks.as_ref().filter(|_| YEO7.contains(&r)) {
            out.extend((0..nets.len()).filter(|&i| nets[i] == r));
        } else {
            return Err(RetrievalError::from(format!("region \"{r}\" is not a label of atlas {}", atlas.name)));
        }
    }
    Ok(out)
}
