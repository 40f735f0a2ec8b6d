//! `brainlens bench …`: validate cases, rescore result files, report a collection.

use super::write_json;
use crate::bench::aggregate::{Levels, Report, write_csv_tables, write_html, write_latex_tables};
use crate::bench::case::{CaseError, load_cases, load_cases_for_scoring};
use crate::bench::collection::Collection;
use crate::bench::families::Families;
use crate::bench::rescore::{CaseIndex, Keep, Rescored, rescore_raw};
use crate::bench::results::ResultFile;
use crate::bench::scoring::ScoreContext;
use anyhow::{Context, Result, bail};
use serde_json::json;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `bench validate CASES [--strict]`: every refusal and warning of every case. Fails when a case is refused (the
/// reference cannot run it); with `--strict`, also when a case has warnings.
pub fn validate(cases: &Path, strict: bool, json: bool, out: &mut dyn Write) -> Result<()> {
    let set = load_cases(cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    if set.cases.is_empty() && set.problems.is_empty() {
        bail!("{}: no case files (case<d>/case<d>_<d>.json) found", cases.display());
    }
    let refused: BTreeSet<&Path> = set.problems.iter().map(|p| p.file.as_path()).collect();
    let warned: BTreeSet<&Path> = set.cases.iter().flat_map(|c| &c.warnings).map(|w| w.file.as_path()).collect();
    if json {
        let entry = |p: &CaseError, severity: &str| json!({"file": p.file, "json_path": p.json_path, "message": p.message, "severity": severity});
        let problems: Vec<_> = set
            .problems
            .iter()
            .map(|p| entry(p, "refused"))
            .chain(set.cases.iter().flat_map(|c| &c.warnings).map(|w| entry(w, "warning")))
            .collect();
        write_json(
            out,
            &json!({"valid": set.cases.len() - warned.len(), "with_warnings": warned.len(),
                    "refused": refused.len(), "strict": strict, "problems": problems}),
        )?;
    } else {
        for p in &set.problems {
            writeln!(out, "refused: {p}")?;
        }
        for w in set.cases.iter().flat_map(|c| &c.warnings) {
            writeln!(out, "warning: {w}")?;
        }
        writeln!(
            out,
            "{} case(s) scored ({} with warnings), {} refused",
            set.cases.len(),
            warned.len(),
            refused.len()
        )?;
    }
    let total = refused.len() + set.cases.len();
    if !refused.is_empty() {
        bail!("{} of {total} case files are refused: the reference cannot run them", refused.len());
    }
    if strict && !warned.is_empty() {
        bail!("{} of {total} case files have warnings (--strict)", warned.len());
    }
    Ok(())
}

/// `bench rescore RESULT --cases CASES [--out NEW] [--workspace DIR [--strict]]`.
pub fn rescore(
    result: &Path,
    cases: &Path,
    out_path: Option<&Path>,
    workspace: Option<&Path>,
    strict: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    // The result file is read and checked while the cases load.
    let (raw, set) = std::thread::scope(|s| {
        let raw = s.spawn(|| ResultFile::read_raw(result));
        let set = load_cases_for_scoring(cases);
        (raw.join().expect("reading a result file does not panic"), set)
    });
    let set = set.map_err(|e| anyhow::anyhow!("{e}"))?;
    let raw = raw?;
    for p in &set.problems {
        eprintln!("brainlens: skipped a case the reference cannot run: {p}");
    }
    let index = CaseIndex::new(&set.cases);
    let ctx = ScoreContext { workspace: workspace.map(Path::to_path_buf), strict, ..Default::default() };
    // No judge is wired to the CLI yet: judged units keep their stored scores.
    let keep = Keep { judged: true, files: workspace.is_none() };
    let Rescored { stats, summary } = rescore_raw(&raw, out_path, &index, &ctx, keep)?;
    if json {
        write_json(out, &json!({"stats": stats, "summary": summary, "written": out_path}))?;
    } else {
        writeln!(
            out,
            "{} instances: {} rescored, {} changed, {} without a case, {} never answered",
            stats.instances,
            stats.rescored,
            stats.changed.len(),
            stats.unmatched.len(),
            stats.not_answered
        )?;
        for id in stats.changed.iter().take(20) {
            writeln!(out, "  changed: {id}")?;
        }
        writeln!(out, "total score {:.4}", summary["total_score"].as_f64().unwrap_or(0.0))?;
        if workspace.is_none() {
            writeln!(out, "file_status_check scores kept as stored (give --workspace to re-check artifacts)")?;
        }
        writeln!(out, "judged units kept as stored (no judge configured)")?;
    }
    // The process ends next: freeing tens of thousands of cases one by one would only delay it.
    std::mem::forget(index);
    std::mem::forget(set);
    Ok(())
}

/// One line on the files of a collection not read as results, then each unreadable one with its reason.
fn report_not_read(c: &Collection) {
    if let Some(line) = c.not_read() {
        eprintln!("brainlens: {line}");
    }
    for p in &c.problems {
        eprintln!("brainlens: skipped: {p}");
    }
}

/// `bench audit-parser RESULTS... --cases DIR [--n N] [provider options] [--json]`.
pub fn audit_parser(
    results: &[PathBuf],
    cases: &Path,
    n: usize,
    provider: &crate::cli::llm::ProviderArgs,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let c = Collection::load(results);
    report_not_read(&c);
    if c.runs.is_empty() {
        bail!(
            "no readable result files in {}",
            results.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let set = load_cases(cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    let model = provider.config(crate::llm::config::Purpose::Parser)?.build()?;
    let cancel = crate::util::cancel::Cancel::default();
    super::on_interrupt(cancel.clone());
    let a = crate::harness::parser_audit::audit(&c, &set.cases, model.as_ref(), n, &cancel);
    for s in &a.skipped {
        eprintln!("brainlens: not audited: {s}");
    }
    if json {
        return write_json(out, &a);
    }
    let line = |g: &crate::harness::parser_audit::Agreement| {
        format!("{:<34} {:>5}/{:<5} {:>7.2} %", trunc(&g.key, 34), g.agree, g.fields, 100.0 * g.share)
    };
    writeln!(out, "Parser audit by {}: {} instance(s) re-parsed", a.parser, a.instances)?;
    writeln!(out, "{}", line(&a.overall))?;
    writeln!(out, "\nper unit")?;
    for g in &a.by_unit {
        writeln!(out, "  {}", line(g))?;
    }
    writeln!(out, "\nper target model")?;
    for g in &a.by_model {
        writeln!(out, "  {}", line(g))?;
    }
    for d in a.disagreements.iter().take(20) {
        writeln!(out, "  differs: {} {}: stored {} vs audited {}", d.instance_id, d.target_key, d.stored, d.audited)?;
    }
    Ok(())
}

/// Where `bench report` writes its files (none: the text summary on stdout).
#[derive(Default)]
pub struct ReportFiles<'a> {
    pub csv: Option<&'a Path>,
    pub html: Option<&'a Path>,
    pub latex: Option<&'a Path>,
    pub figures: Option<&'a Path>,
    /// The model family mapping (else the user's, else the bundled one).
    pub families: Option<&'a Path>,
}

/// `bench report RESULTS... [--json | --csv DIR | --html OUT | --latex DIR | --figures DIR]`.
pub fn report(
    results: &[PathBuf],
    levels: Levels,
    json: bool,
    shown_only: bool,
    files: &ReportFiles,
    out: &mut dyn Write,
) -> Result<()> {
    let ReportFiles { csv, html, latex, figures, families } = *files;
    let families = match families {
        Some(p) => Families::load(p)?,
        None => Families::user_or_builtin()?,
    };
    let mut c = Collection::load(results);
    report_not_read(&c);
    let zeroed = shown_only.then(|| crate::bench::aggregate::failure_cases::count_shown_only(&mut c));
    if let Some(n) = zeroed {
        eprintln!("brainlens: counting only answers an output shows: {n} scored answer(s) no output shows count 0");
    }
    if let Some(w) = c.report_mode_warning() {
        eprintln!("brainlens: warning: {w}");
    }
    if c.runs.is_empty() {
        bail!(
            "no readable result files in {}",
            results.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let r = Report::build(&c, levels).with_families(&families);
    if let Some(dir) = csv {
        let files = write_csv_tables(&r, dir).with_context(|| format!("{}: cannot write CSV tables", dir.display()))?;
        eprintln!("wrote {} tables to {}", files.len(), dir.display());
    }
    if let Some(p) = html {
        write_html(&r, p).with_context(|| format!("{}: cannot write", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(dir) = latex {
        let files =
            write_latex_tables(&r, dir).with_context(|| format!("{}: cannot write LaTeX tables", dir.display()))?;
        eprintln!("wrote {} LaTeX files to {} (tables.tex sets them all)", files.len(), dir.display());
    }
    if let Some(dir) = figures {
        let files = crate::bench::aggregate::figures::write_figures(&r, dir).map_err(|e| anyhow::anyhow!(e))?;
        eprintln!("wrote {} figure files (SVG and 300-dpi PNG) to {}", files.len(), dir.display());
    }
    if json {
        return write_json(out, &r);
    }
    if csv.is_some() || html.is_some() || latex.is_some() || figures.is_some() {
        return Ok(());
    }
    if r.simulated {
        writeln!(out, "SIMULATED RESULTS (seeded simulation, no model was run)")?;
    }
    writeln!(out, "{} result files, {} instances", r.runs.len(), c.instance_count())?;
    if let Some(n) = zeroed {
        writeln!(out, "Scores count only answers an output shows ({n} answer(s) no tool or code output shows: 0)")?;
    }
    let real = c.provenance();
    if !real.is_empty() {
        writeln!(out, "Real runs (reports written by language models):")?;
        for line in real {
            writeln!(out, "  {line}")?;
        }
    }
    // Model names whole where they fit (two runs of one model may differ only at the end: "… [system report]").
    let mw = r.models.iter().map(|m| m.chars().count()).max().unwrap_or(5).clamp(5, 60);
    writeln!(out, "\nLeaderboard (difficulty-weighted score, mean over runs)")?;
    let mut cols: Vec<String> = r.subsets.clone();
    cols.push("Overall".into());
    // A subset's name over two header lines (its first word, then the rest), each column as wide as its words.
    let heads: Vec<(&str, &str)> = cols.iter().map(|c| c.split_once(' ').unwrap_or(("", c.as_str()))).collect();
    let widths: Vec<usize> = heads.iter().map(|(a, b)| a.chars().count().max(b.chars().count()).max(8) + 2).collect();
    let first: String = heads.iter().zip(&widths).map(|((a, _), w)| format!("{a:>w$}")).collect();
    let rest: String = heads.iter().zip(&widths).map(|((_, b), w)| format!("{b:>w$}")).collect();
    writeln!(out, "{:<mw$} {:<11} {first}", "", "")?;
    writeln!(out, "{:<mw$} {:<11} {rest}", "model", "paradigm")?;
    for m in &r.models {
        for p in &r.paradigms {
            let vals: String = cols
                .iter()
                .zip(&widths)
                .map(|(s, &w)| {
                    Report::find(&r.leaderboard, m, p, s)
                        .map_or(format!("{:>w$}", "–"), |c| format!("{:>w$.2}", c.value))
                })
                .collect();
            writeln!(out, "{:<mw$} {:<11} {vals}", trunc(m, mw), p)?;
        }
    }
    writeln!(out, "\nDifficulty Advantage Index (slope of BrainAgent − CodeAct over levels 1–3, points per level)")?;
    for d in &r.dai {
        writeln!(out, "  {:<mw$} {}", trunc(&d.model, mw), d.dai.map_or("–".into(), |v| format!("{v:+.2}")))?;
    }
    writeln!(out, "\nMode gap per unit (BrainAgent − CodeAct mean raw score)")?;
    for g in &r.mode_gap {
        writeln!(out, "  {:<mw$} {:<22} {:+.3}", trunc(&g.model, mw), g.key, g.value)?;
    }
    if !r.consistency.is_empty() {
        writeln!(out, "\nRepeated runs")?;
        for c in &r.consistency {
            writeln!(
                out,
                "  {:<mw$} {:<11} runs {} changed {:.1} % mean |Δ| {:.2} pts std {}",
                trunc(&c.model, mw),
                c.paradigm,
                c.runs,
                100.0 * c.changed_share,
                c.mean_abs_diff,
                c.aggregate_std.map_or("–".into(), |s| format!("{s:.2}"))
            )?;
        }
    }
    if !r.failure_cases.is_empty() {
        writeln!(out, "\nFailure cases (instances short of full marks) by unit, class and rule")?;
        let unit_w = r.failure_cases.iter().map(|f| f.unit.chars().count()).max().unwrap_or(0);
        let class_w = r.failure_cases.iter().map(|f| f.class.chars().count()).max().unwrap_or(0);
        for f in &r.failure_cases {
            writeln!(
                out,
                "  {:<mw$} {:<11} {:<unit_w$} {:<class_w$} {:>5}  [{}] {}",
                trunc(&f.model, mw),
                f.paradigm,
                f.unit,
                f.class,
                f.count,
                f.kinds_text(),
                f.rule
            )?;
        }
    }
    if !r.reasoning_effort.is_empty() {
        writeln!(out, "\nOverall score by reasoning effort (mean over runs)")?;
        for c in r.reasoning_effort.iter().filter(|c| c.key == crate::bench::aggregate::OVERALL) {
            writeln!(
                out,
                "  {:<mw$} {:<11} {:<8} {:>7.2}  ({} run(s))",
                trunc(&c.model, mw),
                c.paradigm,
                c.reasoning_effort,
                c.value,
                c.n
            )?;
        }
    }
    Ok(())
}

fn trunc(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { s.chars().take(n - 1).collect::<String>() + "…" }
}

/// `bench generate --data DIR [--templates DIR] --out SUITE [--seed N] [--per-template N]`.
pub fn generate(
    data: &Path,
    templates: Option<&Path>,
    out_dir: &Path,
    seed: u64,
    per_template: usize,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let templates = templates.map(Path::to_path_buf).unwrap_or_else(crate::bench::generate::default_templates);
    let g = crate::bench::generate::generate(data, &templates, out_dir, seed, per_template)?;
    if json {
        write_json(out, &g)?;
    } else {
        for (subset, n) in &g.per_subset {
            writeln!(out, "{subset:<28} {n:>4} instance(s)")?;
        }
        writeln!(out, "{} templates, {} instances → {}", g.templates, g.instances, g.suite.display())?;
    }
    Ok(())
}

/// `bench run` arguments.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// A suite, subset folder or case file.
    pub cases: PathBuf,
    /// brainagent (BrainAgent EEG: supervisor + Sleep/Neurocog/Physiol agents), codeact, or hybrid
    /// (BrainAgent's tools, and a sandboxed code step where --code-rule allows).
    #[arg(long, default_value = "brainagent", value_parser = crate::harness::runner::Paradigm::NAMES)]
    pub paradigm: String,
    /// Hybrid: when a plan may hold a python step — on-failure (once a tool step failed, was refused or
    /// repeated; until then the run plans as BrainAgent), after-tools (once a tool step has run), always.
    #[arg(long, default_value = "on-failure", value_parser = crate::agent::eeg::CodeRule::NAMES)]
    pub code_rule: String,
    /// Hybrid: code steps an instance may run (each up to two blocks: one more after an error).
    #[arg(long, default_value_t = 2)]
    pub code_steps: usize,
    #[command(flatten)]
    pub provider: crate::cli::llm::ProviderArgs,
    /// The parser's model: target (the same model), or local[:NAME|GGUF], openai:MODEL, replay:TRANSCRIPT.
    #[arg(long, default_value = "target")]
    pub parser_model: String,
    /// The semantic judge's model (same forms as --parser-model), or none (judged units then score 0).
    #[arg(long, default_value = "none")]
    pub judge_model: String,
    /// The vision judge of image artifacts (`image_file_match` with a weighted `vlm_prompt`): openai:MODEL
    /// (an OpenAI-compatible endpoint that takes image input), target, replay:TRANSCRIPT, or none (such checks
    /// then score 0, as the reference without one).
    #[arg(long, default_value = "none")]
    pub vlm_model: String,
    /// Instances in flight.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Only the first N cases.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Run the suite R times (files RESULT.r2.json, … beside --out).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    #[arg(long)]
    pub out: PathBuf,
    /// Keep the finished instances of --out and run the rest (and the infrastructure failures).
    #[arg(long)]
    pub resume: bool,
    /// Seconds per instance before it is stopped (an agent error).
    #[arg(long, default_value_t = 720.0)]
    pub deadline: f64,
    /// Reruns of an instance that ended in an infrastructure failure (HTTP retries are --retries).
    #[arg(long, default_value_t = 2)]
    pub instance_retries: u32,
    /// Planning rounds of the BrainAgent sub-agent.
    #[arg(long, default_value_t = 4)]
    pub max_rounds: usize,
    /// CodeAct: the Python the sandboxed kernel runs (default: the environment scripts/setup_python.sh makes).
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// CodeAct without bubblewrap, for machines without user namespaces: model-written code then runs with
    /// this user's access. Recorded in the result's experiment block.
    #[arg(long)]
    pub unsafe_no_sandbox: bool,
    /// CodeAct: rounds per instance (the protocol's 20 by default).
    #[arg(long, default_value_t = 20)]
    pub codeact_rounds: usize,
    /// CodeAct: token budget of each reply.
    #[arg(long, default_value_t = 768)]
    pub codeact_tokens: u32,
    /// CodeAct: seconds per executed block before it is interrupted.
    #[arg(long, default_value_t = 150.0)]
    pub exec_timeout: f64,
    /// The folder the cases' data_path and label_path are relative to (the official layout: the folder that
    /// holds data/<subset>/ as BrainBench's prepare scripts make it). Default: found beside the cases.
    #[arg(long, value_name = "DIR")]
    pub data_root: Option<PathBuf>,
    /// Run only shard i of n (1-based), e.g. --shard 2/4.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// How --shard assigns instances: hash (by instance id, the same whatever else the suite holds, uneven)
    /// or dealt (in turn over the suite's case order: even; what `bench slurm` scripts use).
    #[arg(long, default_value = "hash", value_parser = crate::harness::runner::ShardOrder::NAMES)]
    pub shard_order: String,
    /// Token budget of each planning reply (a plan cut by the budget is closed by the grammar).
    #[arg(long, default_value_t = 320)]
    pub plan_tokens: u32,
    /// BrainAgent report: "system" = the model's text + BrainLens's measured results; "model" = the model's
    /// text alone (as CodeAct's), for like-for-like comparisons.
    #[arg(long, default_value = "system", value_parser = ["system", "model"])]
    pub report: String,
    #[arg(long)]
    pub json: bool,
}

/// The model of a role: `target` (the target's own instance), `none`, `local[:NAME|GGUF]`, `openai:MODEL` (the
/// target's endpoint settings), `replay:TRANSCRIPT`.
fn role_model(
    spec: &str,
    base: &crate::llm::config::ProviderConfig,
    target: &std::sync::Arc<dyn crate::llm::ChatModel>,
) -> Result<Option<std::sync::Arc<dyn crate::llm::ChatModel>>> {
    use crate::llm::config::ProviderKind;
    let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let mut c = base.clone();
    c.record = false;
    match kind.trim() {
        "target" => return Ok(Some(target.clone())),
        "none" => return Ok(None),
        "local" => {
            c.provider = ProviderKind::Local;
            c.model.clear();
            c.model_path = if rest.trim().is_empty() {
                String::new()
            } else {
                crate::llm::catalogue::resolve(rest)
                    .map_err(|e| anyhow::anyhow!("model {spec:?}: {e}"))?
                    .display()
                    .to_string()
            };
        }
        "openai" => {
            c.provider = ProviderKind::Openai;
            c.model = rest.to_string();
        }
        "replay" => {
            c.provider = ProviderKind::Replay;
            c.transcript = rest.to_string();
        }
        o => bail!("model {o:?}: use target, none, local[:NAME|GGUF], openai:MODEL or replay:TRANSCRIPT"),
    }
    Ok(Some(c.build()?))
}

/// `RESULT.json` → `RESULT.r2.json` for repeat 2.
fn repeat_path(out: &Path, r: usize) -> PathBuf {
    if r == 1 {
        return out.to_path_buf();
    }
    let stem = out.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    out.with_file_name(format!("{stem}.r{r}.json"))
}

/// `bench run`: the runner with a progress bar on stderr; Ctrl-C stops after the instances in flight are
/// abandoned (finished ones are already written), exit status 130.
pub fn run_command(a: &RunArgs, out: &mut dyn Write) -> Result<()> {
    use crate::harness::runner::{Live, Models, Options, Paradigm, run};
    // A shard of a run shares this machine's cores with its sibling shards: set before the model loads.
    if let Some(s) = a.shard.as_deref() {
        crate::llm::local::threads::set_local_shards(crate::harness::runner::parse_shard(s)?.1);
    }
    let cfg = a.provider.config(crate::llm::config::Purpose::Agent)?;
    let target = cfg.build()?;
    super::say_threads(target.as_ref());
    let parser = role_model(&a.parser_model, &cfg, &target)?.context("--parser-model none: a run needs a parser")?;
    let judge = role_model(&a.judge_model, &cfg, &target)?;
    if a.vlm_model.trim().starts_with("local") {
        bail!("--vlm-model {}: the local model reads text only; give an OpenAI-compatible vision model", a.vlm_model);
    }
    let vlm = role_model(&a.vlm_model, &cfg, &target)?;
    let models = Models { target, parser, judge, vlm };
    let cancel = crate::util::cancel::Cancel::default();
    super::on_interrupt(cancel.clone());
    let mut summaries = Vec::new();
    for r in 1..=a.repeat.max(1) {
        let mut opts = Options::new(&a.cases, &repeat_path(&a.out, r));
        opts.paradigm = Paradigm::parse(&a.paradigm)?;
        opts.concurrency = a.concurrency.max(1);
        opts.limit = a.limit;
        opts.resume = a.resume;
        opts.deadline_s = a.deadline;
        opts.retries = a.instance_retries;
        opts.agent.max_rounds = a.max_rounds.max(1);
        opts.agent.max_tokens = a.plan_tokens.max(16);
        opts.agent.report = crate::agent::eeg::ReportMode::parse(&a.report).map_err(|e| anyhow::anyhow!(e))?;
        opts.python = a.python.clone();
        opts.codeact.max_rounds = a.codeact_rounds.max(1);
        opts.codeact.max_tokens = a.codeact_tokens.max(16);
        opts.codeact.exec_timeout_s = a.exec_timeout;
        opts.code_rule = crate::agent::eeg::CodeRule::parse(&a.code_rule).map_err(|e| anyhow::anyhow!(e))?;
        opts.code_steps = a.code_steps;
        opts.shard = a.shard.as_deref().map(crate::harness::runner::parse_shard).transpose()?;
        opts.shard_order = crate::harness::runner::ShardOrder::parse(&a.shard_order)?;
        opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
        opts.data_root = a.data_root.clone();
        let live = Live::default();
        let done = std::sync::atomic::AtomicBool::new(false);
        let progress = super::progress::Progress::new(0, "instances");
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                // On a terminal the bar is redrawn in place; in a log, a line per tenth of the instances.
                let mut said = 0;
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    for n in live.notices_from(said) {
                        progress.println(&format!("brainlens: {n}"));
                        said += 1;
                    }
                    let (d, t, _, _) = live.progress();
                    if t > 0 {
                        progress.set(d, t);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(500));
                }
                // What the run said after the last turn (a run can end within one sleep).
                for n in live.notices_from(said) {
                    progress.println(&format!("brainlens: {n}"));
                }
            });
            let r = run(&opts, &models, &cancel, &live);
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            r
        });
        let (d, t, _, _) = live.progress();
        progress.set(d, t);
        progress.finish();
        let result = result?;
        if cancel.is_cancelled() {
            eprintln!(
                "brainlens: cancelled; {} of {} instances are in {} (continue with --resume)",
                d,
                t,
                opts.out.display()
            );
            std::process::exit(130);
        }
        summaries.push(json!({"out": opts.out, "summary": result.summary}));
    }
    if a.json {
        write_json(out, &summaries)?;
    } else {
        for s in &summaries {
            let sm = &s["summary"];
            writeln!(
                out,
                "{}: score {:.2} over {} instances ({} answered), tokens {}, wall {:.1} s, failures {}",
                s["out"].as_str().unwrap_or(""),
                sm["total_score"].as_f64().unwrap_or(0.0),
                sm["instance_count"],
                sm["successful_instance_count"],
                sm["token_usage"]["total"],
                sm["timing_sec"]["wall_clock_total"].as_f64().unwrap_or(0.0),
                sm["failure_summary"]
            )?;
        }
    }
    Ok(())
}

/// `bench merge SHARDS... --out RESULT.json [--cases SUITE]`.
pub fn merge(shards: &[PathBuf], cases: Option<&Path>, out_path: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let mut merged = crate::harness::runner::shard_merge::merge(shards, cases)?;
    merged.summary.insert("result_file".into(), json!(out_path.display().to_string()));
    merged.save(out_path)?;
    if json {
        write_json(out, &json!({"out": out_path, "summary": merged.summary}))
    } else {
        writeln!(
            out,
            "{} shards, {} instances → {} (score {:.2})",
            shards.len(),
            merged.instances.len(),
            out_path.display(),
            merged.summary["total_score"].as_f64().unwrap_or(0.0)
        )?;
        Ok(())
    }
}
