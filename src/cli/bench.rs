//! `brainlens bench …`: validate cases, rescore result files, report a collection.

use super::write_json;
use crate::bench::aggregate::{Levels, Report, write_csv_tables, write_html};
use crate::bench::case::load_cases;
use crate::bench::collection::Collection;
use crate::bench::rescore::{CaseIndex, Keep, rescore as rescore_file};
use crate::bench::results::ResultFile;
use crate::bench::scoring::ScoreContext;
use anyhow::{Context, Result, bail};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `bench validate CASES`: every problem of every case; fails when any case is invalid.
pub fn validate(cases: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let set = load_cases(cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    if set.cases.is_empty() && set.problems.is_empty() {
        bail!("{}: no case files (case<d>/case<d>_<d>.json) found", cases.display());
    }
    let bad_files: std::collections::BTreeSet<&Path> = set.problems.iter().map(|p| p.file.as_path()).collect();
    if json {
        let problems: Vec<_> = set
            .problems
            .iter()
            .map(|p| json!({"file": p.file, "json_path": p.json_path, "message": p.message}))
            .collect();
        write_json(out, &json!({"valid": set.cases.len(), "invalid": bad_files.len(), "problems": problems}))?;
    } else {
        for p in &set.problems {
            writeln!(out, "{p}")?;
        }
        writeln!(out, "{} valid case(s), {} invalid", set.cases.len(), bad_files.len())?;
    }
    if !bad_files.is_empty() {
        bail!("{} of {} case files are invalid", bad_files.len(), bad_files.len() + set.cases.len());
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
    let set = load_cases(cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    for p in &set.problems {
        eprintln!("brainlens: skipped invalid case: {p}");
    }
    let mut file = ResultFile::load(result)?;
    let index = CaseIndex::new(&set.cases);
    let ctx = ScoreContext { workspace: workspace.map(Path::to_path_buf), strict, ..Default::default() };
    // No judge is wired to the CLI yet: judged units keep their stored scores.
    let keep = Keep { judged: true, files: workspace.is_none() };
    let stats = rescore_file(&mut file, &index, &ctx, keep);
    if let Some(p) = out_path {
        file.save(p)?;
    }
    if json {
        write_json(out, &json!({"stats": stats, "summary": file.summary, "written": out_path}))?;
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
        writeln!(out, "total score {:.4}", file.summary["total_score"].as_f64().unwrap_or(0.0))?;
        if workspace.is_none() {
            writeln!(out, "file_status_check scores kept as stored (give --workspace to re-check artifacts)")?;
        }
        writeln!(out, "judged units kept as stored (no judge configured)")?;
    }
    Ok(())
}

/// `bench report RESULTS... [--json | --csv DIR | --html OUT]`.
pub fn report(
    results: &[PathBuf],
    levels: Levels,
    json: bool,
    csv: Option<&Path>,
    html: Option<&Path>,
    out: &mut dyn Write,
) -> Result<()> {
    let c = Collection::load(results);
    for p in &c.problems {
        eprintln!("brainlens: skipped: {p}");
    }
    if c.runs.is_empty() {
        bail!(
            "no readable result files in {}",
            results.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    let r = Report::build(&c, levels);
    if let Some(dir) = csv {
        let files = write_csv_tables(&r, dir).with_context(|| format!("{}: cannot write CSV tables", dir.display()))?;
        eprintln!("wrote {} tables to {}", files.len(), dir.display());
    }
    if let Some(p) = html {
        write_html(&r, p).with_context(|| format!("{}: cannot write", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if json {
        return write_json(out, &r);
    }
    if csv.is_some() || html.is_some() {
        return Ok(());
    }
    if r.simulated {
        writeln!(out, "SIMULATED RESULTS (seeded simulation, no model was run)")?;
    }
    writeln!(out, "{} result files, {} instances", r.runs.len(), c.instance_count())?;
    writeln!(out, "\nLeaderboard (difficulty-weighted score, mean over runs)")?;
    let mut cols: Vec<String> = r.subsets.clone();
    cols.push("Overall".into());
    writeln!(
        out,
        "{:<28} {:<11} {}",
        "model",
        "paradigm",
        cols.iter().map(|c| format!("{:>12}", trunc(c, 12))).collect::<String>()
    )?;
    for m in &r.models {
        for p in &r.paradigms {
            let vals: String = cols
                .iter()
                .map(|s| {
                    Report::find(&r.leaderboard, m, p, s)
                        .map_or(format!("{:>12}", "–"), |c| format!("{:>12.2}", c.value))
                })
                .collect();
            writeln!(out, "{:<28} {:<11} {vals}", trunc(m, 28), p)?;
        }
    }
    writeln!(out, "\nDifficulty Advantage Index (slope of BrainAgent − CodeAct over levels 1–3, points per level)")?;
    for d in &r.dai {
        writeln!(out, "  {:<28} {}", trunc(&d.model, 28), d.dai.map_or("–".into(), |v| format!("{v:+.2}")))?;
    }
    writeln!(out, "\nMode gap per unit (BrainAgent − CodeAct mean raw score)")?;
    for g in &r.mode_gap {
        writeln!(out, "  {:<28} {:<22} {:+.3}", trunc(&g.model, 28), g.key, g.value)?;
    }
    if !r.consistency.is_empty() {
        writeln!(out, "\nRepeated runs")?;
        for c in &r.consistency {
            writeln!(
                out,
                "  {:<28} {:<11} runs {} changed {:.1} % mean |Δ| {:.2} pts std {}",
                trunc(&c.model, 28),
                c.paradigm,
                c.runs,
                100.0 * c.changed_share,
                c.mean_abs_diff,
                c.aggregate_std.map_or("–".into(), |s| format!("{s:.2}"))
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
