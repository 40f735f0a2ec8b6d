//! A small chat for trying the configured model; replies stream in as they are generated.

use super::Built;
use crate::llm::config::ProviderConfig;
use crate::llm::{ChatModel, ChatRequest, ChatResponse, Message, Role};
use crate::ui::jobs::Job;
use crate::util::cancel::Cancel;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

#[derive(Default)]
pub struct Chat {
    pub messages: Vec<Message>,
    pub input: String,
    job: Option<Job<(Built, ChatResponse)>>,
    deltas: Option<Receiver<String>>,
    pub streaming: String,
    pub error: Option<String>,
    pub stats: Option<String>,
    cancel: Cancel,
}

/// The request the chat sends for a conversation.
pub fn request(messages: &[Message]) -> ChatRequest {
    ChatRequest { max_tokens: 256, stream: true, ..ChatRequest::new(messages.to_vec()) }
}

impl Chat {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    fn send(&mut self, config: ProviderConfig, cached: Option<Arc<dyn ChatModel>>) {
        let text = self.input.trim().to_string();
        if text.is_empty() || self.busy() {
            return;
        }
        self.input.clear();
        self.messages.push(Message::user(text));
        self.error = None;
        self.streaming.clear();
        let request = request(&self.messages);
        let (tx, rx) = channel();
        self.deltas = Some(rx);
        self.cancel = Cancel::default();
        let cancel = self.cancel.clone();
        self.job = Some(Job::spawn_with("chat", 1, cancel.clone(), move |_, _| {
            let model = match cached {
                Some(m) => m,
                None => config.build().map_err(|e| anyhow::anyhow!("{e}"))?,
            };
            let response = model
                .chat_with(&request, &cancel, &mut |d| {
                    let _ = tx.send(d.to_string());
                })
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Some(((config, model), response)))
        }));
    }

    /// Draws the chat; returns the provider it built, for reuse.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        config: ProviderConfig,
        cached: Option<Arc<dyn ChatModel>>,
    ) -> Option<Built> {
        let mut built = None;
        if let Some(rx) = &self.deltas {
            while let Ok(d) = rx.try_recv() {
                self.streaming.push_str(&d);
            }
        }
        if let Some(result) = self.job.as_mut().and_then(|j| j.poll()) {
            self.job = None;
            match result {
                Ok(Some((b, r))) => {
                    self.stats = Some(format!(
                        "{} · {:.0} ms · {} completion tokens · {:.1} tokens/s · finish {}",
                        b.1.name(),
                        r.latency_ms,
                        r.usage.completion_tokens,
                        r.tokens_per_second(),
                        r.finish_reason
                    ));
                    self.messages.push(Message::assistant(r.text));
                    built = Some(b);
                }
                Ok(None) => self.error = Some("cancelled".into()),
                Err(e) => self.error = Some(format!("{e:#}")),
            }
            self.streaming.clear();
        }

        ui.strong("Chat");
        ui.weak("Replies are text written by a language model, not measurements.");
        egui::ScrollArea::vertical().max_height(260.0).stick_to_bottom(true).show(ui, |ui| {
            for m in &self.messages {
                bubble(ui, m.role, &m.content);
            }
            if self.busy() {
                bubble(ui, Role::Assistant, &format!("{} …", self.streaming));
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(s) = &self.stats {
            ui.weak(s);
        }
        ui.horizontal(|ui| {
            let label = ui.label("Message");
            let edit = ui.add(egui::TextEdit::singleline(&mut self.input).desired_width(300.0)).labelled_by(label.id);
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.add_enabled(!self.busy(), egui::Button::new("Send")).clicked() || enter {
                self.send(config, cached);
            }
            if self.busy() && ui.button("Stop").clicked() {
                self.cancel.cancel();
            }
            if !self.busy() && !self.messages.is_empty() && ui.button("Clear").clicked() {
                self.messages.clear();
                self.stats = None;
                self.error = None;
            }
        });
        built
    }
}

fn bubble(ui: &mut egui::Ui, role: Role, text: &str) {
    let who = match role {
        Role::User => "You",
        Role::Assistant => "Model",
        Role::System => "System",
    };
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("{who}:"));
        ui.label(text);
    });
}
