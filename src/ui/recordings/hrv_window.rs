//! HRV window: R-peaks of an ECG channel (neurokit2's pipeline), heart rate, SDNN, RMSSD, pNN50 and the RR
//! tachogram.

use crate::signal::Recording;
use crate::signal::physio::{Hrv, ecg_clean, find_r_peaks, hrv};
use crate::ui::jobs::Job;
use egui::{Color32, Sense, Shape, Stroke, pos2, vec2};
use std::sync::Arc;

#[derive(Default)]
pub struct HrvWindow {
    pub open: bool,
    pub channel: Option<usize>,
    pub result: Option<Result<Hrv, String>>,
    pub(crate) job: Option<Job<Result<Hrv, String>>>,
}

impl HrvWindow {
    /// Starts the computation in the background (a whole night of ECG takes a moment).
    pub fn compute(&mut self, rec: &Arc<Recording>) {
        let Some(c) = self.channel else { return };
        let rec = rec.clone();
        self.result = None;
        self.job = Some(Job::spawn("HRV", 1, move |_, _| {
            let run = || -> Result<Hrv, String> {
                let d = rec
                    .read(&[c], 0.0, rec.duration_s().map_err(|e| e.to_string())? + 1.0)
                    .map_err(|e| e.to_string())?
                    .remove(0);
                let clean = ecg_clean(&d.values, d.sample_rate, 50.0)?;
                Ok(hrv(&find_r_peaks(&clean, d.sample_rate), d.sample_rate)?)
            };
            Ok(Some(run()))
        }));
    }

    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    fn poll(&mut self, ctx: &egui::Context) {
        crate::ui::jobs::poll_into(&mut self.job, &mut self.result, ctx);
    }
}

pub fn show(ctx: &egui::Context, w: &mut HrvWindow, rec: &Arc<Recording>) {
    w.poll(ctx);
    if w.channel.is_none() {
        w.channel = rec.channels().iter().position(|c| {
            let u = c.label.to_uppercase();
            u.contains("ECG") || u.contains("EKG")
        });
    }
    let mut open = w.open;
    egui::Window::new("Heart rate variability").open(&mut open).default_width(460.0).show(ctx, |ui| {
        ui.horizontal(|ui| {
            let shown = w.channel.map_or("pick the ECG channel".to_string(), |c| rec.channels()[c].label.clone());
            egui::ComboBox::from_id_salt("hrv_channel").selected_text(shown).show_ui(ui, |ui| {
                for (i, c) in rec.channels().iter().enumerate() {
                    ui.selectable_value(&mut w.channel, Some(i), &c.label);
                }
            });
            if ui.add_enabled(w.channel.is_some() && !w.busy(), egui::Button::new("Compute")).clicked() {
                w.compute(rec);
            }
            if w.busy() {
                ui.spinner();
            }
        });
        match &w.result {
            None => {
                ui.weak("R-peaks as neurokit2 finds them (0.5-Hz Butterworth high-pass, mains moving average, gradient QRS detection).");
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok(h)) => {
                ui.label(format!(
                    "{} beats · heart rate {:.1} bpm · MeanNN {:.1} ms · SDNN {:.1} ms · RMSSD {:.1} ms · pNN50 {:.1} %",
                    h.beats, h.HR, h.MeanNN, h.SDNN, h.RMSSD, h.pNN50
                ));
                let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), 120.0), Sense::hover());
                let p = ui.painter_at(rect);
                let (lo, hi) = h.rr_ms.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
                let n = h.rr_ms.len().max(2) as f32;
                let pts: Vec<egui::Pos2> = h
                    .rr_ms
                    .iter()
                    .enumerate()
                    .map(|(i, v)| pos2(rect.left() + rect.width() * i as f32 / (n - 1.0), rect.bottom() - rect.height() * ((v - lo) / (hi - lo).max(1e-9)) as f32))
                    .collect();
                p.add(Shape::line(pts, Stroke::new(1.2, Color32::from_rgb(120, 180, 255))));
                ui.weak(format!("RR tachogram: {lo:.0}–{hi:.0} ms"));
            }
        }
    });
    w.open = open;
}
