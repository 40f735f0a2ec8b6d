//! The report's tables, one structure written three ways: CSV (one file per table), LaTeX (booktabs, one
//! `.tex` per table plus a document that sets them all, for papers) and one self-contained HTML page.

use super::{Cell, Gap, Report};
pub use crate::util::table::{Table, csv, write_latex_document};
use std::fmt::Write as _;
use std::path::Path;

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

fn cells_csv(key_name: &str, cells: &[Cell]) -> Table {
    Table::new(
        &["model", "paradigm", key_name, "value", "n"],
        cells
            .iter()
            .map(|c| vec![c.model.clone(), c.paradigm.clone(), c.key.clone(), c.value.to_string(), c.n.to_string()]),
    )
}

fn gaps_csv(key_name: &str, gaps: &[Gap]) -> Table {
    Table::new(
        &["model", key_name, "brainagent_minus_codeact"],
        gaps.iter().map(|g| vec![g.model.clone(), g.key.clone(), g.value.to_string()]),
    )
}

/// Every table of the report as `(CSV file name, table)`.
pub fn tables(r: &Report) -> Vec<(&'static str, Table)> {
    let mut tables = vec![
        ("leaderboard.csv", cells_csv("subset", &r.leaderboard)),
        ("difficulty.csv", cells_csv("level", &r.difficulty)),
        ("difficulty_delta.csv", gaps_csv("level", &r.difficulty_delta)),
        ("dai.csv", Table::new(&["model", "dai"], r.dai.iter().map(|d| vec![d.model.clone(), opt(d.dai)]))),
        (
            "difficulty_by_subset.csv",
            Table::new(
                &["subset", "model", "paradigm", "level", "value", "n"],
                r.difficulty_by_subset.iter().flat_map(|t| {
                    t.cells.iter().map(|c| {
                        vec![
                            t.subset.clone(),
                            c.model.clone(),
                            c.paradigm.clone(),
                            c.key.clone(),
                            c.value.to_string(),
                            c.n.to_string(),
                        ]
                    })
                }),
            ),
        ),
        (
            "difficulty_delta_by_subset.csv",
            Table::new(
                &["subset", "model", "level", "brainagent_minus_codeact"],
                r.difficulty_by_subset.iter().flat_map(|t| {
                    t.delta.iter().map(|g| vec![t.subset.clone(), g.model.clone(), g.key.clone(), g.value.to_string()])
                }),
            ),
        ),
        (
            "dai_by_subset.csv",
            Table::new(
                &["subset", "model", "dai"],
                r.difficulty_by_subset
                    .iter()
                    .flat_map(|t| t.dai.iter().map(|d| vec![t.subset.clone(), d.model.clone(), opt(d.dai)])),
            ),
        ),
        ("units.csv", cells_csv("unit", &r.units)),
        ("mode_gap.csv", gaps_csv("unit", &r.mode_gap)),
        (
            "units_by_subset.csv",
            Table::new(
                &["subset", "model", "paradigm", "unit", "value", "n"],
                r.units_by_subset.iter().flat_map(|t| {
                    t.units.iter().map(|c| {
                        let (v, n) = (c.value.to_string(), c.n.to_string());
                        vec![t.subset.clone(), c.model.clone(), c.paradigm.clone(), c.key.clone(), v, n]
                    })
                }),
            ),
        ),
        (
            "mode_gap_by_subset.csv",
            Table::new(
                &["subset", "model", "unit", "brainagent_minus_codeact"],
                r.units_by_subset.iter().flat_map(|t| {
                    t.mode_gap
                        .iter()
                        .map(|g| vec![t.subset.clone(), g.model.clone(), g.key.clone(), g.value.to_string()])
                }),
            ),
        ),
        (
            "tasks.csv",
            Table::new(
                &["model", "paradigm", "task", "n", "mean", "mpad"],
                r.tasks.iter().map(|t| {
                    vec![
                        t.model.clone(),
                        t.paradigm.clone(),
                        t.task.clone(),
                        t.n.to_string(),
                        t.mean.to_string(),
                        opt(t.mpad),
                    ]
                }),
            ),
        ),
        ("mpad.csv", cells_csv("statistic", &r.mpad)),
        (
            "consistency.csv",
            Table::new(
                &["model", "paradigm", "runs", "matched_instances", "changed_share", "mean_abs_diff", "aggregate_std"],
                r.consistency.iter().map(|c| {
                    vec![
                        c.model.clone(),
                        c.paradigm.clone(),
                        c.runs.to_string(),
                        c.matched_instances.to_string(),
                        c.changed_share.to_string(),
                        c.mean_abs_diff.to_string(),
                        opt(c.aggregate_std),
                    ]
                }),
            ),
        ),
        ("tokens.csv", cells_csv("role", &r.tokens)),
        ("timing.csv", cells_csv("role", &r.timing)),
        ("failures.csv", cells_csv("category", &r.failures)),
        (
            "failure_cases.csv",
            Table::new(
                &["model", "paradigm", "unit", "class", "rule", "count", "step_kinds", "examples"],
                r.failure_cases.iter().map(|f| {
                    vec![
                        f.model.clone(),
                        f.paradigm.clone(),
                        f.unit.clone(),
                        f.class.clone(),
                        f.rule.clone(),
                        f.count.to_string(),
                        f.kinds_text(),
                        f.examples.join(" "),
                    ]
                }),
            ),
        ),
    ];
    // Only when some run recorded a reasoning effort.
    if !r.reasoning_effort.is_empty() {
        tables.push((
            "reasoning_effort.csv",
            Table::new(
                &["model", "paradigm", "reasoning_effort", "subset", "value", "runs"],
                r.reasoning_effort.iter().map(|c| {
                    vec![
                        c.model.clone(),
                        c.paradigm.clone(),
                        c.reasoning_effort.clone(),
                        c.key.clone(),
                        c.value.to_string(),
                        c.n.to_string(),
                    ]
                }),
            ),
        ));
    }
    tables
}

/// Every table of the report as `(file name, CSV text)`.
pub fn csv_tables(r: &Report) -> Vec<(&'static str, String)> {
    tables(r).into_iter().map(|(n, t)| (n, t.csv())).collect()
}

pub fn write_csv_tables(r: &Report, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, text) in csv_tables(r) {
        let p = dir.join(name);
        std::fs::write(&p, text)?;
        written.push(p);
    }
    Ok(written)
}

/// Every table as `<name>.tex` (a booktabs tabular) in `dir`, and `tables.tex`, a document that sets them all
/// (each in a table with its name as caption), which `pdflatex` compiles as it is.
pub fn write_latex_tables(r: &Report, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let note = r.simulated.then_some("Simulated results: generated by a seeded simulation, not by running a model.");
    write_latex_document(&tables(r), note, dir)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn table(out: &mut String, title: &str, t: &Table, color: Option<(usize, f64)>) {
    let _ = write!(out, "<h2>{}</h2><table>", esc(title));
    for (i, line) in std::iter::once(&t.header).chain(&t.rows).enumerate() {
        out.push_str("<tr>");
        for (j, f) in line.iter().enumerate() {
            let tag = if i == 0 { "th" } else { "td" };
            let style = match (color, f.parse::<f64>()) {
                (Some((col, span)), Ok(v)) if i > 0 && j == col => {
                    format!(
                        " style=\"background:{}\"",
                        crate::util::chart::colors::css(crate::util::chart::colors::diverging(v, span))
                    )
                }
                _ => String::new(),
            };
            let text =
                f.parse::<f64>().ok().filter(|_| i > 0).map(|v| format!("{v:.3}")).unwrap_or_else(|| f.to_string());
            let _ = write!(out, "<{tag}{style}>{}</{tag}>", esc(&text));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// A self-contained HTML page (no scripts, no external files) with every table; gaps shaded blue–red.
pub fn write_html(r: &Report, path: &Path) -> std::io::Result<()> {
    let mut out = String::from(
        "<!doctype html><meta charset=utf-8><title>BrainLens benchmark report</title><style>body{font:14px sans-serif;margin:2em}\
         table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
         .sim{background:#fde68a;padding:.5em;font-weight:bold}</style><h1>BrainLens benchmark report</h1>",
    );
    if r.simulated {
        out.push_str("<p class=sim>Simulated results: this collection was generated by a seeded simulation, not by running a model.</p>");
    }
    let _ = write!(
        out,
        "<p>{} result files; models: {}; paradigms: {}.</p>",
        r.runs.len(),
        esc(&r.models.join(", ")),
        esc(&r.paradigms.join(", "))
    );
    for (name, t) in &tables(r) {
        let color = match *name {
            "difficulty_delta.csv" | "mode_gap.csv" => Some((2, if *name == "mode_gap.csv" { 0.5 } else { 30.0 })),
            "difficulty_delta_by_subset.csv" => Some((3, 30.0)),
            _ => None,
        };
        table(&mut out, name.trim_end_matches(".csv"), t, color);
    }
    std::fs::write(path, out)
}
