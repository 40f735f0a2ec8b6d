//! BrainBench result files (experiment / instances / summary) and JSONL instance streams: read, written back
//! field for field (unknown fields kept), rewritten atomically, summarised as the reference does.

mod fast_read;
mod stream;

pub use stream::StreamWriter;

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
        crate::bench::canonical::number(&self.difficulty).filter(|d| *d != 0.0).unwrap_or(1.0)
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

    /// The claims struck from the report (the trace's `struck_claims`, `agent::grounding::strike`), when any.
    pub fn struck_claims(&self) -> Option<&Vec<Value>> {
        self.sandbox["trace"]["struck_claims"].as_array().filter(|c| !c.is_empty())
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
        self.token_usage.get(role).and_then(crate::bench::canonical::number).unwrap_or(0.0)
    }

    pub fn seconds(&self, role: &str) -> f64 {
        self.timing_sec.get(role).and_then(crate::bench::canonical::number).unwrap_or(0.0)
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
    /// The file is a BrainBench case (`agent_input`, `eval_config`), not a result file: a folder of results
    /// often holds its cases too, and those are counted, not reported one by one.
    pub case_file: bool,
}

impl ResultError {
    pub fn new(path: &Path, message: String) -> ResultError {
        ResultError { path: path.to_path_buf(), message, case_file: false }
    }
}

/// The two blocks every BrainBench case has (../shared/BRAINBENCH.md); a result file has neither.
#[derive(serde::Deserialize)]
struct CaseShape {
    #[allow(dead_code)]
    agent_input: serde::de::IgnoredAny,
    #[allow(dead_code)]
    eval_config: serde::de::IgnoredAny,
}

/// Whether `text` is a BrainBench case document.
fn is_case_text(text: &str) -> bool {
    serde_json::from_str::<CaseShape>(text).is_ok()
}

impl ResultFile {
    /// Reads a result file (`.json`) or a JSONL stream of instances (`.jsonl`, one instance per line; the
    /// experiment block is then empty and the summary recomputed). The instances are parsed on every core.
    pub fn load(path: &Path) -> Result<ResultFile, ResultError> {
        let raw = ResultFile::read_raw(path)?;
        let mut instances = Vec::with_capacity(raw.len());
        crate::util::parallel::map_in_order(
            raw.len(),
            crate::util::parallel::threads(),
            64,
            |i| raw.instance(i),
            |inst| {
                instances.push(inst?);
                Ok(())
            },
        )?;
        let jsonl = raw.is_jsonl();
        let mut file = raw.head;
        if jsonl {
            file.summary = summarize(&instances, 0.0);
        }
        file.instances = instances;
        Ok(file)
    }

    /// Reads a result file (or JSONL stream) whole and locates its instances without parsing them: they are
    /// parsed later, one at a time or on several threads ([`RawResults::instance`]). Syntax errors anywhere
    /// and a file that is not a result object are reported here.
    pub fn read_raw(path: &Path) -> Result<RawResults, ResultError> {
        let fail = |message: String| ResultError::new(path, message);
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let fixed = match crate::bench::json::python_text(&text) {
            std::borrow::Cow::Borrowed(t) => (t.len() != text.len()).then(|| t.to_string()),
            std::borrow::Cow::Owned(t) => Some(t),
        };
        let text = fixed.unwrap_or(text);
        let base = text.as_ptr() as usize;
        if is_jsonl(path) {
            let mut spans = Vec::new();
            let mut lines = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let trimmed = line.trim();
                if !trimmed.is_empty() {
                    let start = trimmed.as_ptr() as usize - base;
                    spans.push(start..start + trimmed.len());
                    lines.push(i + 1);
                }
            }
            return Ok(RawResults { head: ResultFile::default(), spans, lines: Some(lines), path: path.into(), text });
        }
        let mut reader = serde_json::Deserializer::from_str(&text);
        let located = fast_read::Located { base, spans: Vec::new() };
        let read = serde::de::DeserializeSeed::deserialize(fast_read::Streamed(located), &mut reader).and_then(|r| {
            reader.end()?;
            Ok(r)
        });
        let (head, located) = read.map_err(|e| {
            if !e.is_syntax() && !e.is_eof() && is_case_text(&text) {
                ResultError {
                    case_file: true,
                    ..fail("a BrainBench case file (agent_input, eval_config), not a result file".into())
                }
            } else {
                fail(head_error(e))
            }
        })?;
        Ok(RawResults { head, spans: located.spans, lines: None, path: path.into(), text })
    }

    /// Writes the file atomically: a temporary file beside it, checked, then renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), ResultError> {
        let fail = |message: String| ResultError::new(path, message);
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

    /// The target's `reasoning_effort` (`experiment.models.target.reasoning_effort`), when recorded.
    pub fn target_reasoning_effort(&self) -> Option<String> {
        let e = self.experiment.get("models")?.get("target")?.get("reasoning_effort")?.as_str()?.trim();
        (!e.is_empty()).then(|| e.to_ascii_lowercase())
    }

    /// Recomputes the summary block from the instances (wall clock kept from the stored summary).
    pub fn refresh_summary(&mut self) {
        let mut acc = Summarizer::default();
        self.instances.iter().for_each(|i| acc.add(i));
        self.summary = refreshed_summary(&self.summary, acc);
    }
}

/// The summary recomputed from `acc`, keeping what only the stored summary knows: the wall clock, the result
/// file and the planned instance count.
pub fn refreshed_summary(stored: &Map<String, Value>, acc: Summarizer) -> Map<String, Value> {
    let wall = stored
        .get("timing_sec")
        .and_then(|t| t.get("wall_clock_total"))
        .and_then(crate::bench::canonical::number)
        .unwrap_or(0.0);
    let n = acc.n;
    let mut summary = acc.finish(wall);
    for k in ["result_file", "planned_instance_count"] {
        if let Some(v) = stored.get(k) {
            summary.insert(k.into(), v.clone());
        }
    }
    summary.insert("completed_instance_count".into(), json!(n));
    summary
}

/// The message for a result file that cannot be read as a whole.
fn head_error(e: serde_json::Error) -> String {
    if e.is_syntax() || e.is_eof() {
        format!("not valid JSON: {e}")
    } else {
        format!("not a BrainBench result file (an object with an 'instances' list expected): {e}")
    }
}

/// A result file read whole with its instances located but not parsed ([`ResultFile::read_raw`]).
#[derive(Debug)]
pub struct RawResults {
    /// The file's other blocks (no instances; empty for JSONL).
    pub head: ResultFile,
    text: String,
    spans: Vec<std::ops::Range<usize>>,
    /// JSONL: each instance's line number.
    lines: Option<Vec<usize>>,
    path: PathBuf,
}

impl RawResults {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn is_jsonl(&self) -> bool {
        self.lines.is_some()
    }

    /// Parses instance `i` (0-based, in file order); the error names the file and where the instance is.
    pub fn instance(&self, i: usize) -> Result<Instance, ResultError> {
        let span = self.spans[i].clone();
        crate::bench::json::from_str(&self.text[span.clone()]).map_err(|e| {
            let line = match &self.lines {
                Some(lines) => lines[i],
                None => self.text[..span.start].bytes().filter(|b| *b == b'\n').count() + 1,
            };
            let message = match &self.lines {
                Some(_) => format!("line {line}: not an instance: {e}"),
                None => format!("instance {} (from line {line}): not an instance: {e}", i + 1),
            };
            ResultError::new(&self.path, message)
        })
    }
}

fn is_jsonl(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
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
    let mut acc = Summarizer::default();
    instances.iter().for_each(|i| acc.add(i));
    acc.finish(wall_clock_s)
}

/// The entry for `key`, inserted (default) on first use; a key already there is found without allocating.
fn counter<'m, V: Default>(map: &'m mut indexmap::IndexMap<String, V>, key: &str) -> &'m mut V {
    let at = match map.get_index_of(key) {
        Some(at) => at,
        None => map.insert_full(key.to_string(), V::default()).0,
    };
    &mut map[at]
}

/// The summary's sums, gathered one instance at a time (in file order, so the sums equal the reference's).
#[derive(Debug, Default)]
pub struct Summarizer {
    n: usize,
    successful: usize,
    vrr: f64,
    tokens: [f64; TOKEN_ROLES.len()],
    timing: [f64; TIMING_ROLES.len()],
    failures: indexmap::IndexMap<String, u64>,
    /// metric type → (count, raw sum, weighted sum)
    groups: indexmap::IndexMap<String, (u64, f64, f64)>,
    weighted_score: f64,
    weighted_max: f64,
}

impl Summarizer {
    pub fn add(&mut self, i: &Instance) {
        self.n += 1;
        self.successful += usize::from(i.vrr > 0.0);
        self.vrr += i.vrr;
        for (sum, role) in self.tokens.iter_mut().zip(TOKEN_ROLES) {
            *sum += i.tokens(role).trunc();
        }
        for (sum, role) in self.timing.iter_mut().zip(TIMING_ROLES) {
            *sum += i.seconds(role);
        }
        for c in i.errors.iter().map(|e| e.split(':').next().unwrap_or(e)) {
            *counter(&mut self.failures, c) += 1;
        }
        for d in i.metric_details.values() {
            let g = counter(&mut self.groups, d.metric_type.as_deref().unwrap_or("unknown"));
            g.0 += 1;
            g.1 += d.raw_score;
            g.2 += d.weighted_score;
        }
        let (ws, wm) = difficulty_weighted_sums([i]);
        self.weighted_score += ws;
        self.weighted_max += wm;
    }

    pub fn finish(self, wall_clock_s: f64) -> Map<String, Value> {
        let n = self.n;
        let mut tokens = Map::new();
        let mut token_total = 0.0;
        for (role, sum) in TOKEN_ROLES.iter().zip(self.tokens) {
            token_total += sum;
            tokens.insert(role.to_string(), json!(sum as i64));
        }
        tokens.insert("total".into(), json!(token_total as i64));
        let metric_summary: Map<String, Value> = self
            .groups
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
        let (ws, wm) = (self.weighted_score, self.weighted_max);
        let total = if wm > 0.0 { 100.0 * ws / wm } else { 0.0 };
        let mut timing = Map::new();
        for (role, sum) in TIMING_ROLES.iter().zip(self.timing) {
            timing.insert(role.to_string(), json!(round6(sum)));
        }
        let instance_time = self.timing[TIMING_ROLES.len() - 1];
        timing.insert("wall_clock_total".into(), json!(round6(wall_clock_s)));
        timing.insert("mean_per_instance".into(), json!(if n > 0 { round6(instance_time / n as f64) } else { 0.0 }));
        let mut s = Map::new();
        s.insert("instance_count".into(), json!(n));
        s.insert("successful_instance_count".into(), json!(self.successful));
        s.insert("total_score".into(), json!(total));
        s.insert("mean_score".into(), json!(total));
        s.insert("difficulty_weighted_score_sum".into(), json!(ws));
        s.insert("difficulty_weighted_max_score_sum".into(), json!(wm));
        s.insert("vrr_mean".into(), json!(if n > 0 { self.vrr / n as f64 } else { 0.0 }));
        s.insert("failure_summary".into(), json!(self.failures));
        s.insert("token_usage".into(), Value::Object(tokens));
        s.insert("timing_sec".into(), Value::Object(timing));
        s.insert("metric_type_summary".into(), Value::Object(metric_summary));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_results_locate_instances_and_name_the_one_that_is_bad() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let text = "{\"experiment\": {\"x\": 1},\n \"instances\": [{\"instance_id\": \"a\", \"total_score\": NaN},\n  {\"instance_id\": \"b\", \"metric_details\": 5}],\n \"summary\": {\"total_score\": 3}}";
        std::fs::write(&p, text).unwrap();
        let raw = ResultFile::read_raw(&p).unwrap();
        assert_eq!(
            (raw.len(), raw.head.experiment["x"].as_i64(), raw.head.summary["total_score"].as_i64()),
            (2, Some(1), Some(3))
        );
        assert_eq!(raw.instance(0).unwrap().instance_id, "a");
        let e = raw.instance(1).unwrap_err().to_string();
        assert!(e.contains("r.json") && e.contains("instance 2 (from line 3)") && e.contains("metric_details"), "{e}");
        // JSONL: blank lines skipped, lines counted.
        let p = d.path().join("r.jsonl");
        std::fs::write(&p, "{\"instance_id\": \"a\"}\n\n[1, 2]\n").unwrap();
        let raw = ResultFile::read_raw(&p).unwrap();
        assert!(raw.is_jsonl() && raw.len() == 2);
        let e = raw.instance(1).unwrap_err().to_string();
        assert!(e.contains("r.jsonl") && e.contains("line 3: not an instance"), "{e}");
        // Not JSON, or not a result object: the whole file is refused.
        std::fs::write(d.path().join("bad.json"), "{\"instances\": [1,").unwrap();
        let e = ResultFile::read_raw(&d.path().join("bad.json")).unwrap_err().to_string();
        assert!(e.contains("bad.json") && e.contains("not valid JSON"), "{e}");
        std::fs::write(d.path().join("list.json"), "[1]").unwrap();
        let e = ResultFile::read_raw(&d.path().join("list.json")).unwrap_err().to_string();
        assert!(e.contains("not a BrainBench result file"), "{e}");
    }
}
