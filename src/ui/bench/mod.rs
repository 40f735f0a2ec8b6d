//! The Bench room: open BrainBench result files or folders, then read the leaderboard, the charts of the
//! BrainBench paper (unit radar, mode-gap and task heatmaps, difficulty table with Δ and DAI, MPAD, score
//! histograms, tokens), and browse instances down to each metric's ground truth and prediction.

mod agent_trace;
pub mod audit;
mod charts;
pub mod compare;
mod data;
mod files;
mod instances;
mod leaderboard;
pub mod run;
pub mod slurm;

pub use data::Loaded;
pub use leaderboard::{columns as leaderboard_columns, sorted_models as leaderboard_order};

use crate::bench::aggregate::Levels;
use crate::llm::config::ProviderConfig;
use crate::ui::jobs::{Job, cancel_all, running};
use crate::ui::room::{JobStatus, Room, Shell};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Leaderboard,
    Charts,
    Instances,
    Compare,
    Files,
    Run,
    Audit,
}

/// State of the Bench room.
pub struct BenchRoom {
    pub data: Option<Loaded>,
    pub(crate) job: Option<Job<Loaded>>,
    pub error: Option<String>,
    pub message: Option<String>,
    pub view: View,
    pub path_field: String,
    pub levels: Levels,
    pub leaderboard: leaderboard::State,
    pub charts: charts::State,
    pub instances: instances::State,
    pub compare: compare::State,
    pub files: files::State,
    pub run: run::RunPanel,
    pub audit: audit::AuditPanel,
    /// `instance:N` from `--bench-view`: select instance N of the first run once loaded.
    pending_instance: Option<usize>,
    /// The demo collection is opened the first time the room is shown with nothing loaded.
    demo_offered: bool,
    cycle: usize,
    /// Widget actions of this frame, applied after it (`apply_commands`).
    pub commands: Vec<Cmd>,
}

/// What the Bench room's widgets ask for, queued while the frame is drawn and applied after it (as the
/// Recordings room's `Cmd`).
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Load result files or folders (replacing what is open).
    Open(Vec<PathBuf>),
    /// Recompute the aggregates (levels edited, a run included or excluded in Files).
    RebuildReport,
}

impl Default for BenchRoom {
    fn default() -> Self {
        BenchRoom {
            data: None,
            job: None,
            error: None,
            message: None,
            view: View::Leaderboard,
            path_field: String::new(),
            levels: Levels::default(),
            leaderboard: Default::default(),
            charts: Default::default(),
            instances: Default::default(),
            compare: Default::default(),
            files: Default::default(),
            run: Default::default(),
            audit: Default::default(),
            pending_instance: None,
            demo_offered: false,
            cycle: 0,
            commands: Vec::new(),
        }
    }
}

/// The demo collection shipped with the sample workspace (simulated results).
pub fn demo_results() -> PathBuf {
    crate::util::paths::bundled("fixtures/bench/demo/results")
}

/// The real runs shipped with the sample workspace (the local suite run by real models:
/// `scripts/bench/real_demo.sh`, provenance in its README).
pub fn real_results() -> PathBuf {
    crate::util::paths::bundled("fixtures/bench/real")
}

/// What the room opens first: the shipped real runs when there are any, else the simulated demo.
pub fn first_collection() -> Option<PathBuf> {
    let real = real_results();
    if crate::bench::collection::result_files(&real).is_ok_and(|f| !f.is_empty()) {
        Some(real)
    } else {
        Some(demo_results()).filter(|d| d.is_dir())
    }
}

impl BenchRoom {
    /// Applies the commands the frame queued.
    pub fn apply_commands(&mut self) {
        for c in std::mem::take(&mut self.commands) {
            match c {
                Cmd::Open(paths) => self.open(paths),
                Cmd::RebuildReport => {
                    if let Some(d) = &mut self.data {
                        d.rebuild_report(self.levels);
                    }
                }
            }
        }
    }

    /// Loads result files or folders in the background; the current collection stays until it is done.
    pub fn open(&mut self, paths: Vec<PathBuf>) {
        self.demo_offered = true;
        let levels = self.levels;
        self.error = None;
        self.job = Some(Job::spawn("Loading results", 1, move |_, _| Ok(Some(Loaded::load(paths, levels)))));
    }

    /// Blocks until a pending load has finished (tests and screenshots).
    /// Selects a view by name (`leaderboard`, `instances`, `compare` or `compare:A,B[:ROW]`, `files`, or a chart: `radar`, `mode-gap`, `tasks`,
    /// `agreement`, `difficulty`, `mpad`, `histograms`, `tokens`); false for an unknown name.
    pub fn select_view(&mut self, name: &str) -> bool {
        let chart = |c| (View::Charts, Some(c));
        let (view, c) = match name {
            "leaderboard" => (View::Leaderboard, None),
            "instances" => (View::Instances, None),
            "compare" => (View::Compare, None),
            // `compare:A,B` or `compare:A,B:ROW` (run indices, a shared-instance row whose traces open).
            other if other.starts_with("compare:") => {
                let mut parts = other[8..].split(':');
                let runs: Vec<Option<usize>> =
                    parts.next().unwrap_or("").split(',').map(|x| x.trim().parse().ok()).collect();
                let row = parts.next().map(|r| r.trim().parse::<usize>().ok());
                match (runs.as_slice(), row) {
                    ([Some(a), Some(b)], None | Some(Some(_))) => {
                        (self.compare.a, self.compare.b) = (Some(*a), Some(*b));
                        self.compare.pending_row = row.flatten();
                        (View::Compare, None)
                    }
                    _ => return false,
                }
            }
            "files" => (View::Files, None),
            "run" => (View::Run, None),
            other if other.starts_with("instance:") => match other[9..].parse() {
                Ok(n) => {
                    self.pending_instance = Some(n);
                    (View::Instances, None)
                }
                Err(_) => return false,
            },
            "radar" => chart(charts::Chart::Radar),
            "mode-gap" => chart(charts::Chart::ModeGap),
            "tasks" => chart(charts::Chart::Tasks),
            "agreement" => chart(charts::Chart::Agreement),
            "difficulty" => chart(charts::Chart::Difficulty),
            "mpad" => chart(charts::Chart::Mpad),
            "histograms" => chart(charts::Chart::Histograms),
            "tokens" => chart(charts::Chart::Tokens),
            _ => return false,
        };
        self.view = view;
        if let Some(c) = c {
            self.charts.chart = c;
        }
        true
    }

    /// Frame-time measurement: shows the next view each call; the instance browser re-filters every time it
    /// comes round.
    pub fn cycle_view(&mut self) {
        const ORDER: [&str; 10] = [
            "leaderboard",
            "radar",
            "mode-gap",
            "tasks",
            "agreement",
            "difficulty",
            "mpad",
            "histograms",
            "tokens",
            "instances",
        ];
        self.cycle = (self.cycle + 1) % ORDER.len();
        self.select_view(ORDER[self.cycle]);
        if ORDER[self.cycle] == "instances" {
            self.instances.filter.errors_only = !self.instances.filter.errors_only;
        }
    }

    pub fn finish_loading(&mut self) {
        while self.job.is_some() {
            self.poll();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    fn poll(&mut self) {
        let Some(job) = &mut self.job else { return };
        let Some(result) = job.poll() else { return };
        self.job = None;
        match result {
            Ok(Some(loaded)) => {
                if loaded.collection.runs.is_empty() {
                    self.error = Some(format!(
                        "no readable result files in {}{}",
                        loaded.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
                        loaded.collection.not_read().map(|l| format!(" — {l}")).unwrap_or_default()
                    ));
                    return;
                }
                self.message = Some(format!(
                    "{} result files, {} instances loaded in {:.2} s{}",
                    loaded.collection.runs.len(),
                    loaded.collection.instance_count(),
                    loaded.load_seconds,
                    match loaded.collection.not_read() {
                        None => String::new(),
                        Some(line) if loaded.collection.problems.is_empty() => format!("; {line}"),
                        Some(line) => format!("; {line}: {}", loaded.collection.problems.join("; ")),
                    }
                ));
                self.instances = Default::default();
                self.compare.loaded();
                self.instances.selected = self.pending_instance.take().map(|n| (0, n));
                self.data = Some(loaded);
            }
            Ok(None) => {}
            Err(e) => self.error = Some(format!("{e:#}")),
        }
    }

    pub fn loading(&self) -> bool {
        self.job.is_some()
    }

    fn draw(&mut self, ui: &mut egui::Ui, provider: &ProviderConfig) {
        if !self.demo_offered && self.data.is_none() && self.job.is_none() {
            self.demo_offered = true;
            if let Some(first) = first_collection() {
                self.commands.push(Cmd::Open(vec![first]));
            }
        }
        self.poll();
        if self.loading() {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(30));
        }
        self.toolbar(ui);
        if let Some(e) = &self.error {
            ui.colored_label(egui::Color32::from_rgb(220, 60, 60), format!("Error: {e}"));
        }
        if self.view == View::Run {
            ui.separator();
            if let Some(done) = self.run.show(ui, provider) {
                self.commands.push(Cmd::Open(vec![done]));
            }
            return;
        }
        let Some(data) = &mut self.data else {
            ui.add_space(20.0);
            ui.label(
                "No results open. Use Open files…, Open folder…, drop result files here, or open the demo collection.",
            );
            return;
        };
        if data.report.simulated {
            egui::Frame::new().fill(egui::Color32::from_rgb(253, 230, 138)).inner_margin(4.0).show(ui, |ui| {
                ui.colored_label(
                    egui::Color32::BLACK,
                    "Simulated results: this collection comes from a seeded simulation (scripts/bench/make_demo.py); no model was run.",
                );
            });
        }
        let real = data.collection.provenance();
        if !real.is_empty() {
            ui.label(format!(
                "Real runs: {} result file(s) produced by language models (their reports and scores, not measurements)",
                real.len()
            ));
            for line in &real {
                ui.weak(format!("  {line}"));
            }
        }
        if let Some(w) = data.collection.report_mode_warning() {
            ui.colored_label(egui::Color32::from_rgb(200, 120, 0), format!("Warning: {w}"));
        }
        ui.separator();
        match self.view {
            View::Leaderboard => leaderboard::show(ui, data, &mut self.leaderboard, &mut self.message),
            View::Charts => {
                if self.charts.chart == charts::Chart::Difficulty && levels_editor(ui, &mut self.levels) {
                    self.commands.push(Cmd::RebuildReport);
                }
                charts::show(ui, data, &mut self.charts, &mut self.message)
            }
            View::Instances => instances::show(ui, data, &mut self.instances),
            View::Compare => compare::show(ui, data, &mut self.compare, &mut self.message),
            View::Files => {
                if files::show(ui, data, &mut self.files) {
                    self.commands.push(Cmd::RebuildReport);
                }
            }
            View::Audit => self.audit.show(ui, data, provider),
            View::Run => {}
        }
    }

    fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open files…").clicked() {
                if let Some(files) =
                    rfd::FileDialog::new().add_filter("BrainBench results", &["json", "jsonl"]).pick_files()
                {
                    self.commands.push(Cmd::Open(files));
                }
            }
            if ui.button("Open folder…").clicked() {
                if let Some(dir) = rfd::FileDialog::new().pick_folder() {
                    self.commands.push(Cmd::Open(vec![dir]));
                }
            }
            if real_results().is_dir() && ui.button("Open real runs").clicked() {
                self.commands.push(Cmd::Open(vec![real_results()]));
            }
            if ui.button("Open demo (simulated)").clicked() {
                self.commands.push(Cmd::Open(vec![demo_results()]));
            }
            let label = ui.label("Path:");
            let field =
                ui.add(egui::TextEdit::singleline(&mut self.path_field).desired_width(220.0)).labelled_by(label.id);
            if (field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter))) || ui.button("Open path").clicked()
            {
                if !self.path_field.trim().is_empty() {
                    self.commands.push(Cmd::Open(vec![PathBuf::from(self.path_field.trim())]));
                }
            }
            if let Some(data) = &self.data
                && ui
                    .button("Export tables (CSV)…")
                    .on_hover_text("every table of the report as CSV files in a folder")
                    .clicked()
                && let Some(dir) = rfd::FileDialog::new().pick_folder()
            {
                self.message = Some(match crate::bench::aggregate::write_csv_tables(&data.report, &dir) {
                    Ok(files) => format!("wrote {} CSV tables to {}", files.len(), dir.display()),
                    Err(e) => format!("{}: cannot write: {e}", dir.display()),
                });
            }
            if let Some(data) = &self.data
                && ui
                    .button("Paper output…")
                    .on_hover_text(
                        "every table as LaTeX (booktabs; tables.tex sets them all) and every chart as SVG and \
                         300-dpi PNG, in a folder (as bench report --latex DIR --figures DIR)",
                    )
                    .clicked()
                && let Some(dir) = rfd::FileDialog::new().pick_folder()
            {
                self.message = Some(paper_output(&data.report, &dir));
            }
            ui.separator();
            for (v, name) in [
                (View::Leaderboard, "Leaderboard"),
                (View::Charts, "Charts"),
                (View::Instances, "Instances"),
                (View::Compare, "Compare"),
                (View::Files, "Files"),
                (View::Audit, "Parser audit"),
                (View::Run, "Run"),
            ] {
                ui.selectable_value(&mut self.view, v, name);
            }
            if self.loading() {
                ui.spinner();
            }
        });
    }
}

/// The difficulty mapping (case `difficult` value → easy / medium / hard); true when it changed.
fn levels_editor(ui: &mut egui::Ui, levels: &mut Levels) -> bool {
    let before = (levels.easy_max, levels.medium_max);
    ui.horizontal(|ui| {
        let l = ui.label("easy up to");
        ui.add(egui::DragValue::new(&mut levels.easy_max).speed(0.1).range(0.0..=100.0)).labelled_by(l.id);
        let l = ui.label("medium up to");
        ui.add(egui::DragValue::new(&mut levels.medium_max).speed(0.1).range(0.0..=100.0)).labelled_by(l.id);
        ui.weak("(difficulty values above are hard)");
    });
    if levels.medium_max < levels.easy_max {
        levels.medium_max = levels.easy_max;
    }
    before != (levels.easy_max, levels.medium_max)
}

impl Room for BenchRoom {
    fn show(&mut self, ui: &mut egui::Ui, shell: &mut Shell) {
        self.draw(ui, shell.provider);
        self.apply_commands();
    }

    fn status(&self) -> String {
        if let Some(e) = &self.error {
            return format!("Error: {e}");
        }
        if self.loading() {
            return "Loading result files…".into();
        }
        if let Some(m) = &self.message {
            return m.clone();
        }
        match &self.data {
            Some(d) => format!("{} result files, {} instances", d.collection.runs.len(), d.collection.instance_count()),
            None => "Open BrainBench result files (.json / .jsonl) or a folder of them".into(),
        }
    }

    fn jobs(&self) -> Vec<JobStatus> {
        let mut jobs = running(&[&self.job, &self.run.job, &self.run.generating]);
        jobs.extend(self.audit.job.iter().map(|j| (j.name.clone(), j.fraction())));
        jobs
    }

    fn cancel(&mut self) {
        cancel_all(&[&self.job, &self.run.job, &self.run.generating]);
        if let Some(j) = &self.audit.job {
            j.cancel();
        }
    }

    fn settled(&self) -> bool {
        !self.loading() && !self.run.busy() && self.audit.job.is_none() && self.commands.is_empty()
    }
}

/// Writes the report's LaTeX tables into `dir/tables` and its figures into `dir/figures`; the message says what.
pub fn paper_output(r: &crate::bench::aggregate::Report, dir: &std::path::Path) -> String {
    let tables = crate::bench::aggregate::write_latex_tables(r, &dir.join("tables"));
    let figures = crate::bench::aggregate::figures::write_figures(r, &dir.join("figures"));
    match (tables, figures) {
        (Ok(t), Ok(f)) => format!("wrote {} LaTeX files and {} figure files under {}", t.len(), f.len(), dir.display()),
        (Err(e), _) => format!("{}: cannot write the tables: {e}", dir.display()),
        (_, Err(e)) => format!("cannot write the figures: {e}"),
    }
}
