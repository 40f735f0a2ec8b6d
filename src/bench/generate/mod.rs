//! The local suite generator: task templates (`assets/bench/tasks/*.toml`) bound to real recordings become
//! BrainBench case files whose reference answers are computed by `analyses` with our own `signal` functions.
//! Same templates, data and seed → byte-identical suite (no clock, no randomness but the seeded sampling).

use crate::bench::error::{BenchError, Result};
use crate::util::error::Context;
pub mod analyses;
mod data;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

pub const SUBSETS: [&str; 4] =
    ["Foundational Analysis", "Sleep Assessment", "Neurocognitive Assessment", "Physiological Integration"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateFile {
    template: Vec<Template>,
}

/// One task template.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    /// `FA-01`: subset initials and a number.
    pub id: String,
    pub subset: String,
    /// 1 easy, 2 medium, 3 hard.
    pub difficulty: f64,
    pub title: String,
    /// The data item (`eeg60`, `fp1`, `ecg`, `hypnogram`, `missing`, or none for knowledge questions).
    #[serde(default)]
    pub data: Option<String>,
    pub analysis: String,
    /// `{name}` is replaced by the binding's parameter `name`.
    pub instruction: String,
    pub parser_prompt: String,
    #[serde(default)]
    pub params: toml::Table,
    /// Explicit parameter sets, one instance each.
    #[serde(default)]
    pub bind: Vec<toml::Table>,
    /// Or instances drawn with the seed from a pool.
    #[serde(default)]
    pub sample: Option<Sample>,
    pub metrics: Vec<MetricTemplate>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub key: String,
    pub from: Vec<String>,
    pub n: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricTemplate {
    pub metric_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub target_key: String,
    pub weight: f64,
    /// The analysis output that becomes `params.gt_value`.
    #[serde(default)]
    pub answer: Option<String>,
    /// Other params; a string `"{answer.KEY}"` anywhere inside is replaced by that analysis output.
    #[serde(default)]
    pub params: toml::Table,
}

pub fn default_templates() -> PathBuf {
    crate::util::paths::bundled("assets/bench/tasks")
}

/// Every template under `dir`, ordered by id; duplicate ids, unknown subsets and unknown metric types are
/// errors naming the file.
pub fn load_templates(dir: &Path) -> Result<Vec<Template>> {
    let files = crate::bench::files_under(dir, |p| p.extension().is_some_and(|e| e == "toml"))
        .with_context(|| format!("{}: cannot list templates", dir.display()))?;
    if files.is_empty() {
        return Err(BenchError::from(format!("{}: no template files (*.toml)", dir.display())));
    }
    let mut all: Vec<Template> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).with_context(|| format!("{}: cannot read", f.display()))?;
        let file: TemplateFile =
            toml::from_str(&text).with_context(|| format!("{}: not a template file", f.display()))?;
        for t in file.template {
            check(&t).with_context(|| format!("{}: template {}", f.display(), t.id))?;
            if all.iter().any(|o| o.id == t.id) {
                return Err(BenchError::from(format!("{}: template id {} is used twice", f.display(), t.id)));
            }
            all.push(t);
        }
    }
    all.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(all)
}

fn check(t: &Template) -> Result<()> {
    if !SUBSETS.contains(&t.subset.as_str()) {
        return Err(BenchError::from(format!("subset {:?} is not one of {}", t.subset, SUBSETS.join(", "))));
    }
    if t.metrics.is_empty() {
        return Err(BenchError::from(format!("no metrics")));
    }
    for m in &t.metrics {
        let v = metric_value(m, &Map::new(), true)?;
        let problems = crate::bench::case::validate(&json!({
            "meta_info": {}, "agent_input": {"instruction": ""},
            "eval_config": {"metrics": [v]}}));
        if let Some((path, msg)) = problems.first() {
            return Err(BenchError::from(format!("metric {}: {path}: {msg}", m.metric_id)));
        }
    }
    Ok(())
}

fn to_json(t: &toml::Table) -> Map<String, Value> {
    serde_json::to_value(t).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default()
}

/// Replaces `"{answer.KEY}"` strings by the analysis output.
fn fill(v: &Value, answers: &Map<String, Value>, dry: bool) -> Result<Value> {
    Ok(match v {
        Value::String(s) if s.starts_with("{answer.") && s.ends_with('}') => {
            let key = &s[8..s.len() - 1];
            match answers.get(key) {
                Some(a) => a.clone(),
                None if dry => json!(0),
                None => return Err(BenchError::from(format!("the analysis gives no {key:?}"))),
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, answers, dry)).collect::<Result<_>>()?),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| Ok((k.clone(), fill(x, answers, dry)?))).collect::<Result<_>>()?)
        }
        other => other.clone(),
    })
}

fn metric_value(m: &MetricTemplate, answers: &Map<String, Value>, dry: bool) -> Result<Value> {
    let mut params = match fill(&Value::Object(to_json(&m.params)), answers, dry)? {
        Value::Object(o) => o,
        _ => unreachable!(),
    };
    if let Some(key) = &m.answer {
        let gt = match answers.get(key) {
            Some(v) => v.clone(),
            None if dry && m.kind.ends_with("match_check") => json!(["X"]),
            None if dry => json!(0),
            None => return Err(BenchError::from(format!("metric {}: the analysis gives no {key:?}", m.metric_id))),
        };
        params.insert("gt_value".into(), round_answer(gt));
    }
    Ok(json!({"metric_id": m.metric_id, "type": m.kind, "target_key": m.target_key, "weight": m.weight,
              "params": params}))
}

/// Reference answers are stored to 6 significant decimals (well inside every tolerance), so that a suite
/// does not depend on the last bits of floating-point summation order.
fn round_answer(v: Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(0.0);
            json!((x * 1e6).round() / 1e6)
        }
        other => other,
    }
}

fn substitute(text: &str, params: &Map<String, Value>) -> String {
    let mut out = text.to_string();
    for (k, v) in params {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Array(a) => {
                a.iter().map(|x| x.as_str().map_or(x.to_string(), str::to_string)).collect::<Vec<_>>().join(", ")
            }
            other => other.to_string(),
        };
        out = out.replace(&format!("{{{k}}}"), &s);
    }
    out
}

/// The parameter sets of a template: its bindings, or `n` values drawn from the pool with the seed (a
/// Fisher–Yates shuffle keyed by seed and template id), or one empty binding; at most `per_template`.
fn bindings(t: &Template, seed: u64, per_template: usize) -> Vec<Map<String, Value>> {
    let base = to_json(&t.params);
    let mut sets: Vec<Map<String, Value>> = if !t.bind.is_empty() {
        t.bind.iter().map(to_json).collect()
    } else if let Some(s) = &t.sample {
        let mut pool = s.from.clone();
        let mut state =
            seed ^ t.id.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
        for i in (1..pool.len()).rev() {
            let j = (crate::util::rng::splitmix64(&mut state) % (i as u64 + 1)) as usize;
            pool.swap(i, j);
        }
        pool.into_iter().take(s.n).map(|v| [(s.key.clone(), json!(v))].into_iter().collect()).collect()
    } else {
        vec![Map::new()]
    };
    sets.truncate(per_template.max(1));
    sets.into_iter()
        .map(|b| {
            let mut p = base.clone();
            p.extend(b);
            p
        })
        .collect()
}

/// What a generation wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Generated {
    pub suite: PathBuf,
    pub templates: usize,
    pub instances: usize,
    pub per_subset: Vec<(String, usize)>,
}

pub fn subset_folder(subset: &str) -> String {
    subset.replace(' ', "_")
}

/// Generates the suite: `out/<Subset>/cases/case<k>/case<k>_<i>.json`, `out/data/…` and `out/suite.json`.
/// Refuses a non-empty `out` that is not a suite (so a wrong path never deletes anything).
pub fn generate(
    data_dir: &Path,
    templates_dir: &Path,
    out: &Path,
    seed: u64,
    per_template: usize,
) -> Result<Generated> {
    let templates = load_templates(templates_dir)?;
    if out.exists() {
        let empty = std::fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false);
        if !empty && !out.join("suite.json").is_file() {
            return Err(BenchError::from(format!(
                "{}: exists and is not a suite folder (no suite.json): choose a new folder",
                out.display()
            )));
        }
        if !empty {
            std::fs::remove_dir_all(out).with_context(|| format!("{}: cannot replace", out.display()))?;
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut data = data::DataFolder::new(data_dir, out);
    let mut manifest_templates = Vec::new();
    let mut per_subset = Vec::new();
    let mut instances = 0;
    for subset in SUBSETS {
        let mut count = 0;
        for (k, t) in templates.iter().filter(|t| t.subset == subset).enumerate() {
            let task = k + 1;
            let sets = bindings(t, seed, per_template);
            for (i, params) in sets.iter().enumerate() {
                let case = build_case(t, params, &mut data, out, task, i + 1)
                    .with_context(|| format!("template {} (binding {})", t.id, i + 1))?;
                let file = out
                    .join(subset_folder(subset))
                    .join("cases")
                    .join(format!("case{task}"))
                    .join(format!("case{task}_{}.json", i + 1));
                std::fs::create_dir_all(file.parent().expect("folder"))?;
                let mut text = serde_json::to_string_pretty(&case)?;
                text.push('\n');
                std::fs::write(&file, text).with_context(|| format!("{}: cannot write", file.display()))?;
                count += 1;
            }
            manifest_templates.push(json!({"id": t.id, "subset": subset, "task": format!("case{task}"),
                "title": t.title, "difficulty": t.difficulty, "analysis": t.analysis, "instances": sets.len()}));
        }
        per_subset.push((subset.to_string(), count));
        instances += count;
    }
    let mut files = Vec::new();
    for item in data.items() {
        files.push(json!({"path": item.rel, "dataset": item.dataset, "sha256": sha256_file(&out.join(&item.rel))?}));
    }
    let manifest = json!({
        "generator": "brainlens bench generate", "version": env!("CARGO_PKG_VERSION"), "seed": seed,
        "per_template": per_template, "synthetic": false,
        "note": "Reference answers computed by BrainLens's signal module on real recordings; conventions in each instruction.",
        "templates": manifest_templates, "data": files, "instances": instances,
    });
    std::fs::write(out.join("suite.json"), serde_json::to_string_pretty(&manifest)? + "\n")?;
    Ok(Generated { suite: out.to_path_buf(), templates: templates.len(), instances, per_subset })
}

pub use crate::util::hash::sha256_hex;

pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(sha256_hex(&bytes))
}

fn build_case(
    t: &Template,
    params: &Map<String, Value>,
    data: &mut data::DataFolder,
    suite: &Path,
    task: usize,
    index: usize,
) -> Result<Value> {
    let subject = params.get("subject").and_then(Value::as_str);
    let (item, missing) = match t.data.as_deref() {
        None => (None, false),
        Some("missing") => {
            let name = params.get("missing_file").and_then(Value::as_str).unwrap_or("recording.edf");
            (Some(data::Item { rel: format!("data/missing/{name}"), dataset: "none (the file does not exist)" }), true)
        }
        Some(kind) => (Some(data.get(kind, subject)?), false),
    };
    let abs = item.as_ref().filter(|_| !missing).map(|i| suite.join(&i.rel));
    let answers = analyses::run(&t.analysis, &analyses::Inputs { data: abs.as_deref(), params })
        .map_err(|e| BenchError::from(format!("analysis {}: {e}", t.analysis)))?;
    let metrics: Vec<Value> = t.metrics.iter().map(|m| metric_value(m, &answers, false)).collect::<Result<_>>()?;
    let mut agent_input = Map::new();
    if let Some(i) = &item {
        agent_input.insert("data_path".into(), json!(i.rel));
    }
    agent_input.insert("instruction".into(), json!(substitute(&t.instruction, params)));
    Ok(json!({
        "meta_info": {
            "case_id": format!("{}_{index}", t.id),
            "bench_subset": t.subset,
            "difficult": t.difficulty,
            "original_dataset": item.as_ref().map_or("none (knowledge question)", |i| i.dataset),
            "expected_missing_data_path": missing,
            "template_id": t.id,
            "task": format!("case{task}"),
            "title": t.title,
            "params": params,
        },
        "agent_input": agent_input,
        "eval_config": {"parser_prompt": substitute(&t.parser_prompt, params), "metrics": metrics},
    }))
}
