//! The case review view: case reports the refining pass flagged (`if_manual`) are approved, edited (their
//! report levels and conclusion) or rejected, and the memory is rewritten atomically; until then CARD leaves
//! them out. The same rules as `brainlens cases review` (`retrieval::case_review`).

use crate::retrieval::case_review::{EDITABLE, Verdict};
use crate::retrieval::cases::CaseMemory;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Pending,
    Approve,
    Reject,
}

/// One flagged case as the reviewer sees it: its fields (editable) and the choice.
pub struct Row {
    pub id: String,
    pub label: String,
    pub fields: Vec<(String, String)>,
    original: Vec<(String, String)>,
    pub choice: Choice,
}

#[derive(Default)]
pub struct CaseReviewPanel {
    pub open: bool,
    /// The memory folder (or its memory.json).
    pub path: String,
    pub rows: Vec<Row>,
    pub message: Option<Result<String, String>>,
}

impl CaseReviewPanel {
    pub fn load(&mut self) {
        let path = PathBuf::from(self.path.trim());
        match CaseMemory::load(&path) {
            Ok(m) => {
                self.rows = m
                    .flagged()
                    .map(|c| {
                        let fields: Vec<(String, String)> = EDITABLE
                            .iter()
                            .map(|f| (f.to_string(), c.report[*f].as_str().unwrap_or("").to_string()))
                            .collect();
                        Row {
                            id: c.id.clone(),
                            label: c.label.clone(),
                            original: fields.clone(),
                            fields,
                            choice: Choice::Pending,
                        }
                    })
                    .collect();
                self.message = Some(Ok(format!("{} case(s) to review", self.rows.len())));
            }
            Err(e) => self.message = Some(Err(e.to_string())),
        }
    }

    /// The reviewer's verdicts: approved rows whose text changed are edits.
    pub fn verdicts(&self) -> Vec<(String, Verdict)> {
        self.rows
            .iter()
            .filter_map(|r| {
                let changed: Vec<(String, String)> =
                    r.fields.iter().zip(&r.original).filter(|(a, b)| a.1 != b.1).map(|(a, _)| a.clone()).collect();
                let v = match r.choice {
                    Choice::Pending => return None,
                    Choice::Reject => Verdict::Reject,
                    Choice::Approve if changed.is_empty() => Verdict::Approve,
                    Choice::Approve => Verdict::Edit(changed),
                };
                Some((r.id.clone(), v))
            })
            .collect()
    }

    /// Applies the verdicts to the memory on disk and rewrites it; the view reloads.
    pub fn save(&mut self) {
        let path = PathBuf::from(self.path.trim());
        let verdicts = self.verdicts();
        let result = (|| -> Result<String, String> {
            let mut m = CaseMemory::load(&path).map_err(|e| e.to_string())?;
            let done = m.review(&verdicts).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = m.save(&path).map_err(|e| e.to_string())?;
            Ok(format!(
                "saved {}: {} approved, {} edited, {} rejected",
                file.display(),
                done.approved.len(),
                done.edited.len(),
                done.rejected.len()
            ))
        })();
        if result.is_ok() {
            self.load();
        }
        self.message = Some(result);
    }

    pub fn show(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let mut open = self.open;
        egui::Window::new("Review cases").open(&mut open).default_width(680.0).show(ctx, |ui| {
            ui.horizontal(|ui| {
                let l = ui.label("Case memory");
                ui.add(
                    egui::TextEdit::singleline(&mut self.path).desired_width(380.0).hint_text("folder of memory.json"),
                )
                .labelled_by(l.id);
                if ui.button("Load").clicked() {
                    self.load();
                }
                if ui.add_enabled(!self.rows.is_empty(), egui::Button::new("Save")).clicked() {
                    self.save();
                }
            });
            crate::ui::widgets::outcome(ui, &self.message);
            egui::ScrollArea::vertical().max_height(440.0).show(ui, |ui| {
                for r in &mut self.rows {
                    ui.separator();
                    ui.horizontal(|ui| {
                        ui.strong(format!("{} ({})", r.id, r.label));
                        ui.radio_value(&mut r.choice, Choice::Pending, "undecided");
                        ui.radio_value(&mut r.choice, Choice::Approve, format!("approve {}", r.id));
                        ui.radio_value(&mut r.choice, Choice::Reject, format!("reject {}", r.id));
                    });
                    for (name, text) in &mut r.fields {
                        ui.weak(name.as_str());
                        ui.add(egui::TextEdit::multiline(text).desired_rows(1).desired_width(640.0));
                    }
                }
            });
        });
        self.open = open;
    }
}
