//! Batch evaluation and results: run an evaluation of the panel's task, method and model on a labelled cohort
//! (progress bar, cancel; the run file resumes like the CLI's), and run files of `brainlens agent eval` side
//! by side — the metrics table per method, the per-sample list whose rows open that sample's trace, and the
//! interpretability radar (one polygon per method) with SVG export.

use crate::agent::graph::eval::{Cohort, Metrics, Plan, RunFile, metrics, read_run};
use crate::agent::graph::interpret::DIMENSIONS;
use crate::agent::graph::{Settings, Task};
use crate::llm::config::ProviderConfig;
use crate::network::cohort::source::Source;
use crate::ui::jobs::Job;
use crate::util::cancel::Cancel;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

pub struct BatchView {
    pub graphs: String,
    pub labels: String,
    pub split: f64,
    pub runs_per_sample: usize,
    pub concurrency: usize,
    pub out: String,
    pub(crate) job: Option<Job<PathBuf>>,
    cancel: Cancel,
    pub paths: String,
    pub runs: Vec<(RunFile, Metrics)>,
    pub error: Option<String>,
    pub message: Option<Result<String, String>>,
    radar_rect: Option<egui::Rect>,
    png_result: std::sync::Arc<std::sync::Mutex<Option<String>>>,
}

impl Default for BatchView {
    fn default() -> Self {
        let memory =
            crate::util::paths::normalise(&crate::agent::graph::task::default_dir().join("../cases/hcp_fingerprint"));
        BatchView {
            graphs: memory.join("graphs").display().to_string(),
            labels: memory.join("labels.csv").display().to_string(),
            split: 0.2,
            runs_per_sample: 1,
            concurrency: 1,
            out: String::new(),
            job: None,
            cancel: Cancel::default(),
            paths: String::new(),
            runs: Vec::new(),
            error: None,
            message: None,
            radar_rect: None,
            png_result: Default::default(),
        }
    }
}

impl BatchView {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    /// Starts an evaluation in the background; its run file is loaded when it finishes.
    fn start(&mut self, task: &str, settings: &Settings, provider: &ProviderConfig) {
        let (task, settings, provider) = (task.to_string(), settings.clone(), provider.clone());
        let graphs = PathBuf::from(self.graphs.trim());
        // A cohort file (`brainlens cohort import`) holds its labels too.
        let labels = Some(PathBuf::from(self.labels.trim())).filter(|l| !l.as_os_str().is_empty());
        let (fraction, runs) = (self.split, self.runs_per_sample.max(1));
        let (out, concurrency) = (PathBuf::from(self.out.trim()), self.concurrency.max(1));
        self.cancel = Cancel::default();
        let cancel = self.cancel.clone();
        self.error = None;
        self.job = Some(Job::spawn_with("BrainAgent evaluation", 1000, cancel.clone(), move |progress, _| {
            // Read once here, on the job's thread: a large cohort file does not hold up the window.
            let source = std::sync::Arc::new(Source::open(&graphs, labels.as_deref())?);
            let cohort = Cohort {
                source,
                fraction,
                seed: 0,
                runs,
                memory: None,
                hold_out_site: None,
                shard: None,
                subset: None,
            };
            let task = Task::load(&task)?;
            let model = if settings.method.uses_model() {
                Some(provider.build().map_err(|e| anyhow::anyhow!("{e}"))?)
            } else {
                None
            };
            let plan = Plan::new(task, settings, model, &cohort, &cancel)?;
            let job = plan.job(concurrency, false, out.clone());
            crate::agent::graph::eval::run(&job, &cancel, &|done, total| {
                progress.store((done * 1000 / total.max(1)) as u64, Ordering::Relaxed);
            })?;
            Ok(Some(out))
        }));
    }

    fn poll(&mut self, ui: &egui::Ui) {
        let Some(job) = self.job.as_mut() else { return };
        match job.poll() {
            Some(Ok(Some(path))) => {
                self.job = None;
                self.paths = path.display().to_string();
                self.load();
            }
            Some(Ok(None)) => self.job = None,
            Some(Err(e)) => {
                self.job = None;
                self.error = Some(format!("{e:#}"));
            }
            None => ui.ctx().request_repaint_after(std::time::Duration::from_millis(100)),
        }
    }

    fn run_form(&mut self, ui: &mut egui::Ui, task: &str, settings: &Settings, provider: &ProviderConfig) {
        self.poll(ui);
        egui::Grid::new("agent_batch_form").num_columns(2).show(ui, |ui| {
            for (name, field, hint) in [
                ("Graphs folder", &mut self.graphs, "a folder of graphs, or a cohort file (.npz)"),
                ("Labels CSV", &mut self.labels, "file,label[,group]; empty for a cohort file"),
                ("Run file (JSONL)", &mut self.out, ""),
            ] {
                let l = ui.label(name).id;
                ui.add(egui::TextEdit::singleline(field).hint_text(hint).desired_width(420.0)).labelled_by(l);
                ui.end_row();
            }
        });
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(&mut self.split).range(0.05..=0.95).speed(0.01).prefix("test fraction "));
            ui.add(egui::DragValue::new(&mut self.runs_per_sample).range(1..=10).prefix("runs per sample (k) "));
            ui.add(egui::DragValue::new(&mut self.concurrency).range(1..=16).prefix("workers "));
            let ready = !self.busy() && !self.out.trim().is_empty();
            if ui
                .add_enabled(ready, egui::Button::new(format!("Run evaluation ({task}, {})", settings.name())))
                .clicked()
            {
                self.start(task, settings, provider);
            }
        });
        if let Some(j) = self.job.as_ref().filter(|j| j.is_running()) {
            ui.horizontal(|ui| {
                ui.add(egui::ProgressBar::new(j.fraction()).show_percentage().desired_width(360.0));
                if ui.button("Cancel evaluation").clicked() {
                    self.cancel.cancel();
                }
            });
        }
    }

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
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        task: &str,
        settings: &Settings,
        provider: &ProviderConfig,
    ) -> Option<crate::agent::graph::Trace> {
        self.run_form(ui, task, settings, provider);
        ui.separator();
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
        metrics_table(ui, self.runs.iter().map(|(_, m)| m));
        ui.weak(
            "acc, recall, precision: the majority label over the k runs; recall@k, precision@k: the paper's pass \
criterion (a sample counts as its true label when any of the k runs gives it).",
        );
        for note in self.runs.iter().filter_map(|(_, m)| m.reuse_note()) {
            ui.weak(format!("{note}."));
        }
        site_chart(ui, self.runs.iter().map(|(_, m)| m));
        let mut opened = None;
        for (r, m) in &self.runs {
            ui.strong(format!("{} ({}) — confusion (rows truth, columns predicted)", m.method, m.model));
            confusion(ui, m);
            if let Some(p) = &m.probability {
                reliability(ui, m, p);
            }
            if let Some(t) = samples(ui, m, &r.records) {
                opened = Some(t);
            }
        }
        egui::CollapsingHeader::new("Interpretability radar per method").id_salt("agent_batch_radar").show(ui, |ui| {
            let all: Vec<Metrics> = self.runs.iter().map(|(_, m)| m.clone()).collect();
            let series = crate::agent::graph::eval::radar_series(&all);
            self.radar_rect = Some(crate::ui::widgets::radar::show(
                ui,
                "Interpretability per method (checks against each graph; mean over samples)",
                &series,
                &DIMENSIONS.map(String::from),
            ));
            if let Some(m) = self.png_result.lock().ok().and_then(|mut s| s.take()) {
                self.message = Some(Ok(m));
            }
            if ui.button("Export radar PNG").clicked()
                && let (Some(rect), Some(p)) =
                    (self.radar_rect, rfd::FileDialog::new().set_file_name("interpretability.png").save_file())
            {
                crate::ui::screenshot::request_png(ui.ctx(), rect, p, self.png_result.clone());
            }
            if ui.button("Export radar SVG").clicked()
                && let Some(p) = rfd::FileDialog::new().set_file_name("interpretability.svg").save_file()
            {
                self.message = Some(match std::fs::write(&p, crate::agent::graph::eval::radar_svg(&all)) {
                    Ok(()) => Ok(format!("wrote {}", p.display())),
                    Err(e) => Err(format!("{}: cannot write: {e}", p.display())),
                });
            }
            if ui
                .button("Paper output…")
                .on_hover_text("the metrics table (CSV, LaTeX) and the figures (SVG, 300-dpi PNG)")
                .clicked()
                && let Some(dir) = rfd::FileDialog::new().pick_folder()
            {
                self.message = Some(crate::agent::graph::paper::write_paper_output(&all, &dir));
            }
            crate::ui::widgets::outcome(ui, &self.message);
        });
        opened
    }
}

/// The metrics of the runs side by side: one row per run file.
fn metrics_table<'a>(ui: &mut egui::Ui, runs: impl Iterator<Item = &'a Metrics>) {
    let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{:.1}", 100.0 * x));
    egui::Grid::new("agent_batch_metrics").striped(true).show(ui, |ui| {
        for h in [
            "method",
            "model",
            "task",
            "n",
            "acc %",
            "recall %",
            "precision %",
            "recall@k %",
            "precision@k %",
            "positive %",
            "pass@1 %",
            "pass@k %",
            "AUROC",
            "Brier",
            "ECE",
            "tokens/sample",
            "s/sample",
            "failed",
            "interp.",
        ] {
            ui.strong(h);
        }
        ui.end_row();
        for m in runs {
            ui.label(&m.method);
            ui.label(&m.model);
            ui.label(&m.task);
            ui.label(m.samples.to_string());
            ui.label(pct(Some(m.accuracy)));
            ui.label(pct(m.recall));
            ui.label(pct(m.precision));
            ui.label(pct(m.recall_at_k));
            ui.label(pct(m.precision_at_k));
            ui.label(pct(Some(m.positive_rate)));
            ui.label(pct(Some(m.pass_at_1)));
            ui.label(pct(Some(m.pass_at_k)));
            let p = m.probability.as_ref();
            let num = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.3}"));
            let source = p.map_or("", |p| crate::agent::graph::scores::short_source(&p.source));
            ui.label(num(p.and_then(|p| p.auroc))).on_hover_text(format!("P from the {source}"));
            ui.label(num(p.and_then(|p| p.brier)));
            let ece = ui.label(num(p.and_then(|p| p.ece)));
            if let Some(r) = p.and_then(|p| p.ece_reference()) {
                ece.on_hover_text(r);
            }
            ui.label(format!("{:.0}", m.prompt_tokens_per_sample + m.completion_tokens_per_sample));
            ui.label(format!("{:.1}", m.seconds_per_sample));
            ui.label(m.failures.values().sum::<usize>().to_string());
            ui.label(m.interpretability.map_or("—".to_string(), |s| format!("{:.2}", s.overall)));
            ui.end_row();
        }
    });
}

/// A run's samples (truth, label, P(label), outcome, seconds); the trace whose button was clicked.
fn samples(
    ui: &mut egui::Ui,
    m: &Metrics,
    records: &[crate::agent::graph::runfile::Record],
) -> Option<crate::agent::graph::Trace> {
    let mut opened = None;
    egui::CollapsingHeader::new(format!("Samples of {} ({})", m.method, m.model))
        .id_salt(("agent_batch", &m.file))
        .show(ui, |ui| {
            egui::Grid::new(("agent_batch_samples", &m.file)).striped(true).show(ui, |ui| {
                for h in ["sample", "run", "truth", "label", "P(label)", "outcome", "s", ""] {
                    ui.strong(h);
                }
                ui.end_row();
                for rec in records {
                    ui.label(&rec.sample);
                    ui.label(rec.run.to_string());
                    ui.label(&rec.truth);
                    ui.label(rec.label.as_deref().unwrap_or("—"));
                    let p = rec.trace.decision.as_ref().and_then(|d| d.label_probability());
                    ui.label(p.map_or("—".to_string(), |p| format!("{p:.2}")))
                        .on_hover_text("the probability of the chosen label: the regression's (logistic) or the model's own likelihood of it");
                    ui.label(rec.outcome.as_str());
                    ui.label(format!("{:.1}", rec.seconds));
                    if ui.small_button("trace").clicked() {
                        opened = Some(rec.trace.clone());
                    }
                    ui.end_row();
                }
            });
        });
    opened
}

/// A run's reliability diagram as its bins: mean predicted P against the observed share (the figure itself is
/// in "Paper output…" and `agent report --figures`).
fn reliability(ui: &mut egui::Ui, m: &Metrics, p: &crate::agent::graph::scores::ProbabilityScores) {
    egui::CollapsingHeader::new(format!("Reliability of {} ({})", m.method, m.model))
        .id_salt(("agent_batch_reliability", &m.file))
        .show(ui, |ui| {
            ui.label(p.line());
            egui::Grid::new(("agent_batch_reliability_bins", &m.file)).striped(true).show(ui, |ui| {
                for h in ["P bin", "subjects", "mean predicted", "observed"] {
                    ui.strong(h);
                }
                ui.end_row();
                for b in &p.reliability {
                    ui.label(format!("{:.1}–{:.1}", b.lower, b.upper));
                    ui.label(b.samples.to_string());
                    ui.label(format!("{:.3}", b.mean_predicted));
                    ui.label(format!("{:.3}", b.observed));
                    ui.end_row();
                }
            });
        });
}

/// A run's confusion matrix (rows truth).
fn confusion(ui: &mut egui::Ui, m: &Metrics) {
    egui::Grid::new(("agent_batch_confusion", &m.file)).striped(true).show(ui, |ui| {
        ui.strong("truth \\ predicted");
        for l in m.labels.iter().map(String::as_str).chain(["failed"]) {
            ui.strong(l);
        }
        ui.end_row();
        for (l, row) in m.labels.iter().zip(&m.confusion) {
            ui.strong(l);
            for v in row {
                ui.label(v.to_string());
            }
            ui.end_row();
        }
    });
}

/// Accuracy per site of every run on a cohort in one chart (as `agent report --figures` draws it): a row per
/// site, a bar per run in the run's colour, the legend above.
fn site_chart<'a>(ui: &mut egui::Ui, runs: impl IntoIterator<Item = &'a Metrics>) {
    let (sites, series, values) = crate::agent::graph::paper::site_bars(runs);
    if sites.is_empty() {
        return;
    }
    ui.strong("Accuracy per site (test subjects)");
    ui.horizontal_wrapped(|ui| {
        for (k, name) in series.iter().enumerate() {
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(swatch, 1.0, crate::ui::widgets::palette::category(k));
            ui.label(name);
        }
    });
    let (bar_h, gap, label_w, bar_w) = (9.0, 4.0, 110.0, 260.0);
    let row_h = bar_h * series.len() as f32 + gap;
    let size = egui::vec2(label_w + bar_w + 60.0, row_h * sites.len() as f32);
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let text = ui.visuals().text_color();
    let font = egui::FontId::proportional(11.0);
    let x0 = rect.left() + label_w;
    for (i, site) in sites.iter().enumerate() {
        let y = rect.top() + row_h * i as f32;
        painter.text(egui::pos2(rect.left(), y + row_h / 2.0), egui::Align2::LEFT_CENTER, site, font.clone(), text);
        for (k, v) in values.iter().enumerate() {
            let Some(acc) = v[i] else { continue };
            let top = y + bar_h * k as f32;
            let bar = egui::Rect::from_min_size(egui::pos2(x0, top + 1.0), egui::vec2(bar_w * acc as f32, bar_h - 2.0));
            painter.rect_filled(bar, 1.0, crate::ui::widgets::palette::category(k));
            painter.text(
                egui::pos2(x0 + bar_w * acc as f32 + 4.0, top + bar_h / 2.0),
                egui::Align2::LEFT_CENTER,
                format!("{acc:.2}"),
                egui::FontId::proportional(9.0),
                text,
            );
        }
        painter.line_segment(
            [egui::pos2(x0 + bar_w, y), egui::pos2(x0 + bar_w, y + row_h - gap)],
            egui::Stroke::new(0.5, ui.visuals().weak_text_color()),
        );
    }
}
