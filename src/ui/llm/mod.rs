//! The language-model window: provider settings (the key is held for the session only, never persisted),
//! "Test connection" with measured latency and tokens/s, the local model catalogue (fetch, use, remove), and a
//! small chat for trying a model.

mod catalogue;
mod chat;
mod settings;

pub use chat::request as chat_request;

use crate::llm::config::{ProviderConfig, Purpose, Secret};
use crate::llm::{ChatModel, ChatResponse};
use crate::ui::jobs::Job;
use std::sync::Arc;

/// A built provider with the settings it was built from (rebuilt when they change).
type Built = (ProviderConfig, Arc<dyn ChatModel>);

#[derive(Default)]
pub struct LlmWindow {
    pub open: bool,
    /// Typed API key: this session only (not in the settings file, not in screenshots: a password field).
    pub key_input: String,
    model: Option<Built>,
    test: Option<Job<(Built, ChatResponse)>>,
    pub test_result: Option<Result<String, String>>,
    pub chat: chat::Chat,
    /// The local model path last checked, whether it exists, and how many GGUF files the cache holds.
    model_check: Option<(std::path::PathBuf, bool, usize)>,
    /// A catalogue model being fetched, and the last fetch's or removal's outcome.
    fetching: Option<catalogue::Fetching>,
    pub fetch_result: Option<Result<String, String>>,
    /// Each catalogue model's state in the cache and the default model's file name, as last looked up.
    model_states: Option<(Vec<crate::llm::catalogue::State>, String)>,
}

impl LlmWindow {
    /// The settings with the key filled in: the typed one, else BRAINLENS_API_KEY / BRAINBENCH_API_KEY.
    pub fn effective(&self, settings: &ProviderConfig) -> ProviderConfig {
        let mut config = settings.clone();
        config.api_key =
            Secret::new(self.key_input.clone()).or_else(|| ProviderConfig::from_env(Purpose::Agent).api_key);
        config
    }

    /// The provider for `config`: the one already built when the settings are the same.
    fn cached(&self, config: &ProviderConfig) -> Option<Arc<dyn ChatModel>> {
        self.model.as_ref().filter(|(c, _)| c == config && c.api_key == config.api_key).map(|(_, m)| m.clone())
    }

    pub fn busy(&self) -> bool {
        self.test.as_ref().is_some_and(|j| j.is_running()) || self.chat.busy() || self.fetching.is_some()
    }

    pub fn show(&mut self, ctx: &egui::Context, settings: &mut ProviderConfig) {
        self.poll();
        let mut open = self.open;
        egui::Window::new("Language model").open(&mut open).default_width(760.0).vscroll(true).show(ctx, |ui| {
            self.settings_form(ui, settings);
            if settings.provider == crate::llm::config::ProviderKind::Local {
                ui.separator();
                self.catalogue_section(ui, settings);
            }
            ui.separator();
            let config = self.effective(settings);
            let cached = self.cached(&config);
            if let Some(built) = self.chat.show(ui, config, cached) {
                self.model = Some(built);
            }
        });
        self.open = open;
        if self.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }

    fn poll(&mut self) {
        if let Some(job) = self.test.as_mut() {
            if let Some(result) = job.poll() {
                self.test = None;
                self.test_result = Some(match result {
                    Ok(Some((built, r))) => {
                        let line = format!(
                            "OK · {} · {:.0} ms · {} prompt + {} completion tokens · {:.1} tokens/s",
                            built.1.name(),
                            r.latency_ms,
                            r.usage.prompt_tokens,
                            r.usage.completion_tokens,
                            r.tokens_per_second()
                        );
                        self.model = Some(built);
                        Ok(line)
                    }
                    Ok(None) => Err("cancelled".into()),
                    Err(e) => Err(format!("{e:#}")),
                });
            }
        }
    }

    fn test_connection(&mut self, config: ProviderConfig) {
        let cached = self.cached(&config);
        self.test_result = None;
        self.test = Some(Job::spawn("test connection", 1, move |_, _| {
            let model = match cached {
                Some(m) => m,
                None => config.build().map_err(|e| anyhow::anyhow!("{e}"))?,
            };
            let mut request = crate::llm::ChatRequest::user("Reply with the single word OK.");
            request.max_tokens = 16;
            let response = model.chat(&request).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Some(((config, model), response)))
        }));
    }
}
