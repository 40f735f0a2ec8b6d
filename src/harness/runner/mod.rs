//! The bench runner: N instances in flight on N worker threads (the reference runs one), a workspace per
//! instance (inputs read-only, artifacts under `file_check/`), a deadline per instance, the reference's retry
//! policy (infrastructure failures rerun and excluded, target failures kept), token and time accounting per
//! role, the result file rewritten atomically after every instance, resume, and cancel.

use crate::harness::error::{HarnessError, Result};
use crate::util::error::Context;
mod instance;
mod live;
pub mod roles;
pub mod shard_merge;

use crate::agent::eeg;
use crate::bench::case::{Case, load_cases};
use crate::bench::results::{Instance, ResultFile, summarize};
use crate::llm::ChatModel;
use crate::util::cancel::Cancel;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub use crate::util::time::utc_now;
pub use instance::exposed_inputs;
use instance::{attempts, kernel_spec};
pub use live::{Live, Row, RowState};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paradigm {
    BrainAgent,
    CodeAct,
    /// BrainAgent's validated tools first, a sandboxed code step where its code rule allows
    /// (`agent::eeg::code`): BrainBench's proposed combination of the two.
    Hybrid,
}

impl Paradigm {
    pub const NAMES: [&str; 3] = ["brainagent", "codeact", "hybrid"];

    pub fn parse(s: &str) -> Result<Paradigm> {
        match s.trim().to_lowercase().as_str() {
            "brainagent" => Ok(Paradigm::BrainAgent),
            "codeact" => Ok(Paradigm::CodeAct),
            "hybrid" => Ok(Paradigm::Hybrid),
            o => Err(HarnessError::from(format!("unknown paradigm {o:?} ({})", Paradigm::NAMES.join(", ")))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Paradigm::BrainAgent => "brainagent",
            Paradigm::CodeAct => "codeact",
            Paradigm::Hybrid => "hybrid",
        }
    }
    /// Whether the paradigm runs code in the CodeAct sandbox (its inputs are then limited to the data folder).
    pub fn runs_code(self) -> bool {
        matches!(self, Paradigm::CodeAct | Paradigm::Hybrid)
    }
}

/// The models of a run, by role.
#[derive(Clone)]
pub struct Models {
    pub target: Arc<dyn ChatModel>,
    pub parser: Arc<dyn ChatModel>,
    pub judge: Option<Arc<dyn ChatModel>>,
    /// The vision judge of `image_file_match` artifacts whose `vlm_prompt` has weight (none: such a check
    /// scores 0, as the reference does without one).
    pub vlm: Option<Arc<dyn ChatModel>>,
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
    /// Hybrid: when a plan may hold a code step, and how many an instance may run.
    pub code_rule: eeg::CodeRule,
    pub code_steps: usize,
    /// CodeAct: the Python the kernel runs (default: the CodeAct environment in the cache).
    pub python: Option<PathBuf>,
    /// CodeAct without bubblewrap (recorded loudly in the experiment block).
    pub unsafe_no_sandbox: bool,
    pub parser_tokens: u32,
    /// Run only shard `i` of `n` (1-based): the instances `shard_order` assigns to it.
    pub shard: Option<(usize, usize)>,
    pub shard_order: ShardOrder,
    /// The folder the cases' `data_path`/`label_path` are relative to (the official layout: the folder that
    /// holds the prepared `data/<subset>/`); `None` finds it beside the cases ([`inputs_root`]).
    pub data_root: Option<PathBuf>,
}

/// The shard (1-based) an instance belongs to by hash: FNV-1a of its id, modulo `n`.
pub fn shard_of(instance_id: &str, n: usize) -> usize {
    let h = instance_id.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
    (h % n.max(1) as u64) as usize + 1
}

/// How `--shard i/n` assigns a suite's instances. `Hash`: by the FNV-1a hash of the id ([`shard_of`]), the
/// same whatever else the suite holds, but uneven (the 54-instance local suite splits 33/21 into 2). `Dealt`:
/// dealt in turn over the suite's cases in order (after `--limit`), so shards differ by one instance at most;
/// what `bench slurm` writes into its scripts. A shard file records its order; a file without one was hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardOrder {
    #[default]
    Hash,
    Dealt,
}

impl ShardOrder {
    pub const NAMES: [&str; 2] = ["hash", "dealt"];

    pub fn parse(s: &str) -> Result<ShardOrder> {
        match s.trim() {
            "hash" => Ok(ShardOrder::Hash),
            "dealt" => Ok(ShardOrder::Dealt),
            o => Err(HarnessError::from(format!("unknown shard order {o:?} (hash, dealt)"))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShardOrder::Hash => "hash",
            ShardOrder::Dealt => "dealt",
        }
    }

    /// The order a result file's `experiment.shard` records.
    pub fn of_shard(shard: Option<&Value>) -> ShardOrder {
        match shard.and_then(|s| s.get("order")).and_then(Value::as_str) {
            Some("dealt") => ShardOrder::Dealt,
            _ => ShardOrder::Hash,
        }
    }

    /// The shard (1-based) of each of `ids`, the suite's instances in case order.
    pub fn assign(self, ids: &[String], n: usize) -> Vec<usize> {
        match self {
            ShardOrder::Hash => ids.iter().map(|id| shard_of(id, n)).collect(),
            ShardOrder::Dealt => (0..ids.len()).map(|k| k % n.max(1) + 1).collect(),
        }
    }
}

/// `"2/4"` → (2, 4).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let (i, n) =
        s.split_once('/').ok_or_else(|| HarnessError::from(format!("--shard {s:?}: expected i/n, e.g. 2/4")))?;
    let num = |t: &str| t.trim().parse::<usize>().map_err(|e| HarnessError::from(format!("--shard {s:?}: {t:?}: {e}")));
    let (i, n) = (num(i)?, num(n)?);
    if n == 0 || i == 0 || i > n {
        return Err(HarnessError::from(format!("--shard {s:?}: i must be between 1 and n")));
    }
    Ok((i, n))
}

/// The CodeAct environment's interpreter (made by scripts/setup_python.sh).
pub fn default_python() -> PathBuf {
    crate::sandbox::codeact_python()
}

/// The parser's reply budget (`Options::parser_tokens`), also when a stored report is parsed again.
pub const PARSER_TOKENS: u32 = 160;

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
            code_rule: eeg::CodeRule::default(),
            code_steps: 2,
            python: None,
            unsafe_no_sandbox: false,
            parser_tokens: PARSER_TOKENS,
            shard: None,
            shard_order: ShardOrder::Hash,
            data_root: None,
        }
    }
}

/// Where a case's relative data paths point: `data_root` when given (`--data-root`), else the nearest ancestor
/// holding `suite.json`, else the nearest one in which the data path exists, else the case's folder.
pub fn inputs_root(case: &Case, data_root: Option<&Path>) -> PathBuf {
    if let Some(d) = data_root {
        return d.to_path_buf();
    }
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

/// Why `case` cannot run for want of its data: its `data_path` (or a `label_path` that names a file) is not
/// under its inputs root, and the case does not expect it missing (`meta_info.expected_missing_data_path`).
pub fn missing_data(case: &Case, data_root: Option<&Path>) -> Option<String> {
    if case.raw["meta_info"]["expected_missing_data_path"].as_bool() == Some(true) {
        return None;
    }
    let root = inputs_root(case, data_root);
    let input = &case.raw["agent_input"];
    let file = case.path.as_ref().map_or("case".into(), |p| p.display().to_string());
    for key in ["data_path", "label_path"] {
        let Some(rel) = input[key].as_str().map(str::trim).filter(|p| !p.is_empty()) else { continue };
        // The published cases write "optional" (or "none") where a case has no label file.
        if key == "label_path" && !rel.contains(['/', '.']) {
            continue;
        }
        if !root.join(rel).exists() {
            return Some(format!("{file}: {key} {rel} is not under {}", root.display()));
        }
    }
    None
}

fn workspace_root(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".workspaces");
    PathBuf::from(s)
}

fn safe_name(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

struct Shared {
    slots: Vec<Option<Instance>>,
}

fn experiment(opts: &Options, models: &Models, started_at: &str) -> Map<String, Value> {
    let m = |x: &Arc<dyn ChatModel>| match x.reasoning_effort() {
        Some(effort) => json!({"model": x.name(), "reasoning_effort": effort}),
        None => json!({"model": x.name()}),
    };
    let mut e = Map::new();
    e.insert("subset".into(), json!(opts.cases.file_name().map(|n| n.to_string_lossy().to_string())));
    e.insert("subset_root".into(), json!(opts.cases.display().to_string()));
    e.insert("started_at".into(), json!(started_at));
    e.insert("finished_at".into(), Value::Null);
    e.insert(
        "models".into(),
        json!({"target": m(&models.target), "parser": m(&models.parser),
        "semantic": models.judge.as_ref().map(m), "vlm": models.vlm.as_ref().map(m)}),
    );
    e.insert("max_workers".into(), json!(opts.concurrency));
    e.insert("evaluation_mode".into(), json!(opts.paradigm.name()));
    e.insert("paradigm".into(), json!(opts.paradigm.name()));
    e.insert("rerun".into(), json!(opts.resume));
    // BrainAgent reports with or without BrainLens's measured section (CodeAct's are always the model's own).
    e.insert(
        "report_mode".into(),
        json!(match opts.paradigm {
            Paradigm::BrainAgent | Paradigm::Hybrid => opts.agent.report.name(),
            Paradigm::CodeAct => "model",
        }),
    );
    if opts.paradigm == Paradigm::Hybrid {
        e.insert("code_rule".into(), json!(opts.code_rule.name()));
        e.insert("code_steps".into(), json!(opts.code_steps));
    }
    e.insert(
        "runner".into(),
        json!({"name": "brainlens bench run", "version": env!("CARGO_PKG_VERSION"),
        "commit": env!("BRAINLENS_GIT_COMMIT"), "deadline_s": opts.deadline_s, "infrastructure_retries": opts.retries,
        "model_threads": crate::llm::local::threads::threads()}),
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
    Ok(ResultFile { experiment, instances, summary, extra: Map::new() }.save(out)?)
}

/// CodeAct can run here: the interpreter exists and a kernel starts in the sandbox (or `--unsafe-no-sandbox`).
fn check_codeact(opts: &Options, live: &Live) -> Result<Value> {
    let python = opts.python.clone().unwrap_or_else(default_python);
    if !python.exists() {
        return Err(HarnessError::from(format!(
            "CodeAct needs its Python environment: {} is missing (run scripts/setup_python.sh, or give --python)",
            python.display()
        )));
    }
    // One folder per check: runs of one process (tests, the GUI) may check at the same time.
    static CHECKS: AtomicUsize = AtomicUsize::new(0);
    let n = CHECKS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("brainlens-codeact-check-{}-{n}", std::process::id()));
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
    let report = checked.map_err(|e| HarnessError::from(format!("CodeAct cannot start its sandboxed kernel: {e}")))?;
    if opts.unsafe_no_sandbox {
        live.notice("WARNING: CodeAct runs model-written code WITHOUT a sandbox (--unsafe-no-sandbox)".into());
    }
    Ok(report)
}

/// Runs the evaluation; `cancel` stops it (in-flight instances are not written, so `--resume` reruns them).
/// Returns the result file as written.
pub fn run(opts: &Options, models: &Models, cancel: &Cancel, live: &Live) -> Result<ResultFile> {
    let sandbox = if opts.paradigm.runs_code() { Some(check_codeact(opts, live)?) } else { None };
    let set = load_cases(&opts.cases)?;
    for p in &set.problems {
        live.notice(format!("skipped a case the reference cannot run: {p}"));
    }
    if set.cases.is_empty() {
        return Err(HarnessError::from(format!("{}: no valid case files", opts.cases.display())));
    }
    let mut cases = set.cases;
    // A case whose data file is not there (and is not meant to be missing) cannot run: reported and skipped.
    let mut missing = Vec::new();
    cases.retain(|c| match missing_data(c, opts.data_root.as_deref()) {
        Some(why) => {
            live.notice(format!("skipped: {why}"));
            missing.push(why);
            false
        }
        None => true,
    });
    if cases.is_empty() {
        return Err(HarnessError::from(format!(
            "{}: no case has its data ({} missing; give --data-root, the folder that holds data/<subset>/)",
            opts.cases.display(),
            missing.len()
        )));
    }
    if let Some(l) = opts.limit {
        cases.truncate(l);
    }
    let suite_instances = cases.len();
    if let Some((i, n)) = opts.shard {
        let ids: Vec<String> = cases.iter().map(Case::instance_id).collect();
        let mut of = opts.shard_order.assign(&ids, n).into_iter();
        cases.retain(|_| of.next() == Some(i));
    }
    let planned = cases.len();
    let started_at = utc_now();
    let mut exp = experiment(opts, models, &started_at);
    if let Some(report) = sandbox {
        exp.insert("sandbox".into(), report);
    }
    exp.insert("limit".into(), json!(opts.limit));
    exp.insert("data_root".into(), json!(opts.data_root.as_ref().map(|d| d.display().to_string())));
    if !missing.is_empty() {
        exp.insert("skipped_missing_data".into(), json!(missing));
    }
    if let Some((i, n)) = opts.shard {
        exp.insert(
            "shard".into(),
            json!({"index": i, "count": n, "suite_instances": suite_instances, "order": opts.shard_order.name()}),
        );
    }
    let slots = resume_slots(opts, &cases, &mut exp)?;
    *live.rows.lock().unwrap_or_else(|p| p.into_inner()) = live_rows(&cases, &slots);
    *live.started.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    let todo: Vec<usize> = (0..planned).filter(|&i| slots[i].is_none()).collect();
    let shared = Mutex::new(Shared { slots });
    let t0 = Instant::now();
    write(&opts.out, &exp, &shared.lock().unwrap_or_else(|p| p.into_inner()), planned, 0.0, false)?;
    let next = AtomicUsize::new(0);
    let ws_root = workspace_root(&opts.out);
    let write_error: Mutex<Option<HarnessError>> = Mutex::new(None);
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
                    let inst = attempts(case, models, opts, cancel, &ws, &|attempt| {
                        set_row(i, &|r| r.state = RowState::Running { attempt })
                    });
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
    Ok(ResultFile::load(&opts.out).context("reading back the result file")?)
}

/// The finished instances of `--out` kept by `--resume` (infrastructure failures are rerun), in case order.
fn resume_slots(opts: &Options, cases: &[Case], exp: &mut Map<String, Value>) -> Result<Vec<Option<Instance>>> {
    let mut slots: Vec<Option<Instance>> = vec![None; cases.len()];
    if opts.resume && opts.out.is_file() {
        let old = ResultFile::load(&opts.out)?;
        let same = old.experiment_str("subset_root") == Some(&opts.cases.display().to_string())
            && old.experiment_str("evaluation_mode") == Some(opts.paradigm.name());
        if !same {
            return Err(HarnessError::from(format!(
                "{}: --resume: this result file is of another run (different cases or paradigm)",
                opts.out.display()
            )));
        }
        let was = ShardOrder::of_shard(old.experiment.get("shard"));
        if opts.shard.is_some() && was != opts.shard_order {
            return Err(HarnessError::from(format!(
                "{}: --resume: this shard file's instances were assigned by {}, not {}: give --shard-order {}",
                opts.out.display(),
                was.name(),
                opts.shard_order.name(),
                was.name()
            )));
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
        return Err(HarnessError::from(format!(
            "{}: exists; resume it (--resume, or Resume in the Run view) or choose another result file",
            opts.out.display()
        )));
    }
    Ok(slots)
}

/// The live table's rows: kept instances with their scores, the rest queued.
fn live_rows(cases: &[Case], slots: &[Option<Instance>]) -> Vec<Row> {
    cases
        .iter()
        .zip(slots)
        .map(|(c, s)| Row {
            instance_id: c.instance_id(),
            state: if s.is_some() { RowState::Kept } else { RowState::Queued },
            score: s.as_ref().map(|i| i.total_score),
            max: c.metrics.iter().map(|m| m.weight).sum(),
            tokens: s.as_ref().map_or(0, |i| i.tokens("total") as u64),
            seconds: s.as_ref().map_or(0.0, |i| i.seconds("total")),
            errors: s.as_ref().map(|i| i.errors.clone()).unwrap_or_default(),
        })
        .collect()
}
