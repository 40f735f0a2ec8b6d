//! The six BrainBench validation units (`../shared/BRAINBENCH.md`): each metric of a case scored against the
//! parser's output (or the full report), raw score clamped to [0, 1], weighted = raw × weight.

mod artifact;
mod judge;
mod units;

pub use artifact::{ArtifactFile, resolve_artifact};
pub use judge::{Judge, VisionJudge, judge_value_score};

use super::canonical::number;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// One metric of a case's `eval_config.metrics`, as loosely typed as the JSON it came from.
#[derive(Debug, Clone, Default)]
pub struct Metric {
    pub metric_id: String,
    pub kind: String,
    pub target_key: Option<String>,
    pub weight: f64,
    /// The weight as the case file writes it (copied into result files unchanged).
    pub weight_raw: Value,
    pub params: Map<String, Value>,
}

impl Metric {
    /// Reads a metric object the way the reference does: missing id → `unknown_metric`, an id that is not a
    /// string → its JSON text, weight not a number → 0.
    pub fn from_value(value: &Value) -> Metric {
        Metric::from_owned(value.clone())
    }

    /// As [`Metric::from_value`], taking the object apart instead of copying it.
    pub fn from_owned(mut value: Value) -> Metric {
        let mut take = |k: &str| value.get_mut(k).map(Value::take).unwrap_or(Value::Null);
        let weight_raw = take("weight");
        Metric {
            metric_id: id_of(&take("metric_id")),
            kind: match take("type") {
                Value::String(s) => s,
                _ => String::new(),
            },
            target_key: match take("target_key") {
                Value::String(s) => Some(s),
                _ => None,
            },
            weight: number(&weight_raw).unwrap_or(0.0),
            weight_raw,
            params: match take("params") {
                Value::Object(m) => m,
                _ => Map::new(),
            },
        }
    }

    pub fn param(&self, key: &str) -> &Value {
        self.params.get(key).unwrap_or(&Value::Null)
    }
}

/// A metric's id as the reference keys it: absent or null → `unknown_metric`, a string itself, anything else
/// its JSON text.
pub fn id_of(metric_id: &Value) -> String {
    match metric_id {
        Value::Null => "unknown_metric".to_string(),
        Value::String(id) => id.clone(),
        other => other.to_string(),
    }
}

/// The validation unit families the dashboards group by.
pub const UNIT_TYPES: [&str; 6] = [
    "numeric_check",
    "categorical_check",
    "set_match_check",
    "sequence_match_check",
    "semantic_consistency",
    "file_status_check",
];

/// The unit a metric type belongs to (`safety_compliance` and `factual_qa_check` are judged like
/// `semantic_consistency`).
pub fn unit_of(kind: &str) -> &str {
    match kind {
        "safety_compliance" | "factual_qa_check" => "semantic_consistency",
        other => other,
    }
}

/// Where artifacts live and who judges; the seam the language-model layer plugs into.
#[derive(Default)]
pub struct ScoreContext<'a> {
    /// The instance workspace (artifact root); relative and `/workspace/` paths resolve inside it.
    pub workspace: Option<PathBuf>,
    /// Sandboxed mode: other absolute paths, escapes and symbolic links are violations.
    pub strict: bool,
    pub semantic_judge: Option<&'a dyn Judge>,
    pub vlm_judge: Option<&'a dyn VisionJudge>,
}

/// The score of one metric, as stored in a result's `metric_details`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MetricScore {
    pub raw_score: f64,
    pub weighted_score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub evidence: Map<String, Value>,
    /// Confinement violations (strict mode), reported as `artifact_path_violation: …` errors.
    #[serde(skip)]
    pub violations: Vec<String>,
}

/// Scores one metric. `parsed` is the parser's JSON object; `report` the target's full text.
pub fn score_metric(parsed: &Value, report: &str, metric: &Metric, ctx: &ScoreContext) -> MetricScore {
    let report_value = Value::String(report.to_string());
    let predicted = match metric.target_key.as_deref() {
        Some("full_text") => &report_value,
        Some(key) => parsed.get(key).unwrap_or(&Value::Null),
        None => &Value::Null,
    };
    let mut evidence = Map::new();
    let mut violations = Vec::new();
    let outcome = match metric.kind.as_str() {
        "numeric_check" => units::numeric(predicted, metric),
        "categorical_check" => Ok(units::categorical(predicted, metric)),
        "set_match_check" => units::set_match(predicted, metric),
        "sequence_match_check" => units::sequence_match(predicted, metric),
        "semantic_consistency" | "safety_compliance" | "factual_qa_check" => {
            judge::semantic(predicted, metric, ctx.semantic_judge)
        }
        "file_status_check" => artifact::file_status(predicted, metric, ctx, &mut evidence, &mut violations),
        other => Err(format!("unsupported metric type: {other:?}").into()),
    };
    let (raw, error) = match outcome {
        Ok(raw) => (super::canonical::clamp01(raw), None),
        Err(e) => {
            (0.0, Some(format!("{} scorer failed: {e}", if metric.kind.is_empty() { "unknown" } else { &metric.kind })))
        }
    };
    MetricScore { raw_score: raw, weighted_score: raw * metric.weight, error, evidence, violations }
}
