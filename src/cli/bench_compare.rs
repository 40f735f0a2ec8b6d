//! `brainlens bench compare A B`: two result files side by side (`bench::aggregate::compare`).

use crate::bench::aggregate::compare::{Change, Comparison, Filter, compare};
use crate::bench::aggregate::{LEVEL_NAMES, Levels};
use crate::bench::collection::{Collection, Run};
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Result file A (the baseline).
    pub a: PathBuf,
    /// Result file B (differences are B − A).
    pub b: PathBuf,
    /// Only instances of this subset (e.g. "Foundational Analysis").
    #[arg(long)]
    pub subset: Option<String>,
    /// Only instances with a metric of this validation unit (e.g. numeric_match).
    #[arg(long)]
    pub unit: Option<String>,
    #[arg(long, value_parser = ["easy", "medium", "hard"])]
    pub difficulty: Option<String>,
    /// Only instances whose score went this way from A to B.
    #[arg(long, default_value = "any", value_parser = ["any", "better", "worse", "same", "changed"])]
    pub change: String,
    /// Difficulty values up to this are "easy".
    #[arg(long, default_value_t = 1.0)]
    pub easy_max: f64,
    /// Difficulty values up to this (above easy) are "medium"; above it "hard".
    #[arg(long, default_value_t = 2.0)]
    pub medium_max: f64,
    /// Write the (filtered) instance rows as CSV here.
    #[arg(long, value_name = "OUT.csv")]
    pub csv: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

/// The two runs, loaded together so repeats of one model and paradigm get their run numbers.
fn load_pair(a: &Path, b: &Path) -> Result<(Run, Run)> {
    if a == b {
        bail!("{}: give two different result files", a.display());
    }
    for p in [a, b] {
        if !p.is_file() {
            bail!("{}: not a result file", p.display());
        }
    }
    let mut c = Collection::load(&[a.to_path_buf(), b.to_path_buf()]);
    let mut take = |p: &Path| -> Result<Run> {
        match c.runs.iter().position(|r| r.path == p) {
            Some(k) => Ok(c.runs.remove(k)),
            None if c.case_files.iter().any(|f| f == p) => {
                bail!("{}: a BrainBench case file, not a result file", p.display())
            }
            None => bail!(
                "{}",
                c.problems
                    .iter()
                    .find(|m| m.starts_with(&p.display().to_string()))
                    .cloned()
                    .unwrap_or_else(|| format!("{}: not read as a result file", p.display()))
            ),
        }
    };
    Ok((take(a)?, take(b)?))
}

#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    comparison: &'a Comparison,
    simulated: bool,
    filter: FilterOut<'a>,
    shown: Vec<&'a str>,
}

#[derive(Serialize)]
struct FilterOut<'a> {
    subset: Option<&'a str>,
    unit: Option<&'a str>,
    difficulty: Option<&'a str>,
    change: &'a str,
}

fn signed(x: f64) -> String {
    format!("{x:+.2}")
}

pub fn run(args: &CompareArgs, out: &mut dyn Write) -> Result<()> {
    let (a, b) = load_pair(&args.a, &args.b)?;
    let levels = Levels { easy_max: args.easy_max, medium_max: args.medium_max };
    let c = compare(&a, &b, levels);
    let filter = Filter {
        subset: args.subset.clone().unwrap_or_default(),
        unit: args.unit.clone().unwrap_or_default(),
        level: args.difficulty.as_deref().and_then(|d| LEVEL_NAMES.iter().position(|n| *n == d)).map_or(0, |k| k + 1),
        change: Change::parse(&args.change).unwrap_or_default(),
    };
    if !filter.subset.is_empty() && !c.subsets().contains(&filter.subset) {
        bail!("--subset {}: no shared instance has it (subsets: {})", filter.subset, c.subsets().join(", "));
    }
    if !filter.unit.is_empty() && !c.unit_names().contains(&filter.unit) {
        bail!("--unit {}: no shared instance scores it (units: {})", filter.unit, c.unit_names().join(", "));
    }
    let rows: Vec<_> = c.filtered(&filter).collect();
    if let Some(p) = &args.csv {
        std::fs::write(p, c.table(rows.iter().copied()).csv())
            .with_context(|| format!("{}: cannot write", p.display()))?;
        eprintln!("wrote {} rows to {}", rows.len(), p.display());
    }
    let simulated = a.simulated || b.simulated;
    if args.json {
        let output = Output {
            comparison: &c,
            simulated,
            filter: FilterOut {
                subset: args.subset.as_deref(),
                unit: args.unit.as_deref(),
                difficulty: args.difficulty.as_deref(),
                change: filter.change.name(),
            },
            shown: rows.iter().map(|r| r.instance_id.as_str()).collect(),
        };
        return super::write_json(out, &output);
    }
    if simulated {
        writeln!(out, "SIMULATED RESULTS in at least one run (seeded simulation, no model was run)")?;
    }
    writeln!(out, "A: {} ({})\nB: {} ({})", c.a, c.a_path, c.b, c.b_path)?;
    writeln!(
        out,
        "{} shared instances ({} scored by both); only in A: {}; only in B: {}{}",
        c.rows.len(),
        c.scored,
        c.only_a.len(),
        c.only_b.len(),
        if c.repeated > 0 { format!("; {} repeated ids (first compared)", c.repeated) } else { String::new() }
    )?;
    let count = |ch: Change| c.filtered(&Filter { change: ch, ..Default::default() }).count();
    writeln!(
        out,
        "Overall (difficulty-weighted, instances both scored): A {:.2}, B {:.2}, B − A {}; better {}, worse {}, same {}",
        c.overall_a,
        c.overall_b,
        signed(c.overall_b - c.overall_a),
        count(Change::Better),
        count(Change::Worse),
        count(Change::Same)
    )?;
    writeln!(out, "\nPer unit (mean raw metric score, instances both scored)")?;
    writeln!(out, "{:<24} {:>5} {:>7} {:>7} {:>7}", "unit", "n", "A", "B", "B − A")?;
    for u in &c.units {
        writeln!(out, "{:<24} {:>5} {:>7.3} {:>7.3} {:>7}", u.unit, u.n, u.a, u.b, format!("{:+.3}", u.diff))?;
    }
    writeln!(out, "\nInstances ({} of {} shown)", rows.len(), c.rows.len())?;
    writeln!(
        out,
        "{:<44} {:<7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>7} {:>7}  failures A | B",
        "instance", "level", "A", "B", "B − A", "tok A", "tok B", "s A", "s B"
    )?;
    for r in rows {
        let fails = |f: &[String]| if f.is_empty() { "—".to_string() } else { f.join(",") };
        writeln!(
            out,
            "{:<44} {:<7} {:>6.1} {:>6.1} {:>8} {:>8.0} {:>8.0} {:>7.1} {:>7.1}  {} | {}",
            r.instance_id,
            LEVEL_NAMES[r.level - 1],
            r.a.score,
            r.b.score,
            r.delta().map_or("excl.".into(), signed),
            r.a.tokens,
            r.b.tokens,
            r.a.seconds,
            r.b.seconds,
            fails(&r.a.failures),
            fails(&r.b.failures)
        )?;
    }
    Ok(())
}
