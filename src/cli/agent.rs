//! `brainlens agent …`: list tasks, analyse one graph, evaluate a method on a labelled cohort, report run
//! files (metrics table and interpretability radar).

use super::llm::ProviderArgs;
use super::write_json;
use crate::agent::graph::eval::{self, metrics, read_run};
use crate::agent::graph::{Agent, GraphContext, Method, Settings, Task, setup};
use crate::agent::graph::{interpret, paper};
use crate::llm::ChatModel;
use crate::llm::config::Purpose;
use crate::util::cancel::Cancel;
use anyhow::{Result, anyhow, bail};
use clap::{Args, Subcommand};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Method and its settings.
#[derive(Debug, Clone, Args)]
pub struct MethodArgs {
    /// direct, cot, reflection, brainagent, brainagent-hybrid (the cohort model decides, the model explains; `eval` trains it on the training split, `analyze` takes --cohort-model), evidence-knn, or a supervised baseline: majority (the training split's most common label) or logistic (an L2 logistic regression on the Fisher-z upper triangle, C by 5-fold CV on the training split).
    #[arg(long, default_value = "brainagent")]
    pub method: String,
    #[arg(long)]
    pub no_understanding: bool,
    #[arg(long)]
    pub no_hark: bool,
    #[arg(long)]
    pub no_card: bool,
    #[arg(long)]
    pub no_reflection: bool,
    /// Round 1 calls CARD (`retrieve_case`) alone, so every analysis sees its similar cases (not the paper's
    /// protocol: there the model picks any tool).
    #[arg(long, conflicts_with = "no_card")]
    pub card_first: bool,
    /// CARD's text query: the model's own (the paper's) or the graph's template report, the query evidence-knn
    /// votes with (the model's query is then recorded, not used).
    #[arg(long, default_value = "model", value_parser = crate::agent::graph::CardQuery::NAMES, conflicts_with = "no_card")]
    pub card_query: String,
    /// What reflection writes: a critique, a "revise" flag and the label, which counts only when the flag is
    /// set (the form of every earlier run), or a critique and the final label alone.
    #[arg(long, default_value = "revise", value_parser = crate::agent::graph::ReflectionForm::NAMES)]
    pub reflection_form: String,
    /// The analysis writes its claims before the label, so the label follows a rationale (not the paper's
    /// order: a model decoding left to right otherwise picks the label before any claim).
    #[arg(long)]
    pub rationale_first: bool,
    /// Loop rounds at most.
    #[arg(long, default_value_t = 4)]
    pub rounds: usize,
    /// Keep a tool on the menu after it was called (the paper removes it).
    #[arg(long)]
    pub keep_called_tools: bool,
    /// Links (triplets) shown to the model.
    #[arg(long, default_value_t = 30)]
    pub max_links: usize,
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    #[arg(long, default_value_t = 384)]
    pub max_tokens: u32,
    /// Case memory for CARD (default: the task's, or for `eval` one built from the training split).
    #[arg(long)]
    pub memory: Option<PathBuf>,
    /// CARD: β and the number of cases; `eval` takes a list (`--cases 3,4,5,6`): the paper's top-k sweep, one
    /// run file per k and one table.
    #[arg(long, default_value_t = 0.5)]
    pub beta: f32,
    #[arg(long = "cases", default_value = "3", value_delimiter = ',')]
    pub cases: Vec<usize>,
    /// CARD: the graph encoder of a memory `eval` builds from the training split — supervised (Fisher-z edges
    /// standardised and weighted by how they separate the training split's labels) or baseline (unsupervised
    /// profiles and spectrum) or gfm (the learned graph encoder, trained self-supervised on the training
    /// split's graphs). A --memory keeps its own.
    #[arg(long, default_value = "supervised", value_parser = crate::agent::graph::CardEncoder::NAMES)]
    pub card_encoder: String,
    /// CARD with --card-encoder gfm: its training epochs.
    #[arg(long, default_value_t = 150)]
    pub gfm_epochs: usize,
    /// brainagent-hybrid in `analyze`: the cohort model (`brainlens cohort train`); `eval` trains one on its
    /// own training split.
    #[arg(long)]
    pub cohort_model: Option<PathBuf>,
    /// brainagent-hybrid: the analysis may override the evidence's decision (only by citing similar cases of the
    /// other label, which the cohort model did not weigh).
    #[arg(long)]
    pub overrides: bool,
}

impl MethodArgs {
    pub fn settings(&self) -> Result<Settings> {
        let method = Method::parse(&self.method).map_err(|e| anyhow!(e))?;
        let mut s = Settings::for_method(method);
        let ablated = self.no_understanding || self.no_hark || self.no_card || self.no_reflection;
        let card_query = crate::agent::graph::CardQuery::parse(&self.card_query).map_err(|e| anyhow!(e))?;
        let card_setting = self.card_first || card_query != crate::agent::graph::CardQuery::Model;
        // brainagent-hybrid takes --no-card alone of these.
        let hybrid_ok = method == Method::BrainagentHybrid
            && !(self.no_understanding || self.no_hark || self.no_reflection || card_setting || self.rationale_first);
        if (ablated || card_setting || self.rationale_first) && method != Method::Brainagent && !hybrid_ok {
            bail!(
                "--no-understanding/--no-hark/--no-card/--no-reflection/--card-first/--card-query/--rationale-first are settings of --method brainagent"
            );
        }
        s.understanding = !self.no_understanding;
        s.hark = !self.no_hark;
        s.card = !self.no_card;
        s.reflection = s.reflection && !self.no_reflection;
        s.card_first = self.card_first;
        s.rationale_first = self.rationale_first;
        s.card_query = card_query;
        s.reflection_form =
            crate::agent::graph::ReflectionForm::parse(&self.reflection_form).map_err(|e| anyhow!(e))?;
        if s.reflection_form != crate::agent::graph::ReflectionForm::Revise && !s.reflection {
            bail!(
                "--reflection-form is a setting of reflection (--method brainagent or reflection, without --no-reflection)"
            );
        }
        s.rounds = self.rounds;
        s.remove_called_tools = !self.keep_called_tools;
        s.max_links = self.max_links;
        s.temperature = self.temperature;
        s.max_tokens = self.max_tokens;
        s.beta = self.beta;
        s.card_encoder = crate::agent::graph::CardEncoder::parse(&self.card_encoder).map_err(|e| anyhow!(e))?;
        if self.gfm_epochs == 0 {
            bail!("--gfm-epochs must be at least 1");
        }
        s.gfm_epochs = self.gfm_epochs;
        s.k = match self.cases.as_slice() {
            [k] if *k > 0 => *k,
            [_] => bail!("--cases must be at least 1"),
            _ => bail!("--cases takes one number here (a list, the top-k sweep, is for agent eval)"),
        };
        if (self.overrides || self.cohort_model.is_some()) && method != Method::BrainagentHybrid {
            bail!("--overrides and --cohort-model are settings of --method brainagent-hybrid");
        }
        s.overrides = self.overrides;
        Ok(s)
    }
}

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// The task definitions (assets/tasks/*.toml).
    Tasks {
        #[arg(long)]
        json: bool,
    },
    /// Analyse one connectome: label, confidence, rationale and the whole trace.
    Analyze(AnalyzeArgs),
    /// Evaluate a method on a labelled cohort; results stream to a JSONL run file (a rerun resumes it).
    Eval(EvalArgs),
    /// Slurm: an evaluation as a job array of `agent eval --shard i/N` tasks and a dependent `agent merge`
    /// (`agent slurm DATA --shards N --out-dir DIR [--submit] [sbatch options] -- EVAL OPTIONS…`, where DATA
    /// is the cohort file or graphs folder), `--status DIR [--watch]`, `--resubmit-missing DIR` — as
    /// `bench slurm` does for a suite.
    Slurm(crate::cli::slurm::SlurmArgs),
    /// Join the run files of shards 1…N of one evaluation (`agent eval --shard I/N`) into one run file:
    /// the header and records an unsharded evaluation writes. Every shard must be complete.
    Merge {
        shards: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Metrics of run files side by side, and the interpretability radar (one polygon per run file).
    Report {
        runs: Vec<PathBuf>,
        /// Write the radar as SVG.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Write the metrics table as CSV and LaTeX (booktabs) into this folder, with tables.tex setting it.
        #[arg(long, value_name = "DIR")]
        latex: Option<PathBuf>,
        /// Write the figures (precision ranking, ablations, interpretability radar) as SVG and 300-dpi PNG here.
        #[arg(long, value_name = "DIR")]
        figures: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

/// `agent eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    #[arg(long)]
    pub task: String,
    /// Folder of graph files.
    #[arg(long, required_unless_present = "cohort")]
    pub graphs: Option<PathBuf>,
    /// CSV: file,label[,group] (files relative to --graphs; a group is split as a whole).
    #[arg(long, required_unless_present = "cohort")]
    pub labels: Option<PathBuf>,
    /// A cohort file (`brainlens cohort import`) instead of --graphs and --labels: its subjects, their
    /// labels and connectomes.
    #[arg(long, conflicts_with_all = ["graphs", "labels"])]
    pub cohort: Option<PathBuf>,
    /// With --cohort: test on this site's subjects, remember every other site's (leave-site-out),
    /// instead of the seeded --split.
    #[arg(long, requires = "cohort", value_name = "SITE")]
    pub hold_out_site: Option<String>,
    /// Test fraction (per label, of its groups); the rest is the case memory.
    #[arg(long, default_value_t = 0.2)]
    pub split: f64,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Test a seeded, label-stratified subset of N of the test samples (the training split stays whole):
    /// the fixed subset a slow method runs on, the same for every method with the same --seed.
    #[arg(long, value_name = "N")]
    pub subset: Option<usize>,
    /// Run only shard I of N of the test samples (positions i with i mod N = I − 1) into this --out;
    /// `agent merge` joins the N shard files into the evaluation's run file.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// A reflection re-run: every step before reflection is answered from this stored run's replies (the
    /// same evaluation up to --reflection-form; at temperature 0 they are what the model would write
    /// again), only the reflection is asked of the model.
    #[arg(long, value_name = "RUN.jsonl", conflicts_with = "judge")]
    pub replay_before_reflection: Option<PathBuf>,
    /// Runs per sample (pass@k); run i uses seed + i.
    #[arg(long, default_value_t = 1)]
    pub k: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    #[arg(long)]
    pub judge: bool,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long)]
    pub json: bool,
}

/// `agent analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    pub graph: PathBuf,
    #[arg(long)]
    pub task: String,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also score the explanation with the model as judge (rubric in agent/graph/interpret.rs).
    #[arg(long)]
    pub judge: bool,
    /// Write the trace as JSON here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Write the trace as Markdown here.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// `RUN.jsonl` → `RUN.k4.jsonl`: the run file of one k of a top-k sweep.
fn sweep_path(out: &std::path::Path, k: usize) -> PathBuf {
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    let ext = out.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    out.with_file_name(format!("{stem}.k{k}{ext}"))
}

fn model_for(settings: &Settings, provider: &ProviderArgs) -> Result<Option<Arc<dyn ChatModel>>> {
    if !settings.method.uses_model() {
        return Ok(None);
    }
    Ok(Some(provider.config(Purpose::Agent)?.build().map_err(|e| anyhow!("{e}"))?))
}

pub fn run(command: AgentCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        AgentCommand::Tasks { json } => {
            let tasks: Vec<Task> = Task::names().iter().map(|n| Task::load(n)).collect::<Result<_, _>>()?;
            if json {
                return write_json(out, &tasks);
            }
            for t in tasks {
                writeln!(
                    out,
                    "{:<12} {} — labels {} (positive {}), atlas {}",
                    t.name,
                    t.title,
                    t.labels.join("/"),
                    t.positive,
                    t.atlas
                )?;
            }
            Ok(())
        }
        AgentCommand::Analyze(a) => analyze(a, out),
        AgentCommand::Eval(a) => eval_command(a, out),
        AgentCommand::Slurm(a) => slurm(&a, out),
        AgentCommand::Merge { shards, out: merged, json } => {
            let run = crate::agent::graph::shard_merge::merge(&shards, &merged)?;
            let task = Task::load(&run.header.task)?;
            let m = metrics(&run, &task);
            eprintln!("merged {} shard files ({} runs) into {}", shards.len(), run.records.len(), merged.display());
            if json { write_json(out, &m) } else { print_metrics(out, &[m]) }
        }
        AgentCommand::Report { runs, svg, latex, figures, json } => {
            if runs.is_empty() {
                bail!("give one or more run files");
            }
            let mut all = Vec::new();
            for p in &runs {
                let r = read_run(p)?;
                let task = Task::load(&r.header.task)?;
                all.push(metrics(&r, &task));
            }
            if let Some(p) = &svg {
                std::fs::write(p, eval::radar_svg(&all)).map_err(|e| anyhow!("{}: {e}", p.display()))?;
            }
            if let Some(dir) = &latex {
                let files = paper::write_tables(&all, dir).map_err(|e| anyhow!(e))?;
                eprintln!("wrote {} table files to {}", files.len(), dir.display());
            }
            if let Some(dir) = &figures {
                let files =
                    crate::util::chart::png::write_svg_and_png(&paper::figures(&all), dir).map_err(|e| anyhow!(e))?;
                eprintln!("wrote {} figure files to {}", files.len(), dir.display());
            }
            if json { write_json(out, &all) } else { print_metrics(out, &all) }
        }
    }
}

/// `agent analyze`: one connectome's analysis, its trace and (with --judge) the model's rubric scores.
fn analyze(a: AnalyzeArgs, out: &mut dyn Write) -> Result<()> {
    let AnalyzeArgs { graph, task, method, provider, seed, judge, trace, markdown, json } = a;
    let task = Task::load(&task)?;
    let settings = method.settings()?;
    let memory_dir = method.memory.clone().or_else(|| task.memory_dir());
    let model = model_for(&settings, &provider)?;
    let stem = graph.file_stem().map(|s| s.to_string_lossy().into_owned());
    let mut res = setup::resources(&task, &settings, memory_dir.as_deref(), stem.as_deref())?;
    if settings.needs_cohort_model() {
        res.cohort_model = Some(setup::cohort_model(&task, method.cohort_model.as_deref())?);
    }
    let atlas = crate::network::atlas::Atlas::load(&task.atlas).ok();
    let ctx = GraphContext::load(&graph, atlas.as_ref())?;
    let agent = Agent::new(task, model.clone(), res, settings);
    let cancel = Cancel::default();
    let mut t = agent.analyze(&ctx, seed, &cancel, &mut |_| {});
    let scores = interpret::score(&t, &ctx);
    let judged = match (&model, judge) {
        (Some(m), true) => {
            let caller = crate::agent::graph::call::Caller {
                model: m.as_ref(),
                system: crate::agent::graph::prompts::SYSTEM,
                cancel: &cancel,
                temperature: 0.0,
                max_tokens: 200,
                seed,
            };
            Some(interpret::judge(&caller, &mut t, &ctx).map_err(|e| anyhow!("judge: {e}"))?)
        }
        _ => None,
    };
    if let Some(p) = &trace {
        std::fs::write(p, serde_json::to_string_pretty(&t)? + "\n").map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    if let Some(p) = &markdown {
        std::fs::write(p, t.to_markdown()).map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    if json {
        write_json(out, &json!({"trace": t, "interpretability": scores, "judge": judged}))?;
    } else {
        print_trace(out, &t, &scores)?;
    }
    if t.outcome.class != crate::agent::graph::OutcomeClass::Ok {
        bail!("{}: {} in {}: {}", graph.display(), t.outcome.class.as_str(), t.outcome.step, t.outcome.message);
    }
    Ok(())
}

/// `agent eval`: a method on a cohort's test split (one evaluation per k of a CARD top-k sweep).
fn eval_command(a: EvalArgs, out: &mut dyn Write) -> Result<()> {
    let EvalArgs {
        task,
        graphs,
        labels,
        cohort,
        hold_out_site,
        shard,
        subset,
        split: fraction,
        method,
        provider,
        replay_before_reflection,
        k,
        seed,
        concurrency,
        judge,
        out: run_out,
        json,
    } = a;
    let task = Task::load(&task)?;
    let shard = shard.as_deref().map(crate::agent::graph::shard::Shard::parse).transpose()?;
    if let Some(s) = shard {
        crate::llm::local::threads::set_local_shards(s.count);
    }
    if method.cohort_model.is_some() {
        bail!(
            "agent eval trains brainagent-hybrid's cohort model on its own training split; --cohort-model is for \
             agent analyze"
        );
    }
    let source = open_source(cohort, graphs, labels)?;
    // The CARD top-k sweep: one evaluation per k, the same split, one table.
    let sweep = method.cases.clone();
    if sweep.is_empty() || sweep.contains(&0) {
        bail!("--cases: give one or more numbers of cases ≥ 1, e.g. 3 or 3,4,5,6");
    }
    let one = MethodArgs { cases: vec![sweep[0]], ..method.clone() };
    let base = one.settings()?;
    use crate::agent::graph::Method;
    let uses_card = (base.method == Method::Brainagent && base.card) || base.method == Method::EvidenceKnn;
    if sweep.len() > 1 && !uses_card {
        bail!("--cases {sweep:?}: a top-k sweep needs CARD (brainagent without --no-card, or evidence-knn)");
    }
    // A sweep writes one run file per k, which `agent merge` and `agent slurm` do not pair up by k.
    if sweep.len() > 1 && shard.is_some() {
        bail!("--cases {sweep:?} with --shard: shard one k at a time (one sharded evaluation per --cases value)");
    }
    if sweep.len() > 1 && replay_before_reflection.is_some() {
        bail!("--cases {sweep:?} with --replay-before-reflection: re-run one k at a time");
    }
    let model = model_for(&base, &provider)?;
    if let Some(m) = &model {
        super::say_threads(m.as_ref());
    }
    let mut all = Vec::new();
    for &cases in &sweep {
        let settings = Settings { k: cases, ..base.clone() };
        let out_k = if sweep.len() > 1 { sweep_path(&run_out, cases) } else { run_out.clone() };
        let plan = eval::Plan::new(
            task.clone(),
            settings,
            model.clone(),
            &eval::Cohort {
                source: source.clone(),
                fraction,
                seed,
                runs: k,
                memory: method.memory.clone(),
                hold_out_site: hold_out_site.clone(),
                shard,
                subset,
            },
            &Cancel::default(),
        )?;
        let job = match &replay_before_reflection {
            Some(stored) => plan.reflection_job(concurrency, out_k, stored)?,
            None => plan.job(concurrency, judge, out_k),
        };
        let progress = super::progress::Progress::new(0, "runs");
        let run = eval::run(&job, &Cancel::default(), &|done, total| progress.set(done, total));
        progress.finish();
        let run = run?;
        let mut m = metrics(&run, &task);
        if sweep.len() > 1 {
            m.method = format!("{} (CARD top-{cases})", m.method);
        }
        all.push(m);
    }
    match (json, all.len()) {
        (true, 1) => write_json(out, &all[0]),
        (true, _) => write_json(out, &all),
        (false, _) => print_metrics(out, &all),
    }
}

fn print_trace(out: &mut dyn Write, t: &crate::agent::graph::Trace, s: &interpret::Scores) -> Result<()> {
    writeln!(out, "{} · task {} · method {} · model {}", t.sample, t.task, t.method, t.model)?;
    if let Some(u) = &t.understanding {
        writeln!(out, "understanding (model): {u}")?;
    }
    for r in &t.rounds {
        writeln!(
            out,
            "round {}: {} {}{}",
            r.index,
            r.tool,
            r.arguments,
            if r.repairs.is_empty() { String::new() } else { format!(" (repaired: {})", r.repairs.join("; ")) }
        )?;
        if let Some(m) = &r.rejected {
            writeln!(out, "  rejected: {m}")?;
        }
        for line in r.observation.lines().take(6) {
            writeln!(out, "  | {line}")?;
        }
    }
    match &t.decision {
        Some(d) => {
            if t.hybrid.is_some() {
                writeln!(
                    out,
                    "label {} · P({}) {:.2}, the cohort model's (calibrated), not the language model's (research use \
                     only — not a diagnosis)",
                    d.label, d.label, d.confidence
                )?;
            } else {
                writeln!(
                    out,
                    "label {} · confidence {:.2} (research use only — not a diagnosis)",
                    d.label, d.confidence
                )?;
            }
            writeln!(out, "rationale ({}): {}", t.rationale_source(), d.rationale)?;
            writeln!(out, "evidence: {}", d.evidence.join(", "))?;
        }
        None => writeln!(out, "no label: {} in {}: {}", t.outcome.class.as_str(), t.outcome.step, t.outcome.message)?,
    }
    if let Some(r) = &t.reflection {
        writeln!(
            out,
            "reflection: {} → {} ({})",
            r.before.label,
            r.after.label,
            if r.revised { "revised" } else { "kept" }
        )?;
    }
    writeln!(out, "interpretability (checks against the graph): {} · overall {:.2}", s.line(", "), s.overall)?;
    writeln!(out, "{}", t.cost_line())?;
    Ok(())
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{:.1}", 100.0 * x))
}

pub fn print_metrics(out: &mut dyn Write, all: &[eval::Metrics]) -> Result<()> {
    writeln!(
        out,
        "{:<34} {:<6} {:>4} {:>6} {:>6} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6} {:>8} {:>7} {:>6}",
        "method (model)",
        "task",
        "n",
        "acc%",
        "rec%",
        "prec%",
        "rec@k%",
        "prec@k%",
        "pos%",
        "p@1%",
        "p@k%",
        "tok/smp",
        "s/smp",
        "interp"
    )?;
    for m in all {
        writeln!(
            out,
            "{:<34} {:<6} {:>4} {:>6} {:>6} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6} {:>8.0} {:>7.1} {:>6}",
            format!("{} ({})", m.method, m.model),
            m.task,
            m.samples,
            pct(Some(m.accuracy)),
            pct(m.recall),
            pct(m.precision),
            pct(m.recall_at_k),
            pct(m.precision_at_k),
            pct(Some(m.positive_rate)),
            pct(Some(m.pass_at_1)),
            pct(Some(m.pass_at_k)),
            m.prompt_tokens_per_sample + m.completion_tokens_per_sample,
            m.seconds_per_sample,
            m.interpretability.map_or("—".to_string(), |s| format!("{:.2}", s.overall))
        )?;
    }
    writeln!(
        out,
        "acc/rec/prec: the majority label over the k runs; rec@k/prec@k: the paper's pass criterion (a sample \
counts as its true label when any of the k runs gives it); p@1/p@k: pass@1 and pass@k"
    )?;
    for note in all.iter().filter_map(eval::Metrics::reuse_note) {
        writeln!(out, "{note}")?;
    }
    for m in all {
        writeln!(out, "\n{} — confusion (rows truth, columns predicted; k = {}):", m.method, m.runs)?;
        writeln!(
            out,
            "{:<14} {}",
            "",
            m.labels
                .iter()
                .chain(std::iter::once(&"failed".to_string()))
                .map(|l| format!("{l:>12}"))
                .collect::<String>()
        )?;
        for (l, row) in m.labels.iter().zip(&m.confusion) {
            writeln!(out, "{l:<14} {}", row.iter().map(|v| format!("{v:>12}")).collect::<String>())?;
        }
        if !m.failures.is_empty() {
            writeln!(out, "failed runs: {:?}", m.failures)?;
        }
        if !m.sites.is_empty() {
            let line: Vec<String> =
                m.sites.iter().map(|s| format!("{} {:.2} ({}/{})", s.site, s.accuracy, s.correct, s.samples)).collect();
            writeln!(out, "accuracy per site: {}", line.join(", "))?;
        }
        if m.missing > 0 {
            writeln!(out, "{} runs missing (unfinished; rerun eval with the same --out to resume)", m.missing)?;
        }
        if let Some(p) = &m.probability {
            writeln!(out, "scores: {}", p.line())?;
        }
        match &m.interpretability {
            Some(s) => writeln!(out, "interpretability (checks): {}", s.line(", "))?,
            None => writeln!(out, "interpretability: none (a supervised baseline writes no rationale)")?,
        }
        if let Some(j) = &m.judge {
            writeln!(out, "interpretability (judge model's opinion): {}", j.line(", "))?;
        }
    }
    Ok(())
}

/// Options whose value is a path: made absolute for the Slurm tasks, which run in the output folder.
const PATH_OPTIONS: &[&str] = &["--labels", "--memory", "--transcript", "--model-path"];

/// `agent slurm`: the evaluation's data given as DATA (added as `--cohort` or `--graphs`), path options made
/// absolute, and each shard's expected runs counted from the same split `agent eval` makes.
fn slurm(a: &crate::cli::slurm::SlurmArgs, out: &mut dyn Write) -> Result<()> {
    use crate::harness::slurm::Work;
    let Some(data) = &a.suite else {
        return crate::cli::slurm::slurm_work(a, Work::AgentEval, a.run_args.clone(), None, out);
    };
    let data = data.canonicalize().map_err(|e| anyhow!("{}: {e}", data.display()))?;
    if a.run_args.iter().any(|x| ["--cohort", "--graphs"].iter().any(|f| x == f || x.starts_with(&format!("{f}=")))) {
        bail!("give the cohort file or graphs folder as agent slurm's DATA, not as --cohort/--graphs after --");
    }
    let flag = if crate::network::cohort::file::is_cohort(&data) { "--cohort" } else { "--graphs" };
    let mut run_args = vec![flag.to_string(), data.display().to_string()];
    let mut it = a.run_args.iter();
    while let Some(x) = it.next() {
        run_args.push(x.clone());
        if PATH_OPTIONS.contains(&x.as_str())
            && let Some(v) = it.next()
        {
            let p = PathBuf::from(v);
            run_args.push(p.canonicalize().map(|p| p.display().to_string()).unwrap_or_else(|_| v.clone()));
        }
    }
    #[derive(clap::Parser)]
    struct EvalOnly {
        #[command(subcommand)]
        command: AgentCommand,
    }
    let argv = ["agent", "eval"]
        .into_iter()
        .map(String::from)
        .chain(run_args.iter().cloned())
        .chain(["--out".into(), "/dev/null".into()]);
    let parsed =
        <EvalOnly as clap::Parser>::try_parse_from(argv).map_err(|e| anyhow!("the eval options after --: {e}"))?;
    let AgentCommand::Eval(EvalArgs {
        task,
        graphs,
        labels,
        cohort,
        hold_out_site,
        subset,
        split: fraction,
        seed,
        k,
        ..
    }) = parsed.command
    else {
        bail!("the options after -- are agent eval's");
    };
    let source = open_source(cohort, graphs, labels)?;
    let task = Task::load(&task)?;
    let c = eval::Cohort { source, fraction, seed, runs: k, memory: None, hold_out_site, shard: None, subset };
    let (test, _) = eval::split_rows(&task, &c)?;
    let n = a.shards.unwrap_or(0);
    let expected = (1..=n)
        .map(|index| {
            let s = crate::agent::graph::shard::Shard { index, count: n };
            (0..test.len()).filter(|&p| s.holds(p)).count() * k
        })
        .collect();
    crate::cli::slurm::slurm_work(a, Work::AgentEval, run_args, Some(expected), out)
}

/// The cohort source of `agent eval`: a cohort file (`--cohort`), or a graphs folder with its labels CSV.
fn open_source(
    cohort: Option<PathBuf>,
    graphs: Option<PathBuf>,
    labels: Option<PathBuf>,
) -> Result<std::sync::Arc<crate::network::cohort::source::Source>> {
    use crate::network::cohort::source::Source;
    let source = match (cohort, graphs, labels) {
        (Some(c), _, _) => Source::cohort_file(&c)?,
        (None, Some(g), Some(l)) => Source::folder(&g, &l)?,
        _ => bail!("give --cohort FILE, or --graphs DIR and --labels CSV"),
    };
    Ok(std::sync::Arc::new(source))
}
