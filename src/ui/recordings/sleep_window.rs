//! Sleep window: a hypnogram from the recording's stage annotations or a label file (one or two scorings),
//! drawn as a strip with the current page marked, YASA's sleep statistics, and Cohen's kappa with the
//! confusion matrix when a second scoring is given.

use crate::signal::Recording;
use crate::signal::sleep::epoch_power::{EpochPower, epoch_band_power};
use crate::signal::sleep::stage_power::{StagePower, stage_band_power};
use crate::signal::sleep::{Agreement, Codes, Hypnogram, SleepStats, Stage, agreement, sleep_statistics};
use crate::ui::jobs::Job;
use crate::ui::widgets::explore::{self, PlotView};
use egui::{Color32, FontId, Rect, Sense, Stroke, pos2, vec2};
use egui_plot::{Line, Plot, Span, VLine};
use std::sync::Arc;

#[derive(Default)]
pub struct SleepWindow {
    pub open: bool,
    pub path: String,
    pub column: String,
    pub second_column: String,
    pub subject: String,
    pub sri_codes: bool,
    pub hypnogram: Option<Hypnogram>,
    pub stats: Option<SleepStats>,
    pub agreement: Option<Agreement>,
    pub error: Option<String>,
    pub source: String,
    /// Channel for the per-stage band power.
    pub channel: Option<usize>,
    pub stage_power: Option<Result<Vec<StagePower>, String>>,
    pub(crate) stage_job: Option<StageJob>,
    /// Band power per epoch of the same channel through the night, drawn under the hypnogram.
    pub night_power: Option<Result<EpochPower, String>>,
    pub(crate) night_job: Option<Job<Result<EpochPower, String>>>,
    /// The hypnogram's and the night power's last drawn views (their time axes are linked).
    pub hypnogram_view: Option<PlotView>,
    pub night_view: Option<PlotView>,
    /// The time (s) of the read-out under the plots: where the cursor is, or last was, over either.
    pub cursor_s: Option<f64>,
}

impl SleepWindow {
    /// True while the per-stage band power is being computed.
    pub fn busy(&self) -> bool {
        self.stage_job.is_some() || self.night_job.is_some()
    }
}

type StageJob = Job<Result<Vec<StagePower>, String>>;

/// The per-stage band power of channel `c` as a background job (a whole night is read).
fn stage_power_job(rec: &Arc<Recording>, c: usize, h: Hypnogram) -> StageJob {
    let rec = rec.clone();
    Job::spawn("Band power per stage", 1, move |_, _| {
        let bands = crate::signal::bands::to_beta();
        let run = || -> Result<Vec<StagePower>, String> {
            let d = rec
                .read(&[c], 0.0, rec.duration_s().map_err(|e| e.to_string())? + 1.0)
                .map_err(|e| e.to_string())?
                .remove(0);
            Ok(stage_band_power(&d.values, d.sample_rate, &h, &bands, true)?)
        };
        Ok(Some(run()))
    })
}

/// Band power per 30-s epoch of channel `c` through the whole recording, as a background job.
fn night_power_job(rec: &Arc<Recording>, c: usize) -> Job<Result<EpochPower, String>> {
    let rec = rec.clone();
    Job::spawn("Band power through the night", 1, move |_, _| {
        let run = || -> Result<EpochPower, String> {
            let d = rec
                .read(&[c], 0.0, rec.duration_s().map_err(|e| e.to_string())? + 1.0)
                .map_err(|e| e.to_string())?
                .remove(0);
            Ok(epoch_band_power(&d.values, d.sample_rate, 30.0, &crate::signal::bands::to_beta(), true)?)
        };
        Ok(Some(run()))
    })
}

impl SleepWindow {
    /// Loads the stages: the file in `path` when given, else the recording's stage annotations.
    pub fn load(&mut self, rec: &Recording) {
        self.error = None;
        self.agreement = None;
        let opt = |s: &String| (!s.trim().is_empty()).then(|| s.trim().to_string());
        let codes = if self.sri_codes { Codes::Sri } else { Codes::Yasa };
        let first = if self.path.trim().is_empty() {
            rec.annotations()
                .map_err(|e| e.to_string())
                .and_then(|a| {
                    Hypnogram::from_annotations(a, 30.0)
                        .ok_or_else(|| "the recording has no sleep-stage annotations; give a hypnogram file".into())
                })
                .map(|h| (h, "the recording's stage annotations".to_string()))
        } else {
            let p = std::path::Path::new(self.path.trim());
            Hypnogram::load(p, opt(&self.column).as_deref(), opt(&self.subject).as_deref(), codes)
                .map(|h| (h, p.display().to_string()))
                .map_err(|e| e.to_string())
        };
        match first.and_then(|(h, src)| sleep_statistics(&h).map(|s| (h, s, src)).map_err(|e| e.to_string())) {
            Ok((h, s, src)) => {
                if let Some(c2) = opt(&self.second_column) {
                    let second = Hypnogram::load(
                        std::path::Path::new(self.path.trim()),
                        Some(&c2),
                        opt(&self.subject).as_deref(),
                        codes,
                    );
                    match second.and_then(|b| agreement(&h, &b)) {
                        Ok(a) => self.agreement = Some(a),
                        Err(e) => self.error = Some(e.to_string()),
                    }
                }
                self.hypnogram = Some(h);
                self.stats = Some(s);
                self.source = src;
            }
            Err(e) => self.error = Some(e),
        }
    }
}

fn stage_row(s: Stage) -> Option<f32> {
    // Rows from top: W, R, N1, N2, N3 (the clinical layout).
    match s {
        Stage::Wake => Some(0.0),
        Stage::Rem => Some(1.0),
        Stage::N1 => Some(2.0),
        Stage::N2 => Some(3.0),
        Stage::N3 => Some(4.0),
        _ => None,
    }
}

pub fn show(ctx: &egui::Context, w: &mut SleepWindow, rec: &Arc<Recording>, page: (f64, f64)) {
    crate::ui::jobs::poll_into(&mut w.stage_job, &mut w.stage_power, ctx);
    crate::ui::jobs::poll_into(&mut w.night_job, &mut w.night_power, ctx);
    let mut open = w.open;
    egui::Window::new("Sleep").open(&mut open).default_width(560.0).show(ctx, |ui| {
        ui.horizontal(|ui| {
            let l = ui.label("hypnogram file");
            ui.add(
                egui::TextEdit::singleline(&mut w.path)
                    .hint_text("empty: the recording's annotations")
                    .desired_width(260.0),
            )
            .labelled_by(l.id);
        });
        ui.horizontal(|ui| {
            let l = ui.label("column");
            ui.add(egui::TextEdit::singleline(&mut w.column).desired_width(80.0)).labelled_by(l.id);
            let l = ui.label("second scoring");
            ui.add(egui::TextEdit::singleline(&mut w.second_column).desired_width(80.0)).labelled_by(l.id);
            let l = ui.label("subject");
            ui.add(egui::TextEdit::singleline(&mut w.subject).desired_width(60.0)).labelled_by(l.id);
            ui.checkbox(&mut w.sri_codes, "SRI codes");
            if ui.button("Load").clicked() {
                w.load(rec);
            }
        });
        if let Some(e) = &w.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some(h) = &w.hypnogram else { return };
        ui.label(format!("{} epochs of {} s from {}", h.stages.len(), h.epoch_s, w.source));
        let night = w.night_power.as_ref().and_then(|r| r.as_ref().ok());
        let (hv, nv, cursor) = time_plots(ui, h, night, page, w.cursor_s);
        w.hypnogram_view = Some(hv);
        w.night_view = nv;
        w.cursor_s = cursor;
        ui.label(
            readout(h, night, w.cursor_s).unwrap_or_else(|| "read-out: move the cursor over the hypnogram".into()),
        );
        if let Some(s) = &w.stats {
            let v = s.to_json();
            egui::Grid::new("sleep_stats").striped(true).num_columns(4).show(ui, |ui| {
                let items: Vec<(String, String)> = v
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| !k.starts_with("transition"))
                    .map(|(k, val)| {
                        (
                            k.clone(),
                            val.as_f64().map_or(if val.is_null() { "–".into() } else { val.to_string() }, |f| {
                                format!("{f:.2}")
                            }),
                        )
                    })
                    .collect();
                for pair in items.chunks(2) {
                    for (k, val) in pair {
                        ui.label(k);
                        ui.strong(val);
                    }
                    ui.end_row();
                }
            });
            ui.weak("minutes unless %; latencies from the start of the recording (YASA's definitions)");
        }
        ui.separator();
        let computing = w.busy();
        ui.horizontal(|ui| {
            ui.label("band power per stage of");
            let shown = w.channel.map_or("a channel".to_string(), |c| rec.channels()[c].label.clone());
            egui::ComboBox::from_id_salt("stage_power_channel").selected_text(shown).show_ui(ui, |ui| {
                for (i, c) in rec.channels().iter().enumerate() {
                    ui.selectable_value(&mut w.channel, Some(i), &c.label);
                }
            });
            if ui.add_enabled(w.channel.is_some() && !computing, egui::Button::new("Compute per stage")).clicked() {
                let c = w.channel.expect("enabled");
                w.stage_power = None;
                w.stage_job = Some(stage_power_job(rec, c, h.clone()));
                w.night_power = None;
                w.night_job = Some(night_power_job(rec, c));
            }
            if computing {
                ui.spinner();
            }
        });
        match &w.stage_power {
            Some(Ok(rows)) => {
                egui::Grid::new("stage_power").striped(true).show(ui, |ui| {
                    for head in ["stage", "minutes", "δ 0.5–4", "θ 4–8", "α 8–12", "σ 12–16", "β 16–30"]
                    {
                        ui.strong(head);
                    }
                    ui.end_row();
                    for r in rows {
                        ui.label(r.stage);
                        ui.label(format!("{:.1}", r.seconds / 60.0));
                        for v in &r.values {
                            ui.label(format!("{:.1} %", 100.0 * v));
                        }
                        ui.end_row();
                    }
                });
                ui.weak("relative to 0.5–30 Hz; YASA's convention (Hamming, median, 4-s windows, Simpson)");
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            None => {}
        }
        if let Some(Err(e)) = &w.night_power {
            ui.colored_label(ui.visuals().error_fg_color, format!("band power through the night: {e}"));
        }
        if let Some(a) = &w.agreement {
            ui.separator();
            ui.label(format!(
                "{} epochs: agreement {:.1} %, Cohen's kappa {:.4}",
                a.epochs,
                100.0 * a.accuracy,
                a.kappa
            ));
            egui::Grid::new("sleep_confusion").striped(true).show(ui, |ui| {
                ui.label("first \\ second");
                for l in &a.labels {
                    ui.strong(*l);
                }
                ui.end_row();
                for (l, row) in a.labels.iter().zip(&a.confusion) {
                    ui.strong(*l);
                    for c in row {
                        ui.label(c.to_string());
                    }
                    ui.end_row();
                }
            });
        }
    });
    w.open = open;
}

/// A thin hypnogram strip on the recording's time axis (drawn under the traces), the page outlined.
pub fn hypnogram_strip(ui: &mut egui::Ui, h: &Hypnogram, page: (f64, f64), duration_s: f64) {
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), ui.available_height()), Sense::hover());
    let p = ui.painter_at(rect);
    let total = duration_s.max(h.stages.len() as f64 * h.epoch_s).max(1e-9);
    let x = |t: f64| rect.left() + rect.width() * (t / total) as f32;
    for (i, s) in h.stages.iter().enumerate() {
        let Some(row) = stage_row(*s) else { continue };
        let y = rect.top() + 3.0 + row * (rect.height() - 6.0) / 4.0;
        let color = if *s == Stage::Rem { Color32::from_rgb(220, 80, 80) } else { ui.visuals().text_color() };
        p.line_segment(
            [pos2(x(i as f64 * h.epoch_s), y), pos2(x((i + 1) as f64 * h.epoch_s), y)],
            Stroke::new(2.0, color),
        );
    }
    p.rect_stroke(
        Rect::from_x_y_ranges(x(page.0)..=x(page.0 + page.1).max(x(page.0) + 2.0), rect.y_range()),
        0.0,
        Stroke::new(1.0, Color32::YELLOW),
        egui::StrokeKind::Inside,
    );
    p.text(
        rect.left_top(),
        egui::Align2::LEFT_TOP,
        "hypnogram",
        FontId::proportional(9.0),
        ui.visuals().weak_text_color(),
    );
}

/// The stage rows on the hypnogram's y axis, bottom to top (the clinical layout: W on top, N3 at the bottom).
const ROWS: [&str; 5] = ["N3", "N2", "N1", "R", "W"];

/// The hypnogram's y for a stage (None: unscored or artefact).
fn stage_y(s: Stage) -> Option<f64> {
    stage_row(s).map(|r| 4.0 - f64::from(r))
}

/// The relative band power lines of the night plot: the bands of `signal::bands::to_beta`.
const NIGHT_BANDS: [&str; 5] = ["δ", "θ", "α", "σ", "β"];

/// The hypnogram and, when computed, the relative band power per epoch under it: two explorable plots whose
/// time axes and cursors are linked (zoom or pan one, the other follows). Their views and the cursor's time.
fn time_plots(
    ui: &mut egui::Ui,
    h: &Hypnogram,
    night: Option<&EpochPower>,
    page: (f64, f64),
    cursor: Option<f64>,
) -> (PlotView, Option<PlotView>, Option<f64>) {
    let link = egui::Id::unique("sleep_time_axis");
    // Both plots open on the same range (linked axes follow a zoom or pan, not each plot's own auto-fit).
    let end = (h.stages.len() as f64 * h.epoch_s).max(night.map_or(0.0, |n| n.values.len() as f64 * n.epoch_s));
    let mut runs: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    let mut rem: Vec<Vec<[f64; 2]>> = Vec::new();
    for (i, s) in h.stages.iter().enumerate() {
        let (t0, t1) = (i as f64 * h.epoch_s, (i + 1) as f64 * h.epoch_s);
        match stage_y(*s) {
            Some(y) => {
                runs.last_mut().expect("one run").extend([[t0, y], [t1, y]]);
                if *s == Stage::Rem {
                    rem.push(vec![[t0, y], [t1, y]]);
                }
            }
            None => runs.push(Vec::new()),
        }
    }
    let text = ui.visuals().text_color();
    let hyp = Plot::new("sleep_hypnogram")
        .height(110.0)
        .link_axis(link, [true, false])
        .link_cursor(link, [true, false])
        .include_x(0.0)
        .include_x(end)
        .include_y(-0.3)
        .include_y(4.3)
        .allow_zoom([true, false])
        .allow_drag([true, false])
        .allow_scroll([true, false])
        .x_axis_formatter(|m, _| explore::clock(m.value))
        .y_axis_formatter(|m, _| {
            let r = m.value.round();
            if (m.value - r).abs() < 1e-9 && (0.0..=4.0).contains(&r) {
                ROWS[r as usize].to_string()
            } else {
                String::new()
            }
        })
        .label_formatter(|p| {
            let (egui_plot::HoverPosition::NearDataPoint { position: q, .. }
            | egui_plot::HoverPosition::Elsewhere { position: q }) = p;
            Some(explore::clock(q.x))
        })
        .show(ui, |pu| {
            pu.add(
                Span::new("", page.0..=page.0 + page.1)
                    .fill(Color32::from_rgba_unmultiplied(255, 255, 0, 40))
                    .border_width(0.0),
            );
            for r in runs.into_iter().filter(|r| !r.is_empty()) {
                pu.line(Line::new("", r).color(text).width(1.2));
            }
            for r in rem {
                pu.line(Line::new("", r).color(Color32::from_rgb(220, 80, 80)).width(2.5));
            }
            if let Some(t) = cursor {
                pu.vline(VLine::new("", t).color(Color32::from_gray(150)).width(0.8));
            }
            pu.pointer_coordinate().map(|p| p.x)
        });
    let mut hovered = hyp.inner;
    let hv = PlotView::of(&hyp);
    let nv = night.map(|n| {
        let resp = Plot::new("sleep_night_power")
            .height(120.0)
            .link_axis(link, [true, false])
            .link_cursor(link, [true, false])
            .include_x(0.0)
            .include_x(end)
            .include_y(0.0)
            .include_y(100.0)
            .allow_zoom([true, false])
            .allow_drag([true, false])
            .allow_scroll([true, false])
            .y_axis_label("% of 0.5–30 Hz")
            .legend(egui_plot::Legend::default())
            .x_axis_formatter(|m, _| explore::clock(m.value))
            .show(ui, |pu| {
                for (b, name) in NIGHT_BANDS.iter().enumerate().take(n.bands.len()) {
                    let pts: Vec<[f64; 2]> = n
                        .values
                        .iter()
                        .enumerate()
                        .map(|(i, row)| [(i as f64 + 0.5) * n.epoch_s, 100.0 * row[b]])
                        .collect();
                    pu.line(Line::new(*name, pts).color(crate::ui::widgets::palette::category(b)).width(1.1));
                }
                if let Some(t) = cursor {
                    pu.vline(VLine::new("", t).color(Color32::from_gray(150)).width(0.8));
                }
                pu.pointer_coordinate().map(|p| p.x)
            });
        hovered = hovered.or(resp.inner);
        PlotView::of(&resp)
    });
    let cursor = hovered.filter(|t| (0.0..=end).contains(t)).or(cursor);
    (hv, nv, cursor)
}

/// The read-out under the time plots: the epoch at the cursor, its stage and its band powers.
pub fn readout(h: &Hypnogram, night: Option<&EpochPower>, cursor_s: Option<f64>) -> Option<String> {
    let t = cursor_s?;
    let i = (t / h.epoch_s).floor();
    if i < 0.0 || i as usize >= h.stages.len() {
        return None;
    }
    let i = i as usize;
    let mut s = format!("{} · epoch {}: {}", explore::clock(t), i + 1, h.stages[i].label());
    if let Some(row) = night.and_then(|n| n.values.get((t / n.epoch_s).floor() as usize)) {
        for (name, v) in NIGHT_BANDS.iter().zip(row) {
            s.push_str(&format!(" · {name} {:.1} %", 100.0 * v));
        }
    }
    Some(s)
}
