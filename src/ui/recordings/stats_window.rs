//! Channel statistics window: variance, RMS, kurtosis and line-noise ratio of every channel over the page or
//! the whole recording, with flat/noisy channels flagged by the IQR rule, and 10-20 region means.

use crate::signal::Recording;
use crate::signal::channel_stats::{StatsReport, channel_stats};
use crate::ui::jobs::Job;
use std::sync::Arc;

#[derive(Default)]
pub struct StatsWindow {
    pub open: bool,
    pub whole: bool,
    pub line_60: bool,
    pub result: Option<Result<StatsReport, String>>,
    pub(crate) job: Option<Job<Result<StatsReport, String>>>,
}

impl StatsWindow {
    pub fn compute(&mut self, rec: &Arc<Recording>, page: (f64, f64)) {
        let (rec, whole, line) = (rec.clone(), self.whole, if self.line_60 { 60.0 } else { 50.0 });
        self.result = None;
        self.job = Some(Job::spawn("Channel statistics", 1, move |_, _| {
            let run = || -> Result<StatsReport, String> {
                let all: Vec<usize> = (0..rec.channels().len()).collect();
                let (start, dur) = if whole { (0.0, rec.duration_s().map_err(|e| e.to_string())? + 1.0) } else { page };
                let data = rec.read(&all, start, dur).map_err(|e| e.to_string())?;
                let input: Vec<(String, Vec<f64>, f64)> =
                    rec.channels().iter().zip(data).map(|(c, d)| (c.label.clone(), d.values, d.sample_rate)).collect();
                Ok(channel_stats(&input, line)?)
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

pub fn show(ctx: &egui::Context, w: &mut StatsWindow, rec: &Arc<Recording>, page: (f64, f64)) {
    w.poll(ctx);
    let mut open = w.open;
    egui::Window::new("Channel statistics").open(&mut open).default_width(520.0).show(ctx, |ui| {
        ui.horizontal(|ui| {
            ui.checkbox(&mut w.whole, "whole recording (else the page)");
            ui.checkbox(&mut w.line_60, "60 Hz mains");
            if ui.add_enabled(!w.busy(), egui::Button::new("Compute statistics")).clicked() {
                w.compute(rec, page);
            }
            if w.busy() {
                ui.spinner();
            }
        });
        match &w.result {
            None => {
                ui.weak("variance (numpy.var), RMS, kurtosis (scipy.stats.kurtosis), mains power ratio; IQR rule on variance");
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok(r)) => {
                let flagged = r.channels.iter().filter(|c| c.status != "ok").count();
                ui.label(format!("{flagged} flagged: flat < {:.3}, noisy > {:.3} (variance)", r.lower, r.upper));
                egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                    egui::Grid::new("channel_stats").striped(true).show(ui, |ui| {
                        for h in ["channel", "variance", "RMS", "kurtosis", "line", "status"] {
                            ui.strong(h);
                        }
                        ui.end_row();
                        for c in &r.channels {
                            ui.label(&c.label);
                            ui.label(format!("{:.3}", c.variance));
                            ui.label(format!("{:.3}", c.rms));
                            ui.label(format!("{:.2}", c.kurtosis));
                            ui.label(c.line_noise_ratio.map_or("–".into(), |v| format!("{v:.4}")));
                            if c.status == "ok" {
                                ui.label("ok");
                            } else {
                                ui.colored_label(egui::Color32::from_rgb(230, 140, 40), c.status);
                            }
                            ui.end_row();
                        }
                    });
                });
                for g in &r.regions {
                    ui.label(format!("{}: {} channels, variance {:.3}, RMS {:.3}", g.region, g.channels, g.variance, g.rms));
                }
            }
        }
    });
    w.open = open;
}
