//! A collection of result files: each a (model, paradigm, run) triple read from its experiment block, editable
//! when absent.

use super::results::{ResultError, ResultFile};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One result file in a collection.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: PathBuf,
    /// The target model, with its reasoning effort when the run recorded one (`openai:o3 [high]`), so runs
    /// at different efforts stay apart in every table.
    pub model: String,
    /// The target model alone.
    pub base_model: String,
    /// `experiment.models.target.reasoning_effort`.
    pub reasoning_effort: Option<String>,
    /// `BrainAgent`, `CodeAct`, `Hybrid`, or the file's own `evaluation_mode`.
    pub paradigm: String,
    /// 1-based repeat index among files of the same model and paradigm.
    pub run: u32,
    /// The experiment block says `"simulated": true` (the demo collection); shown as "simulated results".
    pub simulated: bool,
    pub result: ResultFile,
}

pub const BRAINAGENT: &str = "BrainAgent";
pub const CODEACT: &str = "CodeAct";
pub const HYBRID: &str = "Hybrid";

/// `experiment.evaluation_mode` as a paradigm name.
pub fn paradigm_of(mode: Option<&str>) -> String {
    match mode.map(|m| m.trim().to_lowercase()) {
        Some(m) if m == "codeact" => CODEACT.into(),
        Some(m) if m == "hybrid" => HYBRID.into(),
        Some(m) if m == "agent" || m == "brainagent" || m == "brain_agent" => BRAINAGENT.into(),
        Some(m) if !m.is_empty() => m,
        _ => "unknown".into(),
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// Result files under `path`: the file itself, or every `.json`/`.jsonl` below a folder (sorted).
pub fn result_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    super::files_under(path, |p| p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
}

/// Runs of a collection plus the files that could not be read (reported, never aborting the rest).
#[derive(Debug, Default, Clone)]
pub struct Collection {
    pub runs: Vec<Run>,
    pub problems: Vec<String>,
    /// BrainBench case files found among the results (a run's folder often holds its cases): not results,
    /// not problems either; counted in [`Collection::not_read`].
    pub case_files: Vec<PathBuf>,
}

impl Collection {
    /// Loads every result file under `paths` (files or folders), two files at a time per core.
    pub fn load(paths: &[PathBuf]) -> Collection {
        let mut files = Vec::new();
        let mut problems = Vec::new();
        for p in paths {
            match result_files(p) {
                Ok(f) => files.extend(f),
                Err(e) => problems.push(format!("{}: cannot list: {e}", p.display())),
            }
        }
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(files.len().max(1));
        let chunks: Vec<&[PathBuf]> = files.chunks(files.len().div_ceil(threads).max(1)).collect();
        let loaded: Vec<(PathBuf, Result<ResultFile, ResultError>)> = std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    s.spawn(move || chunk.iter().map(|p| (p.clone(), ResultFile::load(p))).collect::<Vec<_>>())
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        let mut c = Collection { runs: Vec::new(), problems, case_files: Vec::new() };
        for (path, r) in loaded {
            match r {
                Ok(result) => c.add(path, result),
                Err(e) if e.case_file => c.case_files.push(path),
                Err(e) => c.problems.push(e.to_string()),
            }
        }
        c.renumber();
        c
    }

    /// One line on the files that were not read as results and why (`None` when every file was): case files
    /// counted, unreadable files counted (each is listed in `problems`).
    pub fn not_read(&self) -> Option<String> {
        let (cases, bad) = (self.case_files.len(), self.problems.len());
        let mut why = Vec::new();
        if cases > 0 {
            why.push(plural(cases, "BrainBench case file"));
        }
        if bad > 0 {
            why.push(format!("{bad} unreadable"));
        }
        (!why.is_empty()).then(|| format!("{} not read as results: {}", plural(cases + bad, "file"), why.join(", ")))
    }

    /// Adds a loaded file; model and paradigm come from its experiment block (file stem when absent).
    pub fn add(&mut self, path: PathBuf, result: ResultFile) {
        let base_model = result
            .target_model()
            .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default());
        let reasoning_effort = result.target_reasoning_effort();
        let model = match &reasoning_effort {
            Some(e) => format!("{base_model} [{e}]"),
            None => base_model.clone(),
        };
        let paradigm = paradigm_of(result.experiment_str("evaluation_mode"));
        let simulated = result.experiment.get("simulated").and_then(Value::as_bool).unwrap_or(false);
        self.runs.push(Run { path, model, base_model, reasoning_effort, paradigm, run: 0, simulated, result });
    }

    /// Gives runs without an explicit `experiment.run` their repeat index by start time within (model, paradigm).
    /// Runs of one model and paradigm made in more than one report mode are not repeats: the "model" mode
    /// (the model's text alone, as CodeAct's) keeps the model's name, so it pairs with CodeAct; any other is
    /// named with its mode (`… [system report]`) and stands in every table as a model of its own.
    pub fn renumber(&mut self) {
        let mut modes: std::collections::HashMap<(String, String), std::collections::BTreeSet<String>> =
            Default::default();
        for r in &self.runs {
            if let Some(m) = r.result.experiment_str("report_mode") {
                modes.entry((r.model.clone(), r.paradigm.clone())).or_default().insert(m.to_string());
            }
        }
        for r in &mut self.runs {
            let mixed = modes.get(&(r.model.clone(), r.paradigm.clone())).is_some_and(|m| m.len() > 1);
            if let Some(mode) = r.result.experiment_str("report_mode").filter(|m| mixed && *m != "model") {
                r.model = format!("{} [{mode} report]", r.model);
            }
        }
        let mut order: Vec<usize> = (0..self.runs.len()).collect();
        let started = |r: &Run| r.result.experiment_str("started_at").unwrap_or("").to_string();
        order.sort_by_key(|&i| {
            (
                self.runs[i].model.clone(),
                self.runs[i].paradigm.clone(),
                started(&self.runs[i]),
                self.runs[i].path.clone(),
            )
        });
        let mut counts: std::collections::HashMap<(String, String), u32> = Default::default();
        for i in order {
            let r = &mut self.runs[i];
            let n = counts.entry((r.model.clone(), r.paradigm.clone())).or_default();
            *n += 1;
            r.run = r.result.experiment.get("run").and_then(Value::as_u64).map_or(*n, |v| v as u32);
        }
    }

    pub fn models(&self) -> Vec<String> {
        let mut m: Vec<String> = self.runs.iter().map(|r| r.model.clone()).collect();
        m.sort();
        m.dedup();
        m
    }

    pub fn paradigms(&self) -> Vec<String> {
        let mut p: Vec<String> = self.runs.iter().map(|r| r.paradigm.clone()).collect();
        p.sort();
        p.dedup();
        p
    }

    pub fn any_simulated(&self) -> bool {
        self.runs.iter().any(|r| r.simulated)
    }

    /// One line per run that a model produced (not simulated): model, paradigm, report mode, suite, the
    /// instances it holds and the day it ran, from its experiment block — what a reader needs to know the
    /// numbers are real and where they come from.
    pub fn provenance(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter(|r| !r.simulated)
            .map(|r| {
                let e = &r.result.experiment;
                let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
                let day: String = text("started_at").chars().take(10).collect();
                let report =
                    e.get("report_mode").and_then(Value::as_str).map_or(String::new(), |m| format!(", report {m}"));
                // A suite generated into a folder called `suite` would read "suite suite".
                let suite = match text("subset") {
                    s if s == "suite" => "local suite".to_string(),
                    s => format!("suite {s}"),
                };
                // Struck afterwards by `bench strike`, or while it ran (a run made since ab3010b).
                let afterwards = e.get("struck_after_run").and_then(|s| s["instances"].as_array());
                let struck = match (
                    afterwards.map_or(0, Vec::len),
                    r.result.instances.iter().filter(|i| i.struck_claims().is_some()).count(),
                ) {
                    (0, 0) => String::new(),
                    (0, n) => format!(" · {} struck while it ran", plural(n, "report")),
                    (n, _) => format!(" · {} struck afterwards", plural(n, "report")),
                };
                // The judge of the judged units, when there was one (without one they scored 0).
                let judge = match (e.get("judged_after_run"), e.get("models").and_then(|m| m["semantic"].as_str())) {
                    (Some(j), _) => format!(" · judged afterwards by {}", j["judge"].as_str().unwrap_or("?")),
                    (None, Some(j)) => format!(" · judged by {j}"),
                    (None, None) => String::new(),
                };
                format!(
                    "{} · {}{report} · {suite} · {} · run {day}{judge}{struck}",
                    r.model,
                    r.paradigm,
                    plural(r.result.instances.len(), "instance")
                )
            })
            .collect()
    }

    /// A warning when the runs' reports were made in different modes (`experiment.report_mode`: "system" =
    /// model text + BrainLens's measured results, "model" = the model's text alone): their scores are then
    /// not like for like. Files that do not say are left out.
    pub fn report_mode_warning(&self) -> Option<String> {
        let mut modes: Vec<(String, String)> = self
            .runs
            .iter()
            .filter_map(|r| r.result.experiment_str("report_mode").map(|m| (m.to_string(), r.paradigm.clone())))
            .collect();
        modes.sort();
        modes.dedup();
        let distinct: std::collections::BTreeSet<&str> = modes.iter().map(|(m, _)| m.as_str()).collect();
        (distinct.len() > 1).then(|| {
            let list: Vec<String> = modes.iter().map(|(m, p)| format!("{p}: {m}")).collect();
            format!(
                "the compared runs used different report modes ({}): \"system\" reports include BrainLens's measured results, \"model\" reports only what the model wrote — scores are not like for like",
                list.join(", ")
            )
        })
    }

    pub fn instance_count(&self) -> usize {
        self.runs.iter().map(|r| r.result.instances.len()).sum()
    }
}
