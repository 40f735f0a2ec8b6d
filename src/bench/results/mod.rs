//! BrainBench result files (experiment / instances / summary) and JSONL instance streams: read, written back
//! field for field (unknown fields kept), rewritten atomically, summarised as the reference does.

mod de;

use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// One metric's stored score (read leniently, see `de.rs`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct MetricDetail {
    pub raw_score: f64,
    pub weighted_score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Value>,
    pub metric_type: Option<String>,
    pub target_key: Option<String>,
    pub weight: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One scored instance (read leniently, see `de.rs`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Instance {
    pub instance_id: String,
    pub recording_id: Value,
    pub case_id: Value,
    pub bench_subset: Option<String>,
    pub difficulty: Value,
    pub source_json: Option<String>,
    pub total_score: f64,
    pub max_score: f64,
    pub vrr: f64,
    pub metric_details: indexmap::IndexMap<String, MetricDetail>,
    pub agent_output: Value,
    pub parser_output: Value,
    pub artifact_manifest: Value,
    pub sandbox: Value,
    pub token_usage: Map<String, Value>,
    pub timing_sec: Map<String, Value>,
    pub started_at: Value,
    pub finished_at: Value,
    pub errors: Vec<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Instance {
    /// Difficulty weight (default 1, as the reference summary).
    pub fn difficulty_weight(&self) -> f64 {
        crate::bench::canon::number(&self.difficulty).filter(|d| *d != 0.0).unwrap_or(1.0)
    }

    /// The maximum score, 100 when the file gives none (as the reference summary assumes).
    pub fn max_or_default(&self) -> f64 {
        if self.max_score != 0.0 { self.max_score } else { 100.0 }
    }

    /// Score normalised to [0, 1]: total ÷ max (max default 100).
    pub fn normalised(&self) -> f64 {
        (self.total_score / self.max_or_default()).clamp(0.0, 1.0)
    }

    pub fn report(&self) -> &str {
        self.agent_output.as_str().unwrap_or("")
    }

    /// Failure categories (the text before the first colon of each error).
    pub fn error_categories(&self) -> impl Iterator<Item = &str> {
        self.errors.iter().map(|e| e.split(':').next().unwrap_or(e).trim())
    }

    /// An infrastructure failure: rerun, excluded from scores.
    pub fn is_infrastructure_failure(&self) -> bool {
        self.error_categories().any(|c| c == "api_infrastructure_error")
    }

    pub fn tokens(&self, role: &str) -> f64 {
        self.token_usage.get(role).and_then(crate::bench::canon::number).unwrap_or(0.0)
    }

    pub fn seconds(&self, role: &str) -> f64 {
        self.timing_sec.get(role).and_then(crate::bench::canon::number).unwrap_or(0.0)
    }

    /// The task: the case's folder, qualified by the subset (`Foundational Analysis/case12`).
    pub fn task_id(&self) -> String {
        let folder = self
            .source_json
            .as_deref()
            .and_then(|p| Path::new(p).parent())
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().to_string())
            .or_else(|| {
                // `<subset>-case12-case12_3` when no source path was stored.
                self.instance_id.rsplit('-').nth(1).map(str::to_string)
            })
            .unwrap_or_else(|| "unknown".into());
        format!("{}/{folder}", self.bench_subset.as_deref().unwrap_or("Unknown"))
    }
}

/// A whole result file (read by `de.rs`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ResultFile {
    pub experiment: Map<String, Value>,
    pub instances: Vec<Instance>,
    pub summary: Map<String, Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A result file that could not be read: which file, what.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ResultError {
    pub path: PathBuf,
    pub message: String,
}

impl ResultFile {
    /// Reads a result file (`.json`) or a JSONL stream of instances (`.jsonl`, one instance per line; the
    /// experiment block is then empty and the summary recomputed).
    pub fn load(path: &Path) -> Result<ResultFile, ResultError> {
        let fail = |message: String| ResultError { path: path.to_path_buf(), message };
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl")) {
            let mut instances = Vec::new();
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let inst: Instance = crate::bench::json::from_str(line)
                    .map_err(|e| fail(format!("line {}: not an instance: {e}", i + 1)))?;
                instances.push(inst);
            }
            let summary = summarize(&instances, 0.0);
            return Ok(ResultFile { instances, summary, ..Default::default() });
        }
        crate::bench::json::from_str::<ResultFile>(&text).map_err(|e| {
            if e.is_syntax() || e.is_eof() {
                fail(format!("not valid JSON: {e}"))
            } else {
                fail(format!("not a BrainBench result file (an object with an 'instances' list expected): {e}"))
            }
        })
    }

    /// Writes the file atomically: a temporary file beside it, checked, then renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), ResultError> {
        let fail = |message: String| ResultError { path: path.to_path_buf(), message };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create folder: {e}")))?;
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| fail(e.to_string()))?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, text.as_bytes()).map_err(|e| fail(format!("cannot write {}: {e}", tmp.display())))?;
        std::fs::rename(&tmp, path).map_err(|e| fail(format!("cannot replace: {e}")))
    }

    pub fn experiment_str(&self, key: &str) -> Option<&str> {
        self.experiment.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
    }

    /// The target model's name: `experiment.models.target.model` (or the value itself when a string).
    pub fn target_model(&self) -> Option<String> {
        let target = self.experiment.get("models")?.get("target")?;
        let name = match target {
            Value::String(s) => s.clone(),
            other => other.get("model").or_else(|| other.get("name"))?.as_str()?.to_string(),
        };
        (!name.trim().is_empty()).then_some(name)
    }

    /// Recomputes the summary block from the instances (wall clock kept from the stored summary).
    pub fn refresh_summary(&mut self) {
        let wall = self
            .summary
            .get("timing_sec")
            .and_then(|t| t.get("wall_clock_total"))
            .and_then(crate::bench::canon::number)
            .unwrap_or(0.0);
        let keep: Vec<(String, Value)> = ["result_file", "planned_instance_count"]
            .iter()
            .filter_map(|k| self.summary.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect();
        self.summary = summarize(&self.instances, wall);
        for (k, v) in keep {
            self.summary.insert(k, v);
        }
        self.summary.insert("completed_instance_count".into(), json!(self.instances.len()));
    }
}

const TOKEN_ROLES: [&str; 4] = ["target", "parser", "semantic", "vlm"];
const TIMING_ROLES: [&str; 7] = ["target", "parser", "judge", "vlm", "model_total", "scoring", "total"];

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Σ(total·difficulty) and Σ(max·difficulty) (difficulty default 1, max default 100): the reference's total
/// score is 100 × their ratio.
pub fn difficulty_weighted_sums<'a>(instances: impl IntoIterator<Item = &'a Instance>) -> (f64, f64) {
    instances.into_iter().fold((0.0, 0.0), |(ws, wm), i| {
        let d = i.difficulty_weight();
        (ws + i.total_score * d, wm + i.max_or_default() * d)
    })
}

/// The summary block exactly as the reference computes it.
pub fn summarize(instances: &[Instance], wall_clock_s: f64) -> Map<String, Value> {
    let n = instances.len();
    let mut tokens = Map::new();
    let mut token_total = 0.0;
    for role in TOKEN_ROLES {
        let sum: f64 = instances.iter().map(|i| i.tokens(role).trunc()).sum();
        token_total += sum;
        tokens.insert(role.into(), json!(sum as i64));
    }
    tokens.insert("total".into(), json!(token_total as i64));
    let mut failures: indexmap::IndexMap<String, u64> = indexmap::IndexMap::new();
    for i in instances {
        for c in i.errors.iter().map(|e| e.split(':').next().unwrap_or(e)) {
            *failures.entry(c.to_string()).or_default() += 1;
        }
    }
    let mut groups: indexmap::IndexMap<String, (u64, f64, f64)> = indexmap::IndexMap::new();
    for d in instances.iter().flat_map(|i| i.metric_details.values()) {
        let g = groups.entry(d.metric_type.clone().unwrap_or_else(|| "unknown".into())).or_default();
        g.0 += 1;
        g.1 += d.raw_score;
        g.2 += d.weighted_score;
    }
    let metric_summary: Map<String, Value> = groups
        .into_iter()
        .map(|(k, (count, raw, weighted))| {
            let c = count.max(1) as f64;
            (
                k,
                json!({"count": count, "raw_score_sum": raw, "weighted_score_sum": weighted,
                       "raw_score_mean": raw / c, "weighted_score_mean": weighted / c}),
            )
        })
        .collect();
    let (ws, wm) = difficulty_weighted_sums(instances);
    let total = if wm > 0.0 { 100.0 * ws / wm } else { 0.0 };
    let mut timing = Map::new();
    for role in TIMING_ROLES {
        timing.insert(role.into(), json!(round6(instances.iter().map(|i| i.seconds(role)).sum())));
    }
    let instance_time: f64 = instances.iter().map(|i| i.seconds("total")).sum();
    timing.insert("wall_clock_total".into(), json!(round6(wall_clock_s)));
    timing.insert("mean_per_instance".into(), json!(if n > 0 { round6(instance_time / n as f64) } else { 0.0 }));
    let mut s = Map::new();
    s.insert("instance_count".into(), json!(n));
    s.insert("successful_instance_count".into(), json!(instances.iter().filter(|i| i.vrr > 0.0).count()));
    s.insert("total_score".into(), json!(total));
    s.insert("mean_score".into(), json!(total));
    s.insert("difficulty_weighted_score_sum".into(), json!(ws));
    s.insert("difficulty_weighted_max_score_sum".into(), json!(wm));
    s.insert(
        "vrr_mean".into(),
        json!(if n > 0 { instances.iter().map(|i| i.vrr).sum::<f64>() / n as f64 } else { 0.0 }),
    );
    s.insert("failure_summary".into(), json!(failures));
    s.insert("token_usage".into(), Value::Object(tokens));
    s.insert("timing_sec".into(), Value::Object(timing));
    s.insert("metric_type_summary".into(), Value::Object(metric_summary));
    s
}
