//! The report's charts as data and as SVG, one home for the GUI's Bench charts and `bench report --figures`:
//! the unit radar (models overlaid for one paradigm, or paradigms for one model), the model × unit mode-gap
//! heatmap and the model agreement heatmap. PNG copies are the SVG rasterised at 300 dpi.

use super::{Cell, Gap, Report};
use crate::bench::scoring::UNIT_TYPES;
use crate::util::chart::svg;
use std::path::{Path, PathBuf};

/// Unit names as the charts label them (`spectral_check` → "spectral").
pub fn unit_labels() -> Vec<String> {
    UNIT_TYPES.iter().map(|u| u.trim_end_matches("_check").replace('_', " ")).collect()
}

/// What a radar overlays.
pub enum RadarOverlay<'a> {
    /// Every model, for one paradigm.
    Models { paradigm: &'a str },
    /// Every paradigm, for one model.
    Paradigms { model: &'a str },
}

/// The unit table and mode gaps of one subset, or of all subsets pooled (`None`, or a subset not in the report).
pub fn units_of<'a>(r: &'a Report, subset: Option<&str>) -> (&'a [Cell], &'a [Gap]) {
    match subset.and_then(|s| r.units_by_subset.iter().find(|t| t.subset == s)) {
        Some(t) => (&t.units, &t.mode_gap),
        None => (&r.units, &r.mode_gap),
    }
}

/// (series name, mean score per unit in [0, 1]), over one subset or all (`None`).
pub fn radar_series(r: &Report, overlay: RadarOverlay, subset: Option<&str>) -> Vec<(String, Vec<Option<f64>>)> {
    let (units, _) = units_of(r, subset);
    let values = |m: &str, p: &str| -> Vec<Option<f64>> {
        UNIT_TYPES.iter().map(|u| Report::find(units, m, p, u).map(|c| c.value)).collect()
    };
    match overlay {
        RadarOverlay::Models { paradigm } => r.models.iter().map(|m| (m.clone(), values(m, paradigm))).collect(),
        RadarOverlay::Paradigms { model } => r.paradigms.iter().map(|p| (p.clone(), values(model, p))).collect(),
    }
}

/// Rows (models), columns (units) and BrainAgent − CodeAct gaps, row-major, over one subset or all (`None`).
pub fn mode_gap_grid(r: &Report, subset: Option<&str>) -> (Vec<String>, Vec<String>, Vec<Option<f64>>) {
    let (_, gaps) = units_of(r, subset);
    let vals = r
        .models
        .iter()
        .flat_map(|m| {
            UNIT_TYPES.iter().map(move |u| gaps.iter().find(|g| &g.model == m && g.key == *u).map(|g| g.value))
        })
        .collect();
    (r.models.clone(), unit_labels(), vals)
}

/// Models grouped by family (families in name order, "Other" last) and labelled "model (family)", and their
/// pairwise agreement (Pearson r of per-task means), row-major: the BrainBench paper's Fig 13.
pub fn agreement_grid(r: &Report) -> (Vec<String>, Vec<Option<f64>>) {
    let family = |m: &String| r.families.get(m).cloned().unwrap_or_else(|| crate::bench::families::OTHER.into());
    let mut models: Vec<&String> = r.models.iter().collect();
    models.sort_by_key(|m| (family(m) == crate::bench::families::OTHER, family(m), (*m).clone()));
    let vals = models
        .iter()
        .flat_map(|a| {
            models.iter().map(move |b| r.agreement.iter().find(|x| &x.a == *a && &x.b == *b).and_then(|x| x.r))
        })
        .collect();
    (models.iter().map(|m| format!("{m} ({})", family(m))).collect(), vals)
}

/// Rows ("model · paradigm"), columns (reasoning efforts, lowest first) and overall scores, row-major: the
/// BrainBench paper's Figs 6/12 as a grid.
pub fn effort_grid(r: &Report) -> (Vec<String>, Vec<String>, Vec<Option<f64>>) {
    let overall: Vec<&super::EffortCell> = r.reasoning_effort.iter().filter(|c| c.key == super::OVERALL).collect();
    let mut rows: Vec<(String, String)> = overall.iter().map(|c| (c.model.clone(), c.paradigm.clone())).collect();
    rows.sort();
    rows.dedup();
    let mut cols: Vec<String> = overall.iter().map(|c| c.reasoning_effort.clone()).collect();
    cols.sort_by_key(|e| (crate::llm::config::reasoning_effort_rank(e), e.clone()));
    cols.dedup();
    let vals = rows
        .iter()
        .flat_map(|(m, p)| {
            let overall = &overall;
            cols.iter().map(move |e| {
                overall.iter().find(|c| &c.model == m && &c.paradigm == p && &c.reasoning_effort == e).map(|c| c.value)
            })
        })
        .collect();
    (rows.into_iter().map(|(m, p)| format!("{m} · {p}")).collect(), cols, vals)
}

/// Every chart as `(file stem, SVG)`: a radar per paradigm, the mode gap, the agreement; each captioned with
/// what it shows, and "SIMULATED" when the results are.
pub fn figures(r: &Report) -> Vec<(String, String)> {
    let caption = |svg: String, what: &str| {
        let sim = if r.simulated { " — SIMULATED results (seeded simulation, no model was run)" } else { "" };
        svg::captioned(&svg, &format!("{what}{sim}"))
    };
    let slug = |s: &str| s.to_lowercase().replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let mut out: Vec<(String, String)> = Vec::new();
    // All subsets pooled, then each subset (the paper's Figs 4/10).
    let scopes = std::iter::once(None).chain(r.units_by_subset.iter().map(|t| Some(t.subset.as_str())));
    for subset in scopes {
        let (stem_end, title_end) = match subset {
            None => (String::new(), String::new()),
            Some(s) => (format!("_{}", slug(s)), format!(", {s}")),
        };
        for p in &r.paradigms {
            let series = radar_series(r, RadarOverlay::Models { paradigm: p }, subset);
            let svg = svg::radar(&series, &unit_labels());
            let what = format!("Mean raw score per validation unit, {p}{title_end}");
            out.push((format!("radar_{}{stem_end}", slug(p)), caption(svg, &what)));
        }
        if !units_of(r, subset).1.is_empty() {
            let (rows, cols, vals) = mode_gap_grid(r, subset);
            let svg = svg::heatmap(&rows, &cols, &vals, true, 2);
            let what = format!("Mode gap: BrainAgent − CodeAct mean raw score per unit{title_end}");
            out.push((format!("mode_gap{stem_end}"), caption(svg, &what)));
        }
    }
    if r.models.len() > 1 {
        let (rows, vals) = agreement_grid(r);
        let svg = svg::heatmap(&rows, &rows, &vals, true, 2);
        out.push((
            "agreement".into(),
            caption(svg, "Model agreement: Pearson r of per-task mean scores, models grouped by family"),
        ));
    }
    if !r.reasoning_effort.is_empty() {
        let (rows, cols, vals) = effort_grid(r);
        let svg = svg::heatmap(&rows, &cols, &vals, false, 1);
        out.push(("reasoning_effort".into(), caption(svg, "Overall score by reasoning effort (mean over runs)")));
    }
    out
}

/// Writes every chart as `<stem>.svg` and a 300-dpi `<stem>.png` into `dir`; returns the files.
pub fn write_figures(r: &Report, dir: &Path) -> Result<Vec<PathBuf>, String> {
    crate::util::chart::png::write_svg_and_png(&figures(r), dir)
}
