//! The BrainBench paper's analyses drawn locally: radar over the six validation units, model × unit mode-gap
//! heatmap, model × task scores, model agreement, difficulty table with Δ and DAI, MPAD strips, score
//! histograms and token usage. Each chart exports as PNG (and the radar and heatmaps as SVG).

use super::Loaded;
use crate::bench::aggregate::figures::{self, RadarOverlay, agreement_grid, effort_grid, mode_gap_grid, unit_labels};
use crate::bench::aggregate::{Cell, Dai, Gap, LEVEL_NAMES, OVERALL, Report};
use crate::bench::collection::{BRAINAGENT, CODEACT};
use crate::ui::widgets::heatmap::{Heatmap, diverging, sequential};
use crate::ui::widgets::palette::category;
use crate::util::chart::svg;
use egui::{Align2, Color32, FontId, Rect, Sense, Stroke, pos2, vec2};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Chart {
    #[default]
    Radar,
    ModeGap,
    Tasks,
    Agreement,
    Difficulty,
    Mpad,
    Histograms,
    Tokens,
    Effort,
    Failures,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overlay {
    #[default]
    Models,
    Paradigms,
}

#[derive(Default)]
pub struct State {
    pub chart: Chart,
    pub overlay: Overlay,
    /// Paradigm shown when overlaying models; model shown when overlaying paradigms.
    pub paradigm: String,
    pub model: String,
    /// Subset the radar and mode gap show (empty: all subsets pooled).
    pub subset: String,
    /// Screen rectangle of the chart last drawn (PNG export crops the window to it).
    chart_rect: Option<Rect>,
    png_result: Arc<Mutex<Option<String>>>,
}

const CHARTS: [(Chart, &str); 10] = [
    (Chart::Radar, "Unit radar"),
    (Chart::ModeGap, "Mode gap"),
    (Chart::Tasks, "Tasks"),
    (Chart::Agreement, "Agreement"),
    (Chart::Difficulty, "Difficulty"),
    (Chart::Mpad, "MPAD"),
    (Chart::Histograms, "Histograms"),
    (Chart::Tokens, "Tokens"),
    (Chart::Effort, "Reasoning effort"),
    (Chart::Failures, "Failure cases"),
];

pub fn show(ui: &mut egui::Ui, data: &Loaded, st: &mut State, message: &mut Option<String>) {
    let r = &data.report;
    if let Some(m) = st.png_result.lock().ok().and_then(|mut s| s.take()) {
        *message = Some(m);
    }
    ui.horizontal_wrapped(|ui| {
        for (c, name) in CHARTS {
            ui.selectable_value(&mut st.chart, c, name);
        }
        ui.separator();
        if ui.button("Export PNG").clicked() {
            if let (Some(rect), Some(path)) =
                (st.chart_rect, rfd::FileDialog::new().set_file_name("chart.png").save_file())
            {
                crate::ui::screenshot::request_png(ui.ctx(), rect, path, st.png_result.clone());
            }
        }
        if let Some(text) = svg_of(r, st) {
            if ui.button("Export SVG").clicked() {
                if let Some(p) = rfd::FileDialog::new().set_file_name("chart.svg").save_file() {
                    *message = Some(match std::fs::write(&p, text) {
                        Ok(()) => format!("wrote {}", p.display()),
                        Err(e) => format!("{}: cannot write: {e}", p.display()),
                    });
                }
            }
        }
    });
    if st.paradigm.is_empty() || !r.paradigms.contains(&st.paradigm) {
        st.paradigm = r.paradigms.first().cloned().unwrap_or_default();
    }
    if st.model.is_empty() || !r.models.contains(&st.model) {
        st.model = r.models.first().cloned().unwrap_or_default();
    }
    egui::ScrollArea::both().id_salt("bench_chart").show(ui, |ui| {
        let rect = match st.chart {
            Chart::Radar => radar(ui, r, st),
            Chart::ModeGap => mode_gap(ui, r, st),
            Chart::Tasks => tasks(ui, r),
            Chart::Agreement => agreement(ui, r),
            Chart::Difficulty => difficulty(ui, r),
            Chart::Mpad => mpad(ui, r),
            Chart::Histograms => histograms(ui, r),
            Chart::Tokens => tokens(ui, r),
            Chart::Effort => effort(ui, r),
            Chart::Failures => failure_cases(ui, r),
        };
        st.chart_rect = Some(rect);
    });
}

fn svg_of(r: &Report, st: &State) -> Option<String> {
    match st.chart {
        Chart::Radar => Some(svg::radar(&radar_series(r, st), &unit_labels())),
        Chart::ModeGap => {
            let (rows, cols, vals) = mode_gap_grid(r, subset(st));
            Some(svg::heatmap(&rows, &cols, &vals, true, 2))
        }
        Chart::Agreement => {
            let (rows, vals) = agreement_grid(r);
            Some(svg::heatmap(&rows, &rows, &vals, true, 2))
        }
        Chart::Effort if !r.reasoning_effort.is_empty() => {
            let (rows, cols, vals) = effort_grid(r);
            Some(svg::heatmap(&rows, &cols, &vals, false, 1))
        }
        _ => None,
    }
}

/// The subset chosen for the radar and mode gap (`None`: all pooled).
fn subset(st: &State) -> Option<&str> {
    (!st.subset.is_empty()).then_some(st.subset.as_str())
}

/// The radar's series for the overlay and subset chosen (bench::aggregate::figures builds them).
fn radar_series(r: &Report, st: &State) -> Vec<(String, Vec<Option<f64>>)> {
    figures::radar_series(
        r,
        match st.overlay {
            Overlay::Models => RadarOverlay::Models { paradigm: &st.paradigm },
            Overlay::Paradigms => RadarOverlay::Paradigms { model: &st.model },
        },
        subset(st),
    )
}

/// "All subsets" or one subset, for the radar and the mode gap.
fn subset_picker(ui: &mut egui::Ui, r: &Report, st: &mut State) {
    ui.label("subset:");
    let shown = if st.subset.is_empty() { "All subsets".to_string() } else { st.subset.clone() };
    egui::ComboBox::from_id_salt("units_subset").selected_text(shown).show_ui(ui, |ui| {
        ui.selectable_value(&mut st.subset, String::new(), "All subsets");
        for t in &r.units_by_subset {
            ui.selectable_value(&mut st.subset, t.subset.clone(), &t.subset);
        }
    });
}

fn legend(ui: &mut egui::Ui, names: &[String]) {
    ui.horizontal_wrapped(|ui| {
        for (k, n) in names.iter().enumerate() {
            let (rect, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
            ui.painter().rect_filled(rect, 2.0, category(k));
            ui.label(n);
        }
    });
}

fn radar(ui: &mut egui::Ui, r: &Report, st: &mut State) -> Rect {
    ui.horizontal(|ui| {
        ui.radio_value(&mut st.overlay, Overlay::Models, "overlay models, paradigm:");
        egui::ComboBox::from_id_salt("radar_paradigm").selected_text(&st.paradigm).show_ui(ui, |ui| {
            for p in &r.paradigms {
                ui.selectable_value(&mut st.paradigm, p.clone(), p);
            }
        });
        ui.radio_value(&mut st.overlay, Overlay::Paradigms, "overlay paradigms, model:");
        egui::ComboBox::from_id_salt("radar_model").selected_text(&st.model).show_ui(ui, |ui| {
            for m in &r.models {
                ui.selectable_value(&mut st.model, m.clone(), m);
            }
        });
        subset_picker(ui, r, st);
    });
    let series = radar_series(r, st);
    crate::ui::widgets::radar::show(
        ui,
        "Mean raw score per validation unit (0 at the centre, 1 at the rim)",
        &series,
        &unit_labels(),
    )
}

/// Models × units, BrainAgent − CodeAct mean raw score, over all subsets or one.
fn mode_gap(ui: &mut egui::Ui, r: &Report, st: &mut State) -> Rect {
    ui.vertical(|ui| {
        ui.horizontal(|ui| subset_picker(ui, r, st));
        ui.label(format!(
            "Mode gap: {BRAINAGENT} − {CODEACT} mean raw score per unit (red: BrainAgent ahead, blue: CodeAct ahead)"
        ));
        if figures::units_of(r, subset(st)).1.is_empty() {
            ui.weak("needs both paradigms for at least one model");
        }
        let (rows, cols, vals) = mode_gap_grid(r, subset(st));
        let span = vals.iter().flatten().fold(0.05f64, |a, v| a.max(v.abs()));
        Heatmap {
            rows: &rows,
            cols: &cols,
            values: &vals,
            color: &|v| diverging(v, span),
            decimals: 3,
            cell_w: 110.0,
            cell_h: 26.0,
        }
        .show(ui);
    })
    .response
    .rect
}

fn tasks(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label("Mean instance score (0–100) per task; rows are model · paradigm");
        let mut task_names: Vec<String> = r.tasks.iter().map(|t| t.task.clone()).collect();
        task_names.sort();
        task_names.dedup();
        let rows: Vec<String> =
            r.models.iter().flat_map(|m| r.paradigms.iter().map(move |p| format!("{m} · {p}"))).collect();
        let by_key: std::collections::HashMap<(&str, &str, &str), f64> =
            r.tasks.iter().map(|t| ((t.model.as_str(), t.paradigm.as_str(), t.task.as_str()), t.mean)).collect();
        let mut vals: Vec<Option<f64>> = Vec::with_capacity(rows.len() * task_names.len());
        for m in &r.models {
            for p in &r.paradigms {
                vals.extend(task_names.iter().map(|t| by_key.get(&(m.as_str(), p.as_str(), t.as_str())).copied()));
            }
        }
        let w = if task_names.len() > 24 { 14.0 } else { 44.0 };
        Heatmap {
            rows: &rows,
            cols: &task_names,
            values: &vals,
            color: &|v| sequential(v, 0.0, 100.0),
            decimals: 0,
            cell_w: w,
            cell_h: 22.0,
        }
        .show(ui);
    })
    .response
    .rect
}

/// The failure-case table (paper E.10; classes as its Table 11): unit, class, the rule that applied, count and
/// example instances, per model and paradigm.
fn failure_cases(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label(
            "Instances short of full marks by validation unit and class, with the rule that put them there \
             (infrastructure failures are rerun and excluded from scores; the rest are outcomes); and, whatever \
             the score, reports that claim work nothing did and scored answers no output of what ran shows",
        );
        if r.failure_cases.is_empty() {
            ui.weak("every instance scored full marks");
            return;
        }
        egui::Grid::new("failure_cases").striped(true).show(ui, |ui| {
            for h in ["Model", "Paradigm", "Unit", "Class", "Count", "Step kinds", "Rule", "Examples"] {
                ui.strong(h);
            }
            ui.end_row();
            for f in &r.failure_cases {
                ui.label(&f.model);
                ui.label(&f.paradigm);
                ui.label(&f.unit);
                ui.label(&f.class);
                ui.label(f.count.to_string());
                ui.label(f.kinds_text());
                ui.label(&f.rule);
                ui.label(f.examples.join(", "));
                ui.end_row();
            }
        });
    })
    .response
    .rect
}

/// The BrainBench paper's Figs 6/12: each model's overall score at each reasoning effort it was run with.
fn effort(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        if r.reasoning_effort.is_empty() {
            ui.label(
                "No run recorded a reasoning effort (bench run --reasoning-effort LEVEL against an OpenAI-compatible \
                 endpoint records it in experiment.models.target).",
            );
            return;
        }
        ui.label("Overall score (difficulty-weighted, mean over runs) by the target's reasoning effort");
        let (rows, cols, vals) = effort_grid(r);
        Heatmap {
            rows: &rows,
            cols: &cols,
            values: &vals,
            color: &|v| sequential(v, 0.0, 100.0),
            decimals: 1,
            cell_w: 90.0,
            cell_h: 26.0,
        }
        .show(ui);
    })
    .response
    .rect
}

fn agreement(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label("Model agreement: Pearson correlation of per-task mean scores (both paradigms pooled), models grouped by family (assets/bench/model_families.json, or your ~/.config/brainlens/model_families.json)");
        let (rows, vals) = agreement_grid(r);
        Heatmap {
            rows: &rows,
            cols: &rows,
            values: &vals,
            color: &|v| diverging(v, 1.0),
            decimals: 2,
            cell_w: 110.0,
            cell_h: 26.0,
        }
        .show(ui);
    })
    .response
    .rect
}

/// The paper's Table 2 per model: rows = all subsets pooled, then each subset; columns = BA, CA and Δ per level,
/// then the DAI.
fn difficulty(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label(format!(
            "Score per difficulty level (easy ≤ {}, medium ≤ {}, hard above); BA = {BRAINAGENT}, CA = {CODEACT}, \
             Δ = BA − CA; DAI = least-squares slope of Δ over levels 1–3 (points per level)",
            r.levels.easy_max, r.levels.medium_max
        ));
        let pooled = (OVERALL, &r.difficulty[..], &r.difficulty_delta[..], &r.dai[..]);
        let rows: Vec<Row> = std::iter::once(pooled)
            .chain(r.difficulty_by_subset.iter().map(|t| (t.subset.as_str(), &t.cells[..], &t.delta[..], &t.dai[..])))
            .collect();
        for m in &r.models {
            ui.add_space(6.0);
            ui.strong(m);
            egui::Grid::new(("difficulty_table", m)).striped(true).min_col_width(60.0).show(ui, |ui| {
                ui.strong("subset");
                for l in LEVEL_NAMES {
                    ui.strong(format!("{l} BA"));
                    ui.strong(format!("{l} CA"));
                    ui.strong(format!("{l} Δ"));
                }
                ui.strong("DAI");
                ui.end_row();
                for row in &rows {
                    difficulty_row(ui, *row, m);
                }
            });
        }
    })
    .response
    .rect
}

/// One row of a difficulty table: subset, cells, Δ and DAI.
type Row<'a> = (&'a str, &'a [Cell], &'a [Gap], &'a [Dai]);

fn difficulty_row(ui: &mut egui::Ui, (subset, cells, delta, dai): Row, m: &str) {
    if subset == OVERALL {
        ui.strong(OVERALL);
    } else {
        ui.label(subset);
    }
    for l in LEVEL_NAMES {
        for p in [BRAINAGENT, CODEACT] {
            ui.label(Report::find(cells, m, p, l).map_or("–".into(), |c| format!("{:.2}", c.value)));
        }
        match delta.iter().find(|g| g.model == m && g.key == l) {
            Some(g) => {
                let bg = diverging(g.value, 20.0);
                egui::Frame::new().fill(bg).inner_margin(2.0).show(ui, |ui| {
                    ui.colored_label(Color32::BLACK, format!("{:+.2}", g.value));
                });
            }
            None => {
                ui.label("–");
            }
        }
    }
    ui.label(dai.iter().find(|d| d.model == m).and_then(|d| d.dai).map_or("–".into(), |v| format!("{v:+.2}")));
    ui.end_row();
}

fn quartiles(v: &mut [f64]) -> (f64, f64, f64) {
    use crate::util::quantile::percentile;
    v.sort_by(f64::total_cmp);
    (percentile(v, 25.0), percentile(v, 50.0), percentile(v, 75.0))
}

fn mpad(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label("MPAD per task (mean pairwise |difference| of normalised instance scores): one dot per task, box = quartiles");
        let w = ui.available_width().clamp(300.0, 700.0);
        let label_w = 220.0;
        let rows: Vec<(String, String)> = r.models.iter().flat_map(|m| r.paradigms.iter().map(move |p| (m.clone(), p.clone()))).collect();
        let (rect, _) = ui.allocate_exact_size(vec2(w, 26.0 * rows.len() as f32 + 24.0), Sense::hover());
        let p = ui.painter_at(rect);
        let text = ui.visuals().text_color();
        let x_of = |v: f64| rect.left() + label_w + (w - label_w - 10.0) * v.clamp(0.0, 1.0) as f32;
        for (k, (m, pa)) in rows.iter().enumerate() {
            let y = rect.top() + 13.0 + 26.0 * k as f32;
            let mean = Report::find(&r.mpad, m, pa, "mean_task_mpad").map_or(String::new(), |c| format!(" ({:.3})", c.value));
            p.text(pos2(rect.left() + label_w - 8.0, y), Align2::RIGHT_CENTER, format!("{m} · {pa}{mean}"), FontId::proportional(12.0), text);
            let mut vals: Vec<f64> = r.tasks.iter().filter(|t| &t.model == m && &t.paradigm == pa).filter_map(|t| t.mpad).collect();
            if vals.is_empty() {
                continue;
            }
            let (q1, q2, q3) = quartiles(&mut vals);
            let col = category(k % 10);
            p.rect_stroke(Rect::from_x_y_ranges(x_of(q1)..=x_of(q3), y - 8.0..=y + 8.0), 2.0, Stroke::new(1.0, col), egui::StrokeKind::Inside);
            p.line_segment([pos2(x_of(q2), y - 8.0), pos2(x_of(q2), y + 8.0)], Stroke::new(2.0, col));
            for (i, v) in vals.iter().enumerate() {
                let jitter = ((i * 7919) % 11) as f32 - 5.0;
                p.circle_filled(pos2(x_of(*v), y + jitter), 2.2, col.gamma_multiply(0.8));
            }
        }
        let yb = rect.bottom() - 8.0;
        for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
            p.text(pos2(x_of(t), yb), Align2::CENTER_CENTER, format!("{t}"), FontId::proportional(11.0), text);
        }
    })
    .response
    .rect
}

fn histograms(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label("Instance score distribution (normalised score in tenths)");
        ui.horizontal_wrapped(|ui| {
            for (k, h) in r.histograms.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.label(format!("{} · {}", h.model, h.paradigm));
                    let (rect, _) = ui.allocate_exact_size(vec2(220.0, 90.0), Sense::hover());
                    let p = ui.painter_at(rect);
                    let max = h.bins.iter().copied().max().unwrap_or(1).max(1) as f32;
                    let bw = rect.width() / 10.0;
                    for (b, n) in h.bins.iter().enumerate() {
                        let hh = (rect.height() - 14.0) * *n as f32 / max;
                        let x = rect.left() + b as f32 * bw;
                        p.rect_filled(
                            Rect::from_min_max(
                                pos2(x + 1.0, rect.bottom() - 14.0 - hh),
                                pos2(x + bw - 1.0, rect.bottom() - 14.0),
                            ),
                            0.0,
                            category(k % 10),
                        );
                    }
                    p.text(
                        rect.left_bottom(),
                        Align2::LEFT_BOTTOM,
                        "0",
                        FontId::proportional(10.0),
                        ui.visuals().text_color(),
                    );
                    p.text(
                        rect.right_bottom(),
                        Align2::RIGHT_BOTTOM,
                        "1",
                        FontId::proportional(10.0),
                        ui.visuals().text_color(),
                    );
                });
            }
        });
    })
    .response
    .rect
}

fn tokens(ui: &mut egui::Ui, r: &Report) -> Rect {
    ui.vertical(|ui| {
        ui.label("Mean tokens per instance by role, and mean seconds per instance");
        let roles = ["target", "parser", "semantic", "vlm"];
        legend(ui, &roles.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let rows: Vec<(String, String)> =
            r.models.iter().flat_map(|m| r.paradigms.iter().map(move |p| (m.clone(), p.clone()))).collect();
        let max = rows
            .iter()
            .map(|(m, p)| {
                roles.iter().filter_map(|role| Report::find(&r.tokens, m, p, role)).map(|c| c.value).sum::<f64>()
            })
            .fold(1.0f64, f64::max);
        let w = ui.available_width().clamp(300.0, 760.0);
        let label_w = 220.0;
        let (rect, _) = ui.allocate_exact_size(vec2(w, 24.0 * rows.len() as f32), Sense::hover());
        let p = ui.painter_at(rect);
        let text = ui.visuals().text_color();
        let scale = (w - label_w - 140.0) as f64 / max;
        for (k, (m, pa)) in rows.iter().enumerate() {
            let y = rect.top() + 24.0 * k as f32;
            p.text(
                pos2(rect.left() + label_w - 8.0, y + 12.0),
                Align2::RIGHT_CENTER,
                format!("{m} · {pa}"),
                FontId::proportional(12.0),
                text,
            );
            let mut x = rect.left() + label_w;
            let mut total = 0.0;
            for (ri, role) in roles.iter().enumerate() {
                let v = Report::find(&r.tokens, m, pa, role).map_or(0.0, |c| c.value);
                total += v;
                let wv = (v * scale) as f32;
                p.rect_filled(Rect::from_min_size(pos2(x, y + 4.0), vec2(wv, 16.0)), 0.0, category(ri));
                x += wv;
            }
            let secs = Report::find(&r.timing, m, pa, "total").map_or(0.0, |c| c.value);
            p.text(
                pos2(x + 6.0, y + 12.0),
                Align2::LEFT_CENTER,
                format!("{total:.0} tok · {secs:.1} s"),
                FontId::proportional(11.0),
                text,
            );
        }
    })
    .response
    .rect
}
