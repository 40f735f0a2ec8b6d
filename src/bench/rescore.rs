//! Scoring a case's metrics for one instance, and re-applying the rules to a stored result file.

use super::case::{Case, WARNING_CATEGORY};
use super::results::{
    Instance, MetricDetail, RawResults, ResultError, ResultFile, StreamWriter, Summarizer, refreshed_summary,
};
use super::scoring::{ScoreContext, resolve_artifact, score_metric};
use crate::util::parallel as par;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

/// The metric part of an instance: details, totals, metric errors and the artifact manifest.
#[derive(Debug, Clone, Default)]
pub struct CaseScore {
    pub details: indexmap::IndexMap<String, MetricDetail>,
    pub total_score: f64,
    pub max_score: f64,
    /// The weighted score of each metric of the case, in order (duplicate ids each have theirs).
    pub weighted: Vec<f64>,
    /// `"<metric_id>: <error>"` and `"artifact_path_violation: <message>"`.
    pub errors: Vec<String>,
    pub artifact_manifest: Vec<Value>,
}

/// Scores every metric of `case` against the parser output and report, as the reference evaluator does (the
/// report without the markers of struck sentences: those are BrainLens's, not the agent's answer).
pub fn score_case(case: &Case, parsed: &Value, report: &str, ctx: &ScoreContext) -> CaseScore {
    let report = crate::agent::grounding::unmarked(report);
    let report = report.as_ref();
    let mut out = CaseScore { max_score: case.metrics.iter().map(|m| m.weight).sum(), ..Default::default() };
    let mut violations: Vec<String> = Vec::new();
    for m in &case.metrics {
        let s = score_metric(parsed, report, m, ctx);
        out.total_score += s.weighted_score;
        out.weighted.push(s.weighted_score);
        if let Some(e) = &s.error {
            out.errors.push(format!("{}: {e}", m.metric_id));
        }
        for v in &s.violations {
            if !violations.contains(v) {
                violations.push(v.clone());
            }
        }
        out.details.insert(
            m.metric_id.clone(),
            MetricDetail {
                raw_score: s.raw_score,
                weighted_score: s.weighted_score,
                error: s.error,
                evidence: (!s.evidence.is_empty()).then_some(Value::Object(s.evidence)),
                metric_type: Some(m.kind.clone()),
                target_key: m.target_key.clone(),
                weight: m.weight_raw.clone(),
                extra: Default::default(),
            },
        );
        if m.kind == "file_status_check" {
            if let Some(entry) = manifest_entry(&m.metric_id, parsed.get(m.target_key.as_deref().unwrap_or("")), ctx) {
                if !out.artifact_manifest.contains(&entry) {
                    out.artifact_manifest.push(entry);
                }
            }
        }
    }
    out.errors.extend(violations.into_iter().map(|v| format!("artifact_path_violation: {v}")));
    out
}

fn manifest_entry(metric_id: &str, reported: Option<&Value>, ctx: &ScoreContext) -> Option<Value> {
    let reported = reported?.as_str()?;
    let file = resolve_artifact(&json!(reported), ctx).ok()??;
    let meta = file.path.symlink_metadata().ok().filter(|m| m.is_file())?;
    let digest = crate::util::hash::sha256_reader(std::fs::File::open(&file.path).ok()?).ok()?;
    Some(json!({
        "metric_id": metric_id, "reported_path": reported,
        "file_name": file.path.file_name().map(|n| n.to_string_lossy().to_string()),
        "size_bytes": meta.len(), "sha256": digest, "score_completed": true, "retained": false,
    }))
}

/// Cases indexed the ways an instance can name its case.
pub struct CaseIndex<'a> {
    by_instance_id: HashMap<String, &'a Case>,
    by_tail: HashMap<(String, String), &'a Case>,
}

/// `case12/case12_3.json` from a path.
fn tail(path: &str) -> Option<String> {
    let p = Path::new(path);
    Some(format!("{}/{}", p.parent()?.file_name()?.to_string_lossy(), p.file_name()?.to_string_lossy()))
}

impl<'a> CaseIndex<'a> {
    pub fn new(cases: &'a [Case]) -> CaseIndex<'a> {
        let mut by_instance_id = HashMap::with_capacity(cases.len());
        let mut by_tail = HashMap::with_capacity(cases.len());
        // The keys are formatted on every core, then inserted in order, so a later duplicate wins as before.
        let keys = par::map_collect(cases.len(), par::threads(), 512, |i| {
            (cases[i].instance_id(), cases[i].path.as_ref().and_then(|p| tail(&p.to_string_lossy())))
        });
        for (c, (id, t)) in cases.iter().zip(keys) {
            by_instance_id.insert(id, c);
            if let Some(t) = t {
                by_tail.insert((c.bench_subset.clone(), t), c);
            }
        }
        CaseIndex { by_instance_id, by_tail }
    }

    pub fn find(&self, inst: &Instance) -> Option<&'a Case> {
        self.by_instance_id.get(&inst.instance_id).copied().or_else(|| {
            let t = tail(inst.source_json.as_deref()?)?;
            self.by_tail.get(&(inst.bench_subset.clone().unwrap_or_default(), t)).copied()
        })
    }
}

/// What a rescore did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RescoreStats {
    pub instances: usize,
    pub rescored: usize,
    /// Instances whose total score changed (by more than 1e-9).
    pub changed: Vec<String>,
    /// Instances with no matching case (left as stored).
    pub unmatched: Vec<String>,
    /// Instances the target never answered (no metrics were scored; left as stored).
    pub not_answered: usize,
}

/// Which metric kinds keep their stored scores.
#[derive(Debug, Clone, Copy, Default)]
pub struct Keep {
    /// Judged units keep their stored score (no judge given).
    pub judged: bool,
    /// `file_status_check` keeps its stored score (no workspace given: the artifacts are not at hand).
    pub files: bool,
}

/// The kinds a judge model scores (no judge: 0).
pub fn is_judged(kind: &str) -> bool {
    matches!(kind, "semantic_consistency" | "safety_compliance" | "factual_qa_check")
}

/// What rescoring did to one instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// No case matches it: left as stored.
    Unmatched,
    /// The target never answered (no metrics were scored): left as stored.
    NotAnswered,
    Rescored {
        changed: bool,
    },
}

impl RescoreStats {
    /// Counts one instance's outcome (in file order).
    pub fn count(&mut self, inst: &Instance, outcome: Outcome) {
        self.instances += 1;
        match outcome {
            Outcome::Unmatched => self.unmatched.push(inst.instance_id.clone()),
            Outcome::NotAnswered => self.not_answered += 1,
            Outcome::Rescored { changed } => {
                self.rescored += 1;
                if changed {
                    self.changed.push(inst.instance_id.clone());
                }
            }
        }
    }
}

/// Re-applies the rules to one instance's stored `parser_output` (instances without a case or never answered
/// are left as stored), counting what happened in `stats`.
pub fn rescore_instance(
    inst: &mut Instance,
    index: &CaseIndex,
    ctx: &ScoreContext,
    keep: Keep,
    stats: &mut RescoreStats,
) {
    let outcome = rescore_one(inst, index, ctx, keep);
    stats.count(inst, outcome);
}

/// Re-applies the rules to one instance, saying what it did.
pub fn rescore_one(inst: &mut Instance, index: &CaseIndex, ctx: &ScoreContext, keep: Keep) -> Outcome {
    let Some(case) = index.find(inst) else { return Outcome::Unmatched };
    recheck_claims(inst, case);
    if inst.vrr <= 0.0 && inst.metric_details.is_empty() {
        return Outcome::NotAnswered;
    }
    let scored = score_case(case, &inst.parser_output, inst.report(), ctx);
    let kept = |kind: &str| (keep.judged && is_judged(kind)) || (keep.files && kind == "file_status_check");
    // Every metric counts in the total, duplicates of an id included, as the reference sums them.
    let total: f64 = case
        .metrics
        .iter()
        .zip(&scored.weighted)
        .map(|(m, fresh)| match inst.metric_details.get(&m.metric_id).filter(|_| kept(&m.kind)) {
            Some(stored) => stored.weighted_score,
            None => *fresh,
        })
        .sum();
    let mut details = scored.details;
    for (id, d) in details.iter_mut() {
        if let (true, Some(stored)) = (kept(d.metric_type.as_deref().unwrap_or("")), inst.metric_details.get(id)) {
            *d = stored.clone();
        }
    }
    let metric_ids: Vec<&str> = case.metrics.iter().map(|m| m.metric_id.as_str()).collect();
    let mut errors = case.warning_errors();
    errors.extend(
        inst.errors
            .iter()
            .filter(|e| {
                let head = e.split(':').next().unwrap_or("");
                head != "artifact_path_violation" && head != WARNING_CATEGORY && !metric_ids.contains(&head)
            })
            .cloned(),
    );
    for (id, d) in &details {
        if let Some(e) = &d.error {
            errors.push(format!("{id}: {e}"));
        }
    }
    if !keep.files {
        errors.extend(scored.errors.into_iter().filter(|e| e.starts_with("artifact_path_violation:")));
        inst.artifact_manifest = Value::Array(scored.artifact_manifest);
    } else {
        errors.extend(inst.errors.iter().filter(|e| e.starts_with("artifact_path_violation:")).cloned());
    }
    let changed = (total - inst.total_score).abs() > 1e-9;
    inst.total_score = total;
    inst.max_score = scored.max_score;
    inst.metric_details = details;
    inst.errors = errors;
    Outcome::Rescored { changed }
}

/// The report's claims of work nothing did, checked again with the current rules (the trace's
/// `ungrounded_claims`, what the failure-case table reads): a result file written before a rule was fixed
/// gets the fixed rule when it is rescored.
fn recheck_claims(inst: &mut Instance, case: &Case) {
    let Some(trace) = inst.sandbox.get_mut("trace") else { return };
    let Some(claims) = crate::agent::grounding::recheck(trace, inst.agent_output.as_str().unwrap_or(""), &case.query())
    else {
        return;
    };
    match trace.as_object_mut() {
        Some(t) if claims.is_empty() => {
            t.remove("ungrounded_claims");
        }
        Some(t) => {
            t.insert("ungrounded_claims".into(), json!(claims));
        }
        None => {}
    }
}

/// A rescored result file: what happened and the recomputed summary.
#[derive(Debug, Clone, Default)]
pub struct Rescored {
    pub stats: RescoreStats,
    pub summary: Map<String, Value>,
}

/// Rescores a result file read by [`ResultFile::read_raw`]: the instances are parsed and rescored on every
/// core, a batch at a time, and counted, summarised and (with `out`) written in file order — so the sums are
/// the reference's and only a few batches are in memory — then the rescored file is written to `out`
/// atomically (it may be the file read).
pub fn rescore_raw(
    raw: &RawResults,
    out: Option<&Path>,
    index: &CaseIndex,
    ctx: &ScoreContext,
    keep: Keep,
) -> Result<Rescored, ResultError> {
    let mut stats = RescoreStats::default();
    let mut summary = Summarizer::default();
    let mut writer = out.map(StreamWriter::create).transpose()?;
    let rescore = |i: usize| {
        let mut inst = raw.instance(i)?;
        let outcome = rescore_one(&mut inst, index, ctx, keep);
        Ok((inst, outcome))
    };
    par::map_in_order(raw.len(), par::threads(), 64, rescore, |parsed: Result<(Instance, Outcome), ResultError>| {
        let (inst, outcome) = parsed?;
        stats.count(&inst, outcome);
        summary.add(&inst);
        match writer.as_mut() {
            Some(w) => w.push(&inst),
            None => Ok(()),
        }
    })?;
    let summary = refreshed_summary(&raw.head.summary, summary);
    if let Some(w) = writer {
        w.finish(&ResultFile { summary: summary.clone(), ..raw.head.clone() })?;
    }
    Ok(Rescored { stats, summary })
}
