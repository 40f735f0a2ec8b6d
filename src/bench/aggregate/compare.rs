//! Two runs side by side (models, paradigms or repeats): every instance both ran, matched by instance id, with
//! each side's score, target tokens, seconds and failure classes; the per-unit difference over the instances
//! both scored; a filter by subset, unit, difficulty and score change; the rows as a CSV table. The Bench room's
//! Compare view and `bench compare` both read this.

use super::failure_cases::classify;
use super::{LEVEL_NAMES, Levels, weighted_score};
use crate::bench::collection::Run;
use crate::bench::results::Instance;
use crate::bench::scoring::unit_of;
use crate::util::table::Table;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Scores closer than this (on 0–100) count as the same.
const SAME: f64 = 1e-9;

/// One run's side of a shared instance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Side {
    /// Position of the instance in its run's result file.
    pub index: usize,
    /// Total ÷ max on 0–100, as the instance browser shows it.
    pub score: f64,
    /// Tokens of the target (the agent under test).
    pub tokens: f64,
    /// Wall seconds of the whole instance.
    pub seconds: f64,
    /// Failure-case classes of the instance (empty at full marks), each once.
    pub failures: Vec<String>,
    /// An infrastructure failure: excluded from scores, so from every difference.
    pub excluded: bool,
}

impl Side {
    fn of(index: usize, i: &Instance) -> Side {
        let mut failures: Vec<String> = Vec::new();
        for (_, class, _) in classify(i) {
            if !failures.iter().any(|f| f == class) {
                failures.push(class.to_string());
            }
        }
        Side {
            index,
            score: 100.0 * i.normalised(),
            tokens: i.tokens("target"),
            seconds: i.seconds("total"),
            failures,
            excluded: i.is_infrastructure_failure(),
        }
    }
}

/// An instance both runs hold.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Row {
    pub instance_id: String,
    pub subset: String,
    pub task: String,
    /// 1 easy, 2 medium, 3 hard (the collection's levels).
    pub level: usize,
    /// Validation units of its metrics (either side's), sorted.
    pub units: Vec<String>,
    pub a: Side,
    pub b: Side,
}

/// Which way the score moved from A to B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    #[default]
    Any,
    Better,
    Worse,
    Same,
    /// Better or worse.
    Changed,
}

impl Change {
    pub const ALL: [Change; 5] = [Change::Any, Change::Better, Change::Worse, Change::Same, Change::Changed];

    pub fn name(self) -> &'static str {
        match self {
            Change::Any => "any",
            Change::Better => "better",
            Change::Worse => "worse",
            Change::Same => "same",
            Change::Changed => "changed",
        }
    }

    pub fn parse(s: &str) -> Option<Change> {
        Change::ALL.into_iter().find(|c| c.name() == s.trim().to_lowercase())
    }
}

impl Row {
    /// B − A on 0–100; None when either side is excluded (an infrastructure failure has no score).
    pub fn delta(&self) -> Option<f64> {
        (!self.a.excluded && !self.b.excluded).then(|| self.b.score - self.a.score)
    }

    fn moved(&self, want: Change) -> bool {
        let Some(d) = self.delta() else { return want == Change::Any };
        match want {
            Change::Any => true,
            Change::Better => d > SAME,
            Change::Worse => d < -SAME,
            Change::Same => d.abs() <= SAME,
            Change::Changed => d.abs() > SAME,
        }
    }
}

/// What the rows are narrowed to; empty strings and level 0 mean any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub subset: String,
    pub unit: String,
    pub level: usize,
    pub change: Change,
}

impl Filter {
    pub fn matches(&self, r: &Row) -> bool {
        (self.subset.is_empty() || r.subset == self.subset)
            && (self.unit.is_empty() || r.units.contains(&self.unit))
            && (self.level == 0 || r.level == self.level)
            && r.moved(self.change)
    }
}

/// Mean raw metric score of one unit on each side, over the instances both scored.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnitDiff {
    pub unit: String,
    /// Instances with a metric of this unit.
    pub n: usize,
    pub a: f64,
    pub b: f64,
    /// b − a.
    pub diff: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Comparison {
    /// `model · paradigm · run N` of each side.
    pub a: String,
    pub b: String,
    pub a_path: String,
    pub b_path: String,
    /// Shared instances in A's order.
    pub rows: Vec<Row>,
    /// Instance ids only one side holds.
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// Repeated instance ids within a run (the first is compared).
    pub repeated: usize,
    /// Difficulty-weighted score (the leaderboard's) of each side over the instances both scored.
    pub overall_a: f64,
    pub overall_b: f64,
    /// Instances both scored (neither an infrastructure failure).
    pub scored: usize,
    pub units: Vec<UnitDiff>,
}

pub fn run_label(r: &Run) -> String {
    format!("{} · {} · run {}", r.model, r.paradigm, r.run)
}

/// First occurrence of each instance id, and how many repeats there were.
fn by_id(run: &Run) -> (HashMap<&str, usize>, usize) {
    let mut m = HashMap::new();
    let mut repeated = 0;
    for (k, i) in run.result.instances.iter().enumerate() {
        match m.entry(i.instance_id.as_str()) {
            std::collections::hash_map::Entry::Occupied(_) => repeated += 1,
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(k);
            }
        }
    }
    (m, repeated)
}

fn units_of(i: &Instance) -> impl Iterator<Item = (String, f64)> + '_ {
    i.metric_details.values().map(|d| (unit_of(d.metric_type.as_deref().unwrap_or("unknown")).to_string(), d.raw_score))
}

/// Compares run `a` with run `b`.
pub fn compare(a: &Run, b: &Run, levels: Levels) -> Comparison {
    let (ia, rep_a) = by_id(a);
    let (ib, rep_b) = by_id(b);
    let mut rows = Vec::new();
    let mut only_a = Vec::new();
    // (unit) → (sum a, count a, sum b, count b, instances)
    let mut units: BTreeMap<String, (f64, usize, f64, usize, usize)> = BTreeMap::new();
    let (mut shared_a, mut shared_b) = (Vec::new(), Vec::new());
    for (k, x) in a.result.instances.iter().enumerate() {
        if ia.get(x.instance_id.as_str()) != Some(&k) {
            continue;
        }
        let Some(&j) = ib.get(x.instance_id.as_str()) else {
            only_a.push(x.instance_id.clone());
            continue;
        };
        let y = &b.result.instances[j];
        let mut row_units: Vec<String> = units_of(x).chain(units_of(y)).map(|(u, _)| u).collect();
        row_units.sort();
        row_units.dedup();
        let row = Row {
            instance_id: x.instance_id.clone(),
            subset: x.bench_subset.clone().unwrap_or_else(|| "Unknown".into()),
            task: x.task_id(),
            level: levels.level(x.difficulty_weight()),
            units: row_units,
            a: Side::of(k, x),
            b: Side::of(j, y),
        };
        if row.delta().is_some() {
            shared_a.push(x);
            shared_b.push(y);
            for u in &row.units {
                units.entry(u.clone()).or_default().4 += 1;
            }
            for (u, s) in units_of(x) {
                let e = units.entry(u).or_default();
                e.0 += s;
                e.1 += 1;
            }
            for (u, s) in units_of(y) {
                let e = units.entry(u).or_default();
                e.2 += s;
                e.3 += 1;
            }
        }
        rows.push(row);
    }
    let only_b = b
        .result
        .instances
        .iter()
        .enumerate()
        .filter(|(k, y)| ib.get(y.instance_id.as_str()) == Some(k) && !ia.contains_key(y.instance_id.as_str()))
        .map(|(_, y)| y.instance_id.clone())
        .collect();
    let mean = |s: f64, n: usize| if n == 0 { 0.0 } else { s / n as f64 };
    let units = units
        .into_iter()
        .map(|(unit, (sa, na, sb, nb, n))| {
            let (a, b) = (mean(sa, na), mean(sb, nb));
            UnitDiff { unit, n, a, b, diff: b - a }
        })
        .collect();
    Comparison {
        a: run_label(a),
        b: run_label(b),
        a_path: a.path.display().to_string(),
        b_path: b.path.display().to_string(),
        scored: shared_a.len(),
        overall_a: weighted_score(shared_a),
        overall_b: weighted_score(shared_b),
        rows,
        only_a,
        only_b,
        repeated: rep_a + rep_b,
        units,
    }
}

fn num(x: f64) -> String {
    format!("{}", (x * 1e6).round() / 1e6)
}

impl Comparison {
    /// The rows a filter keeps.
    pub fn filtered<'a>(&'a self, f: &'a Filter) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows.iter().filter(move |r| f.matches(r))
    }

    /// Subsets and units among the rows (the filter's choices).
    pub fn subsets(&self) -> Vec<String> {
        let mut v: Vec<String> = self.rows.iter().map(|r| r.subset.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    pub fn unit_names(&self) -> Vec<String> {
        self.units.iter().map(|u| u.unit.clone()).collect()
    }

    /// Rows as a table: one line per instance, A's and B's columns side by side.
    pub fn table<'a>(&self, rows: impl IntoIterator<Item = &'a Row>) -> Table {
        Table::new(
            &[
                "instance_id",
                "subset",
                "task",
                "difficulty",
                "units",
                "a_score",
                "b_score",
                "delta",
                "a_target_tokens",
                "b_target_tokens",
                "a_seconds",
                "b_seconds",
                "a_failures",
                "b_failures",
            ],
            rows.into_iter().map(|r| {
                vec![
                    r.instance_id.clone(),
                    r.subset.clone(),
                    r.task.clone(),
                    LEVEL_NAMES[r.level - 1].to_string(),
                    r.units.join(";"),
                    num(r.a.score),
                    num(r.b.score),
                    r.delta().map(num).unwrap_or_else(|| "excluded".into()),
                    num(r.a.tokens),
                    num(r.b.tokens),
                    num(r.a.seconds),
                    num(r.b.seconds),
                    r.a.failures.join(";"),
                    r.b.failures.join(";"),
                ]
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::results::{MetricDetail, ResultFile};
    use std::path::PathBuf;

    fn inst(id: &str, subset: &str, score: f64, unit: &str, raw: f64) -> Instance {
        let mut i = Instance {
            instance_id: id.into(),
            bench_subset: Some(subset.into()),
            total_score: score,
            max_score: 100.0,
            vrr: 1.0,
            difficulty: serde_json::json!(1.0),
            ..Default::default()
        };
        let d = MetricDetail { raw_score: raw, metric_type: Some(unit.into()), ..Default::default() };
        i.metric_details.insert("m".into(), d);
        i.token_usage.insert("target".into(), serde_json::json!(100));
        i
    }

    fn run(model: &str, instances: Vec<Instance>) -> Run {
        Run {
            path: PathBuf::from(format!("{model}.json")),
            model: model.into(),
            base_model: model.into(),
            reasoning_effort: None,
            paradigm: "BrainAgent".into(),
            run: 1,
            simulated: false,
            result: ResultFile { instances, ..Default::default() },
        }
    }

    #[test]
    fn shared_instances_pair_up_and_differences_follow_b_minus_a() {
        let a = run(
            "a",
            vec![
                inst("x", "S1", 50.0, "numeric_match", 0.5),
                inst("y", "S2", 100.0, "categorical_match", 1.0),
                inst("only-a", "S1", 0.0, "numeric_match", 0.0),
            ],
        );
        let mut infra = inst("z", "S1", 0.0, "numeric_match", 0.0);
        infra.errors.push("api_infrastructure_error: target: HTTP 503".into());
        let b = run(
            "b",
            vec![
                inst("y", "S2", 40.0, "categorical_match", 0.0),
                inst("x", "S1", 80.0, "numeric_match", 0.8),
                inst("x", "S1", 0.0, "numeric_match", 0.0),
                infra,
            ],
        );
        let c = compare(&a, &b, Levels::default());
        assert_eq!(c.rows.iter().map(|r| r.instance_id.as_str()).collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!((c.only_a.clone(), c.only_b.clone(), c.repeated), (vec!["only-a".to_string()], vec!["z".into()], 1));
        assert_eq!(c.rows[0].delta(), Some(30.0));
        assert_eq!(c.rows[1].b.index, 0);
        assert_eq!(c.rows[1].b.failures, ["wrong"]);
        // Difficulty 1 everywhere: the weighted score is the mean of total ÷ max.
        assert!((c.overall_a - 75.0).abs() < 1e-9 && (c.overall_b - 60.0).abs() < 1e-9, "{c:?}");
        let num = c.units.iter().find(|u| u.unit == "numeric_match").unwrap();
        assert!((num.diff - 0.3).abs() < 1e-12 && num.n == 1);
        let worse = Filter { change: Change::Worse, ..Default::default() };
        assert_eq!(c.filtered(&worse).map(|r| r.instance_id.as_str()).collect::<Vec<_>>(), ["y"]);
        let s1 = Filter { subset: "S1".into(), change: Change::Better, ..Default::default() };
        assert_eq!(c.filtered(&s1).count(), 1);
        let unit = Filter { unit: "categorical_match".into(), ..Default::default() };
        assert_eq!(c.filtered(&unit).count(), 1);
        let csv = c.table(c.filtered(&worse)).csv();
        assert!(csv.lines().nth(1).unwrap().starts_with("y,S2,"), "{csv}");
        assert!(csv.contains(",100,40,-60,100,100,"), "{csv}");
    }

    #[test]
    fn an_excluded_side_has_no_difference() {
        let a = run("a", vec![inst("x", "S", 50.0, "numeric_match", 0.5)]);
        let mut infra = inst("x", "S", 0.0, "numeric_match", 0.0);
        infra.errors.push("api_infrastructure_error: target: HTTP 503".into());
        let c = compare(&a, &run("b", vec![infra]), Levels::default());
        assert_eq!((c.rows[0].delta(), c.scored), (None, 0));
        assert_eq!(c.filtered(&Filter { change: Change::Same, ..Default::default() }).count(), 0);
        assert_eq!(c.filtered(&Filter::default()).count(), 1);
        assert!(c.table(&c.rows).csv().contains(",excluded,"));
        assert!(Change::parse("Worse") == Some(Change::Worse) && Change::parse("up").is_none());
    }
}
