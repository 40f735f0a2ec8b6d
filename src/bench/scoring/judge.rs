//! Judged units (`semantic_consistency`, `safety_compliance`, `factual_qa_check`, image artifacts): the seam a
//! `ChatModel` plugs into. With no judge, or no prompt, the score is 0 — as the reference does.

use super::Metric;
use crate::bench::canonical::{clamp01, number};
use crate::bench::error::{BenchError, Result};
use serde_json::Value;
use std::path::Path;

/// A text judge: gets the judged text (full report or parsed field) and the case's `judge_prompt`.
pub trait Judge: Send + Sync {
    fn judge(&self, input: &Value, prompt: &str) -> Result<Value, BenchError>;
}

/// A vision judge for image artifacts.
pub trait VisionJudge: Send + Sync {
    fn judge_image(&self, image: &Path, prompt: &str) -> Result<Value, BenchError>;
}

/// Python truthiness (`bool(x)`), which the reference applies to `status` and `passed`.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A judge's answer as a score: an object's `score` (clamped), else its `status`/`passed` as 1/0; a boolean as
/// 1/0; a number (or numeric string) clamped; anything else 0.
pub fn judge_value_score(answer: &Value) -> f64 {
    match answer {
        Value::Object(o) => {
            if let Some(score) = o.get("score") {
                number_or_bool(score)
            } else if let Some(flag) = o.get("status").or_else(|| o.get("passed")) {
                f64::from(truthy(flag))
            } else {
                0.0
            }
        }
        other => number_or_bool(other),
    }
}

fn number_or_bool(v: &Value) -> f64 {
    match v {
        Value::Bool(b) => f64::from(*b),
        other => number(other).map(clamp01).unwrap_or(0.0),
    }
}

pub fn semantic(predicted: &Value, metric: &Metric, judge: Option<&dyn Judge>) -> Result<f64, BenchError> {
    let prompt = metric.param("judge_prompt").as_str().unwrap_or("");
    let Some(judge) = judge else { return Ok(0.0) };
    if prompt.trim().is_empty() {
        return Ok(0.0);
    }
    judge
        .judge(predicted, prompt)
        .map(|answer| judge_value_score(&answer))
        .map_err(|e| format!("judge failed: {e}").into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn judge_shapes() {
        assert_eq!(judge_value_score(&json!({"score": 1.7})), 1.0);
        assert_eq!(judge_value_score(&json!({"score": "0.25"})), 0.25);
        assert_eq!(judge_value_score(&json!({"status": "fail"})), 1.0); // a non-empty string is truthy
        assert_eq!(judge_value_score(&json!({"passed": 0})), 0.0);
        assert_eq!(judge_value_score(&json!(true)), 1.0);
        assert_eq!(judge_value_score(&json!(-3)), 0.0);
        assert_eq!(judge_value_score(&json!("nonsense")), 0.0);
    }
}
