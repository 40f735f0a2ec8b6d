//! The Recordings room's BIDS window: export the open recording (with its edited annotations) into a
//! BIDS-EEG dataset, and browse a dataset's recordings by subject, session, task and run — a click opens one,
//! with its `events.tsv` as annotations and its `channels.tsv` bad channels.

use super::{Cmd, OpenRecording};
use crate::signal::bids::Entities;
use crate::signal::bids::dataset::{BidsRecording, recordings};
use crate::signal::bids::export::{BidsData, ExportSpec, export};
use std::path::PathBuf;

/// The window's fields and the dataset last listed.
pub struct BidsPanel {
    pub open: bool,
    pub root: String,
    pub subject: String,
    pub session: String,
    pub task: String,
    pub run: String,
    pub brainvision: bool,
    pub line_freq: String,
    pub listed: Vec<BidsRecording>,
    pub message: Option<String>,
    pub error: Option<String>,
}

impl Default for BidsPanel {
    fn default() -> Self {
        Self {
            open: false,
            root: String::new(),
            subject: "01".into(),
            session: String::new(),
            task: "rest".into(),
            run: String::new(),
            brainvision: false,
            line_freq: String::new(),
            listed: Vec::new(),
            message: None,
            error: None,
        }
    }
}

impl BidsPanel {
    /// Lists the dataset at `root`.
    pub fn list(&mut self) {
        match recordings(&PathBuf::from(self.root.trim())) {
            Ok(l) => {
                self.message = Some(format!("{} recordings", l.len()));
                self.listed = l;
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Exports `o` into the dataset, then lists it.
    pub fn export(&mut self, o: &OpenRecording) {
        let opt = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
        let line_freq = match opt(&self.line_freq).map(|s| s.parse::<f64>()) {
            None => None,
            Some(Ok(f)) if f > 0.0 => Some(f),
            Some(_) => {
                self.error = Some(format!("line frequency {:?} is not a number of Hz", self.line_freq));
                return;
            }
        };
        let root = PathBuf::from(self.root.trim());
        let spec = ExportSpec {
            root: &root,
            entities: Entities {
                subject: self.subject.trim().into(),
                session: opt(&self.session),
                task: self.task.trim().into(),
                run: opt(&self.run),
            },
            data: if self.brainvision { BidsData::BrainVision } else { BidsData::EdfOrBdf },
            line_freq,
            reference: None,
        };
        match export(&o.rec, o.annotations.items(), &spec) {
            Ok(files) => {
                self.list();
                self.message = Some(format!("Exported {} files; the data file is {}", files.len(), files[0].display()));
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }
}

/// Draws the window.
pub fn window(ctx: &egui::Context, p: &mut BidsPanel, current: Option<&OpenRecording>, cmds: &mut Vec<Cmd>) {
    let mut open = p.open;
    egui::Window::new("BIDS").open(&mut open).default_size([460.0, 420.0]).show(ctx, |ui| {
        ui.horizontal(|ui| {
            let l = ui.label("Dataset folder").id;
            ui.add(egui::TextEdit::singleline(&mut p.root).desired_width(280.0)).labelled_by(l);
            if ui.button("List recordings").clicked() {
                p.list();
            }
        });
        ui.separator();
        ui.strong("Export the open recording");
        egui::Grid::new("bids_entities").num_columns(2).show(ui, |ui| {
            for (label, field) in [
                ("Subject", &mut p.subject),
                ("Session", &mut p.session),
                ("Task", &mut p.task),
                ("Run", &mut p.run),
                ("Line frequency (Hz)", &mut p.line_freq),
            ] {
                let l = ui.label(label).id;
                ui.add(egui::TextEdit::singleline(field).desired_width(120.0)).labelled_by(l);
                ui.end_row();
            }
        });
        ui.checkbox(&mut p.brainvision, "BrainVision data (else EDF+/BDF+)");
        match current {
            Some(o) => {
                if ui.button("Export to BIDS").clicked() {
                    p.export(o);
                }
            }
            None => {
                ui.label("Open a recording to export it.");
            }
        }
        if let Some(m) = &p.message {
            ui.label(m);
        }
        if let Some(e) = &p.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        ui.separator();
        egui::ScrollArea::vertical().max_height(200.0).show(ui, |ui| tree(ui, &p.listed, cmds));
    });
    p.open = open;
}

/// Subjects → sessions → task/run buttons.
fn tree(ui: &mut egui::Ui, listed: &[BidsRecording], cmds: &mut Vec<Cmd>) {
    let mut subjects: Vec<&str> = listed.iter().map(|r| r.subject.as_str()).collect();
    subjects.dedup();
    for s in subjects {
        egui::CollapsingHeader::new(format!("sub-{s}")).default_open(true).show(ui, |ui| {
            let mine: Vec<&BidsRecording> = listed.iter().filter(|r| r.subject == s).collect();
            let mut sessions: Vec<Option<&str>> = mine.iter().map(|r| r.session.as_deref()).collect();
            sessions.dedup();
            for ses in sessions {
                let runs = mine.iter().filter(|r| r.session.as_deref() == ses);
                let show = |ui: &mut egui::Ui| {
                    for r in runs {
                        let ext = r.path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
                        let name = format!(
                            "task-{}{} ({ext})",
                            r.task,
                            r.run.as_ref().map_or(String::new(), |n| format!(" run-{n}"))
                        );
                        if ui.button(name).on_hover_text(r.path.display().to_string()).clicked() {
                            cmds.push(Cmd::Open(r.path.clone()));
                        }
                    }
                };
                match ses {
                    Some(x) => {
                        egui::CollapsingHeader::new(format!("ses-{x}"))
                            .id_salt((s, x))
                            .default_open(true)
                            .show(ui, show);
                    }
                    None => show(ui),
                }
            }
        });
    }
}
