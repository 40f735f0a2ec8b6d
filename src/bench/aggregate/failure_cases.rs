//! The failure-case table (the BrainBench paper's E.10 and its Table 11 classes): every instance that did not
//! score full marks, by validation unit and failure class, with the rule that put it there. Rules, first that
//! applies:
//!
//! 1. `infrastructure` — an `api_infrastructure_error`: a sandbox or kernel that did not start, or an endpoint
//!    that timed out, refused, rate-limited or answered 5xx. Rerun, excluded from scores; never an agent error.
//! 2. `agent_error` — the target stopped at the instance deadline, or its model call failed as the model's
//!    fault (a 4xx, a reply that is not usable).
//! 3. `parser_error` — the parser's reply was not usable; the instance scores what it can.
//! 4. `no_report` — the target returned no report (vrr 0) without a recorded error.
//! 5. Per metric that scored below 1: `scoring_error` when the metric recorded an error (a path outside the
//!    workspace, a missing file, …), else `wrong` (raw score 0) or `partial` (between 0 and 1).
//!
//! Besides these, whatever the score: `ungrounded_report` — the report claims a load, filter or computation
//! that no tool or code performed, or states a value that neither the task nor any tool or code output holds
//! (the trace's `ungrounded_claims`, checked when the instance ran and again when it is rescored); and
//! `claims_struck` — the model's report made such claims and they were struck from the delivered report
//! (the trace's `struck_claims`, `grounding::strike`); and `answer_unshown` — an answer that scored (a
//! number, a category, a set or a sequence, read by the parser) is shown by no tool or code output: the
//! parser read it from the task or from the model's own words (`grounding::Outputs`). Seen with
//! Qwen2.5-Coder-1.5B's CodeAct: "The dominant band is delta" from a run whose code printed no band. What it
//! misses: a value some output prints for another reason (a peak of 13.0 Hz, the top of the task's band,
//! passes because MNE's filter log printed "Upper passband edge: 13.00 Hz").

use super::Report;
use crate::agent::grounding;
use crate::bench::collection::Collection;
use crate::bench::results::Instance;
use crate::bench::scoring::unit_of;
use serde::Serialize;
use std::collections::BTreeMap;

/// One row: how many instances of a model × paradigm a rule put in a class, for one unit.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FailureRow {
    pub model: String,
    pub paradigm: String,
    /// Validation unit (`—` for failures of the whole instance).
    pub unit: String,
    /// infrastructure, agent_error, parser_error, ungrounded_report, claims_struck, answer_unshown, no_report,
    /// scoring_error, wrong, partial.
    pub class: String,
    /// The rule that applied, in words.
    pub rule: String,
    pub count: usize,
    /// Up to three instance ids.
    pub examples: Vec<String>,
    /// The step kinds the row's instances used ([`step_kinds`]) and how many used each: "tool", "code",
    /// "tool+code" or "none".
    pub step_kinds: BTreeMap<String, usize>,
}

/// The kinds of step an instance's agent ran (ok or failed): `tool` (BrainAgent's validated tools), `code` (a
/// CodeAct block, a hybrid python step), `tool+code`, or `none` (nothing ran, or no trace).
pub fn step_kinds(i: &Instance) -> &'static str {
    let trace = &i.sandbox["trace"];
    let rounds = trace["rounds"].as_array().into_iter().flatten();
    let (mut tool, mut code) = (false, false);
    if trace["paradigm"] == "codeact" {
        code = rounds.into_iter().any(|r| r["code"].is_string());
    } else {
        let ran = rounds.flat_map(|r| r["executed"].as_array().into_iter().flatten());
        for s in ran.filter(|s| s["status"] == "ok" || s["status"] == "failed") {
            if s["kind"] == "code" { code = true } else { tool = true }
        }
    }
    match (tool, code) {
        (true, true) => "tool+code",
        (true, false) => "tool",
        (false, true) => "code",
        (false, false) => "none",
    }
}

impl FailureRow {
    /// The step kinds as one cell: "tool 5, tool+code 2".
    pub fn kinds_text(&self) -> String {
        self.step_kinds.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
    }
}

/// Instance-level classes carry no unit.
const WHOLE: &str = "—";

/// (unit, class, rule) for each way `i` fell short of full marks (none when it scored everything).
pub fn classify(i: &Instance) -> Vec<(String, &'static str, String)> {
    let msg = |e: &str| e.split_once(':').map_or("", |(_, m)| m).trim().to_string();
    if let Some(e) = i.errors.iter().find(|e| e.starts_with("api_infrastructure_error")) {
        let m = msg(e).to_lowercase();
        let rule = if m.contains("kernel") || m.contains("sandbox") {
            "the sandbox or kernel did not start: infrastructure, rerun and excluded from scores".to_string()
        } else {
            let role = m.split(':').next().filter(|r| ["target", "parser", "judge", "vlm"].contains(r));
            format!(
                "the {} endpoint timed out, refused, rate-limited or failed (5xx): infrastructure, rerun and excluded",
                role.unwrap_or("model")
            )
        };
        return vec![(WHOLE.into(), "infrastructure", rule)];
    }
    let mut out = Vec::new();
    for e in &i.errors {
        let (cat, m) = (e.split(':').next().unwrap_or("").trim(), msg(e));
        match cat {
            "agent_error" if m.contains("deadline") => {
                out.push((WHOLE.into(), "agent_error", "the target stopped at the instance deadline".into()))
            }
            "agent_error" => out.push((
                WHOLE.into(),
                "agent_error",
                "the target's model call failed as the model's fault (4xx, unusable reply)".into(),
            )),
            "parser_error" => out.push((
                WHOLE.into(),
                "parser_error",
                "the parser's reply was not usable; scored what it could".into(),
            )),
            _ => {}
        }
    }
    let trace = &i.sandbox["trace"];
    if let Some(claims) = trace["ungrounded_claims"].as_array().filter(|c| !c.is_empty()) {
        out.push((WHOLE.into(), "ungrounded_report", claims_rule(claims, "the report")));
    }
    if let Some(claims) = i.struck_claims() {
        let rule = format!("{}; those sentences were struck from it", claims_rule(claims, "the model's report"));
        out.push((WHOLE.into(), "claims_struck", rule));
    }
    if unshown_answers(i) {
        let rule = "a scored answer that no tool or code output shows: read from the task or the model's own words";
        out.push((WHOLE.into(), "answer_unshown", rule.into()));
    }
    if i.vrr == 0.0 && out.is_empty() {
        out.push((WHOLE.into(), "no_report", "the target returned no report".into()));
    }
    for d in i.metric_details.values().filter(|d| d.raw_score < 1.0) {
        let unit = unit_of(d.metric_type.as_deref().unwrap_or("unknown")).to_string();
        let (class, rule) = match &d.error {
            Some(_) => ("scoring_error", "the metric recorded an error while scoring (file, path or value)".into()),
            None if d.raw_score <= 0.0 => ("wrong", "raw score 0: the answer did not match".to_string()),
            None => ("partial", "raw score between 0 and 1: partly matched".to_string()),
        };
        out.push((unit, class, rule));
    }
    out
}

/// Whether an answer that scored (raw score above 0) in a unit whose answer is a value (numbers, categories,
/// sets, sequences) is shown by nothing the agent saw of what ran (`grounding::Outputs::show`). The trace is
/// read only for an instance with such an answer.
fn unshown_answers(i: &Instance) -> bool {
    !unshown_keys(i).is_empty()
}

/// The target keys whose scored answer (a number, a category, a set or a sequence, as the parser read it) no
/// tool or code output of the trace shows.
pub fn unshown_keys(i: &Instance) -> Vec<String> {
    const VALUES: [&str; 4] = ["numeric_check", "categorical_check", "set_match_check", "sequence_match_check"];
    let scored: Vec<&str> = i
        .metric_details
        .values()
        .filter(|d| d.raw_score > 0.0 && d.metric_type.as_deref().is_some_and(|t| VALUES.contains(&t)))
        .filter_map(|d| d.target_key.as_deref())
        .collect();
    if scored.is_empty() {
        return Vec::new();
    }
    let Some(outputs) = grounding::Outputs::of(&i.sandbox["trace"]) else { return Vec::new() };
    scored.into_iter().filter(|&k| outputs.show(&i.parser_output[k]) == Some(false)).map(str::to_string).collect()
}

/// Scores counting only answers an output shows: each scored answer that no tool or code output shows
/// (`answer_unshown`) scores 0, the instance's total with it. The number of answers zeroed.
pub fn count_shown_only(c: &mut Collection) -> usize {
    let mut zeroed = 0;
    for i in c.runs.iter_mut().flat_map(|r| r.result.instances.iter_mut()) {
        let keys = unshown_keys(i);
        for d in i.metric_details.values_mut().filter(|d| d.target_key.as_ref().is_some_and(|k| keys.contains(k))) {
            i.total_score = (i.total_score - d.weighted_score).max(0.0);
            d.raw_score = 0.0;
            d.weighted_score = 0.0;
            zeroed += 1;
        }
    }
    zeroed
}

/// What `claims` (the trace's `ungrounded_claims` or `struck_claims`) say `whose` report did.
fn claims_rule(claims: &[serde_json::Value], whose: &str) -> String {
    let kinds: Vec<&str> = claims.iter().filter_map(|c| c["work"].as_str()).collect();
    let mut works: Vec<&str> = Vec::new();
    for &k in kinds.iter().filter(|&&k| k != "value") {
        if !works.contains(&k) {
            works.push(k);
        }
    }
    let value = "a value that no tool or code output holds";
    match (works.is_empty(), kinds.contains(&"value")) {
        (true, _) => format!("{whose} states {value}"),
        (false, false) => format!("{whose} claims work that no tool or code performed: {}", works.join(", ")),
        (false, true) => {
            format!("{whose} claims work that no tool or code performed: {}; and states {value}", works.join(", "))
        }
    }
}

/// The table over every instance of every run (infrastructure failures included: they are counted, not scored).
pub fn failure_cases(c: &Collection) -> Vec<FailureRow> {
    type Cell = (usize, Vec<String>, BTreeMap<String, usize>);
    let mut rows: BTreeMap<(String, String, String, &'static str, String), Cell> = BTreeMap::new();
    for r in &c.runs {
        for i in &r.result.instances {
            let kinds = step_kinds(i);
            for (unit, class, rule) in classify(i) {
                let e = rows.entry((r.model.clone(), r.paradigm.clone(), unit, class, rule)).or_default();
                e.0 += 1;
                *e.2.entry(kinds.to_string()).or_default() += 1;
                if e.1.len() < 3 && !e.1.contains(&i.instance_id) {
                    e.1.push(i.instance_id.clone());
                }
            }
        }
    }
    rows.into_iter()
        .map(|((model, paradigm, unit, class, rule), (count, examples, step_kinds))| FailureRow {
            model,
            paradigm,
            unit,
            class: class.into(),
            rule,
            count,
            examples,
            step_kinds,
        })
        .collect()
}

impl Report {
    /// Rows of one class.
    pub fn failures_of<'a>(&'a self, class: &'a str) -> impl Iterator<Item = &'a FailureRow> {
        self.failure_cases.iter().filter(move |f| f.class == class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::results::MetricDetail;

    fn inst(errors: &[&str], vrr: f64, raws: &[(f64, Option<&str>)]) -> Instance {
        let mut i = Instance { instance_id: "x".into(), vrr, ..Default::default() };
        i.errors = errors.iter().map(|e| e.to_string()).collect();
        for (k, (raw, err)) in raws.iter().enumerate() {
            let d = MetricDetail {
                raw_score: *raw,
                metric_type: Some("numeric_match".into()),
                error: err.map(String::from),
                ..Default::default()
            };
            i.metric_details.insert(format!("m{k}"), d);
        }
        i
    }

    #[test]
    fn each_rule_puts_its_instances_in_one_class() {
        let classes = |i: &Instance| classify(i).into_iter().map(|(_, c, _)| c).collect::<Vec<_>>();
        let kernel = inst(&["api_infrastructure_error: target: the sandboxed kernel did not start: bwrap"], 0.0, &[]);
        let c = classify(&kernel);
        assert_eq!((c.len(), c[0].1), (1, "infrastructure"));
        assert!(c[0].2.contains("sandbox or kernel"));
        let endpoint = classify(&inst(&["api_infrastructure_error: parser: HTTP 503"], 1.0, &[(0.0, None)]));
        assert!(endpoint.len() == 1 && endpoint[0].2.contains("parser endpoint"), "{endpoint:?}");
        assert_eq!(classes(&inst(&["agent_error: stopped at the instance deadline"], 0.0, &[])), ["agent_error"]);
        assert_eq!(classes(&inst(&[], 0.0, &[])), ["no_report"]);
        assert_eq!(
            classes(&inst(
                &["parser_error: not JSON"],
                1.0,
                &[(0.0, None), (0.5, None), (1.0, None), (0.0, Some("e"))]
            )),
            ["parser_error", "wrong", "partial", "scoring_error"]
        );
        assert!(classify(&inst(&[], 1.0, &[(1.0, None)])).is_empty());
        // A report claiming work nothing did is flagged even at full marks.
        let mut claimed = inst(&[], 1.0, &[(1.0, None)]);
        claimed.sandbox = serde_json::json!({"trace": {"ungrounded_claims": [
            {"work": "filter", "sentence": "The channels were filtered"}, {"work": "spectrum", "sentence": "PSDs were computed"}]}});
        let c = classify(&claimed);
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].1, c[0].2.as_str()),
            ("ungrounded_report", "the report claims work that no tool or code performed: filter, spectrum")
        );
        claimed.sandbox = serde_json::json!({"trace": {"ungrounded_claims": [
            {"work": "value", "sentence": "The mean heart rate is 72 bpm"}]}});
        assert_eq!(classify(&claimed)[0].2, "the report states a value that no tool or code output holds");
        // Struck claims are their own class: the delivered report no longer makes them.
        claimed.sandbox = serde_json::json!({"trace": {"struck_claims": [
            {"work": "spectrum", "sentence": "PSDs were computed"}]}});
        assert_eq!(
            classify(&claimed),
            [(
                WHOLE.to_string(),
                "claims_struck",
                "the model's report claims work that no tool or code performed: spectrum; those sentences were \
                 struck from it"
                    .to_string()
            )]
        );
    }

    /// A scored answer no output of what ran shows is flagged; one an observation printed is not.
    #[test]
    fn a_scored_answer_no_output_shows_is_flagged() {
        use crate::agent::codeact::{CodeActTrace, Round};
        let with = |observation: &str, raw: f64| {
            let mut i = inst(&[], 1.0, &[(raw, None)]);
            let d = i.metric_details.get_mut("m0").unwrap();
            (d.metric_type, d.target_key) = (Some("numeric_check".into()), Some("peak_hz".into()));
            i.parser_output = serde_json::json!({"peak_hz": 13.0});
            let rounds = vec![Round { observation: observation.into(), ..Default::default() }];
            let trace = CodeActTrace { paradigm: "codeact".into(), rounds, ..Default::default() };
            i.sandbox = serde_json::json!({"trace": trace});
            classify(&i).into_iter().map(|(_, c, _)| c).collect::<Vec<_>>()
        };
        assert_eq!(with("Executed successfully (no output)", 1.0), ["answer_unshown"]);
        assert!(with("peak_hz = 13.0", 1.0).is_empty(), "printed by the code");
        assert_eq!(with("Executed successfully (no output)", 0.0), ["wrong"], "only answers that scored");
    }
}
