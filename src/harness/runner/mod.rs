//! The bench runner: N instances in flight on N worker threads (the reference runs one), a workspace per
//! instance (inputs read-only, artifacts under `file_check/`), a deadline per instance, the reference's retry
//! policy (infrastructure failures rerun and excluded, target failures kept), token and time accounting per
//! role, the result file rewritten atomically after every instance, resume, and cancel.

mod live;
pub mod roles;
pub mod shards;
pub mod time;

use crate::agent::eeg;
use crate::bench::case::{Case, load_cases};
use crate::bench::rescore::score_case;
use crate::bench::results::{Instance, ResultFile, summarize};
use crate::bench::scoring::{Judge, ScoreContext};
use crate::llm::{ChatModel, ErrorClass};
use crate::util::cancel::Cancel;
use anyhow::{Context, Result, bail};
use roles::{LlmJudge, Spent, parse};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use live::{Live, Row, RowState};
pub use time::utc_now;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paradigm {
    BrainAgent,
    CodeAct,
}

impl Paradigm {
    pub fn parse(s: &str) -> Result<Paradigm> {
        match s.trim().to_lowercase().as_str() {
            "brainagent" => Ok(Paradigm::BrainAgent),
            "codeact" => Ok(Paradigm::CodeAct),
            o => bail!("unknown paradigm {o:?} (brainagent, codeact)"),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Paradigm::BrainAgent => "brainagent",
            Paradigm::CodeAct => "codeact",
        }
    }
}

/// The models of a run, by role.
#[derive(Clone)]
pub struct Models {
    pub target: Arc<dyn ChatModel>,
    pub parser: Arc<dyn ChatModel>,
    pub judge: Option<Arc<dyn ChatModel>>,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// A suite, subset folder or case file.
    pub cases: PathBuf,
    pub paradigm: Paradigm,
    pub concurrency: usize,
    pub limit: Option<usize>,
    pub out: PathBuf,
    pub resume: bool,
    /// Seconds an instance may take (target + parser + judge) before it is stopped as an agent error.
    pub deadline_s: f64,
    /// Reruns of an instance that ended in an infrastructure failure.
    pub retries: u32,
    pub agent: eeg::Settings,
    pub codeact: crate::agent::codeact::Settings,
    /// CodeAct: the Python the kernel runs (default: the CodeAct environment in the cache).
    pub python: Option<PathBuf>,
    /// CodeAct without bubblewrap (recorded loudly in the experiment block).
    pub unsafe_no_sandbox: bool,
    pub parser_tokens: u32,
    /// Run only shard `i` of `n` (1-based): the instances whose id hashes to it (stable across machines).
    pub shard: Option<(usize, usize)>,
}

/// The shard (1-based) an instance belongs to: FNV-1a of its id, modulo `n`.
pub fn shard_of(instance_id: &str, n: usize) -> usize {
    let h = instance_id.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    (h % n.max(1) as u64) as usize + 1
}

/// `"2/4"` → (2, 4).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let (i, n) = s.split_once('/').ok_or_else(|| anyhow::anyhow!("--shard {s:?}: expected i/n, e.g. 2/4"))?;
    let (i, n): (usize, usize) = (i.trim().parse()?, n.trim().parse()?);
    if n == 0 || i == 0 || i > n {
        bail!("--shard {s:?}: i must be between 1 and n");
    }
    Ok((i, n))
}

/// The CodeAct environment's interpreter (made by scripts/setup_python.sh).
pub fn default_python() -> PathBuf {
    crate::sandbox::codeact_python()
}

impl Options {
    pub fn new(cases: &Path, out: &Path) -> Options {
        Options {
            cases: cases.to_path_buf(),
            paradigm: Paradigm::BrainAgent,
            concurrency: 1,
            limit: None,
            out: out.to_path_buf(),
            resume: false,
            deadline_s: 720.0,
            retries: 2,
            agent: eeg::Settings::default(),
            codeact: Default::default(),
            python: None,
            unsafe_no_sandbox: false,
            parser_tokens: 160,
            shard: None,
        }
    }
}

/// Where a case's relative data paths point: the nearest ancestor holding `suite.json`, else the nearest one
/// in which the data path exists, else the case's folder.
pub fn inputs_root(case: &Case) -> PathBuf {
    let file = case.path.clone().unwrap_or_default();
    let data = case.raw["agent_input"]["data_path"].as_str().unwrap_or("");
    let ancestors: Vec<&Path> = file.ancestors().skip(1).collect();
    ancestors
        .iter()
        .find(|a| a.join("suite.json").is_file())
        .or_else(|| ancestors.iter().find(|a| !data.is_empty() && a.join(data).exists()))
        .map(|a| a.to_path_buf())
        .unwrap_or_else(|| file.parent().map(Path::to_path_buf).unwrap_or_default())
}

fn workspace_root(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".workspaces");
    PathBuf::from(s)
}

fn safe_name(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// One attempt at one instance.
fn run_instance(case: &Case, models: &Models, opts: &Options, cancel: &Cancel, workspace: &Path) -> Instance {
    let started_at = utc_now();
    let t0 = Instant::now();
    let _ = std::fs::remove_dir_all(workspace);
    let _ = std::fs::create_dir_all(workspace.join("file_check"));
    let mut errors: Vec<String> = Vec::new();
    let inputs = inputs_root(case);
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
    let ctx = ScoreContext {
        workspace: Some(workspace.to_path_buf()),
        strict: true,
        semantic_judge: judge.as_ref().map(|j| j as &dyn Judge),
        vlm_judge: None,
    };
    let score = score_case(case, &parsed, &report, &ctx);
    let scoring_s = ts.elapsed().as_secs_f64();
    let (judge_spent, judge_calls) = match &judge {
        Some(j) => {
            if let Some(e) = j.infra.lock().unwrap_or_else(|p| p.into_inner()).take() {
                infra = true;
                errors.push(format!("api_infrastructure_error: judge: {}", e.message));
            }
            (
                *j.spent.lock().unwrap_or_else(|p| p.into_inner()),
                j.calls.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            )
        }
        None => (Spent::default(), Vec::new()),
    };
    errors.extend(score.errors.iter().cloned());
    let total_s = t0.elapsed().as_secs_f64();
    let model_total = target.seconds + parser.seconds + judge_spent.seconds;
    let mut timing = Map::new();
    for (k, v) in [
        ("target", target.seconds),
        ("parser", parser.seconds),
        ("judge", judge_spent.seconds),
        ("vlm", 0.0),
        ("model_total", model_total),
        ("scoring", scoring_s),
        ("total", total_s),
    ] {
        timing.insert(k.into(), json!((v * 1e6).round() / 1e6));
    }
    let mut tokens = Map::new();
    for (k, v) in [("target", target.tokens), ("parser", parser.tokens), ("semantic", judge_spent.tokens), ("vlm", 0)] {
        tokens.insert(k.into(), json!(v));
    }
    tokens.insert("total".into(), json!(target.tokens + parser.tokens + judge_spent.tokens));
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
                                "input_only": if opts.paradigm == Paradigm::CodeAct { json!(exposed_inputs(case, &inputs)) } else { Value::Null },
                                "audit": {"parser": parser_audit, "judge": judge_calls}});
            if !t.rounds.is_null() {
                sb["rounds"] = t.rounds;
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

fn kernel_spec(inputs: &Path, only: Vec<String>, workspace: &Path, opts: &Options) -> crate::sandbox::Spec {
    let mut spec = crate::sandbox::Spec::new(workspace);
    spec.input = Some(inputs.to_path_buf());
    spec.input_only = only;
    spec.unsafe_no_sandbox = opts.unsafe_no_sandbox;
    spec
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
        Paradigm::BrainAgent => {
            let o = eeg::run(&case.query(), inputs, workspace, models.target.as_ref(), cancel, &opts.agent);
            let spent = Spent { tokens: o.trace.tokens(), seconds: o.trace.model_seconds() };
            Target::plain(o.report, json!(o.trace), spent, o.failure)
        }
        Paradigm::CodeAct => {
            let python = opts.python.clone().unwrap_or_else(default_python);
            let mut kernel = match crate::sandbox::kernel::Kernel::start(
                &kernel_spec(inputs, exposed_inputs(case, inputs), workspace, opts),
                &python,
            ) {
                Ok(k) => k,
                Err(e) => {
                    let e = e.to_string();
                    let trace = json!({"paradigm": "codeact", "error": e});
                    return Target::plain(
                        String::new(),
                        trace,
                        Spent::default(),
                        Some(crate::llm::LlmError::config("sandbox", e)),
                    );
                }
            };
            let o =
                crate::agent::codeact::run(&case.query(), &mut kernel, models.target.as_ref(), cancel, &opts.codeact);
            let rounds: Vec<Value> = o
                .trace
                .rounds
                .iter()
                .map(|r| json!({"round": r.round, "code": r.code.clone().unwrap_or_else(|| r.reply.clone()), "observation": r.observation}))
                .collect();
            let spent = Spent { tokens: o.trace.tokens(), seconds: o.trace.model_seconds() };
            Target {
                report: o.report,
                trace: json!(o.trace),
                spent,
                failure: o.failure,
                rounds: json!(rounds),
                kernel: json!(kernel.report),
            }
        }
    }
}

struct Shared {
    slots: Vec<Option<Instance>>,
}

fn experiment(opts: &Options, models: &Models, started_at: &str) -> Map<String, Value> {
    let m = |x: &Arc<dyn ChatModel>| json!({"model": x.name()});
    let mut e = Map::new();
    e.insert("subset".into(), json!(opts.cases.file_name().map(|n| n.to_string_lossy().to_string())));
    e.insert("subset_root".into(), json!(opts.cases.display().to_string()));
    e.insert("started_at".into(), json!(started_at));
    e.insert("finished_at".into(), Value::Null);
    e.insert(
        "models".into(),
        json!({"target": m(&models.target), "parser": m(&models.parser),
        "semantic": models.judge.as_ref().map(m), "vlm": null}),
    );
    e.insert("max_workers".into(), json!(opts.concurrency));
    e.insert("evaluation_mode".into(), json!(opts.paradigm.name()));
    e.insert("paradigm".into(), json!(opts.paradigm.name()));
    e.insert("rerun".into(), json!(opts.resume));
    // BrainAgent reports with or without BrainLens's measured section (CodeAct's are always the model's own).
    e.insert(
        "report_mode".into(),
        json!(match opts.paradigm {
            Paradigm::BrainAgent => opts.agent.report.name(),
            Paradigm::CodeAct => "model",
        }),
    );
    e.insert(
        "runner".into(),
        json!({"name": "brainlens bench run", "version": env!("CARGO_PKG_VERSION"),
        "deadline_s": opts.deadline_s, "infrastructure_retries": opts.retries}),
    );
    e
}

fn write(
    out: &Path,
    exp: &Map<String, Value>,
    shared: &Shared,
    planned: usize,
    wall: f64,
    finished: bool,
) -> Result<()> {
    let instances: Vec<Instance> = shared.slots.iter().flatten().cloned().collect();
    let mut summary = summarize(&instances, wall);
    summary.insert("result_file".into(), json!(out.display().to_string()));
    summary.insert("planned_instance_count".into(), json!(planned));
    summary.insert("completed_instance_count".into(), json!(instances.len()));
    let mut experiment = exp.clone();
    if finished {
        experiment.insert("finished_at".into(), json!(utc_now()));
    }
    ResultFile { experiment, instances, summary, extra: Map::new() }.save(out).map_err(|e| anyhow::anyhow!("{e}"))
}

/// CodeAct can run here: the interpreter exists and a kernel starts in the sandbox (or `--unsafe-no-sandbox`).
fn check_codeact(opts: &Options, live: &Live) -> Result<Value> {
    let python = opts.python.clone().unwrap_or_else(default_python);
    if !python.exists() {
        bail!(
            "CodeAct needs its Python environment: {} is missing (run scripts/setup_python.sh, or give --python)",
            python.display()
        );
    }
    let dir = std::env::temp_dir().join(format!("brainlens-codeact-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let spec = kernel_spec(&dir, Vec::new(), &dir, opts);
    let started = crate::sandbox::kernel::Kernel::start(&spec, &python);
    let checked = started.and_then(|mut k| {
        let e = k.exec("1 + 1", 60.0)?;
        if e.result.as_deref() != Some("2") {
            return Err(crate::sandbox::error::SandboxError::Kernel(format!("the kernel does not answer ({e:?})")));
        }
        Ok(json!(k.report))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let report = checked.map_err(|e| anyhow::anyhow!("CodeAct cannot start its sandboxed kernel: {e}"))?;
    if opts.unsafe_no_sandbox {
        live.notice("WARNING: CodeAct runs model-written code WITHOUT a sandbox (--unsafe-no-sandbox)".into());
    }
    Ok(report)
}

/// Runs the evaluation; `cancel` stops it (in-flight instances are not written, so `--resume` reruns them).
/// Returns the result file as written.
pub fn run(opts: &Options, models: &Models, cancel: &Cancel, live: &Live) -> Result<ResultFile> {
    let sandbox = if opts.paradigm == Paradigm::CodeAct { Some(check_codeact(opts, live)?) } else { None };
    let set = load_cases(&opts.cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    for p in &set.problems {
        live.notice(format!("skipped invalid case: {p}"));
    }
    if set.cases.is_empty() {
        bail!("{}: no valid case files", opts.cases.display());
    }
    let mut cases = set.cases;
    if let Some(l) = opts.limit {
        cases.truncate(l);
    }
    let suite_instances = cases.len();
    if let Some((i, n)) = opts.shard {
        cases.retain(|c| shard_of(&c.instance_id(), n) == i);
    }
    let planned = cases.len();
    let started_at = utc_now();
    let mut exp = experiment(opts, models, &started_at);
    if let Some(report) = sandbox {
        exp.insert("sandbox".into(), report);
    }
    exp.insert("limit".into(), json!(opts.limit));
    if let Some((i, n)) = opts.shard {
        exp.insert("shard".into(), json!({"index": i, "count": n, "suite_instances": suite_instances}));
    }
    let mut slots: Vec<Option<Instance>> = vec![None; planned];
    if opts.resume && opts.out.is_file() {
        let old = ResultFile::load(&opts.out).map_err(|e| anyhow::anyhow!("{e}"))?;
        let same = old.experiment_str("subset_root") == Some(&opts.cases.display().to_string())
            && old.experiment_str("evaluation_mode") == Some(opts.paradigm.name());
        if !same {
            bail!("{}: --resume: this result file is of another run (different cases or paradigm)", opts.out.display());
        }
        if let Some(s) = old.experiment_str("started_at") {
            exp.insert("started_at".into(), json!(s));
        }
        for inst in old.instances {
            if inst.is_infrastructure_failure() {
                continue;
            }
            if let Some(i) = cases.iter().position(|c| c.instance_id() == inst.instance_id) {
                slots[i] = Some(inst);
            }
        }
    } else if opts.out.exists() && !opts.resume {
        bail!(
            "{}: exists; resume it (--resume, or Resume in the Run view) or choose another result file",
            opts.out.display()
        );
    }
    *live.rows.lock().unwrap_or_else(|p| p.into_inner()) = cases
        .iter()
        .zip(&slots)
        .map(|(c, s)| Row {
            instance_id: c.instance_id(),
            state: if s.is_some() { RowState::Kept } else { RowState::Queued },
            score: s.as_ref().map(|i| i.total_score),
            max: c.metrics.iter().map(|m| m.weight).sum(),
            tokens: s.as_ref().map_or(0, |i| i.tokens("total") as u64),
            seconds: s.as_ref().map_or(0.0, |i| i.seconds("total")),
            errors: s.as_ref().map(|i| i.errors.clone()).unwrap_or_default(),
        })
        .collect();
    *live.started.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    let todo: Vec<usize> = (0..planned).filter(|&i| slots[i].is_none()).collect();
    let shared = Mutex::new(Shared { slots });
    let t0 = Instant::now();
    write(&opts.out, &exp, &shared.lock().unwrap_or_else(|p| p.into_inner()), planned, 0.0, false)?;
    let next = AtomicUsize::new(0);
    let ws_root = workspace_root(&opts.out);
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let set_row = |i: usize, f: &dyn Fn(&mut Row)| {
        if let Some(r) = live.rows.lock().unwrap_or_else(|p| p.into_inner()).get_mut(i) {
            f(r);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..opts.concurrency.max(1).min(todo.len().max(1)) {
            scope.spawn(|| {
                loop {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&i) = todo.get(k) else { break };
                    let case = &cases[i];
                    let ws = ws_root.join(safe_name(&case.instance_id()));
                    let mut attempt = 0;
                    let inst = loop {
                        attempt += 1;
                        set_row(i, &|r| r.state = RowState::Running { attempt });
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
                                        own.cancel_because(format!(
                                            "stopped at the instance deadline of {} s",
                                            opts.deadline_s
                                        ));
                                        break;
                                    }
                                    std::thread::sleep(Duration::from_millis(20));
                                }
                            });
                            let inst = run_instance(case, models, opts, &own, &ws);
                            finished.store(true, Ordering::SeqCst);
                            inst
                        });
                        let mut inst = inst;
                        inst.extra.insert("attempts".into(), json!(attempt));
                        if inst.is_infrastructure_failure() && attempt <= opts.retries && !cancel.is_cancelled() {
                            continue;
                        }
                        break inst;
                    };
                    if cancel.is_cancelled() {
                        // Interrupted mid-instance: not written, so a resume reruns it.
                        set_row(i, &|r| r.state = RowState::Queued);
                        break;
                    }
                    let (score, tokens, secs, errs) =
                        (inst.total_score, inst.tokens("total") as u64, inst.seconds("total"), inst.errors.clone());
                    let mut g = shared.lock().unwrap_or_else(|p| p.into_inner());
                    g.slots[i] = Some(inst);
                    if let Err(e) = write(&opts.out, &exp, &g, planned, t0.elapsed().as_secs_f64(), false) {
                        *write_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                        cancel.cancel();
                    }
                    drop(g);
                    set_row(i, &|r| {
                        r.state = RowState::Done;
                        r.score = Some(score);
                        r.tokens = tokens;
                        r.seconds = secs;
                        r.errors = errs.clone();
                    });
                }
            });
        }
    });
    if let Some(e) = write_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e.context("writing the result file"));
    }
    let g = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    let complete = g.slots.iter().all(Option::is_some);
    write(&opts.out, &exp, &g, planned, t0.elapsed().as_secs_f64(), complete)?;
    ResultFile::load(&opts.out).map_err(|e| anyhow::anyhow!("{e}")).context("reading back the result file")
}
