//! The Bench room's run view: generate the local suite, pick paradigm, model (the Model… window's provider for
//! the target, parser and judge), concurrency and limit; run with a live table of instances (state, score,
//! tokens, time), progress and ETA; cancel and resume; a finished run opens in the dashboard.

use crate::bench::generate::{Generated, default_templates, generate};
use crate::bench::results::ResultFile;
use crate::harness::runner::{Live, Models, Options, Paradigm, RowState, run};
use crate::llm::config::ProviderConfig;
use crate::ui::jobs::Job;
use crate::util::cancel::Cancel;
use std::path::PathBuf;
use std::sync::Arc;

pub struct RunPanel {
    pub data: String,
    pub suite: String,
    pub out: String,
    pub concurrency: usize,
    /// 0 = every case.
    pub limit: usize,
    pub max_rounds: usize,
    pub judge: bool,
    pub resume: bool,
    pub paradigm: Paradigm,
    pub report: crate::agent::eeg::ReportMode,
    /// Hybrid: when a plan may hold a code step.
    pub code_rule: crate::agent::eeg::CodeRule,
    pub(crate) generating: Option<Job<Generated>>,
    pub(crate) job: Option<Job<ResultFile>>,
    cancel: Cancel,
    pub live: Arc<Live>,
    pub message: Option<String>,
    pub error: Option<String>,
    pub slurm: super::slurm::SlurmPanel,
}

impl Default for RunPanel {
    fn default() -> Self {
        let base = crate::util::paths::cache_dir().join("bench");
        RunPanel {
            data: crate::util::paths::bundled("fixtures").display().to_string(),
            suite: base.join("suite").display().to_string(),
            out: base.join("runs/run.json").display().to_string(),
            concurrency: 2,
            limit: 0,
            max_rounds: 4,
            judge: false,
            resume: false,
            paradigm: Paradigm::BrainAgent,
            report: Default::default(),
            code_rule: Default::default(),
            generating: None,
            job: None,
            cancel: Cancel::default(),
            live: Arc::new(Live::default()),
            message: None,
            error: None,
            slurm: Default::default(),
        }
    }
}

impl RunPanel {
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.generating.is_some()
    }

    /// Starts the run in the background.
    pub fn start(&mut self, provider: &ProviderConfig) {
        let mut opts = Options::new(&PathBuf::from(self.suite.trim()), &PathBuf::from(self.out.trim()));
        opts.paradigm = self.paradigm;
        opts.concurrency = self.concurrency.max(1);
        opts.limit = (self.limit > 0).then_some(self.limit);
        opts.resume = self.resume;
        opts.agent.max_rounds = self.max_rounds.max(1);
        opts.agent.report = self.report;
        opts.code_rule = self.code_rule;
        let provider = provider.clone();
        let judge = self.judge;
        self.cancel = Cancel::default();
        self.live = Arc::new(Live::default());
        self.error = None;
        self.message = None;
        let (cancel, live) = (self.cancel.clone(), self.live.clone());
        self.job = Some(Job::spawn_with("Bench run", 1, cancel.clone(), move |_, _| {
            let target = provider.build().map_err(|e| anyhow::anyhow!("{e}"))?;
            let models = Models { parser: target.clone(), judge: judge.then(|| target.clone()), target, vlm: None };
            Ok(run(&opts, &models, &cancel, &live).map(Some)?)
        }));
    }

    /// The `bench run` options of this form (without the suite, --out and --shard), as a Slurm task gets them.
    pub fn run_args(&self, provider: &ProviderConfig) -> Vec<String> {
        let mut a = vec!["--paradigm".to_string(), self.paradigm.name().to_string()];
        a.extend(provider.cli_args());
        a.extend(["--concurrency".into(), self.concurrency.max(1).to_string()]);
        a.extend(["--max-rounds".into(), self.max_rounds.max(1).to_string()]);
        a.extend(["--report".into(), self.report.name().to_string()]);
        if self.paradigm == Paradigm::Hybrid {
            a.extend(["--code-rule".into(), self.code_rule.name().to_string()]);
        }
        if self.limit > 0 {
            a.extend(["--limit".into(), self.limit.to_string()]);
        }
        if self.judge {
            a.extend(["--judge-model".into(), "target".into()]);
        }
        a
    }

    /// Blocks until the run (or generation) has finished (tests).
    pub fn finish(&mut self) -> Option<PathBuf> {
        loop {
            if let Some(p) = self.poll() {
                return Some(p);
            }
            if !self.busy() {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// A finished, complete run's file (to open in the dashboard).
    fn poll(&mut self) -> Option<PathBuf> {
        if let Some(r) = self.generating.as_mut().and_then(Job::poll) {
            self.generating = None;
            match r {
                Ok(Some(g)) => {
                    self.message = Some(format!(
                        "generated {} instances of {} templates in {}",
                        g.instances,
                        g.templates,
                        g.suite.display()
                    ))
                }
                Ok(None) => {}
                Err(e) => self.error = Some(format!("{e:#}")),
            }
        }
        let r = self.job.as_mut().and_then(Job::poll)?;
        self.job = None;
        match r {
            Ok(Some(f)) => {
                let (done, total, elapsed, _) = self.live.progress();
                if self.cancel.is_cancelled() {
                    self.message = Some(format!(
                        "cancelled: {done} of {total} instances written; tick Resume and press Start run to continue"
                    ));
                    return None;
                }
                self.message = Some(format!(
                    "finished {total} instances in {elapsed:.1} s, score {:.2}; opened in the dashboard (Leaderboard, Charts, Instances)",
                    f.summary.get("total_score").and_then(serde_json::Value::as_f64).unwrap_or(0.0)
                ));
                Some(PathBuf::from(self.out.trim()))
            }
            Ok(None) => None,
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                None
            }
        }
    }

    /// Draws the view; returns a finished run to open.
    pub fn show(&mut self, ui: &mut egui::Ui, provider: &ProviderConfig) -> Option<PathBuf> {
        let opened = self.poll();
        if self.busy() {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(200));
        }
        egui::Grid::new("bench_run_form").num_columns(2).show(ui, |ui| {
            let l = ui.label("Recordings folder");
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut self.data).desired_width(360.0)).labelled_by(l.id);
                if ui.add_enabled(!self.busy(), egui::Button::new("Generate local suite")).clicked() {
                    let (data, suite) = (PathBuf::from(self.data.trim()), PathBuf::from(self.suite.trim()));
                    self.error = None;
                    self.generating = Some(Job::spawn("Generating suite", 1, move |_, _| {
                        Ok(generate(&data, &default_templates(), &suite, 1, 3).map(Some)?)
                    }));
                }
            });
            ui.end_row();
            let l = ui.label("Suite (cases)");
            ui.add(egui::TextEdit::singleline(&mut self.suite).desired_width(460.0)).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Result file");
            ui.add(egui::TextEdit::singleline(&mut self.out).desired_width(460.0)).labelled_by(l.id);
            ui.end_row();
            ui.label("Paradigm");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.paradigm, Paradigm::BrainAgent, "BrainAgent (EEG)");
                ui.selectable_value(&mut self.paradigm, Paradigm::CodeAct, "CodeAct").on_hover_text(
                    "model-written Python in the sandboxed kernel (bubblewrap + the environment of scripts/setup_python.sh)",
                );
                ui.selectable_value(&mut self.paradigm, Paradigm::Hybrid, "Hybrid").on_hover_text(
                    "BrainAgent's validated tools, plus a python step run in CodeAct's sandbox where the code rule allows",
                );
            });
            ui.end_row();
            if self.paradigm == Paradigm::Hybrid {
                ui.label("Code rule");
                ui.horizontal(|ui| {
                    use crate::agent::eeg::CodeRule;
                    for (rule, tip) in [
                        (CodeRule::OnFailure, "python on the menu only after a tool step failed"),
                        (CodeRule::AfterTools, "python on the menu once a tool step has run"),
                        (CodeRule::Always, "python on the menu from the first step"),
                    ] {
                        ui.selectable_value(&mut self.code_rule, rule, rule.name()).on_hover_text(tip);
                    }
                });
                ui.end_row();
            }
            ui.label("Report");
            ui.horizontal(|ui| {
                use crate::agent::eeg::ReportMode;
                ui.selectable_value(&mut self.report, ReportMode::System, "system")
                    .on_hover_text("the model's text + BrainLens's labelled measured results (BrainAgent)");
                ui.selectable_value(&mut self.report, ReportMode::Model, "model")
                    .on_hover_text("the model's text alone, as CodeAct reports: like-for-like comparisons");
            });
            ui.end_row();
            ui.label("Models");
            ui.label(format!(
                "target, parser{}: {:?} {} (Model… window)",
                if self.judge { " and judge" } else { "" },
                provider.provider,
                if provider.model.is_empty() { &provider.model_path } else { &provider.model }
            ));
            ui.end_row();
            let l = ui.label("Workers");
            ui.add(egui::DragValue::new(&mut self.concurrency).range(1..=32)).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Limit (0 = all)");
            ui.add(egui::DragValue::new(&mut self.limit).range(0..=100_000)).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Planning rounds");
            ui.add(egui::DragValue::new(&mut self.max_rounds).range(1..=12)).labelled_by(l.id);
            ui.end_row();
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.judge, "Semantic judge (same model)");
            ui.checkbox(&mut self.resume, "Resume (keep finished instances of the result file)");
        });
        ui.horizontal(|ui| {
            if ui.add_enabled(!self.busy(), egui::Button::new("Start run")).clicked() {
                self.start(provider);
            }
            if ui.add_enabled(self.job.is_some(), egui::Button::new("Cancel run")).clicked() {
                self.cancel.cancel();
            }
            if self.generating.is_some() {
                ui.spinner();
                ui.label("generating the suite…");
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(egui::Color32::from_rgb(220, 60, 60), format!("Error: {e}"));
        }
        if let Some(m) = &self.message {
            ui.label(m);
        }
        for n in self.live.notices_from(0) {
            ui.colored_label(ui.visuals().warn_fg_color, n);
        }
        let (done, total, elapsed, eta) = self.live.progress();
        if total > 0 {
            let eta = eta.map_or(String::new(), |e| format!(" · ETA {e:.0} s"));
            ui.add(
                egui::ProgressBar::new(done as f32 / total as f32)
                    .text(format!("{done}/{total} instances · {elapsed:.0} s{eta}")),
            );
            self.table(ui);
        }
        let slurm = egui::CollapsingHeader::new("Run on a Slurm cluster (job array + merge)")
            .id_salt("bench_slurm")
            .show(ui, |ui| {
                let suite = PathBuf::from(self.suite.trim());
                let args = self.run_args(provider);
                self.slurm.show(ui, move || (suite, args))
            });
        opened.or(slurm.body_returned.flatten())
    }

    fn table(&self, ui: &mut egui::Ui) {
        let rows = self.live.rows.lock().unwrap_or_else(|p| p.into_inner()).clone();
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            egui::Grid::new("bench_run_rows").striped(true).num_columns(6).show(ui, |ui| {
                for h in ["instance", "state", "score", "tokens", "seconds", "errors"] {
                    ui.strong(h);
                }
                ui.end_row();
                for r in rows {
                    ui.label(&r.instance_id);
                    ui.label(match r.state {
                        RowState::Queued => "queued".to_string(),
                        RowState::Running { attempt: 1 } => "running".to_string(),
                        RowState::Running { attempt } => format!("running (attempt {attempt})"),
                        RowState::Done => "done".to_string(),
                        RowState::Kept => "kept (resumed)".to_string(),
                    });
                    ui.label(r.score.map_or(String::new(), |s| format!("{s:.0} / {:.0}", r.max)));
                    ui.label(if r.tokens > 0 { r.tokens.to_string() } else { String::new() });
                    ui.label(if r.seconds > 0.0 { format!("{:.1}", r.seconds) } else { String::new() });
                    ui.label(r.errors.join("; "));
                    ui.end_row();
                }
            });
        });
    }
}
