//! The Run view's Slurm section: submit the suite as a job array (the Run view's paradigm, model, workers and
//! limit become every shard's `bench run` options), then follow it: each array task's state, elapsed time and
//! instances done, the merge job, a progress bar; resubmit the shards that did not finish; open the merged
//! result. The same functions as `brainlens bench slurm --submit / --status / --resubmit-missing`.

use crate::harness::slurm::{self, SlurmOptions, Status, SubmitRequest};
use crate::ui::jobs::Job;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub struct SlurmPanel {
    pub shards: usize,
    pub out_dir: String,
    pub partition: String,
    pub account: String,
    pub qos: String,
    pub time: String,
    pub cpus: usize,
    pub mem: String,
    /// The binary the tasks run; None = this one (tests point it at the CLI binary).
    pub brainlens: Option<PathBuf>,
    pub(crate) action: Option<Job<String>>,
    pub(crate) query: Option<Job<Status>>,
    pub status: Option<Status>,
    /// The folder being followed (after a submission, or "Follow" on an existing one).
    pub following: Option<PathBuf>,
    last_query: Option<Instant>,
    pub message: Option<String>,
    pub error: Option<String>,
}

impl Default for SlurmPanel {
    fn default() -> Self {
        SlurmPanel {
            shards: 4,
            out_dir: crate::util::paths::cache_dir().join("bench/slurm").display().to_string(),
            partition: String::new(),
            account: String::new(),
            qos: String::new(),
            time: "12:00:00".into(),
            cpus: 2,
            mem: "8G".into(),
            brainlens: None,
            action: None,
            query: None,
            status: None,
            following: None,
            last_query: None,
            message: None,
            error: None,
        }
    }
}

fn opt(s: &str) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

impl SlurmPanel {
    pub fn busy(&self) -> bool {
        self.action.is_some() || self.query.is_some()
    }

    fn options(&self) -> SlurmOptions {
        SlurmOptions {
            shards: self.shards.max(1),
            partition: opt(&self.partition),
            time: self.time.trim().to_string(),
            cpus: self.cpus.max(1),
            mem: self.mem.trim().to_string(),
            account: opt(&self.account),
            qos: opt(&self.qos),
            ..Default::default()
        }
    }

    /// Submits `suite` with every shard running `run_args`.
    pub fn submit(&mut self, suite: PathBuf, run_args: Vec<String>) {
        let (dir, o, exe) = (PathBuf::from(self.out_dir.trim()), self.options(), self.brainlens.clone());
        self.error = None;
        self.following = Some(dir.clone());
        self.action = Some(Job::spawn("Slurm submit", 1, move |_, _| {
            let exe = match exe {
                Some(p) => p,
                None => std::env::current_exe()?,
            };
            let req = SubmitRequest {
                work: crate::harness::slurm::Work::Bench,
                brainlens: &exe,
                suite: &suite,
                expected: None,
                run_args: &run_args,
                dir: &dir,
                options: &o,
            };
            let jobs = slurm::submit(&req)?;
            let s =
                jobs.submissions.last().cloned().ok_or_else(|| anyhow::anyhow!("the submission was not recorded"))?;
            Ok(Some(format!(
                "submitted {} shard(s) as job array {} and the merge as job {}",
                jobs.shards,
                s.array_job.unwrap_or_default(),
                s.merge_job.unwrap_or_default()
            )))
        }));
    }

    fn resubmit(&mut self) {
        let Some(dir) = self.following.clone() else { return };
        self.error = None;
        self.action = Some(Job::spawn("Slurm resubmit", 1, move |_, _| {
            Ok(Some(match slurm::resubmit_missing(&dir)? {
                None => "every shard is complete and the result exists: nothing to resubmit".to_string(),
                Some(s) => format!(
                    "resubmitted shard(s) {:?} as job {} and a new merge (job {})",
                    s.tasks,
                    s.array_job.unwrap_or_else(|| "-".into()),
                    s.merge_job.unwrap_or_else(|| "-".into())
                ),
            }))
        }));
    }

    fn poll(&mut self) {
        if let Some(r) = self.action.as_mut().and_then(Job::poll) {
            self.action = None;
            match r {
                Ok(m) => self.message = m,
                Err(e) => self.error = Some(format!("{e:#}")),
            }
            self.last_query = None;
        }
        if let Some(r) = self.query.as_mut().and_then(Job::poll) {
            self.query = None;
            match r {
                Ok(s) => self.status = s,
                Err(e) => self.error = Some(format!("{e:#}")),
            }
        }
        // Follow: a status query every 3 s while jobs are active, on demand after.
        let due = self.last_query.is_none_or(|t| t.elapsed() > Duration::from_secs(3));
        let active = self.status.as_ref().is_none_or(|s| !s.settled());
        if let Some(dir) = self.following.clone()
            && self.action.is_none()
            && self.query.is_none()
            && due
            && active
        {
            self.last_query = Some(Instant::now());
            self.query = Some(Job::spawn("Slurm status", 1, move |_, _| Ok(Some(slurm::status(&dir)?))));
        }
    }

    /// Draws the section; `suite_and_args` gives the Run view's suite and run options when Submit is pressed.
    /// Returns the merged result to open in the dashboard.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        suite_and_args: impl FnOnce() -> (PathBuf, Vec<String>),
    ) -> Option<PathBuf> {
        self.poll();
        if self.following.is_some() {
            ui.ctx().request_repaint_after(Duration::from_millis(500));
        }
        let mut open = None;
        egui::Grid::new("bench_slurm_form").num_columns(2).show(ui, |ui| {
            let l = ui.label("Shards (array tasks)");
            ui.add(egui::DragValue::new(&mut self.shards).range(1..=1000)).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Output folder");
            ui.add(egui::TextEdit::singleline(&mut self.out_dir).desired_width(460.0)).labelled_by(l.id);
            ui.end_row();
            ui.label("sbatch");
            ui.horizontal_wrapped(|ui| {
                for (name, v, w) in [
                    ("partition", &mut self.partition, 90.0),
                    ("account", &mut self.account, 90.0),
                    ("qos", &mut self.qos, 70.0),
                    ("time", &mut self.time, 70.0),
                    ("mem", &mut self.mem, 50.0),
                ] {
                    let l = ui.label(name);
                    ui.add(egui::TextEdit::singleline(v).desired_width(w)).labelled_by(l.id);
                }
                let l = ui.label("cpus");
                ui.add(egui::DragValue::new(&mut self.cpus).range(1..=256)).labelled_by(l.id);
            });
            ui.end_row();
        });
        ui.horizontal(|ui| {
            if ui.add_enabled(self.action.is_none(), egui::Button::new("Submit to Slurm")).clicked() {
                let (suite, args) = suite_and_args();
                self.submit(suite, args);
            }
            if ui.add_enabled(self.action.is_none(), egui::Button::new("Follow folder")).clicked() {
                self.following = Some(PathBuf::from(self.out_dir.trim()));
                self.status = None;
                self.last_query = None;
            }
            let can_resubmit =
                self.status.as_ref().is_some_and(|s| s.settled() && (!s.incomplete().is_empty() || s.result.is_none()));
            if ui
                .add_enabled(self.action.is_none() && can_resubmit, egui::Button::new("Resubmit missing shards"))
                .clicked()
            {
                self.resubmit();
            }
            if self.busy() {
                ui.spinner();
            }
        });
        ui.label(
            "Remote providers: the tasks read the API key from BRAINLENS_API_KEY in the environment sbatch passes on.",
        );
        if let Some(e) = &self.error {
            ui.colored_label(egui::Color32::from_rgb(220, 60, 60), format!("Error: {e}"));
        }
        if let Some(m) = &self.message {
            ui.label(m);
        }
        if let Some(s) = &self.status {
            ui.add(
                egui::ProgressBar::new(s.fraction())
                    .text(format!("{}/{} instances · merge {}", s.done, s.expected, s.merge_state)),
            );
            egui::Grid::new("bench_slurm_status").striped(true).num_columns(5).show(ui, |ui| {
                for h in ["shard", "job", "state", "elapsed", "instances"] {
                    ui.strong(h);
                }
                ui.end_row();
                for sh in &s.shards {
                    ui.label(sh.index.to_string());
                    ui.label(sh.job.as_deref().unwrap_or("-"));
                    ui.label(if sh.reason.is_empty() || sh.reason == "None" {
                        sh.state.clone()
                    } else {
                        format!("{} ({})", sh.state, sh.reason)
                    });
                    ui.label(&sh.elapsed);
                    ui.label(format!("{}/{}", sh.done, sh.expected));
                    ui.end_row();
                }
                ui.label("merge");
                ui.label(s.merge_job.as_deref().unwrap_or("-"));
                ui.label(&s.merge_state);
                ui.label("");
                ui.label("");
                ui.end_row();
            });
            if s.settled() && !s.incomplete().is_empty() {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("shard(s) {:?} did not finish: Resubmit missing shards reruns only those", s.incomplete()),
                );
            }
            if let Some(r) = &s.result
                && s.merge_state == "COMPLETED"
                && ui.button("Open merged result").clicked()
            {
                open = Some(r.clone());
            }
        }
        open
    }
}
