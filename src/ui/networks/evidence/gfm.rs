//! The GFM training window: graphs, output model, epochs; Train runs in the background (cancellable, resumes
//! from the model's checkpoint when asked) and the loss curve (total, masked-node, contrastive) is drawn live;
//! "Show log" draws the curve of a model trained earlier (MODEL.json).

use crate::retrieval::gfm::log_path;
use crate::retrieval::gfm::train::{EpochLoss, TrainLog, TrainOptions, train};
use crate::ui::jobs::Job;
use egui::{Color32, Sense, Stroke, pos2, vec2};
use std::sync::{Arc, Mutex};

pub struct GfmPanel {
    pub open: bool,
    pub graphs: String,
    pub out: String,
    pub epochs: usize,
    pub resume: bool,
    /// The BrainAgent paper's settings (its Table 5) instead of the small defaults; the epochs stay as set.
    pub paper: bool,
    pub losses: Arc<Mutex<Vec<EpochLoss>>>,
    pub(crate) job: Option<Job<TrainLog>>,
    pub message: Option<Result<String, String>>,
}

impl Default for GfmPanel {
    fn default() -> Self {
        GfmPanel {
            open: false,
            graphs: super::card::default_memory().join("labels.csv").display().to_string(),
            out: crate::util::paths::cache_dir().join("gfm").join("model.safetensors").display().to_string(),
            epochs: 150,
            resume: false,
            paper: false,
            losses: Default::default(),
            job: None,
            message: None,
        }
    }
}

impl GfmPanel {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    fn start(&mut self) {
        let (graphs, out) = (std::path::PathBuf::from(self.graphs.trim()), std::path::PathBuf::from(self.out.trim()));
        let base = if self.paper { TrainOptions::paper() } else { TrainOptions::default() };
        let o = TrainOptions { epochs: self.epochs, resume: self.resume, ..base };
        let losses = self.losses.clone();
        losses.lock().map(|mut l| l.clear()).ok();
        self.message = None;
        self.job = Some(Job::spawn("GFM training", o.epochs as u64, move |progress, cancel| {
            let connectomes = crate::retrieval::gfm::load_graphs(&graphs)?;
            let log = train(
                &connectomes,
                &out,
                &o,
                &mut |e| {
                    progress.store(e.epoch as u64, std::sync::atomic::Ordering::Relaxed);
                    losses.lock().map(|mut l| l.push(*e)).ok();
                },
                cancel,
            )?;
            Ok(Some(log))
        }));
    }

    fn show_log(&mut self) {
        let path = log_path(std::path::Path::new(self.out.trim()));
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<TrainLog>(&t).map_err(|e| e.to_string()))
        {
            Ok(log) => {
                self.message =
                    Some(Ok(format!("{}: {} epochs on {} graphs", path.display(), log.epochs_done, log.graphs)));
                self.losses.lock().map(|mut l| *l = log.losses).ok();
            }
            Err(e) => self.message = Some(Err(format!("{}: {e}", path.display()))),
        }
    }

    pub fn show(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        if let Some(result) = self.job.as_mut().and_then(|j| j.poll()) {
            self.job = None;
            self.message = Some(match result {
                Ok(Some(log)) => Ok(format!(
                    "trained {} epochs on {} graphs; wrote {}",
                    log.epochs_done,
                    log.graphs,
                    self.out.trim()
                )),
                Ok(None) => Ok("stopped; the last checkpoint is kept (Resume continues from it)".into()),
                Err(e) => Err(format!("{e:#}")),
            });
        }
        let mut open = self.open;
        egui::Window::new("Graph encoder (GFM)").open(&mut open).default_width(560.0).show(ctx, |ui| {
            egui::Grid::new("gfm inputs").num_columns(2).show(ui, |ui| {
                let l = ui.label("Graphs");
                ui.add(egui::TextEdit::singleline(&mut self.graphs).desired_width(420.0)).labelled_by(l.id);
                ui.end_row();
                let l = ui.label("Model file");
                ui.add(egui::TextEdit::singleline(&mut self.out).desired_width(420.0)).labelled_by(l.id);
                ui.end_row();
                ui.label("Epochs");
                ui.horizontal(|ui| {
                    ui.add(egui::DragValue::new(&mut self.epochs).range(1..=5000));
                    ui.checkbox(&mut self.resume, "Resume from the model's checkpoint");
                    ui.checkbox(&mut self.paper, "Paper settings (Table 5)").on_hover_text(
                        "6 layers, width 128, feed-forward 256, 8 heads, dropout 0.3, mask ratio 0.7 with a learned \
                         token, 2-layer decoder, τ 1, batch 128 (slow on a CPU)",
                    );
                });
                ui.end_row();
            });
            ui.horizontal(|ui| {
                if ui.add_enabled(!self.busy(), egui::Button::new("Train")).clicked() {
                    self.start();
                }
                if self.busy() && ui.button("Stop").clicked() {
                    if let Some(j) = &self.job {
                        j.cancel();
                    }
                }
                if ui.add_enabled(!self.busy(), egui::Button::new("Show log")).clicked() {
                    self.show_log();
                }
                if let Some(j) = self.job.as_ref().filter(|j| j.is_running()) {
                    ui.add(egui::ProgressBar::new(j.fraction()).desired_width(160.0).show_percentage());
                }
            });
            crate::ui::widgets::outcome(ui, &self.message);
            let losses = self.losses.lock().map(|l| l.clone()).unwrap_or_default();
            curve(ui, &losses);
        });
        self.open = open;
        if self.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }
}

/// Loss per epoch: total (white), masked-node (orange), contrastive (blue), on a log scale.
fn curve(ui: &mut egui::Ui, losses: &[EpochLoss]) {
    ui.label(match losses.last() {
        Some(e) => format!(
            "loss curve — epoch {}: total {:.4}, masked {:.4}, contrastive {:.4}",
            e.epoch, e.total, e.masked, e.contrastive
        ),
        None => "loss curve — no epochs yet".to_string(),
    });
    let (rect, _) = ui.allocate_exact_size(vec2(520.0, 200.0), Sense::hover());
    let p = ui.painter_at(rect);
    p.rect_stroke(rect, 0.0, Stroke::new(1.0, ui.visuals().weak_text_color()), egui::StrokeKind::Inside);
    if losses.len() < 2 {
        return;
    }
    let values = losses.iter().flat_map(|e| [e.total, e.masked, e.contrastive]).filter(|v| *v > 0.0);
    let (lo, hi) = values.fold((f32::MAX, f32::MIN), |(a, b), v| (a.min(v.ln()), b.max(v.ln())));
    let span = (hi - lo).max(1e-6);
    let n = losses.len() - 1;
    for (get, color) in [
        ((|e: &EpochLoss| e.total) as fn(&EpochLoss) -> f32, Color32::WHITE),
        (|e| e.masked, Color32::from_rgb(255, 160, 40)),
        (|e| e.contrastive, Color32::from_rgb(90, 160, 255)),
    ] {
        let points: Vec<egui::Pos2> = losses
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let y = (get(e).max(1e-12).ln() - lo) / span;
                pos2(rect.left() + rect.width() * i as f32 / n as f32, rect.bottom() - y * rect.height())
            })
            .collect();
        p.add(egui::Shape::line(points, Stroke::new(1.5, color)));
    }
}
