//! Sleep window: a hypnogram from the recording's stage annotations or a label file (one or two scorings),
//! drawn as a strip with the current page marked, YASA's sleep statistics, and Cohen's kappa with the
//! confusion matrix when a second scoring is given.

use crate::signal::Recording;
use crate::signal::sleep::stage_power::{StagePower, stage_band_power};
use crate::signal::sleep::{Agreement, Codes, Hypnogram, SleepStats, Stage, agreement, sleep_statistics};
use crate::ui::jobs::Job;
use egui::{Color32, FontId, Rect, Sense, Stroke, pos2, vec2};
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
}

impl SleepWindow {
    /// True while the per-stage band power is being computed.
    pub fn busy(&self) -> bool {
        self.stage_job.is_some()
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
        let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), 90.0), Sense::hover());
        let p = ui.painter_at(rect);
        let text = ui.visuals().text_color();
        let left = rect.left() + 24.0;
        let width = rect.right() - left;
        let n = h.stages.len().max(1) as f32;
        for (k, name) in ["W", "R", "N1", "N2", "N3"].iter().enumerate() {
            p.text(
                pos2(rect.left(), rect.top() + 8.0 + k as f32 * 17.0),
                egui::Align2::LEFT_CENTER,
                *name,
                FontId::proportional(10.0),
                text,
            );
        }
        let mut prev: Option<egui::Pos2> = None;
        for (i, s) in h.stages.iter().enumerate() {
            let Some(row) = stage_row(*s) else {
                prev = None;
                continue;
            };
            let y = rect.top() + 8.0 + row * 17.0;
            let (x0, x1) = (left + width * i as f32 / n, left + width * (i + 1) as f32 / n);
            let color = if *s == Stage::Rem { Color32::from_rgb(220, 80, 80) } else { text };
            if let Some(q) = prev {
                p.line_segment([q, pos2(x0, y)], Stroke::new(1.0, text.gamma_multiply(0.5)));
            }
            p.line_segment([pos2(x0, y), pos2(x1, y)], Stroke::new(2.0, color));
            prev = Some(pos2(x1, y));
        }
        let total = n as f64 * h.epoch_s;
        let px = |t: f64| left + width * (t / total) as f32;
        p.rect_stroke(
            Rect::from_x_y_ranges(px(page.0)..=px(page.0 + page.1).max(px(page.0) + 2.0), rect.y_range()),
            0.0,
            Stroke::new(1.0, Color32::YELLOW),
            egui::StrokeKind::Inside,
        );
        if let Some(s) = &w.stats {
            let v = serde_json::to_value(s).unwrap_or_default();
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
        ui.horizontal(|ui| {
            ui.label("band power per stage of");
            let shown = w.channel.map_or("a channel".to_string(), |c| rec.channels()[c].label.clone());
            egui::ComboBox::from_id_salt("stage_power_channel").selected_text(shown).show_ui(ui, |ui| {
                for (i, c) in rec.channels().iter().enumerate() {
                    ui.selectable_value(&mut w.channel, Some(i), &c.label);
                }
            });
            if ui
                .add_enabled(w.channel.is_some() && w.stage_job.is_none(), egui::Button::new("Compute per stage"))
                .clicked()
            {
                let c = w.channel.expect("enabled");
                w.stage_power = None;
                w.stage_job = Some(stage_power_job(rec, c, h.clone()));
            }
            if w.stage_job.is_some() {
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
