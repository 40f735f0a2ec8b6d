//! The Cohort window of the Networks room: import a cohort folder (ABIDE Preprocessed, ADHD-200, or time
//! series + a phenotype table) into a cohort file with a progress bar and Stop, or open a cohort file; then
//! its summary (subjects, labels, sites, how it was made), every flagged subject with the reason, and the
//! cohort table (subject, label, sex, age, site, volumes, flags), each subject's connectome one click on its name away.
//! A cohort model trained on the open file (cohort_train.rs). The same as `brainlens cohort import|show|train`.

use crate::network::Connectome;
use crate::network::cohort::{self, Cohort, ImportOptions, Kind, Regions, file};
use crate::network::connectome::Asymmetry;
use crate::ui::jobs::Job;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// Progress units of an import (the fraction of subjects done, in thousandths).
const STEPS: u64 = 1000;

pub struct CohortPanel {
    pub open: bool,
    pub folder: String,
    /// Empty: the layout's own table.
    pub phenotype: String,
    /// A column mapping for a table that is neither ABIDE's nor ADHD-200's (all blank: the preset).
    pub id_column: String,
    pub label_column: String,
    /// `VALUE=LABEL` pairs, e.g. `1=ASD,2=HC`.
    pub label_values: String,
    pub task: String,
    /// `None`: AAL-90 for AAL-116 input, else every region.
    pub regions: Option<Regions>,
    pub kind: Kind,
    pub keep_flagged: bool,
    /// The cohort file to write (empty: one in the cache named after the folder and the kind).
    pub out: String,
    /// A cohort file to open.
    pub file_field: String,
    pub(crate) job: Option<Job<(PathBuf, Cohort)>>,
    pub cohort: Option<(PathBuf, Cohort)>,
    pub error: Option<String>,
    /// The cohort model trained on the open cohort file.
    pub train: super::cohort_train::CohortTrain,
}

impl Default for CohortPanel {
    fn default() -> Self {
        CohortPanel {
            open: false,
            folder: String::new(),
            phenotype: String::new(),
            id_column: String::new(),
            label_column: String::new(),
            label_values: String::new(),
            task: String::new(),
            regions: None,
            kind: Kind::Correlation,
            keep_flagged: false,
            out: String::new(),
            file_field: String::new(),
            job: None,
            cohort: None,
            error: None,
            train: Default::default(),
        }
    }
}

/// Where an import writes when no file is named: `<cache>/cohorts/<folder>-<kind>.npz`.
pub fn default_out(folder: &str, kind: Kind) -> PathBuf {
    let name = std::path::Path::new(folder.trim()).file_name().map_or("cohort".into(), |n| n.to_string_lossy());
    crate::util::paths::cache_dir().join("cohorts").join(format!("{name}-{}.npz", kind.name()))
}

impl CohortPanel {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    /// Starts the import of the folder field's cohort.
    pub fn start_import(&mut self) {
        let folder = PathBuf::from(self.folder.trim());
        let out = if self.out.trim().is_empty() {
            default_out(&self.folder, self.kind)
        } else {
            PathBuf::from(self.out.trim())
        };
        let custom = [&self.id_column, &self.label_column, &self.label_values, &self.task];
        let spec = if custom.iter().all(|f| f.trim().is_empty()) {
            None
        } else {
            match cohort::phenotype::Spec::custom(
                &self.id_column,
                &self.label_column,
                &self.label_values,
                &self.task,
                "",
                "",
                "",
            ) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.error = Some(e.to_string());
                    return;
                }
            }
        };
        let opts = ImportOptions {
            spec,
            regions: self.regions,
            kind: self.kind,
            phenotype: (!self.phenotype.trim().is_empty()).then(|| PathBuf::from(self.phenotype.trim())),
            keep_flagged: self.keep_flagged,
            ..Default::default()
        };
        self.error = None;
        self.job = Some(Job::spawn("Cohort import", STEPS, move |progress, cancel| {
            let step = |done: usize, total: usize| {
                progress.store((done as u64 * STEPS) / total.max(1) as u64, Ordering::Relaxed);
            };
            let c = match cohort::import(&folder, &opts, &step, cancel) {
                Err(crate::network::error::NetworkError::Cancelled) => return Ok(None),
                r => r?,
            };
            if let Some(dir) = out.parent() {
                std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            }
            file::write(&out, &c)?;
            Ok(Some((out, c)))
        }));
    }

    /// Opens a cohort file in the background (errors are shown in the window).
    pub fn open_file(&mut self, path: PathBuf) {
        self.open = true;
        self.error = None;
        self.file_field = path.display().to_string();
        self.job = Some(Job::spawn("Opening a cohort", 1, move |_, _| {
            let c = file::read(&path)?;
            Ok(Some((path, c)))
        }));
    }

    /// Subject `i`'s connectome, labelled with the cohort's regions; a subject with undefined (NaN) entries
    /// is refused with its flags (a graph of it would need numbers it does not have).
    pub fn subject_connectome(&self, i: usize) -> Result<(PathBuf, Connectome), String> {
        let Some((path, c)) = self.cohort.as_ref() else { return Err("no cohort open".into()) };
        let name = path.with_extension(format!("npz#{}", c.ids[i]));
        if c.matrix(i).iter().any(|v| v.is_nan()) {
            return Err(format!("{}: undefined entries ({}): not shown as a network", c.ids[i], c.flags[i]));
        }
        let m = Connectome::from_matrix(
            &name.display().to_string(),
            c.r,
            c.r,
            c.matrix(i).to_vec(),
            Some(c.region_labels.clone()),
            Asymmetry::Directed,
        )
        .map_err(|e| e.to_string())?;
        Ok((name, m))
    }

    fn poll(&mut self, ctx: &egui::Context) {
        let Some(j) = &mut self.job else { return };
        match j.poll() {
            Some(Ok(Some(done))) => {
                self.file_field = done.0.display().to_string();
                self.cohort = Some(done);
                self.job = None;
            }
            Some(Ok(None)) => {
                self.error = Some("import stopped; nothing written".into());
                self.job = None;
            }
            Some(Err(e)) => {
                self.error = Some(format!("{e:#}"));
                self.job = None;
            }
            None => ctx.request_repaint_after(std::time::Duration::from_millis(50)),
        }
    }

    /// Draws the window; returns the subject whose connectome the room should show.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<usize> {
        if !self.open {
            return None;
        }
        self.poll(ctx);
        let mut open = self.open;
        let mut chosen = None;
        egui::Window::new("Cohort").open(&mut open).default_width(760.0).default_height(560.0).show(ctx, |ui| {
            self.inputs(ui);
            if let Some(e) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
            }
            if let Some((path, c)) = &self.cohort {
                self.train.show(ui, path, &c.provenance.task);
            }
            ui.separator();
            chosen = self.table(ui);
        });
        self.open = open;
        chosen
    }

    fn inputs(&mut self, ui: &mut egui::Ui) {
        let busy = self.busy();
        egui::CollapsingHeader::new("Import a cohort folder").default_open(self.cohort.is_none()).show(ui, |ui| {
            egui::Grid::new("cohort import").num_columns(2).show(ui, |ui| {
                let l = ui.label("Folder");
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut self.folder).desired_width(420.0)).labelled_by(l.id);
                    if ui.button("Choose…").clicked()
                        && let Some(p) = rfd::FileDialog::new().pick_folder()
                    {
                        self.folder = p.display().to_string();
                    }
                });
                ui.end_row();
                let l = ui.label("Phenotype table");
                ui.add(
                    egui::TextEdit::singleline(&mut self.phenotype)
                        .hint_text("the layout's own (ABIDE, ADHD-200)")
                        .desired_width(420.0),
                )
                .labelled_by(l.id);
                ui.end_row();
                ui.label("Columns");
                ui.horizontal(|ui| {
                    for (name, field, width) in [
                        ("id column", &mut self.id_column, 90.0),
                        ("label column", &mut self.label_column, 90.0),
                        ("label values", &mut self.label_values, 110.0),
                        ("task", &mut self.task, 50.0),
                    ] {
                        ui.add(egui::TextEdit::singleline(field).hint_text(name).desired_width(width)).on_hover_text(
                            "for a table that is neither ABIDE's nor ADHD-200's; label values as 1=ASD,2=HC",
                        );
                    }
                });
                ui.end_row();
                ui.label("Regions");
                egui::ComboBox::from_id_salt("cohort regions")
                    .selected_text(match self.regions {
                        None => "AAL-90 for AAL-116, else all",
                        Some(Regions::All) => "all",
                        Some(Regions::Aal90) => "AAL-90",
                    })
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.regions, None, "AAL-90 for AAL-116, else all");
                        ui.selectable_value(&mut self.regions, Some(Regions::All), "all");
                        ui.selectable_value(&mut self.regions, Some(Regions::Aal90), "AAL-90");
                    });
                ui.end_row();
                ui.label("Connectivity");
                egui::ComboBox::from_id_salt("cohort kind").selected_text(self.kind.name()).show_ui(ui, |ui| {
                    for k in [Kind::Correlation, Kind::Pearson, Kind::Partial, Kind::Tangent] {
                        ui.selectable_value(&mut self.kind, k, k.name()).on_hover_text(k.method());
                    }
                });
                ui.end_row();
                let l = ui.label("Cohort file");
                ui.add(
                    egui::TextEdit::singleline(&mut self.out)
                        .hint_text(default_out(&self.folder, self.kind).display().to_string())
                        .desired_width(420.0),
                )
                .labelled_by(l.id);
                ui.end_row();
            });
            ui.horizontal(|ui| {
                ui.checkbox(&mut self.keep_flagged, "Keep flagged subjects (undefined entries NaN)");
                let can = !busy && !self.folder.trim().is_empty();
                if ui.add_enabled(can, egui::Button::new("Import")).clicked() {
                    self.start_import();
                }
                if let Some(j) = self.job.as_ref().filter(|j| j.is_running()) {
                    ui.add(egui::ProgressBar::new(j.fraction()).desired_width(180.0).show_percentage());
                    if ui.button("Stop").clicked() {
                        j.cancel();
                    }
                }
            });
        });
        ui.horizontal(|ui| {
            let l = ui.label("Open a cohort file");
            ui.add(egui::TextEdit::singleline(&mut self.file_field).desired_width(380.0)).labelled_by(l.id);
            if ui.add_enabled(!busy, egui::Button::new("Open")).clicked() && !self.file_field.trim().is_empty() {
                self.open_file(PathBuf::from(self.file_field.trim()));
            }
            if ui.add_enabled(!busy, egui::Button::new("Browse…")).clicked()
                && let Some(p) = rfd::FileDialog::new().add_filter("Cohort", &["npz"]).pick_file()
            {
                self.open_file(p);
            }
        });
    }

    /// Summary, flagged subjects and the table; returns a subject whose Open was clicked.
    fn table(&mut self, ui: &mut egui::Ui) -> Option<usize> {
        let Some((path, c)) = &self.cohort else {
            ui.label("No cohort open: import a folder or open a cohort file (.npz).");
            return None;
        };
        let p = &c.provenance;
        ui.strong(format!(
            "{}: {} subjects, {} regions ({}), task {}",
            path.display(),
            c.len(),
            c.r,
            p.regions,
            p.task
        ));
        let counts: Vec<String> = c.label_counts().iter().map(|(l, n)| format!("{l} {n}")).collect();
        let sites = c.site_counts().len();
        ui.label(format!("Labels: {} · {sites} sites · from {} ({})", counts.join(", "), p.source, p.layout));
        ui.label(format!("Connectivity: {}", p.method));
        let left_out = c.flagged.iter().filter(|f| !f.kept).count();
        egui::CollapsingHeader::new(format!(
            "Flagged: {} ({} left out, {} kept)",
            c.flagged.len(),
            left_out,
            c.flagged.len() - left_out
        ))
        .id_salt("cohort flagged")
        .show(ui, |ui| {
            for f in &c.flagged {
                ui.label(format!("{} [{}]: {}", f.subject, if f.kept { "kept" } else { "left out" }, f.reason));
            }
        });
        ui.separator();
        let widths = [170.0, 50.0, 55.0, 45.0, 90.0, 55.0];
        let head = ["subject", "label", "sex", "age", "site", "volumes"];
        ui.horizontal(|ui| {
            for (h, w) in head.iter().zip(widths) {
                ui.add_sized([w, 18.0], egui::Label::new(egui::RichText::new(*h).strong()));
            }
            ui.label(egui::RichText::new("flags").strong());
        });
        let mut chosen = None;
        let row_h = ui.spacing().interact_size.y;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show_rows(ui, row_h, c.len(), |ui, rows| {
            for i in rows {
                ui.horizontal(|ui| {
                    let age = if c.age[i].is_nan() { "-".to_string() } else { format!("{:.1}", c.age[i]) };
                    let subject = ui.add_sized([widths[0], row_h], egui::Link::new(c.ids[i].as_str()));
                    if subject.on_hover_text("show this subject's connectome in the room").clicked() {
                        chosen = Some(i);
                    }
                    let cells = [c.labels[i].clone(), c.sex[i].clone(), age, c.site[i].clone()];
                    for (text, w) in cells.iter().zip(&widths[1..]) {
                        ui.add_sized([*w, row_h], egui::Label::new(text.as_str()).truncate());
                    }
                    ui.add_sized([widths[5], row_h], egui::Label::new(c.volumes[i].to_string()));
                    if !c.flags[i].is_empty() {
                        ui.colored_label(ui.visuals().warn_fg_color, &c.flags[i]);
                    }
                });
            }
        });
        chosen
    }
}
