//! Connectivity window: a channel × channel matrix (corr, coh, PLV, wPLI) over the current page or the whole
//! recording, drawn as a heatmap, and "Open in Networks": the matrix and an electrode-position atlas are
//! written beside each other in the cache folder and opened in the Networks room.

use crate::network::Connectome;
use crate::signal::Recording;
use crate::signal::connectivity::{Method, connectivity};
use crate::signal::spectrum::WelchParams;
use crate::ui::jobs::Job;
use crate::ui::widgets::heatmap::{Heatmap, diverging, sequential};
use std::path::PathBuf;
use std::sync::Arc;

type Matrix = Result<(Vec<String>, Vec<f64>, Method), String>;

pub struct ConnectivityWindow {
    pub open: bool,
    pub method: Method,
    pub band: (f64, f64),
    pub whole: bool,
    pub result: Option<Matrix>,
    /// Set when the user asks to open the matrix in the Networks room (taken by the app).
    pub to_open: Option<PathBuf>,
    pub(crate) job: Option<Job<Matrix>>,
}

impl Default for ConnectivityWindow {
    fn default() -> Self {
        ConnectivityWindow {
            open: false,
            method: Method::Plv,
            band: (8.0, 12.0),
            whole: false,
            result: None,
            to_open: None,
            job: None,
        }
    }
}

impl ConnectivityWindow {
    /// Starts the matrix in the background: channels at the first channel's rate, over the page or the whole
    /// recording.
    pub fn compute(&mut self, rec: &Arc<Recording>, page: (f64, f64)) {
        let (rec, method, band, whole) = (rec.clone(), self.method, self.band, self.whole);
        self.result = None;
        self.job = Some(Job::spawn("Connectivity", 1, move |_, _| {
            let run = || -> Matrix {
                let fs = rec.channels().first().ok_or("no channels")?.sample_rate;
                let chans: Vec<usize> =
                    (0..rec.channels().len()).filter(|&c| rec.channels()[c].sample_rate == fs).collect();
                let (start, dur) = if whole { (0.0, rec.duration_s().map_err(|e| e.to_string())? + 1.0) } else { page };
                let data: Vec<Vec<f64>> =
                    rec.read(&chans, start, dur).map_err(|e| e.to_string())?.into_iter().map(|d| d.values).collect();
                let welch =
                    WelchParams { nperseg: Some(((2.0 * fs) as usize).min(data[0].len())), ..Default::default() };
                let m = connectivity(&data, fs, method, Some(band), &welch)?;
                Ok((chans.iter().map(|&c| rec.channels()[c].label.clone()).collect(), m, method))
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

    /// Writes the matrix (and an atlas with electrode positions when every channel has one) to the cache
    /// folder; returns the matrix path.
    fn write_for_networks(
        &self,
        rec: &Recording,
        labels: &[String],
        m: &[f64],
        method: Method,
    ) -> Result<PathBuf, String> {
        let dir = std::env::temp_dir().join("brainlens");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let stem = rec.path().file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let path = dir.join(format!("{stem}_{method:?}_{}-{}Hz.csv", self.band.0, self.band.1).to_lowercase());
        let c =
            Connectome { n: labels.len(), w: m.to_vec(), labels: labels.to_vec(), directed: false, fixes: Vec::new() };
        crate::network::io::write_csv(&path, &c).map_err(|e| e.to_string())?;
        let own = crate::signal::topomap::recording_positions(rec, None).ok().flatten();
        let pos = crate::signal::topomap::positions_for(labels, own.as_deref());
        match pos.into_iter().collect::<Option<Vec<[f64; 3]>>>() {
            Some(xyz) => {
                crate::network::atlas::write_electrode_atlas(&path, labels, &xyz).map_err(|e| format!("{e:#}"))?;
            }
            None => {
                let _ = std::fs::remove_file(crate::network::atlas::sibling_path(&path));
            }
        }
        Ok(path)
    }
}

pub fn show(ctx: &egui::Context, w: &mut ConnectivityWindow, rec: &Arc<Recording>, page: (f64, f64)) {
    w.poll(ctx);
    let mut open = w.open;
    egui::Window::new("Connectivity").open(&mut open).default_width(520.0).show(ctx, |ui| {
        ui.horizontal(|ui| {
            for (m, name) in
                [(Method::Corr, "Pearson"), (Method::Coh, "coherence"), (Method::Plv, "PLV"), (Method::Wpli, "wPLI")]
            {
                ui.radio_value(&mut w.method, m, name);
            }
        });
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(&mut w.band.0).speed(0.5).range(0.1..=500.0).prefix("band ").suffix(" Hz"));
            ui.add(egui::DragValue::new(&mut w.band.1).speed(0.5).range(0.2..=500.0).prefix("– ").suffix(" Hz"));
            ui.checkbox(&mut w.whole, "whole recording (else the page)");
            if ui.add_enabled(!w.busy(), egui::Button::new("Compute")).clicked() {
                w.compute(rec, page);
            }
            if w.busy() {
                ui.spinner();
            }
        });
        match &w.result {
            None => {
                ui.weak("A channel × channel matrix of the recorded channels; band used by coherence, PLV and wPLI.");
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok((labels, m, method))) => {
                let (labels, m, method) = (labels.clone(), m.clone(), *method);
                if ui.button("Open in Networks").clicked() {
                    match w.write_for_networks(rec, &labels, &m, method) {
                        Ok(p) => w.to_open = Some(p),
                        Err(e) => w.result = Some(Err(e)),
                    }
                }
                let vals: Vec<Option<f64>> = m.iter().map(|v| Some(*v)).collect();
                let empty: Vec<String> = labels.iter().map(|_| String::new()).collect();
                let color: &dyn Fn(f64) -> egui::Color32 =
                    if method == Method::Corr { &|v| diverging(v, 1.0) } else { &|v| sequential(v, 0.0, 1.0) };
                let cell = (420.0 / labels.len().max(1) as f32).clamp(3.0, 30.0);
                egui::ScrollArea::both().max_height(460.0).show(ui, |ui| {
                    Heatmap {
                        rows: &labels,
                        cols: &empty,
                        values: &vals,
                        color,
                        decimals: 2,
                        cell_w: cell,
                        cell_h: cell,
                    }
                    .show(ui);
                });
            }
        }
    });
    w.open = open;
}
