//! The parser audit view (the BrainBench paper's E.9): the model chosen in the Model window re-parses N stored
//! reports of the open collection, in the background; agreement with the stored parser output overall, per
//! unit and per target model, and every disagreement. The same rules as `brainlens bench audit-parser`
//! (`harness::parser_audit`).

use super::Loaded;
use crate::bench::case::Case;
use crate::harness::parser_audit::{Agreement, ParserAudit, audit_picked, pick};
use crate::llm::config::ProviderConfig;
use crate::ui::jobs::Job;
use crate::util::cancel::Cancel;

pub struct AuditPanel {
    /// Instances to re-parse.
    pub n: usize,
    pub job: Option<Job<ParserAudit>>,
    pub result: Option<ParserAudit>,
    pub error: Option<String>,
}

impl Default for AuditPanel {
    fn default() -> Self {
        AuditPanel { n: 50, job: None, result: None, error: None }
    }
}

impl AuditPanel {
    /// Starts the audit of `data` with `provider` in the background; only the picked instances and their
    /// cases are copied to it.
    pub fn start(&mut self, data: &Loaded, provider: &ProviderConfig) {
        let picked = pick(&data.collection, self.n.max(1));
        let mut sources: Vec<&String> = picked.iter().filter_map(|(_, i)| i.source_json.as_ref()).collect();
        sources.sort();
        sources.dedup();
        let cases: Vec<Case> = sources.into_iter().filter_map(|s| data.cases.get(s)?.clone()).collect();
        let provider = provider.clone();
        self.error = None;
        self.job = Some(Job::spawn_with("Parser audit", 1, Cancel::default(), move |_, cancel| {
            let model = provider.build().map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Some(audit_picked(&picked, &cases, model.as_ref(), cancel)))
        }));
    }

    pub fn show(&mut self, ui: &mut egui::Ui, data: &Loaded, provider: &ProviderConfig) {
        if let Some(done) = self.job.as_mut().and_then(|j| j.poll()) {
            self.job = None;
            match done {
                Ok(r) => self.result = r,
                Err(e) => self.error = Some(format!("{e:#}")),
            }
        }
        ui.label(
            "A second parser model (the one chosen in the Model window) re-reads stored reports; each field is \
             compared with the stored parser output (numbers to 1e-9, text case-folded, set answers as sets).",
        );
        ui.horizontal(|ui| {
            let l = ui.label("Instances");
            ui.add(egui::DragValue::new(&mut self.n).range(1..=100_000)).labelled_by(l.id);
            let running = self.job.is_some();
            if ui.add_enabled(!running, egui::Button::new("Audit parser")).clicked() {
                self.start(data, provider);
            }
            if running {
                ui.spinner();
                if ui.button("Stop").clicked() {
                    if let Some(j) = &self.job {
                        j.cancel();
                    }
                }
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
        let Some(a) = &self.result else { return };
        ui.separator();
        ui.strong(format!(
            "{} instance(s) re-parsed by {}: {}/{} fields agree ({:.2} %)",
            a.instances,
            a.parser,
            a.overall.agree,
            a.overall.fields,
            100.0 * a.overall.share
        ));
        for s in a.skipped.iter().take(5) {
            ui.weak(format!("not audited: {s}"));
        }
        let table = |ui: &mut egui::Ui, id: &str, head: &str, rows: &[Agreement]| {
            egui::Grid::new(id).striped(true).show(ui, |ui| {
                for h in [head, "Fields", "Agree", "Agreement"] {
                    ui.strong(h);
                }
                ui.end_row();
                for g in rows {
                    ui.label(&g.key);
                    ui.label(g.fields.to_string());
                    ui.label(g.agree.to_string());
                    ui.label(format!("{:.2} %", 100.0 * g.share));
                    ui.end_row();
                }
            });
        };
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| table(ui, "audit_units", "Unit", &a.by_unit));
            ui.add_space(24.0);
            ui.vertical(|ui| table(ui, "audit_models", "Target model", &a.by_model));
        });
        if !a.disagreements.is_empty() {
            ui.separator();
            ui.strong("Disagreements");
            egui::ScrollArea::vertical().max_height(260.0).show(ui, |ui| {
                egui::Grid::new("audit_diffs").striped(true).show(ui, |ui| {
                    for h in ["Instance", "Field", "Stored", "Audited"] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for d in &a.disagreements {
                        ui.label(&d.instance_id);
                        ui.label(&d.target_key);
                        ui.label(d.stored.to_string());
                        ui.label(d.audited.to_string());
                        ui.end_row();
                    }
                });
            });
        }
    }
}
