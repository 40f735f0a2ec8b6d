//! The knowledge review view: items written by `kb build` (status needs_review) are approved, edited or
//! rejected, and the file is rewritten atomically. Approved items lose the mark and HARK starts offering them.

use crate::retrieval::knowledge::Item;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pending,
    Approve,
    Reject,
}

#[derive(Default)]
pub struct ReviewPanel {
    pub open: bool,
    pub path: String,
    /// Every item of the file with the reviewer's verdict (items already approved stay as they are).
    pub items: Vec<(Item, Verdict)>,
    pub message: Option<Result<String, String>>,
}

impl ReviewPanel {
    pub fn load(&mut self) {
        let path = self.path.trim().to_string();
        let read = || -> anyhow::Result<Vec<Item>> {
            let text = std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(n, l)| serde_json::from_str(l).map_err(|e| anyhow::anyhow!("{path} line {}: {e}", n + 1)))
                .collect()
        };
        match read() {
            Ok(items) => {
                let pending = items.iter().filter(|i| i.status.as_deref() == Some("needs_review")).count();
                self.items = items.into_iter().map(|i| (i, Verdict::Pending)).collect();
                self.message = Some(Ok(format!("{pending} item(s) to review")));
            }
            Err(e) => self.message = Some(Err(format!("{e:#}"))),
        }
    }

    /// Writes approved items without the mark, drops rejected ones, keeps the rest (atomic rewrite).
    pub fn save(&mut self) {
        let path = Path::new(self.path.trim()).to_path_buf();
        let mut lines = Vec::new();
        let (mut approved, mut rejected) = (0, 0);
        for (item, verdict) in &self.items {
            match verdict {
                Verdict::Reject => rejected += 1,
                Verdict::Approve => {
                    approved += 1;
                    let mut i = item.clone();
                    i.status = None;
                    lines.push(serde_json::to_string(&i).unwrap_or_default());
                }
                Verdict::Pending => lines.push(serde_json::to_string(item).unwrap_or_default()),
            }
        }
        let tmp = path.with_extension("jsonl.partial");
        let result = std::fs::write(&tmp, lines.join("\n") + "\n").and_then(|_| std::fs::rename(&tmp, &path));
        match result {
            Ok(()) => {
                self.load();
                self.message = Some(Ok(format!("saved {}: {approved} approved, {rejected} rejected", path.display())));
            }
            Err(e) => self.message = Some(Err(format!("{}: {e}", path.display()))),
        }
    }

    pub fn show(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let mut open = self.open;
        egui::Window::new("Review knowledge").open(&mut open).default_width(640.0).show(ctx, |ui| {
            ui.horizontal(|ui| {
                let l = ui.label("Items file");
                ui.add(
                    egui::TextEdit::singleline(&mut self.path)
                        .desired_width(380.0)
                        .hint_text("written by brainlens kb build"),
                )
                .labelled_by(l.id);
                if ui.button("Load").clicked() {
                    self.load();
                }
                if ui.add_enabled(!self.items.is_empty(), egui::Button::new("Save")).clicked() {
                    self.save();
                }
            });
            crate::ui::widgets::outcome(ui, &self.message);
            egui::ScrollArea::vertical().max_height(420.0).show(ui, |ui| {
                for (item, verdict) in
                    self.items.iter_mut().filter(|(i, _)| i.status.as_deref() == Some("needs_review"))
                {
                    ui.separator();
                    ui.horizontal(|ui| {
                        ui.strong(&item.id);
                        ui.radio_value(verdict, Verdict::Pending, "undecided");
                        ui.radio_value(verdict, Verdict::Approve, format!("approve {}", item.id));
                        ui.radio_value(verdict, Verdict::Reject, format!("reject {}", item.id));
                    });
                    ui.add(egui::TextEdit::multiline(&mut item.text).desired_rows(2).desired_width(600.0));
                    ui.weak(format!(
                        "regions ({}): {} · {}",
                        if item.atlas.is_empty() { "none" } else { &item.atlas },
                        item.regions.join(", "),
                        item.source
                    ));
                }
            });
        });
        self.open = open;
    }
}
