//! The analyses of a result collection: leaderboard (difficulty-weighted subset score), difficulty levels with
//! Δ = BrainAgent − CodeAct and the Difficulty Advantage Index, per-unit scores and mode gap, per-task means and
//! MPAD, repeated-run consistency, tokens and time per role, failures, score histograms, model agreement.
//! Instances that failed for infrastructure reasons (`api_infrastructure_error`) are excluded from scores.

pub mod compare;
mod export;
pub mod failure_cases;
pub mod figures;
pub mod stats;

pub use export::{
    Table, csv, csv_tables, tables, write_csv_tables, write_html, write_latex_document, write_latex_tables,
};

use super::collection::{BRAINAGENT, CODEACT, Collection, Run};
use super::families::Families;
use super::results::Instance;
use super::scoring::unit_of;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How a case's `difficult` value maps to a level: ≤ `easy_max` easy, ≤ `medium_max` medium, else hard.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Levels {
    pub easy_max: f64,
    pub medium_max: f64,
}

impl Default for Levels {
    fn default() -> Self {
        Levels { easy_max: 1.0, medium_max: 2.0 }
    }
}

pub const LEVEL_NAMES: [&str; 3] = ["easy", "medium", "hard"];

/// The key of a table row that pools every subset.
pub const OVERALL: &str = "Overall";

impl Levels {
    /// 1 (easy), 2 (medium) or 3 (hard).
    pub fn level(&self, difficulty: f64) -> usize {
        if difficulty <= self.easy_max {
            1
        } else if difficulty <= self.medium_max {
            2
        } else {
            3
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub path: String,
    /// The model with its reasoning effort, as every table names it (`openai:o3 [high]`).
    pub model: String,
    pub base_model: String,
    pub reasoning_effort: Option<String>,
    pub paradigm: String,
    pub run: u32,
    pub simulated: bool,
    pub instances: usize,
    pub excluded_infrastructure: usize,
    /// Subset → difficulty-weighted score (0–100), plus `Overall`.
    pub scores: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub model: String,
    pub paradigm: String,
    pub key: String,
    pub value: f64,
    pub n: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Gap {
    pub model: String,
    pub key: String,
    /// BrainAgent − CodeAct.
    pub value: f64,
}

/// The BrainBench paper's Figs 6/12: a model's score at each reasoning effort it was run with.
#[derive(Debug, Clone, Serialize)]
pub struct EffortCell {
    /// The model without its effort.
    pub model: String,
    pub paradigm: String,
    pub reasoning_effort: String,
    /// Subset, or `Overall`.
    pub key: String,
    /// Mean over runs of the difficulty-weighted score (0–100).
    pub value: f64,
    /// Runs.
    pub n: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dai {
    pub model: String,
    /// Least-squares slope of Δ (points) over difficulty level 1, 2, 3: > 0 means BrainAgent's advantage grows
    /// with difficulty. None with fewer than two levels holding both paradigms.
    pub dai: Option<f64>,
}

/// The BrainBench paper's Table 2 for one subset (or `Overall`, all subsets pooled): score per difficulty
/// level for each model × paradigm, Δ = BrainAgent − CodeAct per level, and the DAI.
#[derive(Debug, Clone, Serialize)]
pub struct DifficultyTable {
    pub subset: String,
    /// key = level name; value = 100·Σtotal/Σmax within the level (runs pooled).
    pub cells: Vec<Cell>,
    /// key = level name; BrainAgent − CodeAct.
    pub delta: Vec<Gap>,
    pub dai: Vec<Dai>,
}

/// The unit radar's and mode gap's numbers for one subset (the BrainBench paper's Figs 4/10 per subset).
#[derive(Debug, Clone, Serialize)]
pub struct SubsetUnits {
    pub subset: String,
    /// key = validation unit; value = mean raw score (0–1) over the subset's scored metrics.
    pub units: Vec<Cell>,
    /// key = validation unit; BrainAgent − CodeAct.
    pub mode_gap: Vec<Gap>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskRow {
    pub model: String,
    pub paradigm: String,
    pub task: String,
    pub n: usize,
    /// Mean normalised instance score × 100.
    pub mean: f64,
    /// Mean pairwise absolute difference of normalised instance scores (per run, averaged over runs).
    pub mpad: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Consistency {
    pub model: String,
    pub paradigm: String,
    pub runs: usize,
    pub matched_instances: usize,
    /// Share of instances whose score changed between two runs (mean over run pairs).
    pub changed_share: f64,
    /// Mean |score difference| in points (0–100), mean over run pairs.
    pub mean_abs_diff: f64,
    /// Sample standard deviation of the overall score across runs.
    pub aggregate_std: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Histogram {
    pub model: String,
    pub paradigm: String,
    /// Ten bins of normalised instance scores: [0, 0.1), …, [0.9, 1.0].
    pub bins: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    pub a: String,
    pub b: String,
    /// Pearson correlation of the two models' per-task mean scores (both paradigms pooled).
    pub r: Option<f64>,
    pub tasks: usize,
}

/// Everything `brainlens bench report` prints and the Bench room draws.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub simulated: bool,
    pub levels: Levels,
    pub models: Vec<String>,
    pub paradigms: Vec<String>,
    pub subsets: Vec<String>,
    pub runs: Vec<RunInfo>,
    /// key = subset or `Overall`; value = mean over runs of the difficulty-weighted score.
    pub leaderboard: Vec<Cell>,
    /// key = level name; value = 100·Σtotal/Σmax within the level.
    pub difficulty: Vec<Cell>,
    /// key = level name; BrainAgent − CodeAct.
    pub difficulty_delta: Vec<Gap>,
    pub dai: Vec<Dai>,
    /// The same table per subset, subsets in name order (the paper's Table 2 rows).
    pub difficulty_by_subset: Vec<DifficultyTable>,
    /// key = validation unit; value = mean raw score (0–1).
    pub units: Vec<Cell>,
    /// key = validation unit; BrainAgent − CodeAct mean raw score.
    pub mode_gap: Vec<Gap>,
    /// The same per subset, subsets in name order.
    pub units_by_subset: Vec<SubsetUnits>,
    pub tasks: Vec<TaskRow>,
    /// key = `mean_task_mpad`; value = mean over tasks of the task MPAD.
    pub mpad: Vec<Cell>,
    pub consistency: Vec<Consistency>,
    /// key = role (`target`, `parser`, `semantic`, `vlm`, `total`); value = mean tokens per instance.
    pub tokens: Vec<Cell>,
    /// key = role; value = mean seconds per instance.
    pub timing: Vec<Cell>,
    /// key = failure category; value = count.
    pub failures: Vec<Cell>,
    /// Every instance short of full marks by unit, class and the rule that put it there (paper E.10, Table 11).
    pub failure_cases: Vec<failure_cases::FailureRow>,
    pub histograms: Vec<Histogram>,
    pub agreement: Vec<Agreement>,
    /// Model → family ([`crate::bench::families`]; the bundled mapping until [`Report::with_families`]).
    pub families: BTreeMap<String, String>,
    /// Runs that recorded a reasoning effort, grouped by model, paradigm and effort (efforts lowest first).
    pub reasoning_effort: Vec<EffortCell>,
}

fn scored(run: &Run) -> impl Iterator<Item = &Instance> {
    run.result.instances.iter().filter(|i| !i.is_infrastructure_failure())
}

fn subset_of(i: &Instance) -> String {
    i.bench_subset.clone().unwrap_or_else(|| "Unknown".into())
}

/// The reference summary's total score, 100·Σ(total·difficulty)/Σ(max·difficulty), without building the summary.
pub fn weighted_score<'a>(instances: impl IntoIterator<Item = &'a Instance>) -> f64 {
    let (ws, wm) = super::results::difficulty_weighted_sums(instances);
    if wm > 0.0 { 100.0 * ws / wm } else { 0.0 }
}

type Key = (String, String);

impl Report {
    pub fn build(c: &Collection, levels: Levels) -> Report {
        let models = c.models();
        let paradigms = c.paradigms();
        let subsets: Vec<String> = c
            .runs
            .iter()
            .flat_map(|r| r.result.instances.iter().map(subset_of))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let (runs, leaderboard) = leaderboard(c, &subsets);

        // Difficulty levels, units, failures, tokens, timing, histograms: pooled over runs.
        let mut units: BTreeMap<(Key, String), (f64, usize)> = BTreeMap::new();
        let mut subset_units: BTreeMap<String, BTreeMap<(Key, String), (f64, usize)>> = BTreeMap::new();
        let mut failures: BTreeMap<(Key, String), usize> = BTreeMap::new();
        let mut tokens: BTreeMap<(Key, String), (f64, usize)> = BTreeMap::new();
        let mut timing: BTreeMap<(Key, String), (f64, usize)> = BTreeMap::new();
        let mut hist: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
        for r in &c.runs {
            let k: Key = (r.model.clone(), r.paradigm.clone());
            for i in &r.result.instances {
                for cat in i.error_categories() {
                    *failures.entry((k.clone(), cat.to_string())).or_default() += 1;
                }
                for role in ["target", "parser", "semantic", "vlm", "total"] {
                    let t = tokens.entry((k.clone(), role.into())).or_default();
                    t.0 += i.tokens(role);
                    t.1 += 1;
                }
                for role in ["target", "parser", "judge", "vlm", "scoring", "total"] {
                    let t = timing.entry((k.clone(), role.into())).or_default();
                    t.0 += i.seconds(role);
                    t.1 += 1;
                }
            }
            for i in scored(r) {
                let in_subset = subset_units.entry(subset_of(i)).or_default();
                for m in i.metric_details.values() {
                    let key = (k.clone(), unit_of(m.metric_type.as_deref().unwrap_or("unknown")).to_string());
                    for table in [&mut units, &mut *in_subset] {
                        let u = table.entry(key.clone()).or_default();
                        u.0 += m.raw_score;
                        u.1 += 1;
                    }
                }
                let bin = ((i.normalised() * 10.0).floor() as usize).min(9);
                hist.entry(k.clone()).or_insert_with(|| vec![0; 10])[bin] += 1;
            }
        }
        let cell = |(model, paradigm): Key, key: String, value: f64, n: usize| Cell { model, paradigm, key, value, n };
        let means = |t: BTreeMap<(Key, String), (f64, usize)>| -> Vec<Cell> {
            t.into_iter().map(|((k, u), (s, n))| cell(k, u, s / n.max(1) as f64, n)).collect()
        };
        let units: Vec<Cell> = means(units);
        let units_by_subset = subset_units
            .into_iter()
            .map(|(subset, t)| {
                let units = means(t);
                SubsetUnits { subset, mode_gap: gaps(&models, &units), units }
            })
            .collect();
        let pooled = difficulty_table(c, levels, &models, None);
        let difficulty_by_subset =
            subsets.iter().map(|s| difficulty_table(c, levels, &models, Some(s.as_str()))).collect();
        let mode_gap = gaps(&models, &units);
        let (tasks, mpad) = task_rows(c);
        let agreement = agreement(&models, &tasks);
        Report {
            simulated: c.any_simulated(),
            levels,
            models,
            paradigms,
            subsets,
            leaderboard,
            difficulty: pooled.cells,
            difficulty_delta: pooled.delta,
            dai: pooled.dai,
            difficulty_by_subset,
            units,
            mode_gap,
            units_by_subset,
            tasks,
            mpad,
            consistency: consistency(c),
            tokens: tokens.into_iter().map(|((k, role), (s, n))| cell(k, role, s / n.max(1) as f64, n)).collect(),
            timing: timing.into_iter().map(|((k, role), (s, n))| cell(k, role, s / n.max(1) as f64, n)).collect(),
            failures: failures.into_iter().map(|((k, cat), n)| cell(k, cat, n as f64, n)).collect(),
            failure_cases: failure_cases::failure_cases(c),
            histograms: hist.into_iter().map(|((model, paradigm), bins)| Histogram { model, paradigm, bins }).collect(),
            agreement,
            reasoning_effort: effort_table(&runs),
            runs,
            families: BTreeMap::new(),
        }
        .with_families(&Families::builtin())
    }

    /// The report with every model's family from `families` (the user's mapping, or a file given).
    pub fn with_families(mut self, families: &Families) -> Report {
        self.families = self.models.iter().map(|m| (m.clone(), families.family_of(m))).collect();
        self
    }

    /// The cell for (model, paradigm, key) of a table.
    pub fn find<'a>(table: &'a [Cell], model: &str, paradigm: &str, key: &str) -> Option<&'a Cell> {
        table.iter().find(|c| c.model == model && c.paradigm == paradigm && c.key == key)
    }
}

/// Score per difficulty level, Δ and DAI over the scored instances of `subset` (all subsets when `None`).
fn difficulty_table(c: &Collection, levels: Levels, models: &[String], subset: Option<&str>) -> DifficultyTable {
    let mut sums: BTreeMap<(Key, usize), (f64, f64, usize)> = BTreeMap::new();
    for r in &c.runs {
        for i in scored(r).filter(|i| subset.is_none_or(|s| subset_of(i) == s)) {
            let d =
                sums.entry(((r.model.clone(), r.paradigm.clone()), levels.level(i.difficulty_weight()))).or_default();
            d.0 += i.total_score;
            d.1 += i.max_or_default();
            d.2 += 1;
        }
    }
    let cells: Vec<Cell> = sums
        .into_iter()
        .map(|(((model, paradigm), lvl), (t, m, n))| Cell {
            model,
            paradigm,
            key: LEVEL_NAMES[lvl - 1].into(),
            value: if m > 0.0 { 100.0 * t / m } else { 0.0 },
            n,
        })
        .collect();
    let delta = gaps(models, &cells);
    let dai = models
        .iter()
        .map(|m| {
            let pts: Vec<(f64, f64)> = delta
                .iter()
                .filter(|g| &g.model == m)
                .map(|g| (LEVEL_NAMES.iter().position(|l| *l == g.key).unwrap_or(0) as f64 + 1.0, g.value))
                .collect();
            Dai { model: m.clone(), dai: stats::slope(&pts) }
        })
        .collect();
    DifficultyTable { subset: subset.unwrap_or(OVERALL).to_string(), cells, delta, dai }
}

/// BrainAgent − CodeAct for every (model, key) both paradigms have.
fn gaps(models: &[String], table: &[Cell]) -> Vec<Gap> {
    let keys: BTreeSet<&String> = table.iter().map(|c| &c.key).collect();
    let mut out = Vec::new();
    for m in models {
        for k in &keys {
            if let (Some(a), Some(b)) = (Report::find(table, m, BRAINAGENT, k), Report::find(table, m, CODEACT, k)) {
                out.push(Gap { model: m.clone(), key: (*k).clone(), value: a.value - b.value });
            }
        }
    }
    out
}

fn task_rows(c: &Collection) -> (Vec<TaskRow>, Vec<Cell>) {
    // (model, paradigm, task) → per run the normalised scores.
    let mut per: BTreeMap<(String, String, String), BTreeMap<u32, Vec<f64>>> = BTreeMap::new();
    for r in &c.runs {
        for i in scored(r) {
            per.entry((r.model.clone(), r.paradigm.clone(), i.task_id()))
                .or_default()
                .entry(r.run)
                .or_default()
                .push(i.normalised());
        }
    }
    let mut rows = Vec::new();
    let mut by_key: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    for ((model, paradigm, task), runs) in per {
        let all: Vec<f64> = runs.values().flatten().copied().collect();
        let mpads: Vec<f64> = runs.values().filter_map(|v| stats::mpad(v)).collect();
        let mpad = stats::mean(&mpads);
        if let Some(m) = mpad {
            by_key.entry((model.clone(), paradigm.clone())).or_default().push(m);
        }
        rows.push(TaskRow {
            model,
            paradigm,
            task,
            n: all.len(),
            mean: 100.0 * stats::mean(&all).unwrap_or(0.0),
            mpad,
        });
    }
    let cells = by_key
        .into_iter()
        .map(|((model, paradigm), v)| Cell {
            model,
            paradigm,
            key: "mean_task_mpad".into(),
            value: stats::mean(&v).unwrap_or(0.0),
            n: v.len(),
        })
        .collect();
    (rows, cells)
}

fn consistency(c: &Collection) -> Vec<Consistency> {
    let mut groups: BTreeMap<Key, Vec<&Run>> = BTreeMap::new();
    for r in &c.runs {
        groups.entry((r.model.clone(), r.paradigm.clone())).or_default().push(r);
    }
    let mut out = Vec::new();
    for ((model, paradigm), mut runs) in groups {
        if runs.len() < 2 {
            continue;
        }
        runs.sort_by_key(|r| r.run);
        let maps: Vec<BTreeMap<&str, f64>> =
            runs.iter().map(|r| scored(r).map(|i| (i.instance_id.as_str(), i.normalised())).collect()).collect();
        let (mut shares, mut diffs, mut matched) = (Vec::new(), Vec::new(), 0);
        for a in 0..maps.len() {
            for b in a + 1..maps.len() {
                let pairs: Vec<(f64, f64)> =
                    maps[a].iter().filter_map(|(id, x)| maps[b].get(id).map(|y| (*x, *y))).collect();
                if pairs.is_empty() {
                    continue;
                }
                matched = matched.max(pairs.len());
                shares.push(pairs.iter().filter(|(x, y)| (x - y).abs() > 1e-9).count() as f64 / pairs.len() as f64);
                diffs.push(100.0 * pairs.iter().map(|(x, y)| (x - y).abs()).sum::<f64>() / pairs.len() as f64);
            }
        }
        let overall: Vec<f64> = runs.iter().map(|r| weighted_score(scored(r))).collect();
        out.push(Consistency {
            model,
            paradigm,
            runs: runs.len(),
            matched_instances: matched,
            changed_share: stats::mean(&shares).unwrap_or(0.0),
            mean_abs_diff: stats::mean(&diffs).unwrap_or(0.0),
            aggregate_std: stats::sample_std(&overall),
        });
    }
    out
}

fn agreement(models: &[String], tasks: &[TaskRow]) -> Vec<Agreement> {
    let mut profile: BTreeMap<&str, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for t in tasks {
        profile.entry(&t.model).or_default().entry(&t.task).or_default().push(t.mean);
    }
    let mean_of = |m: &str| -> BTreeMap<&str, f64> {
        profile.get(m).map(|p| p.iter().map(|(t, v)| (*t, stats::mean(v).unwrap_or(0.0))).collect()).unwrap_or_default()
    };
    let mut out = Vec::new();
    for a in models {
        for b in models {
            let (pa, pb) = (mean_of(a), mean_of(b));
            let pairs: Vec<(f64, f64)> = pa.iter().filter_map(|(t, x)| pb.get(t).map(|y| (*x, *y))).collect();
            out.push(Agreement { a: a.clone(), b: b.clone(), r: stats::pearson(&pairs), tasks: pairs.len() });
        }
    }
    out
}

/// Mean scores of the runs that recorded a reasoning effort, per (model, paradigm, effort, subset or Overall),
/// efforts in [`crate::llm::config::REASONING_EFFORTS`] order.
fn effort_table(runs: &[RunInfo]) -> Vec<EffortCell> {
    use crate::llm::config::reasoning_effort_rank as rank;
    let mut groups: BTreeMap<(String, String, usize, String, String), Vec<f64>> = BTreeMap::new();
    for r in runs {
        let Some(e) = &r.reasoning_effort else { continue };
        for (key, v) in &r.scores {
            let k = (r.base_model.clone(), r.paradigm.clone(), rank(e), e.clone(), key.clone());
            groups.entry(k).or_default().push(*v);
        }
    }
    groups
        .into_iter()
        .map(|((model, paradigm, _, reasoning_effort, key), v)| EffortCell {
            model,
            paradigm,
            reasoning_effort,
            key,
            value: stats::mean(&v).unwrap_or(0.0),
            n: v.len(),
        })
        .collect()
}

/// Each run's scores per subset and overall, and the leaderboard: those means over a model's runs.
fn leaderboard(c: &Collection, subsets: &[String]) -> (Vec<RunInfo>, Vec<Cell>) {
    let mut runs = Vec::new();
    let mut board: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
    for r in &c.runs {
        let kept: Vec<&Instance> = scored(r).collect();
        let mut scores = BTreeMap::new();
        for s in subsets {
            let of: Vec<&Instance> =
                kept.iter().copied().filter(|i| i.bench_subset.as_deref().unwrap_or("Unknown") == s).collect();
            if !of.is_empty() {
                scores.insert(s.clone(), weighted_score(of));
            }
        }
        scores.insert(OVERALL.into(), weighted_score(kept.iter().copied()));
        for (s, v) in &scores {
            board.entry((r.model.clone(), r.paradigm.clone(), s.clone())).or_default().push(*v);
        }
        runs.push(RunInfo {
            path: r.path.display().to_string(),
            model: r.model.clone(),
            base_model: r.base_model.clone(),
            reasoning_effort: r.reasoning_effort.clone(),
            paradigm: r.paradigm.clone(),
            run: r.run,
            simulated: r.simulated,
            instances: r.result.instances.len(),
            excluded_infrastructure: r.result.instances.len() - kept.len(),
            scores,
        });
    }
    let leaderboard = board
        .into_iter()
        .map(|((model, paradigm, key), v)| Cell {
            model,
            paradigm,
            key,
            value: stats::mean(&v).unwrap_or(0.0),
            n: v.len(),
        })
        .collect();
    (runs, leaderboard)
}
