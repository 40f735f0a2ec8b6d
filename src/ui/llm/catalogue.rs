//! The model catalogue in the language-model window: each local model's size, licence, purpose, measured
//! speed and state in the cache; Fetch (a progress bar, Cancel, every sha256 checked), Use and Remove.

use super::LlmWindow;
use crate::llm::catalogue::{self, State, fetch};
use crate::llm::config::ProviderConfig;
use crate::ui::jobs::Job;
use std::sync::atomic::Ordering;

/// A fetch in the background: the model's name and the job (its progress counts downloaded bytes).
pub struct Fetching {
    pub name: String,
    pub job: Job<std::path::PathBuf>,
}

impl LlmWindow {
    pub(super) fn catalogue_section(&mut self, ui: &mut egui::Ui, s: &mut ProviderConfig) {
        self.poll_fetch();
        // The cache is looked at once, and again after a fetch or removal: not on every frame.
        let states = self
            .model_states
            .get_or_insert_with(|| {
                let default = crate::llm::config::default_model_path();
                let states = catalogue::catalogue().models.iter().map(catalogue::Entry::state).collect();
                (states, default.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
            })
            .clone();
        egui::CollapsingHeader::new("Local models").default_open(true).show(ui, |ui| {
            let current = s.local_model_path();
            egui::Grid::new("model catalogue").num_columns(5).striped(true).spacing([10.0, 4.0]).show(ui, |ui| {
                for (m, state) in catalogue::catalogue().models.iter().zip(states.0) {
                    ui.vertical(|ui| {
                        ui.set_width(150.0);
                        ui.strong(&m.name);
                        ui.weak(&m.title);
                    });
                    ui.vertical(|ui| {
                        ui.set_width(80.0);
                        ui.label(format!("{:.0} MB", m.bytes as f64 / 1e6));
                        ui.weak(&m.licence);
                    });
                    ui.vertical(|ui| {
                        ui.set_width(230.0);
                        ui.label(&m.purpose);
                        if !m.speed.is_empty() {
                            ui.weak(format!("here: {}", m.speed));
                        }
                    });
                    match &state {
                        State::Absent => ui.weak("not fetched"),
                        State::Present if m.path() == current => ui.strong("in use"),
                        State::Present => ui.label("in the cache"),
                        State::Broken(p) => ui.colored_label(ui.visuals().error_fg_color, "broken").on_hover_text(p),
                    };
                    ui.horizontal(|ui| {
                        let busy = self.fetching.is_some();
                        match state {
                            State::Present => {
                                if m.path() != current && ui.button("Use").clicked() {
                                    s.model_path = m.path().display().to_string();
                                }
                                if ui.add_enabled(!busy, egui::Button::new("Remove")).clicked() {
                                    self.model_states = None;
                                    self.fetch_result = Some(match m.remove() {
                                        Ok(_) => Ok(format!("{} removed from the cache", m.name)),
                                        Err(e) => Err(e.to_string()),
                                    });
                                }
                            }
                            _ => {
                                let label = format!("Fetch {:.0} MB", m.download_bytes() as f64 / 1e6);
                                if ui.add_enabled(!busy, egui::Button::new(label)).clicked() {
                                    self.start_fetch(m);
                                }
                            }
                        }
                    });
                    ui.end_row();
                }
            });
            if let Some(f) = &self.fetching {
                ui.horizontal(|ui| {
                    ui.add(egui::ProgressBar::new(f.job.fraction()).desired_width(300.0).text(format!(
                        "fetching {} · {:.0} %",
                        f.name,
                        f.job.fraction() * 100.0
                    )));
                    if ui.button("Cancel").clicked() {
                        f.job.cancel();
                    }
                });
            }
            crate::ui::widgets::outcome(ui, &self.fetch_result);
            ui.weak(format!(
                "Model cache: {} · wheels from {} · the agents use {} unless a model file is set above",
                crate::util::paths::models_dir().display(),
                fetch::index_url(),
                states.1
            ));
        });
    }

    fn start_fetch(&mut self, m: &'static catalogue::Entry) {
        self.fetch_result = None;
        let total = m.download_bytes().max(1);
        let job = Job::spawn(format!("fetch {}", m.name), total, move |progress, cancel| {
            let path = fetch::fetch(m, cancel, &mut |p| progress.store(p.done, Ordering::Relaxed));
            match path {
                Ok(p) => Ok(Some(p)),
                Err(fetch::FetchError::Cancelled { .. }) => Ok(None),
                Err(e) => Err(anyhow::anyhow!("{e}")),
            }
        });
        self.fetching = Some(Fetching { name: m.name.clone(), job });
    }

    fn poll_fetch(&mut self) {
        let Some(f) = self.fetching.as_mut() else { return };
        if let Some(result) = f.job.poll() {
            let name = f.name.clone();
            self.fetching = None;
            self.model_states = None;
            self.fetch_result = Some(match result {
                Ok(Some(path)) => Ok(format!("{name}: {} (sha256 checked)", path.display())),
                Ok(None) => Err(format!("{name}: cancelled; the partial download was removed")),
                Err(e) => Err(format!("{e:#}")),
            });
        }
    }
}
