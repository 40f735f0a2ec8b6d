//! The provider form of the language-model window.

use super::LlmWindow;
use crate::llm::config::{ProviderConfig, ProviderKind, cached_models, default_model_path};

impl LlmWindow {
    pub(super) fn settings_form(&mut self, ui: &mut egui::Ui, s: &mut ProviderConfig) {
        egui::Grid::new("llm settings").num_columns(2).spacing([8.0, 6.0]).show(ui, |ui| {
            ui.label("Provider");
            egui::ComboBox::from_id_salt("llm provider")
                .selected_text(match s.provider {
                    ProviderKind::Local => "Local GGUF (offline)",
                    ProviderKind::Openai => "OpenAI-compatible endpoint",
                    ProviderKind::Replay => "Replay a transcript",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut s.provider, ProviderKind::Local, "Local GGUF (offline)");
                    ui.selectable_value(&mut s.provider, ProviderKind::Openai, "OpenAI-compatible endpoint");
                    ui.selectable_value(&mut s.provider, ProviderKind::Replay, "Replay a transcript");
                });
            ui.end_row();
            match s.provider {
                ProviderKind::Local => {
                    let label = ui.label("Model file");
                    ui.add(
                        egui::TextEdit::singleline(&mut s.model_path)
                            .hint_text(default_model_path().display().to_string())
                            .desired_width(340.0),
                    )
                    .labelled_by(label.id);
                    ui.end_row();
                    ui.label("");
                    let path = s.local_model_path();
                    // Looked up when the path changes, not every frame.
                    if self.model_check.as_ref().is_none_or(|(p, ..)| *p != path) {
                        self.model_check = Some((path.clone(), path.is_file(), cached_models().len()));
                    }
                    let (_, present, cached) = self.model_check.clone().unwrap_or_default();
                    if present {
                        ui.weak(format!("{} ({cached} GGUF in the model cache)", path.display()));
                    } else {
                        ui.colored_label(
                            ui.visuals().warn_fg_color,
                            format!(
                                "{} is missing: fetch a model below, or run scripts/setup_models.sh",
                                path.display()
                            ),
                        );
                    }
                    ui.end_row();
                }
                ProviderKind::Openai => {
                    let label = ui.label("Base URL");
                    ui.add(
                        egui::TextEdit::singleline(&mut s.base_url)
                            .hint_text("http://127.0.0.1:8080/v1")
                            .desired_width(340.0),
                    )
                    .labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("Model");
                    ui.add(egui::TextEdit::singleline(&mut s.model).desired_width(340.0)).labelled_by(label.id);
                    ui.end_row();
                    let label = ui.label("API key");
                    ui.add(egui::TextEdit::singleline(&mut self.key_input).password(true).desired_width(340.0))
                        .labelled_by(label.id);
                    ui.end_row();
                    ui.label("");
                    let from_env = self.key_input.is_empty() && self.effective(s).api_key.is_some();
                    ui.weak(if from_env {
                        "Using the key from BRAINLENS_API_KEY. Keys are never written to the settings file."
                    } else {
                        "Kept for this session only, never written to disk; or set BRAINLENS_API_KEY."
                    });
                    ui.end_row();
                    ui.label("Timeout (s)");
                    ui.add(egui::DragValue::new(&mut s.timeout_s).range(1.0..=3600.0));
                    ui.end_row();
                    ui.label("Retries");
                    ui.add(egui::DragValue::new(&mut s.max_retries).range(0..=10));
                    ui.end_row();
                }
                ProviderKind::Replay => {}
            }
            let label = ui.label("Transcript");
            ui.add(egui::TextEdit::singleline(&mut s.transcript).hint_text("calls.jsonl").desired_width(340.0))
                .labelled_by(label.id);
            ui.end_row();
            if s.provider != ProviderKind::Replay {
                ui.label("");
                ui.checkbox(&mut s.record, "Record every call to the transcript (keys redacted)");
                ui.end_row();
            }
        });
        ui.horizontal(|ui| {
            let testing = self.test.as_ref().is_some_and(|j| j.is_running());
            if ui.add_enabled(!testing, egui::Button::new("Test connection")).clicked() {
                self.test_connection(self.effective(s));
            }
            if testing {
                ui.spinner();
                ui.label("asking the model for one word…");
            }
        });
        crate::ui::widgets::outcome(ui, &self.test_result);
    }
}
