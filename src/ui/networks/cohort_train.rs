//! The Cohort window's "Cohort model" section: trains a cohort model on the open cohort file's training split
//! in the background (`brainlens cohort train`), shows its cross-validation, and hands the saved model to the
//! room's Cohort model panel for single connectomes.

use crate::agent::graph::Task;
use crate::agent::graph::cohort_model::{CohortModel, DEFAULT_CALIBRATION};
use crate::network::cohort::source::Source;
use crate::ui::jobs::Job;
use crate::util::calibration::Method;
use std::path::{Path, PathBuf};

pub struct CohortTrain {
    /// Empty: the cohort's own task.
    pub task: String,
    pub calibration: Method,
    /// Empty: beside the cohort file, `<stem>.<task>.model.json`.
    pub out: String,
    pub(crate) job: Option<Job<(PathBuf, CohortModel)>>,
    pub trained: Option<(PathBuf, CohortModel)>,
    pub error: Option<String>,
    /// A saved model the room's Cohort model panel should use (taken by the room).
    pub use_in_room: Option<PathBuf>,
}

impl Default for CohortTrain {
    fn default() -> Self {
        CohortTrain {
            task: String::new(),
            calibration: DEFAULT_CALIBRATION,
            out: String::new(),
            job: None,
            trained: None,
            error: None,
            use_in_room: None,
        }
    }
}

/// Where a model of `task` on `cohort` is written unless the user says.
pub fn default_out(cohort: &Path, task: &str) -> PathBuf {
    let stem = cohort.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    cohort.with_file_name(format!("{stem}.{task}.model.json"))
}

impl CohortTrain {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    fn start(&mut self, cohort: &Path, task: String) {
        let out = Some(self.out.trim()).filter(|s| !s.is_empty()).map(PathBuf::from);
        let out = out.unwrap_or_else(|| default_out(cohort, &task));
        let (cohort, method) = (cohort.to_path_buf(), self.calibration);
        self.error = None;
        self.job = Some(Job::spawn("Training a cohort model", 1, move |_, cancel| {
            let task = Task::load(&task)?;
            let source = Source::cohort_file(&cohort)?;
            let model = CohortModel::train(&source, &task, 0.2, 0, method, cancel)?;
            model.save(&out)?;
            Ok(Some((out, model)))
        }));
    }

    /// The section, for the cohort file at `cohort` whose own task is `own_task`.
    pub fn show(&mut self, ui: &mut egui::Ui, cohort: &Path, own_task: &str) {
        if let Some(r) = self.job.as_mut().and_then(|j| j.poll()) {
            self.job = None;
            match r {
                Ok(Some(t)) => self.trained = Some(t),
                Ok(None) => {}
                Err(e) => self.error = Some(format!("{e:#}")),
            }
        } else if self.busy() {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
        }
        egui::CollapsingHeader::new("Cohort model").id_salt("cohort model train").show(ui, |ui| {
            ui.label(
                "A logistic regression on the Fisher z edges of the training split (agent eval's split: 20 % \
                 test, seed 0), its probability calibrated by 5-fold cross-validation on that split alone.",
            );
            let task = Some(self.task.trim()).filter(|t| !t.is_empty()).unwrap_or(own_task).to_string();
            ui.horizontal(|ui| {
                let l = ui.label("Model task");
                ui.add(egui::TextEdit::singleline(&mut self.task).hint_text(own_task).desired_width(70.0))
                    .labelled_by(l.id);
                egui::ComboBox::from_id_salt("cohort model calibration")
                    .selected_text(self.calibration.as_str())
                    .show_ui(ui, |ui| {
                        for m in [Method::Sigmoid, Method::Isotonic] {
                            ui.selectable_value(&mut self.calibration, m, m.as_str());
                        }
                    });
                let l = ui.label("Model file");
                ui.add(
                    egui::TextEdit::singleline(&mut self.out)
                        .hint_text(default_out(cohort, &task).display().to_string())
                        .desired_width(300.0),
                )
                .labelled_by(l.id);
                if ui.add_enabled(!self.busy(), egui::Button::new("Train")).clicked() {
                    self.start(cohort, task.clone());
                }
                if self.busy() {
                    ui.spinner();
                }
            });
            if let Some(e) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
            }
            if let Some((path, m)) = &self.trained {
                let cv = &m.cv;
                ui.label(format!(
                    "{}: task {}, {} training subjects, C = {:.3e}; cross-validated accuracy {:.3}, AUROC {:.3}, \
                     {} calibration Brier {:.3}, ECE {:.3}",
                    path.display(),
                    m.task,
                    m.split.train.len(),
                    m.c,
                    cv.accuracy,
                    cv.auroc,
                    cv.calibration.as_str(),
                    cv.brier,
                    cv.ece
                ));
                if ui.button("Use for single connectomes").clicked() {
                    self.use_in_room = Some(path.clone());
                }
            }
        });
    }
}
