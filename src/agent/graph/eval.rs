//! Batch evaluation over a labelled cohort: a seeded, group-aware, label-stratified test split; the case
//! memory built from the rest; k runs per test sample (seeds seed, seed+1, …) on N workers; every finished
//! run appended to a JSONL file at once, so a killed evaluation resumes where it stopped; metrics (accuracy,
//! recall, precision, positive-prediction rate, confusion matrix, pass@1/@k, tokens and time) from one or
//! more run files.

use super::cohort::{Row, split};
use super::context::GraphContext;
use super::interpret::{self, Scores};
use super::method::Settings;
use super::run::Agent;
pub use super::runfile::{Header, Record, RunFile, read_run};
use super::task::Task;
use super::trace::{OutcomeClass, Trace};
use crate::agent::error::{AgentError, Result};
use crate::network::cohort::source::Source;
use crate::util::cancel::Cancel;
use crate::util::error::Context;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A labelled cohort to evaluate on, and how.
#[derive(Debug, Clone)]
pub struct Cohort {
    /// The subjects and their connectomes (a cohort file read once, or a graphs folder with its labels).
    pub source: Arc<Source>,
    /// Test fraction (per label, of its groups).
    pub fraction: f64,
    pub seed: u64,
    /// Runs per sample (pass@k).
    pub runs: usize,
    /// A prebuilt case memory (its test graphs are removed); None: built from the training split.
    pub memory: Option<PathBuf>,
    /// A site to hold out (a cohort file's): its subjects are the test set, every other site's the training
    /// split (leave-site-out), instead of the seeded fraction.
    pub hold_out_site: Option<String>,
    /// Run only this shard of the test samples.
    pub shard: Option<super::shard::Shard>,
    /// Test only a seeded, label-stratified subset of this many of the test samples.
    pub subset: Option<usize>,
}

/// The test and training rows of an evaluation: the labels read and checked against the task, the seeded
/// split (or leave-site-out), then the `--subset` of the test rows.
pub fn split_rows(task: &Task, c: &Cohort) -> Result<(Vec<Row>, Vec<Row>)> {
    let rows = &c.source.subjects;
    super::cohort::check_labels(&c.source.origin.file, rows, task)?;
    let (test, train) = match &c.hold_out_site {
        None => split(rows, c.fraction, c.seed)?,
        Some(site) => super::cohort::site_split(&c.source.origin.file, rows, site)?,
    };
    // The training split stays whole; only the samples tested are fewer.
    let test = match c.subset {
        Some(n) => super::cohort::stratified_subset(&test, n, c.seed)?,
        None => test,
    };
    Ok((test, train))
}

/// The agent, the test rows and the run header of an evaluation, ready to run.
pub struct Plan {
    pub agent: Agent,
    pub source: Arc<Source>,
    pub test: Vec<Row>,
    pub header: Header,
}

impl Plan {
    /// Reads and splits the cohort, builds the case memory from the training split (`cancel` stops a GFM
    /// training, which resumes from its checkpoint next time), and the agent.
    pub fn new(
        task: Task,
        settings: Settings,
        model: Option<std::sync::Arc<dyn crate::llm::ChatModel>>,
        c: &Cohort,
        cancel: &Cancel,
    ) -> Result<Plan> {
        if c.runs == 0 {
            return Err(AgentError::from(format!("the number of runs per sample (--k) must be at least 1")));
        }
        let (test, train) = split_rows(&task, c)?;
        let memory = match (&c.memory, settings.needs_card()) {
            (_, false) => None,
            (Some(d), true) => {
                let test_ids: Vec<String> = test.iter().map(|r| r.id.clone()).collect();
                Some(super::setup::memory_from(d, &settings, &test_ids)?)
            }
            (None, true) => Some(super::setup::memory_of(&c.source, &train, &task, &settings, cancel)?),
        };
        let training = if settings.method.is_baseline() {
            Some(Arc::new(super::baseline::Training::learn(settings.method, &task, &c.source, &train)?))
        } else {
            None
        };
        let cohort_model = if settings.needs_cohort_model() {
            let m = super::cohort_model::CohortModel::train_on(
                &c.source,
                &task,
                &train,
                &test,
                (c.fraction, c.seed),
                super::cohort_model::DEFAULT_CALIBRATION,
                cancel,
            )?;
            Some(Arc::new((PathBuf::from(&c.source.origin.file), m)))
        } else {
            None
        };
        let header = Header {
            kind: "run".into(),
            task: task.name.clone(),
            method: settings.name(),
            model: model.as_ref().map_or("none".into(), |m| m.name()),
            split: c.fraction,
            seed: c.seed,
            runs: c.runs,
            settings: settings.clone(),
            test: test.iter().map(|r| r.id.clone()).collect(),
            sites: if test.iter().any(|r| !r.site.is_empty()) {
                test.iter().map(|r| r.site.clone()).collect()
            } else {
                Vec::new()
            },
            memory_cases: memory.as_ref().map_or(0, |m| m.memory.cases.len()),
            training_samples: training
                .as_ref()
                .map(|t| t.labels.len())
                .or(cohort_model.as_ref().map(|m| m.1.split.train.len()))
                .unwrap_or(0),
            graphs: c.source.origin.graphs.clone().unwrap_or_else(|| c.source.origin.file.clone()),
            source: Some(c.source.origin.clone()),
            shard: c.shard,
            model_threads: model.as_ref().and_then(|m| crate::llm::local::threads::of_model(&m.name())),
            reused_from: None,
        };
        let mut resources = super::setup::assemble(&settings, memory, training)?;
        resources.cohort_model = cohort_model;
        Ok(Plan { agent: Agent::new(task, model, resources, settings), source: c.source.clone(), test, header })
    }

    pub fn job(&self, concurrency: usize, judge: bool, out: PathBuf) -> EvalJob<'_> {
        let mine = |i: usize| self.header.shard.is_none_or(|s| s.holds(i));
        EvalJob {
            agent: &self.agent,
            source: self.source.clone(),
            test: self.test.iter().enumerate().filter(|(i, _)| mine(*i)).map(|(_, r)| r.clone()).collect(),
            header: self.header.clone(),
            concurrency,
            judge,
            out,
            reuse: None,
        }
    }

    /// `job` as a reflection re-run: every step before reflection answered from the stored run at `stored`
    /// (the same evaluation up to the reflection's form), the reflection asked live.
    pub fn reflection_job(&self, concurrency: usize, out: PathBuf, stored: &Path) -> Result<EvalJob<'_>> {
        let reuse = super::reuse::Reuse::open(stored, &self.header)?;
        let mut job = self.job(concurrency, false, out);
        job.reuse = Some(reuse);
        Ok(job)
    }
}

pub struct EvalJob<'a> {
    pub agent: &'a Agent,
    pub source: Arc<Source>,
    pub test: Vec<Row>,
    pub header: Header,
    pub concurrency: usize,
    pub judge: bool,
    pub out: PathBuf,
    /// A reflection re-run's stored run.
    pub reuse: Option<super::reuse::Reuse>,
}

/// Runs every (sample, run) not yet in `out` (resume: finished runs are kept; infrastructure failures and
/// cancelled runs are done again). `progress(done, total)` after each.
pub fn run(job: &EvalJob, cancel: &Cancel, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<RunFile> {
    let mut done: BTreeSet<(String, usize)> = BTreeSet::new();
    if job.out.exists() && std::fs::metadata(&job.out)?.len() > 0 {
        let old = read_run(&job.out)?;
        let (a, b) = (&old.header, &job.header);
        if (&a.task, &a.method, &a.model, a.split, a.seed, a.runs, &a.test, a.shard)
            != (&b.task, &b.method, &b.model, b.split, b.seed, b.runs, &b.test, b.shard)
        {
            return Err(AgentError::from(format!(
                "{}: written by another evaluation ({} / {} / {} / split {} / seed {} / {} runs); use another --out",
                job.out.display(),
                a.task,
                a.method,
                a.model,
                a.split,
                a.seed,
                a.runs
            )));
        }
        done = old.records.iter().filter(|r| !r.outcome.rerun_on_resume()).map(|r| (r.sample.clone(), r.run)).collect();
        // A last line cut by a kill mid-write is dropped (that run is done again).
        let bytes = std::fs::read(&job.out)?;
        let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        if start > 0 && serde_json::from_slice::<Record>(&body[start..]).is_err() {
            let f = std::fs::OpenOptions::new().write(true).open(&job.out)?;
            f.set_len(start as u64)?;
        }
    } else {
        if let Some(d) = job.out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(d)?;
        }
        // A reflection re-run's header names the stored run.
        let reused_from = job.reuse.as_ref().map(|r| r.path.display().to_string());
        let header = Header { reused_from, ..job.header.clone() };
        std::fs::write(&job.out, serde_json::to_string(&header)? + "\n")
            .with_context(|| job.out.display().to_string())?;
    }
    let todo: Vec<(Row, usize)> = job
        .test
        .iter()
        .flat_map(|r| (0..job.header.runs).map(move |k| (r.clone(), k)))
        .filter(|(r, k)| !done.contains(&(r.id.clone(), *k)))
        .collect();
    let total = job.test.len() * job.header.runs;
    let finished = std::sync::atomic::AtomicUsize::new(total - todo.len());
    progress(finished.load(std::sync::atomic::Ordering::SeqCst), total);
    let queue = Mutex::new(todo.into_iter());
    let file = Mutex::new(std::fs::OpenOptions::new().append(true).open(&job.out)?);
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let atlas = crate::network::atlas::Atlas::load(&job.agent.task.atlas).ok();
    std::thread::scope(|s| {
        for _ in 0..job.concurrency.max(1) {
            s.spawn(|| {
                loop {
                    if cancel.is_cancelled() {
                        return;
                    }
                    let Some((row, k)) = queue.lock().unwrap_or_else(|p| p.into_inner()).next() else { return };
                    let rec = match one(job, &row, k, atlas.as_ref(), cancel) {
                        Ok(r) => r,
                        Err(e) => {
                            errors.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{e:#}"));
                            cancel.cancel();
                            return;
                        }
                    };
                    // A run that overlapped a cancel may be incomplete (its judge call refused): done again on resume.
                    if rec.outcome == OutcomeClass::Cancelled || cancel.is_cancelled() {
                        return;
                    }
                    let line = serde_json::to_string(&rec).unwrap_or_default() + "\n";
                    let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                    if let Err(e) = f.write_all(line.as_bytes()).and_then(|_| f.flush()) {
                        errors.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{}: {e}", job.out.display()));
                        cancel.cancel();
                        return;
                    }
                    drop(f);
                    let n = finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    progress(n, total);
                }
            });
        }
    });
    if let Some(e) = errors.into_inner().unwrap_or_default().into_iter().next() {
        return Err(AgentError::from((e).to_string()));
    }
    read_run(&job.out)
}

fn one(
    job: &EvalJob,
    row: &Row,
    k: usize,
    atlas: Option<&crate::network::atlas::Atlas>,
    cancel: &Cancel,
) -> Result<Record> {
    let ctx = GraphContext::of_subject(&job.source, &row.id, atlas)?;
    let seed = job.header.seed + k as u64;
    let mut trace = match &job.reuse {
        None => job.agent.analyze(&ctx, seed, cancel, &mut |_| {}),
        Some(reuse) => {
            let stored = reuse.record(&row.id, k)?;
            // An analysis that failed before reflection would fail again: the stored record is this run's.
            if !super::reuse::reached_reflection(stored) {
                let mut r = stored.clone();
                r.trace.method = job.header.method.clone();
                return Ok(r);
            }
            reflect_again(job, reuse, stored, &ctx, seed, cancel)?
        }
    };
    let interpretability = interpret::score(&trace, &ctx);
    let judge = match (job.judge, &job.agent.model) {
        (true, Some(m)) if trace.decision.is_some() => {
            let caller = super::call::Caller {
                model: m.as_ref(),
                system: super::prompts::SYSTEM,
                cancel,
                temperature: 0.0,
                max_tokens: 200,
                seed,
            };
            interpret::judge(&caller, &mut trace, &ctx).ok()
        }
        _ => None,
    };
    let label = trace.label().map(String::from);
    Ok(Record {
        kind: "sample".into(),
        sample: row.id.clone(),
        truth: row.label.clone(),
        run: k,
        seed,
        correct: label.as_deref() == Some(row.label.as_str()),
        label,
        outcome: trace.outcome.class,
        prompt_tokens: trace.prompt_tokens(),
        completion_tokens: trace.completion_tokens(),
        seconds: trace.elapsed_ms / 1000.0,
        interpretability,
        judge,
        trace,
    })
}

/// One analysis of a reflection re-run: the stored replies before reflection, the reflection asked live. A
/// replay that departs from the stored analysis stops the run.
fn reflect_again(
    job: &EvalJob,
    reuse: &super::reuse::Reuse,
    stored: &Record,
    ctx: &GraphContext,
    seed: u64,
    cancel: &Cancel,
) -> Result<Trace> {
    let live =
        job.agent.model.clone().ok_or_else(|| AgentError::from("a reflection re-run needs a model".to_string()))?;
    let model: std::sync::Arc<dyn crate::llm::ChatModel> =
        std::sync::Arc::new(super::reuse::Replayed::new(live, stored, &reuse.path));
    let trace = job.agent.analyze_with(Some(&model), ctx, seed, cancel, &mut |_| {});
    let label = |t: &Trace| t.analysis.as_ref().map(|a| a.label.clone());
    if trace.outcome.class == OutcomeClass::ConfigurationError || label(&trace) != label(&stored.trace) {
        return Err(AgentError::from(format!(
            "{}: the replay of {} departed from the stored analysis ({:?} against {:?}{}{})",
            stored.sample,
            reuse.path.display(),
            label(&trace),
            label(&stored.trace),
            if trace.outcome.message.is_empty() { "" } else { "; " },
            trace.outcome.message
        )));
    }
    Ok(trace)
}

/// The metrics of one run file.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Metrics {
    pub method: String,
    pub model: String,
    pub task: String,
    pub file: String,
    pub samples: usize,
    pub runs: usize,
    /// Runs still missing (an unfinished evaluation).
    pub missing: usize,
    /// Accuracy, recall and precision of the majority label over a sample's runs ([`aggregate_label`]).
    pub accuracy: f64,
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    /// Recall@k and precision@k with the paper's pass criterion over the k runs: a sample counts as given its
    /// true label when any of its runs gives it, else as its majority label.
    pub recall_at_k: Option<f64>,
    pub precision_at_k: Option<f64>,
    pub positive_rate: f64,
    pub pass_at_1: f64,
    pub pass_at_k: f64,
    /// Labels (rows: truth; columns: the labels then "failed").
    pub labels: Vec<String>,
    pub confusion: Vec<Vec<usize>>,
    pub failures: BTreeMap<String, usize>,
    pub prompt_tokens_per_sample: f64,
    pub completion_tokens_per_sample: f64,
    pub seconds_per_sample: f64,
    pub repaired_arguments: usize,
    pub rejected_arguments: usize,
    /// Mean rule-based interpretability scores; None for a supervised baseline (it writes no rationale to score).
    pub interpretability: Option<Scores>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<Scores>,
    /// Calibration of the stated confidence and of the model's own label probability against correctness.
    pub calibration: Calibration,
    /// How each subject's P(positive) ranks and is calibrated: AUROC, Brier, ECE, the reliability bins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<super::scores::ProbabilityScores>,
    /// Accuracy per site, when the run is on a cohort file with sites.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<super::sites::SiteAccuracy>,
    /// A reflection re-run's stored run (its seconds are the reflection's alone, its tokens the whole analysis').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
}

impl Metrics {
    /// What a reflection re-run's seconds and tokens are, in the words the CLI table and the batch view show.
    pub fn reuse_note(&self) -> Option<String> {
        self.reused_from.as_deref().map(|stored| {
            format!(
                "{}: a reflection re-run of {stored} (every step before reflection replayed from it; its seconds a \
                 sample are the reflection's alone, its tokens the whole analysis')",
                self.method
            )
        })
    }
}

/// How well a per-run probability of "my label is right" matches correctness (runs with a decision).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Calibration {
    /// Brier score of the stated confidence: mean (confidence − correct)², 0 is perfect.
    pub confidence_brier: Option<f64>,
    /// Brier score of the model's probability of the label it chose (local model only).
    pub label_probability_brier: Option<f64>,
    /// Mean label probability over correct and over wrong runs.
    pub label_probability_correct: Option<f64>,
    pub label_probability_wrong: Option<f64>,
    pub runs_with_label_probability: usize,
}

impl Calibration {
    pub fn of(records: &[Record]) -> Calibration {
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let decided: Vec<(&Record, &super::trace::Decision)> =
            records.iter().filter_map(|r| r.trace.decision.as_ref().map(|d| (r, d))).collect();
        let hit = |r: &Record| if r.correct { 1.0 } else { 0.0 };
        let conf: Vec<f64> = decided.iter().map(|(r, d)| (d.confidence.clamp(0.0, 1.0) - hit(r)).powi(2)).collect();
        let with_p: Vec<(&Record, f64)> =
            decided.iter().filter_map(|(r, d)| d.label_probability().map(|p| (*r, p))).collect();
        let brier: Vec<f64> = with_p.iter().map(|(r, p)| (p - hit(r)).powi(2)).collect();
        let right: Vec<f64> = with_p.iter().filter(|(r, _)| r.correct).map(|(_, p)| *p).collect();
        let wrong: Vec<f64> = with_p.iter().filter(|(r, _)| !r.correct).map(|(_, p)| *p).collect();
        Calibration {
            confidence_brier: mean(&conf),
            label_probability_brier: mean(&brier),
            label_probability_correct: mean(&right),
            label_probability_wrong: mean(&wrong),
            runs_with_label_probability: with_p.len(),
        }
    }
}

/// Majority label of a sample's successful runs (ties: the larger summed confidence, then the label order).
pub fn aggregate_label(records: &[&Record], labels: &[String]) -> Option<String> {
    let mut best: Option<(usize, f64, &String)> = None;
    for l in labels {
        let votes: Vec<&&Record> = records.iter().filter(|r| r.label.as_ref() == Some(l)).collect();
        if votes.is_empty() {
            continue;
        }
        let conf: f64 = votes.iter().filter_map(|r| r.trace.decision.as_ref().map(|d| d.confidence)).sum();
        if best.is_none_or(|(n, c, _)| votes.len() > n || (votes.len() == n && conf > c)) {
            best = Some((votes.len(), conf, l));
        }
    }
    best.map(|(_, _, l)| l.clone())
}

pub fn metrics(run: &RunFile, task: &Task) -> Metrics {
    let h = &run.header;
    let labels = task.labels.clone();
    let mut confusion = vec![vec![0usize; labels.len() + 1]; labels.len()];
    let (mut correct, mut tp, mut fp, mut fn_, mut pos_pred) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let (mut pass1, mut passk) = (0.0, 0.0);
    let (mut tp_k, mut fp_k, mut fn_k) = (0usize, 0usize, 0usize);
    let mut samples = 0;
    let mut outcomes: Vec<(String, bool)> = Vec::new();
    for sample in &h.test {
        let recs: Vec<&Record> = run.records.iter().filter(|r| &r.sample == sample).collect();
        let Some(truth) = recs.first().map(|r| r.truth.clone()) else { continue };
        samples += 1;
        let pred = aggregate_label(&recs, &labels);
        let ti = labels.iter().position(|l| *l == truth);
        let pi = pred.as_ref().and_then(|p| labels.iter().position(|l| l == p)).unwrap_or(labels.len());
        if let Some(ti) = ti {
            confusion[ti][pi] += 1;
        }
        let is_pos_pred = pred.as_deref() == Some(task.positive.as_str());
        pos_pred += is_pos_pred as usize;
        correct += (pred.as_deref() == Some(truth.as_str())) as usize;
        outcomes.push((sample.clone(), pred.as_deref() == Some(truth.as_str())));
        match (truth == task.positive, is_pos_pred) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
            _ => {}
        }
        pass1 += recs.iter().filter(|r| r.correct).count() as f64 / h.runs as f64;
        let passed = recs.iter().any(|r| r.correct);
        passk += passed as u8 as f64;
        let pass_label = if passed { Some(truth.as_str()) } else { pred.as_deref() };
        match (truth == task.positive, pass_label == Some(task.positive.as_str())) {
            (true, true) => tp_k += 1,
            (false, true) => fp_k += 1,
            (true, false) => fn_k += 1,
            _ => {}
        }
    }
    let n = samples.max(1) as f64;
    // A shard's file is expected to hold its own samples only.
    let expected = h.test.iter().enumerate().filter(|(i, _)| h.shard.is_none_or(|s| s.holds(*i))).count() * h.runs;
    let mut failures = BTreeMap::new();
    for r in run.records.iter().filter(|r| r.outcome != OutcomeClass::Ok) {
        *failures.entry(r.outcome.as_str().to_string()).or_insert(0) += 1;
    }
    let judged: Vec<Scores> = run.records.iter().filter_map(|r| r.judge).collect();
    Metrics {
        method: h.method.clone(),
        model: h.model.clone(),
        task: h.task.clone(),
        file: run.path.display().to_string(),
        samples,
        runs: h.runs,
        missing: expected - run.records.len().min(expected),
        accuracy: correct as f64 / n,
        recall: (tp + fn_ > 0).then(|| tp as f64 / (tp + fn_) as f64),
        precision: (tp + fp > 0).then(|| tp as f64 / (tp + fp) as f64),
        recall_at_k: (tp_k + fn_k > 0).then(|| tp_k as f64 / (tp_k + fn_k) as f64),
        precision_at_k: (tp_k + fp_k > 0).then(|| tp_k as f64 / (tp_k + fp_k) as f64),
        positive_rate: pos_pred as f64 / n,
        pass_at_1: pass1 / n,
        pass_at_k: passk / n,
        labels,
        confusion,
        failures,
        prompt_tokens_per_sample: run.records.iter().map(|r| r.prompt_tokens).sum::<u64>() as f64 / n,
        completion_tokens_per_sample: run.records.iter().map(|r| r.completion_tokens).sum::<u64>() as f64 / n,
        seconds_per_sample: run.records.iter().map(|r| r.seconds).sum::<f64>() / n,
        repaired_arguments: run.records.iter().map(|r| r.trace.counters.repaired_arguments).sum(),
        rejected_arguments: run.records.iter().map(|r| r.trace.counters.rejected_arguments).sum(),
        interpretability: (!h.settings.method.is_baseline())
            .then(|| Scores::mean(&run.records.iter().map(|r| r.interpretability).collect::<Vec<_>>())),
        judge: (!judged.is_empty()).then(|| Scores::mean(&judged)),
        calibration: Calibration::of(&run.records),
        probability: super::scores::of(run, task),
        sites: super::sites::site_accuracy(h, &outcomes),
        reused_from: h.reused_from.clone(),
    }
}

/// One radar series per run file with interpretability scores (supervised baselines have none): its method
/// and backbone, and the six mean scores.
pub fn radar_series(all: &[Metrics]) -> Vec<(String, Vec<Option<f64>>)> {
    all.iter()
        .filter_map(|m| {
            let name = format!("{} ({})", m.method, m.model);
            Some((name, m.interpretability?.values().iter().map(|v| Some(*v)).collect()))
        })
        .collect()
}

/// The interpretability radar of run files as SVG (one polygon per method).
pub fn radar_svg(all: &[Metrics]) -> String {
    crate::util::chart::svg::radar(&radar_series(all), &super::interpret::DIMENSIONS.map(String::from))
}
