//! Judging a stored run's judged units after the run: `semantic_consistency`, `safety_compliance` and
//! `factual_qa_check` get a judge model's score, as `bench run --judge-model` gives them while it runs. A run
//! made without a judge scored them 0 (BrainBench's rule: no judge, 0), which is not what the agent earned.
//! Every other metric is scored again from the stored parser output (the same rules; artifact checks keep
//! their stored scores). Each judge call is kept in the instance's audit; the judge's tokens and seconds are
//! added to the instance's. A judge's score is a model's opinion, not a measurement: the file says which model.

use super::runner::roles::LlmJudge;
use crate::bench::case::Case;
use crate::bench::rescore::{CaseIndex, Keep, Outcome, is_judged, rescore_one};
use crate::bench::results::Instance;
use crate::bench::scoring::ScoreContext;
use crate::llm::{ChatModel, LlmError};
use crate::util::cancel::Cancel;
use serde_json::{Value, json};

/// What judging one instance did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Judged {
    pub instance_id: String,
    /// The judged metrics and their raw scores (0–1), in case order.
    pub metrics: Vec<(String, f64)>,
    pub score_before: f64,
    pub score_after: f64,
}

/// Judges `inst`'s judged units with `judge` and rescores it; `None` (untouched) when its case has no judged
/// unit or the target never answered. An infrastructure failure of the judge is an error (nothing is kept).
pub fn judge_stored(
    inst: &mut Instance,
    case: &Case,
    index: &CaseIndex,
    judge: &dyn ChatModel,
    cancel: &Cancel,
) -> Result<Option<Judged>, LlmError> {
    if !case.metrics.iter().any(|m| is_judged(&m.kind)) {
        return Ok(None);
    }
    let mut fresh = inst.clone();
    let j = LlmJudge::new(judge, cancel);
    let ctx = ScoreContext { semantic_judge: Some(&j), ..Default::default() };
    // Never answered (nothing was scored) or no case: left as `rescore` leaves it, nothing to judge.
    if !matches!(rescore_one(&mut fresh, index, &ctx, Keep { judged: false, files: true }), Outcome::Rescored { .. }) {
        return Ok(None);
    }
    if let Some(e) = j.infra.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let calls = j.calls.into_inner().unwrap_or_else(|p| p.into_inner());
    let spent = j.spent.into_inner().unwrap_or_else(|p| p.into_inner());
    let add = |map: &mut serde_json::Map<String, Value>, key: &str, v: f64| {
        let old = map.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        map.insert(key.into(), json!(old + v));
    };
    add(&mut fresh.token_usage, "semantic", spent.tokens as f64);
    add(&mut fresh.token_usage, "total", spent.tokens as f64);
    // The judge's seconds count to the model time, as the runner's accounting adds them (not to the
    // instance's wall time, which the run measured).
    add(&mut fresh.timing_sec, "judge", spent.seconds);
    add(&mut fresh.timing_sec, "model_total", spent.seconds);
    fresh.sandbox["audit"]["judge"] = json!(calls);
    let metrics = case
        .metrics
        .iter()
        .filter(|m| is_judged(&m.kind))
        .map(|m| (m.metric_id.clone(), fresh.metric_details.get(&m.metric_id).map_or(0.0, |d| d.raw_score)))
        .collect();
    fresh.extra.insert("judged_after_run".into(), json!({"judge": judge.name(), "calls": calls.len()}));
    let judged = Judged {
        instance_id: inst.instance_id.clone(),
        metrics,
        score_before: inst.total_score,
        score_after: fresh.total_score,
    };
    *inst = fresh;
    Ok(Some(judged))
}
