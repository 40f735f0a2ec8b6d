//! One instance: its workspace and inputs, the target agent (BrainAgent, CodeAct in the sandbox, or the hybrid of
//! the two), the parser and the scoring, each attempt under the instance deadline and the run's cancel.

use super::roles::{LlmJudge, Spent, parse};
use super::{Models, Options, Paradigm, default_python, inputs_root, utc_now};
use crate::agent::{eeg, grounding};
use crate::bench::case::Case;
use crate::bench::rescore::score_case;
use crate::bench::results::Instance;
use crate::bench::scoring::{Judge, ScoreContext, VisionJudge};
use crate::llm::ErrorClass;
use crate::util::cancel::Cancel;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// One attempt at one instance.
pub(super) fn run_instance(
    case: &Case,
    models: &Models,
    opts: &Options,
    cancel: &Cancel,
    workspace: &Path,
) -> Instance {
    let started_at = utc_now();
    let t0 = Instant::now();
    let _ = std::fs::remove_dir_all(workspace);
    let _ = std::fs::create_dir_all(workspace.join("file_check"));
    // Odd case content the reference still scores, named with file and JSON path.
    let mut errors: Vec<String> = case.warning_errors();
    let inputs = inputs_root(case, opts.data_root.as_deref());
    // Target.
    let t = target_run(case, &inputs, workspace, models, opts, cancel);
    let target = t.spent;
    let report = t.report.clone();
    let mut infra = false;
    if let Some(e) = &t.failure {
        match e.class {
            ErrorClass::ApiInfrastructureError => {
                infra = true;
                errors.push(format!("api_infrastructure_error: target: {}", e.message));
            }
            ErrorClass::Cancelled => errors.push("agent_error: stopped at the instance deadline".into()),
            _ => errors.push(format!("agent_error: {}", e.message)),
        }
    }
    // Parser (only for a report).
    let mut parsed = json!({});
    let mut parser = Spent::default();
    let mut parser_audit = Value::Null;
    if !report.trim().is_empty() && !infra {
        match parse(models.parser.as_ref(), case, &report, cancel, opts.parser_tokens) {
            Ok(p) => {
                parsed = p.parsed;
                parser = p.spent;
                parser_audit = p.audit;
                errors.extend(p.error);
            }
            Err(e) if e.class == ErrorClass::ApiInfrastructureError => {
                infra = true;
                errors.push(format!("api_infrastructure_error: parser: {}", e.message));
            }
            Err(e) => errors.push(format!("parser_error: {}", e.message)),
        }
    }
    // Scoring (judge calls happen here).
    let ts = Instant::now();
    let judge = models.judge.as_ref().map(|m| LlmJudge::new(m.as_ref(), cancel));
    let vlm = models.vlm.as_ref().map(|m| LlmJudge::new(m.as_ref(), cancel));
    let ctx = ScoreContext {
        workspace: Some(workspace.to_path_buf()),
        strict: true,
        semantic_judge: judge.as_ref().map(|j| j as &dyn Judge),
        vlm_judge: vlm.as_ref().map(|j| j as &dyn VisionJudge),
    };
    let score = score_case(case, &parsed, &report, &ctx);
    let scoring_s = ts.elapsed().as_secs_f64();
    // Each judge's tokens, time and calls; a retryable failure makes the instance an infrastructure failure.
    let mut settle = |j: &Option<LlmJudge>, role: &str| match j {
        Some(j) => {
            if let Some(e) = j.infra.lock().unwrap_or_else(|p| p.into_inner()).take() {
                infra = true;
                errors.push(format!("api_infrastructure_error: {role}: {}", e.message));
            }
            (
                *j.spent.lock().unwrap_or_else(|p| p.into_inner()),
                j.calls.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            )
        }
        None => (Spent::default(), Vec::new()),
    };
    let (judge_spent, judge_calls) = settle(&judge, "judge");
    let (vlm_spent, vlm_calls) = settle(&vlm, "vlm");
    errors.extend(score.errors.iter().cloned());
    let total_s = t0.elapsed().as_secs_f64();
    let (timing, tokens) = accounting(&target, &parser, &judge_spent, &vlm_spent, scoring_s, total_s);
    Instance {
        instance_id: case.instance_id(),
        recording_id: case.raw["agent_input"]["data_path"].clone(),
        case_id: json!(case.case_id),
        bench_subset: Some(case.bench_subset.clone()),
        difficulty: json!(case.difficulty),
        source_json: case.path.as_ref().map(|p| p.display().to_string()),
        total_score: if infra { 0.0 } else { score.total_score },
        max_score: score.max_score,
        vrr: f64::from(!report.trim().is_empty() && !infra),
        metric_details: score.details,
        agent_output: json!(report),
        parser_output: parsed,
        artifact_manifest: json!(score.artifact_manifest),
        sandbox: {
            let mut sb = json!({"paradigm": opts.paradigm.name(), "workspace": workspace.display().to_string(),
                                "inputs": inputs.display().to_string(), "trace": t.trace,
                                "input_only": if opts.paradigm.runs_code() { json!(exposed_inputs(case, &inputs)) } else { Value::Null },
                                "audit": {"parser": parser_audit, "judge": judge_calls, "vlm": vlm_calls}});
            if !t.rounds.is_null() {
                sb["rounds"] = t.rounds;
            }
            if !t.kernel.is_null() {
                sb["kernel"] = t.kernel;
            }
            sb
        },
        token_usage: tokens,
        timing_sec: timing,
        started_at: json!(started_at),
        finished_at: json!(utc_now()),
        errors,
        extra: Map::new(),
    }
}

/// The instance's seconds and tokens per role, as the result file records them.
fn accounting(
    target: &Spent,
    parser: &Spent,
    judge_spent: &Spent,
    vlm: &Spent,
    scoring_s: f64,
    total_s: f64,
) -> (Map<String, Value>, Map<String, Value>) {
    let model_total = target.seconds + parser.seconds + judge_spent.seconds + vlm.seconds;
    let mut timing = Map::new();
    for (k, v) in [
        ("target", target.seconds),
        ("parser", parser.seconds),
        ("judge", judge_spent.seconds),
        ("vlm", vlm.seconds),
        ("model_total", model_total),
        ("scoring", scoring_s),
        ("total", total_s),
    ] {
        timing.insert(k.into(), json!((v * 1e6).round() / 1e6));
    }
    let mut tokens = Map::new();
    for (k, v) in
        [("target", target.tokens), ("parser", parser.tokens), ("semantic", judge_spent.tokens), ("vlm", vlm.tokens)]
    {
        tokens.insert(k.into(), json!(v));
    }
    tokens.insert("total".into(), json!(target.tokens + parser.tokens + judge_spent.tokens + vlm.tokens));
    (timing, tokens)
}

/// What the target paradigm produced for one instance.
struct Target {
    report: String,
    trace: Value,
    spent: Spent,
    failure: Option<crate::llm::LlmError>,
    /// CodeAct: rounds as {round, code, observation} (the instance view's sandbox rounds), and the sandbox.
    rounds: Value,
    kernel: Value,
}

impl Target {
    /// A target outcome without CodeAct rounds.
    fn plain(report: String, trace: Value, spent: Spent, failure: Option<crate::llm::LlmError>) -> Target {
        Target { report, trace, spent, failure, rounds: Value::Null, kernel: Value::Null }
    }
}

/// What of a suite the CodeAct sandbox shows under /input: in a suite folder only the top-level entry the
/// case's data path starts with (its data folder), never the case files that hold the reference answers.
pub fn exposed_inputs(case: &Case, inputs: &Path) -> Vec<String> {
    if !inputs.join("suite.json").is_file() {
        return Vec::new();
    }
    let data = case.raw["agent_input"]["data_path"].as_str().unwrap_or("");
    let first = Path::new(data).components().find_map(|c| match c {
        std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
        _ => None,
    });
    // A case without data (a knowledge question) still gets an empty, existing /input.
    vec![first.unwrap_or_else(|| "data".into())]
}

pub(super) fn kernel_spec(inputs: &Path, only: Vec<String>, workspace: &Path, opts: &Options) -> crate::sandbox::Spec {
    let mut spec = crate::sandbox::Spec::new(workspace);
    spec.input = Some(inputs.to_path_buf());
    spec.input_only = only;
    spec.unsafe_no_sandbox = opts.unsafe_no_sandbox;
    // The task's relative paths (data/eeg/x.edf) resolve where the code starts; inputs stay read-only.
    spec.cwd_input = true;
    spec
}

/// The trace with the report's claims of work that nothing did (`ungrounded_claims`), when there are any.
fn with_claims(mut trace: Value, claims: &[grounding::Claim]) -> Value {
    if !claims.is_empty() {
        trace["ungrounded_claims"] = json!(claims);
    }
    trace
}

fn target_run(
    case: &Case,
    inputs: &Path,
    workspace: &Path,
    models: &Models,
    opts: &Options,
    cancel: &Cancel,
) -> Target {
    match opts.paradigm {
        Paradigm::BrainAgent | Paradigm::Hybrid => {
            // The hybrid's kernel starts at its first code step: an instance that uses tools alone starts none.
            let mut kernel = (opts.paradigm == Paradigm::Hybrid).then(|| {
                let python = opts.python.clone().unwrap_or_else(default_python);
                let spec = kernel_spec(inputs, exposed_inputs(case, inputs), workspace, opts);
                crate::sandbox::kernel::Kernel::deferred(&spec, &python)
            });
            let mut code = kernel.as_mut().map(|kernel| eeg::CodeSteps {
                rule: opts.code_rule,
                kernel,
                settings: opts.codeact.clone(),
                tries: 2,
                max_steps: opts.code_steps,
                ran: 0,
            });
            let o = eeg::run_with(
                &case.query(),
                Some(&case.bench_subset),
                inputs,
                workspace,
                models.target.as_ref(),
                cancel,
                &opts.agent,
                code.as_mut(),
            );
            drop(code);
            let spent = Spent { tokens: o.trace.tokens(), seconds: o.trace.model_seconds() };
            // Only the model's own text is checked: the measured section is BrainLens's.
            let claims =
                grounding::ungrounded(&o.trace.report_text, &grounding::done_by_tools(&o.trace), &case.query());
            let mut t = Target::plain(o.report, with_claims(json!(o.trace), &claims), spent, o.failure);
            if let Some(k) = kernel.filter(|k| k.started()) {
                t.kernel = json!(k.report);
            }
            t
        }
        Paradigm::CodeAct => {
            let python = opts.python.clone().unwrap_or_else(default_python);
            let mut kernel = match crate::sandbox::kernel::Kernel::start(
                &kernel_spec(inputs, exposed_inputs(case, inputs), workspace, opts),
                &python,
            ) {
                Ok(k) => k,
                Err(e) => {
                    // A sandbox or kernel that does not start is an infrastructure failure (the BrainBench
                    // paper's Table 11): rerun, excluded from scores — not an agent error.
                    let e = format!("the sandboxed kernel did not start: {e}");
                    let trace = json!({"paradigm": "codeact", "error": e, "outcome": "api_infrastructure_error"});
                    return Target::plain(
                        String::new(),
                        trace,
                        Spent::default(),
                        Some(crate::llm::LlmError::infra("sandbox", e)),
                    );
                }
            };
            let o =
                crate::agent::codeact::run(&case.query(), &mut kernel, models.target.as_ref(), cancel, &opts.codeact);
            let rounds: Vec<Value> = o
                .trace
                .rounds
                .iter()
                .map(|r| {
                    let code = r.code.clone().unwrap_or_else(|| r.reply.clone());
                    let mut v = json!({"round": r.round, "code": code, "observation": r.observation});
                    if let Some(resent) = &r.resent {
                        v["resent_round"] = json!(resent.of_round);
                    }
                    if let Some(again) = &r.solution_again {
                        v["solution_again"] = json!(again.works);
                    }
                    v
                })
                .collect();
            let spent = Spent { tokens: o.trace.tokens(), seconds: o.trace.model_seconds() };
            let claims = grounding::ungrounded(&o.report, &grounding::done_by_code(&o.trace), &case.query());
            Target {
                report: o.report,
                trace: with_claims(json!(o.trace), &claims),
                spent,
                failure: o.failure,
                rounds: json!(rounds),
                kernel: json!(kernel.report),
            }
        }
    }
}

/// Runs one instance under its deadline (and the run's cancel), again while it ends in an infrastructure
/// failure and retries are left; `running` is told each attempt's number.
pub(super) fn attempts(
    case: &Case,
    models: &Models,
    opts: &Options,
    cancel: &Cancel,
    ws: &Path,
    running: &dyn Fn(u32),
) -> Instance {
    let mut attempt = 0;
    loop {
        attempt += 1;
        running(attempt);
        // The instance's own cancel: the run's cancel or the deadline, whichever comes first.
        let own = Cancel::default();
        let deadline = Instant::now() + Duration::from_secs_f64(opts.deadline_s.max(0.001));
        let finished = std::sync::atomic::AtomicBool::new(false);
        let inst = std::thread::scope(|s2| {
            s2.spawn(|| {
                while !finished.load(Ordering::SeqCst) {
                    if cancel.is_cancelled() {
                        own.cancel();
                        break;
                    }
                    if Instant::now() >= deadline {
                        own.cancel_because(format!("stopped at the instance deadline of {} s", opts.deadline_s));
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            });
            let inst = run_instance(case, models, opts, &own, ws);
            finished.store(true, Ordering::SeqCst);
            inst
        });
        let mut inst = inst;
        inst.extra.insert("attempts".into(), json!(attempt));
        if inst.is_infrastructure_failure() && attempt <= opts.retries && !cancel.is_cancelled() {
            continue;
        }
        break inst;
    }
}
