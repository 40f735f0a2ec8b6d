//! HRV window: R-peaks of an ECG channel (neurokit2's pipeline), heart rate, SDNN, RMSSD, pNN50 and the RR
//! tachogram.

use crate::signal::Recording;
use crate::signal::physio::{Hrv, ecg_clean, find_r_peaks, hrv};
use crate::ui::jobs::Job;
use crate::ui::widgets::explore::{self, PlotView};
use egui::Color32;
use egui_plot::{Line, Plot, Points, VLine};
use std::sync::Arc;

#[derive(Default)]
pub struct HrvWindow {
    pub open: bool,
    pub channel: Option<usize>,
    pub result: Option<Result<Hrv, String>>,
    pub(crate) job: Option<Job<Result<Hrv, String>>>,
    /// The tachogram's last drawn view (zoom and pan change it).
    pub view: Option<PlotView>,
    /// The time (s) of the read-out under the tachogram: where the cursor is, or last was, over it.
    pub cursor_s: Option<f64>,
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

    /// The first channel whose label says ECG or EKG, unless one is picked.
    pub fn pick_ecg(&mut self, rec: &Recording) {
        if self.channel.is_none() {
            self.channel = rec.channels().iter().position(|c| {
                let u = c.label.to_uppercase();
                u.contains("ECG") || u.contains("EKG")
            });
        }
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
    w.pick_ecg(rec);
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
                let times = beat_times(&h.rr_ms);
                let (view, cursor) = tachogram(ui, &times, &h.rr_ms, w.cursor_s);
                w.view = Some(view);
                w.cursor_s = cursor;
                ui.label(
                    readout(&times, &h.rr_ms, w.cursor_s)
                        .unwrap_or_else(|| "read-out: move the cursor over the tachogram".into()),
                );
            }
        }
    });
    w.open = open;
}

/// The times (s from the first R-peak) at which each RR interval ends: the tachogram's x.
pub fn beat_times(rr_ms: &[f64]) -> Vec<f64> {
    rr_ms
        .iter()
        .scan(0.0, |t, rr| {
            *t += rr / 1000.0;
            Some(*t)
        })
        .collect()
}

/// The RR tachogram, explorable (drag or wheel pans, Ctrl+wheel zooms, a right-button drag zooms to a box, a
/// double click shows all): RR in ms against time on a clock axis. Its view and the cursor's time.
fn tachogram(ui: &mut egui::Ui, times: &[f64], rr_ms: &[f64], cursor: Option<f64>) -> (PlotView, Option<f64>) {
    let pts: Vec<[f64; 2]> = times.iter().zip(rr_ms).map(|(t, v)| [*t, *v]).collect();
    let resp = Plot::new("hrv_tachogram")
        .height(160.0)
        .x_axis_label("time from the first R-peak")
        .y_axis_label("RR ms")
        .x_axis_formatter(|m, _| explore::clock(m.value))
        .label_formatter(|h| {
            let (egui_plot::HoverPosition::NearDataPoint { position: p, .. }
            | egui_plot::HoverPosition::Elsewhere { position: p }) = h;
            Some(format!("{} · {:.0} ms", explore::clock(p.x), p.y))
        })
        .show(ui, |pu| {
            pu.line(Line::new("RR", pts.clone()).color(Color32::from_rgb(120, 180, 255)).width(1.2));
            if pts.len() <= 600 {
                pu.points(Points::new("beats", pts.clone()).radius(1.5).color(Color32::from_rgb(120, 180, 255)));
            }
            if let Some(t) = cursor {
                pu.vline(VLine::new("", t).color(Color32::from_gray(150)).width(0.8));
            }
            pu.pointer_coordinate().map(|p| p.x)
        });
    let hovered =
        resp.inner.filter(|t| pts.first().zip(pts.last()).is_some_and(|(a, b)| (a[0] - 5.0..=b[0] + 5.0).contains(t)));
    (PlotView::of(&resp), hovered.or(cursor))
}

/// The read-out under the tachogram: the beat nearest the cursor (`times` from [`beat_times`]), its RR interval
/// and instantaneous rate.
pub fn readout(times: &[f64], rr_ms: &[f64], cursor_s: Option<f64>) -> Option<String> {
    let k = explore::nearest(times, cursor_s?)?;
    Some(format!(
        "beat {} at {}: RR {:.0} ms ({:.1} bpm)",
        k + 2,
        explore::clock(times[k]),
        rr_ms[k],
        60_000.0 / rr_ms[k]
    ))
}
