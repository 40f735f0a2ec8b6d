//! The Cohort model panel: the open connectome against a saved cohort model of its atlas (`brainlens cohort
//! train`): the calibrated P(label), the model's own cross-validation, and the ten edges that moved its score
//! most, each with the subject's value against the training means of both labels; clicking an edge
//! highlights its regions on the glass brain. The same as `brainlens cohort predict`.

use crate::agent::graph::cohort_model::{CohortModel, Prediction};
use crate::ui::networks::OpenNetwork;
use std::path::PathBuf;

#[derive(Default)]
pub struct CohortModelPanel {
    pub open: bool,
    pub model_path: String,
    /// The model loaded from `model_path` (reloaded when the path changes).
    model: Option<(PathBuf, CohortModel)>,
    /// The prediction for the network of this generation.
    pub prediction: Option<(u64, Prediction)>,
    pub error: Option<String>,
    /// Analyse the open network on the next frame (the `--cohort-model` flag).
    pub autostart: bool,
}

impl CohortModelPanel {
    /// Loads the model (when its path changed) and predicts for `o`; errors are kept for the window.
    pub fn analyse(&mut self, o: &OpenNetwork) {
        self.prediction = None;
        self.error = None;
        let path = PathBuf::from(self.model_path.trim());
        if self.model.as_ref().is_none_or(|(p, _)| *p != path) {
            self.model = None;
            match CohortModel::load(&path) {
                Ok(m) => self.model = Some((path.clone(), m)),
                Err(e) => {
                    self.error = Some(format!("{e:#}"));
                    return;
                }
            }
        }
        let Some((path, m)) = &self.model else { return };
        let name = o.path.display().to_string();
        let result = m
            .check_atlas(&name, o.connectome.n, o.atlas.as_ref(), path)
            .and_then(|_| m.predict(&name, &o.connectome, o.atlas.as_ref()));
        match result {
            Ok(p) => self.prediction = Some((o.generation, p)),
            Err(e) => self.error = Some(format!("{e:#}")),
        }
    }

    pub fn show(&mut self, ctx: &egui::Context, o: &mut OpenNetwork) {
        if !self.open {
            return;
        }
        if std::mem::take(&mut self.autostart) {
            self.analyse(o);
        }
        // A new network in the room: predicted again with the same model.
        if self.model.is_some() && self.prediction.as_ref().is_some_and(|(g, _)| *g != o.generation) {
            self.analyse(o);
        }
        let mut open = self.open;
        let mut analyse = false;
        let mut highlight = None;
        egui::Window::new("Cohort model").open(&mut open).default_width(700.0).default_pos([600.0, 80.0]).show(
            ctx,
            |ui| {
                ui.horizontal(|ui| {
                    let l = ui.label("Model file");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.model_path)
                            .hint_text("brainlens cohort train … --out MODEL.json")
                            .desired_width(400.0),
                    )
                    .labelled_by(l.id);
                    if ui.button("Browse…").clicked()
                        && let Some(p) = rfd::FileDialog::new().add_filter("Cohort model", &["json"]).pick_file()
                    {
                        self.model_path = p.display().to_string();
                    }
                    analyse =
                        ui.add_enabled(!self.model_path.trim().is_empty(), egui::Button::new("Analyse")).clicked();
                });
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
                }
                let (Some((_, m)), Some((_, p))) = (&self.model, &self.prediction) else { return };
                ui.heading(format!("P({}) = {:.3}: {}", p.positive, p.probability, p.label));
                ui.label(format!(
                    "A validated logistic regression, not a language model: score {:.3}, calibrated ({}) on its \
                     training split's out-of-fold scores; the label is the one P favours against the training \
                     split's rate of {} ({:.3}).",
                    p.score,
                    m.calibrator.method().as_str(),
                    p.positive,
                    p.prior
                ));
                ui.label(format!(
                    "Model: task {}, atlas {}, {} training subjects of {} (sha256 {}…); cross-validated accuracy \
                     {:.3}, AUROC {:.3}, Brier {:.3}, ECE {:.3}",
                    m.task,
                    m.atlas,
                    m.split.train.len(),
                    m.cohort.file,
                    &m.cohort.sha256[..m.cohort.sha256.len().min(12)],
                    m.cv.accuracy,
                    m.cv.auroc,
                    m.cv.brier,
                    m.cv.ece
                ));
                ui.separator();
                ui.strong("The edges that moved the score most (Fisher z; click to highlight)");
                egui::Grid::new("cohort model edges").striped(true).show(ui, |ui| {
                    for h in [
                        "edge",
                        "networks",
                        "value",
                        &format!("mean {}", m.positive),
                        &format!("mean {}", m.negative),
                        "part",
                        "supports",
                    ] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for e in &p.edges {
                        if ui.link(format!("{} – {}", e.regions[0], e.regions[1])).clicked() {
                            highlight = Some(e.regions.clone());
                        }
                        ui.label(e.networks.as_ref().map(|n| format!("{} – {}", n[0], n[1])).unwrap_or_default());
                        ui.label(format!("{:.3}", e.value));
                        ui.label(format!("{:.3}", e.mean_positive));
                        ui.label(format!("{:.3}", e.mean_negative));
                        ui.label(format!("{:+.3}", e.contribution));
                        ui.label(&e.supports);
                        ui.end_row();
                    }
                });
            },
        );
        self.open = open;
        if analyse {
            self.analyse(o);
        }
        if let Some(regions) = highlight {
            o.highlight = regions.iter().filter_map(|r| o.connectome.labels.iter().position(|l| l == r)).collect();
        }
    }
}
