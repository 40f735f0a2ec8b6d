//! The chat template stored in the GGUF (`tokenizer.chat_template`), rendered with minijinja as
//! Hugging Face's `apply_chat_template` does.

use crate::llm::local::error::LocalError;
use crate::llm::types::Message;
use minijinja::{Environment, Error, ErrorKind, context};

pub struct ChatTemplate {
    env: Environment<'static>,
    bos: String,
    eos: String,
}

impl ChatTemplate {
    pub fn new(source: &str, bos: &str, eos: &str) -> Result<ChatTemplate, LocalError> {
        let mut env = Environment::new();
        env.add_function("raise_exception", |msg: String| -> Result<String, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_template_owned("chat", source.to_string()).map_err(|e| format!("chat template: {e}"))?;
        Ok(ChatTemplate { env, bos: bos.to_string(), eos: eos.to_string() })
    }

    /// The prompt text for `messages`, ending with the assistant turn's opening.
    pub fn render(&self, messages: &[Message]) -> Result<String, LocalError> {
        let template = self.env.get_template("chat").map_err(|e| LocalError::from(e.to_string()))?;
        template
            .render(context! {
                messages => messages,
                add_generation_prompt => true,
                bos_token => self.bos,
                eos_token => self.eos,
            })
            .map_err(|e| format!("chat template: {e}").into())
    }
}
