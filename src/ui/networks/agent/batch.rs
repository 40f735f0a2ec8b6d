//! Batch results: run files of `brainlens agent eval` side by side — the metrics table per method, the
//! interpretability radar (one polygon per method) with SVG export, and the per-sample list whose rows open
//! that sample's trace.

use crate::agent::graph::Task;
use crate::agent::graph::eval::{Metrics, RunFile, metrics, read_run};
use crate::agent::graph::interpret::DIMENSIONS;

#[derive(Default)]
pub struct BatchView {
    pub paths: String,
    pub runs: Vec<(RunFile, Metrics)>,
    pub error: Option<String>,
    pub message: Option<Result<String, String>>,
}

impl BatchView {
    pub fn load(&mut self) {
        self.runs.clear();
        self.error = None;
        for p in self.paths.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let loaded = read_run(std::path::Path::new(p)).and_then(|r| {
                let task = Task::load(&r.header.task)?;
                let m = metrics(&r, &task);
                Ok((r, m))
            });
            match loaded {
                Ok(x) => self.runs.push(x),
                Err(e) => {
                    self.error = Some(format!("{e:#}"));
                    return;
                }
            }
        }
    }

    /// Draws the view; returns a trace the user opened.
    pub fn show(&mut self, ui: &mut egui::Ui) -> Option<crate::agent::graph::Trace> {
        ui.horizontal(|ui| {
            let l = ui.label("Run files").id;
            ui.add(
                egui::TextEdit::singleline(&mut self.paths)
                    .desired_width(420.0)
                    .hint_text("RUN.jsonl, comma-separated"),
            )
            .labelled_by(l);
            if ui.button("Load runs").clicked() {
                self.load();
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
        if self.runs.is_empty() {
            return None;
        }
        let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{:.1}", 100.0 * x));
        egui::Grid::new("agent_batch_metrics").striped(true).show(ui, |ui| {
            for h in [
                "method",
                "model",
                "n",
                "acc %",
                "recall %",
                "precision %",
                "positive %",
                "pass@1 %",
                "pass@k %",
                "tokens/sample",
                "s/sample",
                "failed",
                "interp.",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for (_, m) in &self.runs {
                ui.label(&m.method);
                ui.label(&m.model);
                ui.label(m.samples.to_string());
                ui.label(pct(Some(m.accuracy)));
                ui.label(pct(m.recall));
                ui.label(pct(m.precision));
                ui.label(pct(Some(m.positive_rate)));
                ui.label(pct(Some(m.pass_at_1)));
                ui.label(pct(Some(m.pass_at_k)));
                ui.label(format!("{:.0}", m.prompt_tokens_per_sample + m.completion_tokens_per_sample));
                ui.label(format!("{:.1}", m.seconds_per_sample));
                ui.label(m.failures.values().sum::<usize>().to_string());
                ui.label(format!("{:.2}", m.interpretability.overall));
                ui.end_row();
            }
        });
        let mut opened = None;
        for (r, m) in &self.runs {
            egui::CollapsingHeader::new(format!("Samples of {} ({})", m.method, m.model))
                .id_salt(("agent_batch", &m.file))
                .show(ui, |ui| {
                    egui::Grid::new(("agent_batch_samples", &m.file)).striped(true).show(ui, |ui| {
                        for h in ["sample", "run", "truth", "label", "outcome", "s", ""] {
                            ui.strong(h);
                        }
                        ui.end_row();
                        for rec in &r.records {
                            ui.label(&rec.sample);
                            ui.label(rec.run.to_string());
                            ui.label(&rec.truth);
                            ui.label(rec.label.as_deref().unwrap_or("—"));
                            ui.label(rec.outcome.as_str());
                            ui.label(format!("{:.1}", rec.seconds));
                            if ui.small_button("trace").clicked() {
                                opened = Some(rec.trace.clone());
                            }
                            ui.end_row();
                        }
                    });
                });
        }
        egui::CollapsingHeader::new("Interpretability radar per method").id_salt("agent_batch_radar").show(ui, |ui| {
            let all: Vec<Metrics> = self.runs.iter().map(|(_, m)| m.clone()).collect();
            let series: Vec<(String, Vec<Option<f64>>)> = all
                .iter()
                .map(|m| (m.method.clone(), m.interpretability.values().iter().map(|v| Some(*v)).collect()))
                .collect();
            crate::ui::widgets::radar::show(
                ui,
                "Interpretability per method (checks against each graph; mean over samples)",
                &series,
                &DIMENSIONS.map(String::from),
            );
            if ui.button("Export radar SVG").clicked()
                && let Some(p) = rfd::FileDialog::new().set_file_name("interpretability.svg").save_file()
            {
                self.message = Some(match std::fs::write(&p, crate::cli::agent::radar_svg(&all)) {
                    Ok(()) => Ok(format!("wrote {}", p.display())),
                    Err(e) => Err(format!("{}: cannot write: {e}", p.display())),
                });
            }
            crate::ui::widgets::outcome(ui, &self.message);
        });
        opened
    }
}
