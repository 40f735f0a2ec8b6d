//! Leaderboard: models × (subset × paradigm) difficulty-weighted scores, best bold and second underlined per
//! column (as the BrainBench paper's Table 1), sortable by any column, exportable as CSV.

use super::Loaded;
use crate::bench::aggregate::Report;
use egui::RichText;

#[derive(Debug, Clone, Default)]
pub struct State {
    /// Sorted by this column (index into `columns`); None = by model name.
    pub sort: Option<usize>,
    pub ascending: bool,
}

/// The columns: (subset or `Overall`, paradigm).
pub fn columns(r: &Report) -> Vec<(String, String)> {
    let mut keys = r.subsets.clone();
    keys.push("Overall".into());
    keys.iter().flat_map(|s| r.paradigms.iter().map(move |p| (s.clone(), p.clone()))).collect()
}

/// Row order for the current sort.
pub fn sorted_models(r: &Report, cols: &[(String, String)], st: &State) -> Vec<String> {
    let mut models = r.models.clone();
    if let Some(c) = st.sort.filter(|c| *c < cols.len()) {
        let (s, p) = &cols[c];
        let v = |m: &String| Report::find(&r.leaderboard, m, p, s).map_or(f64::NEG_INFINITY, |c| c.value);
        models.sort_by(|a, b| v(b).total_cmp(&v(a)).then(a.cmp(b)));
        if st.ascending {
            models.reverse();
        }
    } else if st.ascending {
        models.reverse();
    }
    models
}

/// The wide leaderboard as CSV (model, then one column per subset × paradigm).
pub fn to_csv(r: &Report) -> String {
    let cols = columns(r);
    let header: Vec<String> =
        std::iter::once("model".to_string()).chain(cols.iter().map(|(s, p)| format!("{s} / {p}"))).collect();
    let rows = r.models.iter().map(|m| {
        std::iter::once(m.clone())
            .chain(cols.iter().map(|(s, p)| {
                Report::find(&r.leaderboard, m, p, s).map_or(String::new(), |c| format!("{:.4}", c.value))
            }))
            .collect()
    });
    crate::bench::aggregate::csv(&header.iter().map(String::as_str).collect::<Vec<_>>(), rows)
}

pub fn show(ui: &mut egui::Ui, data: &Loaded, st: &mut State, message: &mut Option<String>) {
    let r = &data.report;
    let cols = columns(r);
    ui.horizontal(|ui| {
        ui.strong("Leaderboard");
        ui.label("difficulty-weighted score (0–100), mean over runs; best bold, second underlined per column");
        if ui.button("Export CSV").clicked() {
            if let Some(p) = rfd::FileDialog::new().set_file_name("leaderboard.csv").save_file() {
                *message = Some(match std::fs::write(&p, to_csv(r)) {
                    Ok(()) => format!("wrote {}", p.display()),
                    Err(e) => format!("{}: cannot write: {e}", p.display()),
                });
            }
        }
    });
    // Best and second value per column.
    let ranks: Vec<(f64, f64)> = cols
        .iter()
        .map(|(s, p)| {
            let mut v: Vec<f64> =
                r.models.iter().filter_map(|m| Report::find(&r.leaderboard, m, p, s)).map(|c| c.value).collect();
            v.sort_by(|a, b| b.total_cmp(a));
            (v.first().copied().unwrap_or(f64::NAN), v.get(1).copied().unwrap_or(f64::NAN))
        })
        .collect();
    let models = sorted_models(r, &cols, st);
    egui::ScrollArea::both().id_salt("leaderboard").show(ui, |ui| {
        table(ui, r, &cols, &models, &ranks, st);
        ui.add_space(12.0);
        repeated_runs(ui, r);
        ui.add_space(12.0);
        failures(ui, r);
    });
}

fn table(
    ui: &mut egui::Ui,
    r: &Report,
    cols: &[(String, String)],
    models: &[String],
    ranks: &[(f64, f64)],
    st: &mut State,
) {
    {
        egui::Grid::new("leaderboard_grid").striped(true).min_col_width(70.0).show(ui, |ui| {
            if ui.selectable_label(st.sort.is_none(), "model").clicked() {
                st.ascending = st.sort.is_none() && !st.ascending;
                st.sort = None;
            }
            for (i, (s, p)) in cols.iter().enumerate() {
                let arrow = if st.sort == Some(i) { if st.ascending { " ^" } else { " v" } } else { "" };
                let short = s.split_whitespace().next().unwrap_or(s);
                let head = ui.selectable_label(st.sort == Some(i), format!("{short}\n{p}{arrow}"));
                if head.on_hover_text(format!("{s} · {p}: sort by this column")).clicked() {
                    st.ascending = st.sort == Some(i) && !st.ascending;
                    st.sort = Some(i);
                }
            }
            ui.end_row();
            for m in models {
                ui.label(m);
                for (c, (s, p)) in cols.iter().enumerate() {
                    match Report::find(&r.leaderboard, m, p, s) {
                        Some(cell) => {
                            let mut t = RichText::new(format!("{:.2}", cell.value));
                            if cell.value == ranks[c].0 {
                                t = t.strong();
                            } else if cell.value == ranks[c].1 {
                                t = t.underline();
                            }
                            ui.label(t).on_hover_text(format!("{} run(s)", cell.n));
                        }
                        None => {
                            ui.label("–");
                        }
                    }
                }
                ui.end_row();
            }
        });
    }
}

/// Repeated-run consistency per model and paradigm.
fn repeated_runs(ui: &mut egui::Ui, r: &Report) {
    ui.strong("Repeated runs");
    if r.consistency.is_empty() {
        ui.weak("no model × paradigm has more than one run");
        return;
    }
    egui::Grid::new("consistency_grid").striped(true).show(ui, |ui| {
        for h in ["model", "paradigm", "runs", "matched", "changed instances", "mean |Δ| (points)", "std of score"] {
            ui.strong(h);
        }
        ui.end_row();
        for c in &r.consistency {
            ui.label(&c.model);
            ui.label(&c.paradigm);
            ui.label(c.runs.to_string());
            ui.label(c.matched_instances.to_string());
            ui.label(format!("{:.1} %", 100.0 * c.changed_share));
            ui.label(format!("{:.2}", c.mean_abs_diff));
            ui.label(c.aggregate_std.map_or("–".into(), |s| format!("{s:.2}")));
            ui.end_row();
        }
    });
}

/// Failure categories (`category: message` errors) per model and paradigm.
fn failures(ui: &mut egui::Ui, r: &Report) {
    ui.strong("Failures by category");
    if r.failures.is_empty() {
        ui.weak("no errors recorded");
        return;
    }
    egui::Grid::new("failure_grid").striped(true).show(ui, |ui| {
        for h in ["model", "paradigm", "category", "count"] {
            ui.strong(h);
        }
        ui.end_row();
        for f in &r.failures {
            ui.label(&f.model);
            ui.label(&f.paradigm);
            ui.label(&f.key);
            ui.label(f.n.to_string());
            ui.end_row();
        }
    });
}
