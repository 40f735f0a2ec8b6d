//! Building the provider a `ProviderConfig` names: the in-process GGUF, an OpenAI-compatible endpoint or a
//! transcript replay, wrapped in the recorder when asked to record.

use super::config::{ProviderConfig, ProviderKind};
use super::error::LlmError;
use super::types::ChatModel;
use super::{local, openai, replay};
use std::path::Path;
use std::sync::Arc;

impl ProviderConfig {
    /// Builds the provider (loading the local model takes about a second).
    pub fn build(&self) -> Result<Arc<dyn ChatModel>, LlmError> {
        let inner: Arc<dyn ChatModel> = match self.provider {
            ProviderKind::Local => local::LocalModel::shared(&self.local_model_path())?,
            ProviderKind::Openai => Arc::new(openai::OpenAiClient::new(self)?),
            ProviderKind::Replay => {
                return Ok(Arc::new(replay::Replay::open(Path::new(&self.transcript))?));
            }
        };
        if self.record && !self.transcript.trim().is_empty() {
            let secrets: Vec<String> = self.api_key.iter().map(|k| k.expose().to_string()).collect();
            return Ok(Arc::new(replay::Recorder::new(inner, Path::new(&self.transcript), secrets)?));
        }
        Ok(inner)
    }
}
